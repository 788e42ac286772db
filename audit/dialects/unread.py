"""The sites whose hand histories audit does not read (yet), known by a file's first line, so that such a file is
said to be one ("a hand history of Winamax, which audit does not read yet": ``UNSUPPORTED_SITE``, once per file)
rather than a string of unreadable hands.

The first lines are those the open-source importer fpdb recognises each site's files by (its ``IdentifySite.py``,
and its site readers ``PartyPokerToFpdb.py``, ``iPokerToFpdb.py``, ``WinamaxToFpdb.py``, ``PacificPokerToFpdb.py``
…), anchored at the line's start. Data only, like the registry: the reader's dialects are tried first, so a site
audit reads is never named here.
"""

from __future__ import annotations

import re
from typing import Final

UNREAD_SITES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple((site, re.compile(pattern)) for site, pattern in (
    ("PartyPoker", r"\*{5} Hand History [fF]or Game \d+ "),
    ("888poker", r"\*{5} (?:Cassava|888poker|888) Hand History for Game \d+ "),
    ("Everleaf", r"\*{5} Hand history for game #\d+ "),
    ("Partouche Poker", r"Partouche Poker "),
    ("Betfair", r"\*{5} Betfair Poker Hand History for Game \d+ "),
    ("Absolute Poker", r"Stage #[A-Z0-9]+:"),
    ("PKR", r"Starting Hand #\d+"),
    ("iPoker", r'<session sessioncode="-?\d+">'),
    ("Winamax", r'Winamax Poker - (?:CashGame|Tournament ")'),
    ("Everest", r'<SESSION time="\d+" tableName=".+" id='),
    ("Cake Poker", r"Hand#\d+ - "),
    ("Entraction", r"Game # \d+ - "),
    ("BetOnline", r"BetOnline Poker Game #\d+"),
    ("Microgaming", r'<Game id="\d+" date="[\d\- :]+" unicodetablename'),
    ("GGPoker", r"Poker Hand #[A-Z]{0,3}\d+: "),
))
_XML_DECLARATION: Final = re.compile(r"<\?xml[^>]*\?>\s*")


def unread_site(lines: list[str]) -> str | None:
    """The site whose hand history opens with ``lines`` (a block's first lines), when audit does not read it: its
    first line, or the line after an XML declaration (``<?xml …?>``, as iPoker's files begin)."""
    for i, line in enumerate(lines[:2]):
        for site, pattern in UNREAD_SITES:
            if pattern.match(line):
                return site
        if i == 0 and not _XML_DECLARATION.fullmatch(line):
            return None
    return None
