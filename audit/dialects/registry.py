"""The dialects, one line each: what the reader, the parser dispatch, the pipeline and the engine ask about them.

This module is data only (it imports no parser), so that the reader can ask it which first lines open a hand
without importing a grammar.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Dialect(NamedTuple):
    """One dialect of hand histories."""

    name: str  # the hands' ``dialect`` (the ``hands.dialect`` column): PokerStars's is "site", as in v1
    writer: str  # who writes such logs, for messages
    openers: tuple[str, ...]  # a line starting with one of these opens one of its hands
    parser: str  # "module:function": a ``RawBlock`` → ``Hand`` or ``ParseFailure``
    profile: str | None  # the profile its hands are audited under; ``None``: the file's (``Profile:``, --profile)
    shows_all_cards: bool  # every player's cards are in the log (else only the hero's and those shown down)
    summary_keeps: str | None  # after ``*** SUMMARY ***`` the reader keeps only the lines starting with this


DIALECTS: Final = (
    Dialect("house", "the house format", ("Hand #",), "audit.dialects.house:parse_house_block", None, True, "Total pot"),
    Dialect("site", "PokerStars", ("PokerStars ",), "audit.dialects.pokerstars:parse_hand", "site", False, None),
    Dialect("fulltilt", "Full Tilt Poker", ("Full Tilt Poker ", "FullTiltPoker "),
            "audit.dialects.fulltilt:parse_hand", "site", False, None),
    Dialect("ongame", "OnGame", ("***** History for hand ",), "audit.dialects.ongame:parse_hand", "site", False,
            None),
)

_BY_NAME: Final = {d.name: d for d in DIALECTS}


def dialect(name: str) -> Dialect | None:
    """The dialect called ``name`` (a ``RawBlock.kind`` or a ``Hand.dialect``), if there is one."""
    return _BY_NAME.get(name)


def hand_openers() -> tuple[tuple[str, str], ...]:
    """``(prefix, dialect name)`` for every first line that opens a hand."""
    return tuple([(prefix, d.name) for d in DIALECTS for prefix in d.openers])


def default_profile(name: str) -> str | None:
    """The profile the hands of dialect ``name`` are audited under, or ``None`` for the file's own."""
    d = _BY_NAME.get(name)
    return d.profile if d is not None else None
