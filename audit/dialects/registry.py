"""The dialects, one spec each: what the reader, the parser dispatch, the pipeline, ``check --jobs``, the folder
listing, the compiled build, the tests and the docs ask about them.

Everything that differs between dialects is read from here; nothing else names a dialect. A dialect consists of
its module (``audit/dialects/<module>.py``, whose parse function follows ``audit.dialects.contract``), its grammar
or spec when it has one (``grammar/<grammar>.lark``), its fixtures (``fixtures/<name>/``) and one line below
(``tests/test_dialects.py`` lists these parts for each dialect and checks that nothing else names one).

This module is data only (it imports no parser), so that the reader can ask it which first lines open a hand
without importing a grammar. It is not compiled (``audit/_native.py``): adding a line here leaves the compiled
build current.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Dialect(NamedTuple):
    """One dialect of hand histories."""

    name: str  # the hands' ``dialect`` (the ``hands.dialect`` column): PokerStars's is "site", as in v1
    writer: str  # who writes such logs, for messages and the docs' table
    openers: tuple[str, ...]  # a line starting with one of these opens one of its blocks (``check --jobs`` cuts there)
    parser: str  # "module:function": a ``RawBlock`` → ``Hand``, ``ParseFailure`` or ``NothingHere``
    profile: str | None  # the profile its hands are audited under; ``None``: the file's (``Profile:``, --profile)
    shows_all_cards: bool  # every player's cards are in the log (else only the hero's and those shown down)
    summary_keeps: str | None = None  # after ``*** SUMMARY ***`` the reader keeps only the lines starting with this
    grammar: str | None = None  # its grammar, ``grammar/<grammar>.lark`` (``None``: read another way, e.g. XML)
    file_patterns: tuple[str, ...] = ("*.txt",)  # the files a folder argument takes for it
    compiled: bool = False  # its module is in the compiled group (``audit/_native.py``; a rebuild when it changes)

    @property
    def module(self) -> str:
        """Its module's dotted name (``audit.dialects.ongame``)."""
        return self.parser.partition(":")[0]


DIALECTS: tuple[Dialect, ...] = (
    Dialect("house", "the house format", ("Hand #",), "audit.dialects.house:parse_house_block", None, True,
            summary_keeps="Total pot", grammar="house", compiled=True),
    Dialect("site", "PokerStars", ("PokerStars ",), "audit.dialects.pokerstars:parse_hand", "site", False,
            grammar="pokerstars", compiled=True),
    Dialect("fulltilt", "Full Tilt Poker", ("Full Tilt Poker ", "FullTiltPoker "), "audit.dialects.fulltilt:parse_hand",
            "site", False, grammar="fulltilt", compiled=True),
    Dialect("ongame", "OnGame", ("***** History for hand ",), "audit.dialects.ongame:parse_hand", "site", False,
            grammar="ongame", compiled=True),
    Dialect("boss", "Boss Media", ("<HISTORY ", "<?xml ", "<ROOT>"), "audit.dialects.boss:parse_hand", "site",
            False, file_patterns=("*.txt", "*.xml")),
)

_BY_NAME: dict[str, Dialect] = {d.name: d for d in DIALECTS}


def register(d: Dialect) -> None:
    """Add a dialect at run time (a test's toy dialect, a plug-in): before the reader (``audit.read``) and
    ``audit.parallel`` are imported, which read the openers and file patterns once."""
    global DIALECTS
    if d.name in _BY_NAME:
        raise ValueError(f"a dialect called {d.name!r} is registered already")
    DIALECTS = DIALECTS + (d,)
    _BY_NAME[d.name] = d


def dialect(name: str) -> Dialect | None:
    """The dialect called ``name`` (a ``RawBlock.kind`` or a ``Hand.dialect``), if there is one."""
    return _BY_NAME.get(name)


def hand_openers() -> tuple[tuple[str, str], ...]:
    """``(prefix, dialect name)`` for every first line that opens a block of a dialect."""
    return tuple([(prefix, d.name) for d in DIALECTS for prefix in d.openers])


def file_patterns() -> tuple[str, ...]:
    """The file names a folder argument takes (``*.txt``, ``*.xml`` …), each once, in the registry's order."""
    return tuple(dict.fromkeys(p for d in DIALECTS for p in d.file_patterns))


def compiled_modules() -> tuple[str, ...]:
    """The dialect modules in the compiled group, as ``audit/_native.py`` names them (``dialects.house``)."""
    return tuple([d.module.removeprefix("audit.") for d in DIALECTS if d.compiled])


def default_profile(name: str) -> str | None:
    """The profile the hands of dialect ``name`` are audited under, or ``None`` for the file's own."""
    d = _BY_NAME.get(name)
    return d.profile if d is not None else None


def docs_table() -> str:
    """The dialects as docs/reference/dialects.md and ARCHITECTURE.md show them (a test holds both to this, so
    that the docs follow the registry)."""
    rows = ["| dialect | written by | a hand opens with | a folder takes | audited under | cards shown | read by |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for d in DIALECTS:
        openers = ", ".join(f"`{o.strip()}`" for o in d.openers)
        patterns = ", ".join(f"`{p}`" for p in d.file_patterns)
        profile = f"`{d.profile}`" if d.profile else "the file's profile"
        shown = "every player's" if d.shows_all_cards else "the hero's and those shown down"
        how = f"`grammar/{d.grammar}.lark`" if d.grammar else "no grammar"
        rows.append(f"| `{d.name}` | {d.writer} | {openers} | {patterns} | {profile} | {shown} | "
                    f"`{d.module.removeprefix('audit.')}`, {how} |")
    return "\n".join(rows) + "\n"
