"""The message catalogues: every rule named in both languages, the same keys and placeholders in both, plurals,
and money as Babel writes it."""

from __future__ import annotations

import string

import pytest

from audit.rules import Rule
from audit.words import LANGS, amount, catalogue, chips, money, quantity, rule_name, rule_what, say


def placeholders(entry: str | dict[str, str]) -> set[str]:
    texts = entry.values() if isinstance(entry, dict) else [entry]
    return {name for text in texts for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_id_has_a_name_and_a_sentence(lang: str) -> None:
    keys = catalogue(lang)
    missing = [f"rule.{r.value}.{part}" for r in Rule for part in ("name", "what")
               if not str(keys.get(f"rule.{r.value}.{part}", "")).strip()]
    assert not missing, f"{lang}.toml lacks {missing}"
    names = [rule_name(r.value, lang) for r in Rule]
    assert len(set(names)) == len(names), "two rules share a name"
    assert all(n != r.value for n, r in zip(names, Rule))


def test_no_message_names_a_rule_that_does_not_exist() -> None:
    rules = {r.value for r in Rule}
    stray = {k.split(".")[1] for k in catalogue("en") if k.startswith("rule.")} - rules
    assert not stray


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    en, es = catalogue("en"), catalogue("es")
    assert set(en) == set(es)
    differ = {k for k in en if placeholders(en[k]) != placeholders(es[k])}
    assert not differ, differ


def test_spanish_differs_from_english_where_words_are_said() -> None:
    en, es = catalogue("en"), catalogue("es")
    same = {k for k in en if en[k] == es[k] and any(c.isalpha() for c in str(en[k]))
            and k not in {"severity.error", "label.total", "check.finding", "check.finding_player"}}
    assert not same, sorted(same)


def test_plurals_follow_the_number() -> None:
    assert chips(1, "en") == "1 chip" and chips(2, "en") == "2 chips" and chips(0, "en") == "0 chips"
    assert chips(1, "es") == "1 ficha" and chips(2, "es") == "2 fichas"
    assert chips(-1, "es") == "-1 ficha"
    assert say("unit.findings", "es", n=1) == "1 incidencia"


def test_money_is_formatted_by_babel_for_the_language() -> None:
    nbsp = "\u00a0"
    assert money(152, "USD", "en") == "$1.52"
    assert money(152, "EUR", "es").replace(nbsp, " ") == "1,52 €"
    assert money(10, "USD", "es").replace(nbsp, " ") == "0,10 US$"
    assert money(123456, "USD", "en") == "$1,234.56"
    assert quantity(5, "USD", "en") == "$0.05" and quantity(5, "", "en") == "5 chips"
    assert amount(1000, "", "en") == "1,000" and amount(1000, "", "es") == "1.000"


def test_say_fills_parameters_and_refuses_unknown_keys() -> None:
    assert say("verdict.owes", "es", payer="Beto", payee="Ana", amount=chips(1, "es")) == "Beto debe 1 ficha a Ana."
    assert say("hand_name.straight", "es", from_a=say("rank.from.6", "es"), to_b=say("rank.to.10", "es")) \
        == "escalera, del seis al diez"
    assert say("verdict.owes", "fr", payer="A", payee="B", amount="1") == "A owes B 1."  # unknown → English
    assert rule_what("NO_SUCH_RULE", "en") == "" and rule_name("NO_SUCH_RULE", "es") == "NO_SUCH_RULE"
    with pytest.raises(KeyError):
        say("no.such.key", "en")


def test_check_speaks_spanish_and_keeps_json_english() -> None:
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from audit.cli import main

    path = Path(__file__).resolve().parents[1] / "fixtures" / "demo" / "reopen-dispute.txt"
    es = CliRunner().invoke(main, ["check", str(path), "--lang", "es"])
    assert es.exit_code == 1
    assert ("Ana subió hasta 11, pero a Ana no se le había reabierto la apuesta: desde su apuesta de 4, la apuesta "
            "solo subió 3, menos que una subida completa de 4.") in es.output
    assert "línea 24" in es.output and "infracción" in es.output
    assert "Revisión de 1 mano en 1 archivo: 1 infracción, 0 avisos, 0 errores" in es.output
    assert "raised" not in es.output and "violation" not in es.output
    js = CliRunner().invoke(main, ["check", str(path), "--lang", "es", "--format", "json"])
    found = [json.loads(line) for line in js.output.splitlines() if line.strip()]
    assert [f["rule"] for f in found] == ["RAISE_NOT_REOPENED"] and found[0]["message"].startswith("Ana raised")


def test_check_does_not_load_the_page_templates() -> None:
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "demo" / "reopen-dispute.txt"
    code = ("import sys; from audit.cli import main\n"
            "try:\n    main(['check', '--lang', 'es', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('jinja2', 'duckdb') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_the_stored_catalogues_are_the_message_files_as_they_are() -> None:
    from audit import words

    for lang in LANGS:
        source = (words._HERE / f"{lang}.toml").read_bytes().decode()
        stored = words.stored_catalogue(lang, source)
        assert stored is not None, f"{lang}.toml changed since its catalogue was stored: run `make tables`"
        parsed = words.read_catalogue(source)
        assert stored == parsed and list(stored) == list(parsed)  # the same keys, in the same order
        assert catalogue(lang) == parsed


def test_a_catalogue_stored_for_another_text_is_not_used(tmp_path: object) -> None:
    from pathlib import Path

    from audit import words

    folder = Path(str(tmp_path))
    for lang in LANGS:
        (folder / f"{lang}.toml").write_bytes((words._HERE / f"{lang}.toml").read_bytes())
    words.write_stored(folder)
    source = (folder / "en.toml").read_bytes().decode()
    saved = words._HERE
    try:
        words._HERE = folder
        assert words.stored_catalogue("en", source) is not None
        assert words.stored_catalogue("en", source.replace("{n} chips", "{n} jetons")) is None
        (folder / "en.toml").write_text(source.replace('other = "{n} chips"', 'other = "{n} jetons"'),
                                        encoding="utf-8")
        words.catalogue.cache_clear()
        assert words.catalogue("en")["unit.chips"] == {"one": "{n} chip", "other": "{n} jetons"}
        (folder / "en.json").write_text("{not json", encoding="utf-8")
        words.catalogue.cache_clear()
        assert words.catalogue("en")["unit.chips"] == {"one": "{n} chip", "other": "{n} jetons"}
    finally:
        words._HERE = saved
        words.catalogue.cache_clear()
    assert chips(2, "en") == "2 chips"


def _numbers() -> list[int]:
    import random

    rng = random.Random(31)
    found = set(range(-2100, 2100))
    for k in range(3, 26):
        for n in (10**k, 10**k - 1, 10**k + 1, 2 * 10**k, 10**k * 7 // 3):
            found |= {n, -n}
    found |= {rng.randrange(-10**k, 10**k) for k in range(4, 20) for _ in range(200)}
    found |= {1_000_000 * rng.randrange(1, 10**9) for _ in range(500)}
    return sorted(found)


@pytest.mark.parametrize("lang", LANGS)
def test_numbers_and_plural_forms_are_babels(lang: str) -> None:
    """``number`` and the plural forms, said without Babel below 10**18, are Babel's (and beyond it, Babel's
    own answer or its failure)."""
    from babel import Locale
    from babel.numbers import format_decimal

    from audit import words

    locale = Locale.parse(lang)
    for n in _numbers():
        try:
            expected: str | type[Exception] = str(format_decimal(n, locale=locale))
        except Exception as exc:  # (Babel refuses numbers of 25 digits and more)
            expected = type(exc)
        if isinstance(expected, str):
            assert words.number(n, lang) == expected, n
        else:
            with pytest.raises(expected):
                words.number(n, lang)
        assert words.plural_form(abs(n), lang) == locale.plural_form(abs(n)), n
