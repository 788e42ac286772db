"""Every sentence the program says to people, in English and Spanish, from one message file per language.

``en.toml`` and ``es.toml`` beside this module map keys to templates with named placeholders
(``"{payer} owes {payee} {amount}."``). A template that depends on a number is a table of plural forms
(``one``, ``other``, as Babel names them for the language) chosen by the parameter ``n``. Numbers and money
are formatted by Babel for the language: ``$1.52`` / ``1,52 US$``, ``1,000`` / ``1.000``; chips stay chips
(``1 chip`` / ``2 fichas``).

The API is small and stable: ``say(key, lang, **params)``; ``number``, ``money``, ``chips``; and, by a hand's
unit (``""`` for chips, else an ISO currency code; amounts are then integer cents), ``amount`` (a bare figure
for tables) and ``quantity`` (a figure with its unit, for sentences). ``rule_name`` / ``rule_what`` name a
rule id. ``hand_name`` says a hand's stated name (``a straight, Six to Ten``) in a language.

Findings carry a message id (``finding.<RULE>.<variant>``) and parameters as ``(name, value)`` pairs, rendered by
``finding_message(key, lang, params)``. A parameter's name says what its value is:

- ``unit``: the hand's currency (ISO 4217; absent or ``""`` for chips); it decides how amounts are said;
- ``amount`` or a name ending in ``_amount``: an int amount as a bare figure (``7``, or ``$0.07`` in a
  currency hand); ``chips`` or ``…_chips``: an amount with its unit (``7 chips`` / ``7 fichas``, ``$0.07``);
  ``…_delta``: a signed amount (``+3``, ``-$0.03``);
- ``n``: a count that also chooses the plural form; any other int is said as a plain figure (``1980``, not
  grouped, so that English messages stay as they always were);
- ``…_word``: a message key whose text in the language is put in (``post.small``), the value as given when the
  catalogue lacks it; ``…_parts``: message keys (one a line) rendered with the same parameters and joined by
  ``"; "``;
- ``…_and``: names (one a line) joined by the language's "and"; ``…_hand``: a hand's name as the log or the
  ranking states it in English, said in the language; ``…_pot``: a pot (``pot``, ``main``, ``side-2``) as a
  phrase (``the main pot``), capitalised when the template begins with it;
- ``…_items``: entries (one a line) of ``name=value`` fields separated by tabs, each rendered with the template
  ``item.<stem>`` (the name less ``_items``) by these same conventions and joined by ``"; "``;
- ``…_en``: English text from elsewhere (a parser's reason with the line and a caret): put in as it is in
  English, left out in another language;
- any other value is put in as it is (players' names, cards).
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from babel import Locale

LANGS = ("en", "es")
"""The languages with a message file; the first is the default and the fallback."""

Unit = str
"""What a hand's amounts count: ``""`` for chips, else an ISO 4217 code (``USD``) and amounts in cents."""

_HERE = Path(__file__).resolve().parent
_PLURAL_FORMS = frozenset({"zero", "one", "two", "few", "many", "other"})
STORED_FORMAT = 1
"""The format of ``<lang>.json``, each catalogue as read from its ``.toml``, stored beside it with the text it was
read from (``python -m audit.words`` writes them again): a command that says something reads the stored one while
the ``.toml`` is that text, without TOML's parser (0.01 s of Python, more than checking a small log)."""
# Whole numbers below this are said, and their plural form chosen, without Babel for the languages of
# ``_GROUP`` (Babel's locale data takes 0.02 s to load; a test holds both to Babel's): ``#,##0`` with the
# language's group separator, and CLDR's plural rules for integers. Larger ones go to Babel (which refuses some).
_PLAIN_LIMIT = 10**18
_GROUP = {"en": ",", "es": "."}


def _flatten(table: dict[str, Any], prefix: str, out: dict[str, str | dict[str, str]]) -> None:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, str):
            out[name] = value
        elif isinstance(value, dict) and value and set(value) <= _PLURAL_FORMS and "other" in value:
            out[name] = {k: str(v) for k, v in value.items()}
        elif isinstance(value, dict):
            _flatten(value, f"{name}.", out)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            for i, v in enumerate(value):  # one word per number: rank.one.10 = "Ten"
                out[f"{name}.{i}"] = v
        else:
            raise ValueError(f"words/{prefix or 'top'}: {key} is neither a template nor a table")


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str | dict[str, str]]:
    """Every key of ``lang``'s message file (dotted: ``rule.ODD_CHIP.name``) → its template or plural table."""
    if lang not in LANGS:
        raise ValueError(f"no messages for language {lang!r} (have: {', '.join(LANGS)})")
    source = (_HERE / f"{lang}.toml").read_bytes().decode()  # (as ``tomllib.load`` decodes it)
    stored = stored_catalogue(lang, source)
    return stored if stored is not None else read_catalogue(source)


def read_catalogue(source: str) -> dict[str, str | dict[str, str]]:
    """A message file's text → its catalogue (``catalogue``'s keys and values)."""
    import tomllib

    out: dict[str, str | dict[str, str]] = {}
    _flatten(tomllib.loads(source), "", out)
    return out


def stored_catalogue(lang: str, source: str) -> dict[str, str | dict[str, str]] | None:
    """``lang``'s catalogue stored beside its message file, when it was read from ``source`` (else ``None``)."""
    try:
        stored = json.loads((_HERE / f"{lang}.json").read_bytes())
    except (OSError, ValueError):
        return None
    if isinstance(stored, dict) and stored.get("format") == STORED_FORMAT and stored.get("source") == source:
        found: dict[str, str | dict[str, str]] = stored["catalogue"]
        return found
    return None


def write_stored(folder: Path = _HERE) -> list[Path]:
    """Store each language's catalogue beside its message file in ``folder`` (``python -m audit.words``)."""
    written = []
    for lang in LANGS:
        source = (folder / f"{lang}.toml").read_bytes().decode()
        path = folder / f"{lang}.json"
        path.write_text(json.dumps({"format": STORED_FORMAT, "source": source, "catalogue": read_catalogue(source)},
                                   ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
        written.append(path)
    return written


def language(lang: str | None) -> str:
    """``lang`` if there are messages for it, else the default (English)."""
    return lang if lang in LANGS else LANGS[0]


@lru_cache(maxsize=None)
def _locale(lang: str) -> Locale:
    from babel import Locale

    return Locale.parse(lang)


def plural_form(n: int, lang: str) -> str:
    """CLDR's plural category (``one``, ``many``, ``other`` …) of the whole number ``n`` ≥ 0 in ``lang``."""
    if n < _PLAIN_LIMIT:
        if lang == "en":
            return "one" if n == 1 else "other"
        if lang == "es":
            return "one" if n == 1 else "many" if n and n % 1_000_000 == 0 else "other"
    return str(_locale(lang).plural_form(n))


def has(key: str, lang: str = "en") -> bool:
    """Whether ``lang``'s message file has ``key``."""
    return key in catalogue(language(lang))


def template(key: str, lang: str, n: int | None = None) -> str:
    """The template of ``key`` in ``lang`` (its plural form for ``n``); English when ``lang`` lacks it
    (a test keeps the files complete); ``KeyError`` when no file has it."""
    lang = language(lang)
    entry = catalogue(lang).get(key)
    if entry is None:
        entry = catalogue(LANGS[0])[key]
    if isinstance(entry, dict):
        form = plural_form(abs(n), lang) if n is not None else "other"
        return entry.get(form) or entry["other"]
    return entry


def say(key: str, lang: str, **params: object) -> str:
    """The message ``key`` in ``lang`` with ``params`` filled in (ints as numbers of the language; ``n``
    chooses the plural form)."""
    lang = language(lang)
    n = params.get("n")
    text = template(key, lang, n if isinstance(n, int) else None)
    if not params:
        return text
    values = {k: number(v, lang) if isinstance(v, int) and not isinstance(v, bool) else v
              for k, v in params.items()}
    return text.format_map(values)


def number(n: int, lang: str) -> str:
    """A whole number as ``lang`` writes it (``1,000`` / ``1.000``)."""
    lang = language(lang)
    group = _GROUP.get(lang)
    if group is not None and type(n) is int and -_PLAIN_LIMIT < n < _PLAIN_LIMIT:
        text = f"{n:,}"
        return text if group == "," else text.replace(",", group)
    from babel.numbers import format_decimal

    return str(format_decimal(n, locale=_locale(lang)))


def money(cents: int, currency: str, lang: str) -> str:
    """An amount of integer cents in ``currency`` as Babel formats it for ``lang``: ``$1.52``, ``1,52 €``,
    ``0,10 US$`` (any number of digits: a log can hold absurd amounts)."""
    from decimal import Decimal, localcontext

    from babel.numbers import format_currency

    with localcontext() as context:
        context.prec = max(28, len(str(abs(cents))) + 4)
        return str(format_currency(Decimal(cents) / 100, currency, locale=_locale(language(lang))))


def chips(n: int, lang: str) -> str:
    """``1 chip`` / ``3 chips`` / ``1 ficha``."""
    return say("unit.chips", lang, n=n)


def amount(n: int, unit: Unit, lang: str) -> str:
    """A bare figure for tables and the table picture: money for a currency hand, else the number of chips."""
    return money(n, unit, lang) if unit else number(n, lang)


def quantity(n: int, unit: Unit, lang: str) -> str:
    """A figure with its unit, for sentences: ``$0.05`` or ``3 chips``."""
    return money(n, unit, lang) if unit else chips(n, lang)


def _finding_value(name: str, value: str | int, unit: Unit, lang: str, params: dict[str, str | int]) -> str:
    """One parameter of a finding's message, said by the conventions of the module's docstring."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        if name == "amount" or name.endswith("_amount"):
            return money(value, unit, lang) if unit else str(value)
        if name == "chips" or name.endswith("_chips"):
            return money(value, unit, lang) if unit else template("unit.chips", lang, value).format(n=value)
        if name.endswith("_delta"):
            return ("+" if value >= 0 else "-") + (money(abs(value), unit, lang) if unit else str(abs(value)))
        return str(value)
    if name.endswith("_word"):
        return say(value, lang) if value and has(value) else value
    if name.endswith("_en"):
        return value if lang == "en" else ""
    if name.endswith("_parts"):
        return "; ".join(_render(key, lang, params) for key in value.split("\n") if key)
    if name.endswith("_and"):
        return template("list.and", lang).join(value.split("\n"))
    if name.endswith("_hand"):
        return hand_name(value, lang)
    if name.endswith("_pot"):
        if value.startswith("side-"):
            return say("pot_phrase.side_n", lang, n=value[5:])
        return say(f"pot_phrase.{value}", lang) if has(f"pot_phrase.{value}") else value
    if name.endswith("_items"):
        stem = "item." + name[:-6]
        return "; ".join(_render(stem, lang, {**params, **_fields(entry)}) for entry in value.split("\n") if entry)
    return value


def _fields(entry: str) -> dict[str, str | int]:
    """An ``…_items`` entry's fields (``name=value`` separated by tabs); figures become ints."""
    out: dict[str, str | int] = {}
    for field in entry.split("\t"):
        name, _, value = field.partition("=")
        out[name] = int(value) if value.lstrip("-").isdigit() else value
    return out


@lru_cache(maxsize=None)
def placeholders(text: str) -> tuple[str, ...]:
    """The names a template puts in (``{player}`` …), in order."""
    return tuple(name for _, name, _, _ in string.Formatter().parse(text) if name)


def _render(key: str, lang: str, params: dict[str, str | int]) -> str:
    unit = str(params.get("unit") or "")
    n = params.get("n")
    text = template(key, lang, n if isinstance(n, int) else None)
    values = {name: _finding_value(name, params[name], unit, lang, params) for name in placeholders(text)}
    out = text.format_map(values)
    if text.startswith("{") and text[1:text.index("}")].endswith("_pot"):
        out = out[:1].upper() + out[1:]
    return out


def finding_message(key: str, lang: str, params: Iterable[tuple[str, str | int]] = ()) -> str:
    """A finding's message ``key`` in ``lang`` with its ``(name, value)`` parameters, said by the conventions of
    the module's docstring (amounts as money in a currency hand, as chips otherwise)."""
    return _render(key, language(lang), dict(params))


def hand_name(description: str, lang: str) -> str:
    """A hand's name as the log states it (``a straight, Six to Ten``), in ``lang`` (``escalera, del seis al
    diez``); the log's words when they cannot be read."""
    if lang == "en":
        return description
    from audit.cards import _parse_description

    parsed = _parse_description(description)
    if parsed is None:
        return description
    category, ranks = parsed
    if category == "straight flush" and ranks == (10, 14):
        return say("hand_name.royal", lang)
    words: dict[str, object] = {}
    for letter, value in zip("ab", ranks):
        words[letter] = say(f"rank.one.{value}", lang)
        words[letter * 2] = say(f"rank.many.{value}", lang)
        words[f"from_{letter}"] = say(f"rank.from.{value}", lang)
        words[f"to_{letter}"] = say(f"rank.to.{value}", lang)
    try:
        return say(f"hand_name.{category}", lang, **words)
    except (KeyError, IndexError):
        return description


def rule_name(rule: str, lang: str) -> str:
    """A rule id's readable name (``ODD_CHIP`` → "Odd chip to the wrong winner"); the id itself if unknown."""
    key = f"rule.{rule}.name"
    return say(key, lang) if has(key, LANGS[0]) else rule


def rule_what(rule: str, lang: str) -> str:
    """What the rule checks, in one sentence ('' for an unknown id)."""
    key = f"rule.{rule}.what"
    return say(key, lang) if has(key, LANGS[0]) else ""
