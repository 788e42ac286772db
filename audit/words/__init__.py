"""Every sentence the program says to people, in English and Spanish, from one message file per language.

``en.toml`` and ``es.toml`` beside this module map keys to templates with named placeholders
(``"{payer} owes {payee} {amount}."``). A template that depends on a number is a table of plural forms
(``one``, ``other``, as Babel names them for the language) chosen by the parameter ``n``. Numbers and money
are formatted by Babel for the language: ``$1.52`` / ``1,52 US$``, ``1,000`` / ``1.000``; chips stay chips
(``1 chip`` / ``2 fichas``).

The API is small and stable: ``say(key, lang, **params)``; ``number``, ``money``, ``chips``; and, by a hand's
unit (``""`` for chips, else an ISO currency code; amounts are then integer cents), ``amount`` (a bare figure
for tables) and ``quantity`` (a figure with its unit, for sentences). ``rule_name`` / ``rule_what`` name a
rule id. The engine's findings will carry a message id and parameters rendered with ``say``.
"""

from __future__ import annotations

import tomllib
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.numbers import format_currency, format_decimal

LANGS = ("en", "es")
"""The languages with a message file; the first is the default and the fallback."""

Unit = str
"""What a hand's amounts count: ``""`` for chips, else an ISO 4217 code (``USD``) and amounts in cents."""

_HERE = Path(__file__).resolve().parent
_PLURAL_FORMS = frozenset({"zero", "one", "two", "few", "many", "other"})


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
    with open(_HERE / f"{lang}.toml", "rb") as fh:
        data = tomllib.load(fh)
    out: dict[str, str | dict[str, str]] = {}
    _flatten(data, "", out)
    return out


def language(lang: str | None) -> str:
    """``lang`` if there are messages for it, else the default (English)."""
    return lang if lang in LANGS else LANGS[0]


@lru_cache(maxsize=None)
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


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
        form = _locale(lang).plural_form(abs(n)) if n is not None else "other"
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
    return str(format_decimal(n, locale=_locale(language(lang))))


def money(cents: int, currency: str, lang: str) -> str:
    """An amount of integer cents in ``currency`` as Babel formats it for ``lang``: ``$1.52``, ``1,52 €``,
    ``0,10 US$``."""
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


def rule_name(rule: str, lang: str) -> str:
    """A rule id's readable name (``ODD_CHIP`` → "Odd chip to the wrong winner"); the id itself if unknown."""
    key = f"rule.{rule}.name"
    return say(key, lang) if has(key, LANGS[0]) else rule


def rule_what(rule: str, lang: str) -> str:
    """What the rule checks, in one sentence ('' for an unknown id)."""
    key = f"rule.{rule}.what"
    return say(key, lang) if has(key, LANGS[0]) else ""
