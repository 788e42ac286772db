"""The typed, immutable model of a hand history.

Every object keeps ``line``: its line number in the file it came from (1-based), so a finding can point at
it. Cards are two-character strings (``"As"``, ``"Th"``, ``"Jk"`` for the joker); amounts are ``int`` chips
(site logs: integer cents). Items are ``NamedTuple`` s: immutable and cheap to build on the parse hot path.

A hand is a header (id, table, button, seats) and a ``body``: every other line, in file order, as one of the
item types below. The replay engine walks the body; the model makes no judgement about order or legality.
"""

from __future__ import annotations

from typing import NamedTuple, Union

Cards = tuple[str, ...]


class Seat(NamedTuple):
    """``Seat 1: Ana (100 in chips)``; ``chips`` holds points in no-bet (points) mode."""

    line: int
    seat: int
    player: str
    chips: int
    sitting_out: bool = False


class Post(NamedTuple):
    """A forced bet: ``kind`` is ``ante``, ``small``, ``big``, ``over``, ``live``, ``dead`` (or ``both``,
    a site's small-and-big post)."""

    line: int
    player: str
    kind: str
    amount: int
    all_in: bool = False


class NoPlay(NamedTuple):
    """``<p>: waits for the over blind`` (``kind='waits'``) or ``<p>: sits out`` (``kind='sits-out'``)."""

    line: int
    player: str
    kind: str


class Marker(NamedTuple):
    """A street line. ``street``: ``deal``, ``first``, ``draw``, ``second``, ``showdown``, ``summary``,
    ``redeal``."""

    line: int
    street: str


class DeckLine(NamedTuple):
    """``Deck: [...]``: the shuffled deck, top card first."""

    line: int
    cards: Cards


class Dealt(NamedTuple):
    """``Dealt to <p> [..]`` or ``Dealt to <p> [kept] [new]``: one tuple of cards per bracket."""

    line: int
    player: str
    groups: tuple[Cards, ...]


class Action(NamedTuple):
    """A betting action. ``kind``: ``fold``, ``check``, ``call``, ``bet``, ``raise``.

    ``amount``: chips added by a call, the size of a bet, the increment of a raise (0 for fold/check).
    ``to``: a raise's total for the round (a bet's size; 0 otherwise).
    """

    line: int
    player: str
    kind: str
    amount: int = 0
    to: int = 0
    all_in: bool = False
    timed_out: bool = False
    took: float | None = None


class Parole(NamedTuple):
    """``offers parole`` / ``accepts parole`` / ``declines parole``: ``kind`` is ``offer``, ``accept``,
    ``decline``."""

    line: int
    player: str
    kind: str
    took: float | None = None


class Discard(NamedTuple):
    """``<p>: discards <k> cards [...]``; ``cards`` is ``None`` when the log hides them (site dialect)."""

    line: int
    player: str
    count: int  # type: ignore[assignment]  # shadows tuple.count; the name reads best here
    cards: Cards | None
    took: float | None = None


class StandPat(NamedTuple):
    """``<p>: stands pat`` (possibly ``(timed out)``)."""

    line: int
    player: str
    timed_out: bool = False
    took: float | None = None


class Reshuffle(NamedTuple):
    """``Dealer: reshuffles [...]``: the shuffled cards, in the order they will be dealt."""

    line: int
    cards: Cards


class Show(NamedTuple):
    """``<p>: shows [...] (description)``."""

    line: int
    player: str
    cards: Cards
    description: str | None = None


class Muck(NamedTuple):
    """``<p>: mucks hand``."""

    line: int
    player: str


class Collect(NamedTuple):
    """``<p> collected <n> from <pot>``; ``pot``: ``pot``, ``main``, ``side-1``, ``side-2`` … (``side`` when the
    site does not number it), or ``parole``."""

    line: int
    player: str
    amount: int
    pot: str


class Uncalled(NamedTuple):
    """``Uncalled bet (<n>) returned to <p>``."""

    line: int
    player: str
    amount: int


class Event(NamedTuple):
    """A line that changes nothing at the table: disconnections, chat, the house playing for someone, a site's
    ``joins the table`` … ``kind`` names it (``disconnected``, ``connected``, ``house``, ``said``, ``sits-out``,
    ``joins``, ``leaves``, ``timed-out``, ``returns``, ``other``)."""

    line: int
    player: str
    kind: str
    text: str = ""


class Score(NamedTuple):
    """``<p> scores <n> point(s)`` (no-bet points mode)."""

    line: int
    player: str
    points: int


class SummaryTotal(NamedTuple):
    """``Total pot <n> | Rake <n>``."""

    line: int
    total: int
    rake: int


Item = Union[
    Post, NoPlay, Marker, DeckLine, Dealt, Action, Parole, Discard, StandPat, Reshuffle, Show, Muck, Collect,
    Uncalled, Event, Score, SummaryTotal,
]


class Game(NamedTuple):
    """What a site header says about the game (``None`` on house hands)."""

    name: str  # "5 Card Draw", "Badugi", "Triple Draw 2-7 Lowball" …
    betting: str  # "no-limit", "pot-limit", "fixed-limit"
    small: int  # the stakes, in cents: small blind / small bet
    big: int  # big blind / big bet
    currency: str  # "USD", "EUR", "" for play chips
    time_zone: str = ""  # the zone the header names for its time ("ET", "CET", "GMT+0100"); "" when none


class Hand(NamedTuple):
    """One hand as the log tells it."""

    file: str
    line: int  # the ``Hand #`` (or site header) line
    end_line: int  # the last line of the hand
    hand_id: str
    started_at: str  # as written: "2026/11/28 21:04:00"
    table: str
    button: int
    seats: tuple[Seat, ...]
    body: tuple[Item, ...]
    carried: int = 0  # ``Pot carried over: <n>``
    carried_line: int = 0
    points_mode: bool = False  # the seat lines carry points
    dialect: str = "house"  # the dialect's name in the registry (audit/dialects/registry.py): house, site, ...
    game: Game | None = None
    # The log shows every player's cards (the house format), or only the hero's and those shown down (site logs).
    shows_all_cards: bool = True


class SessionLine(NamedTuple):
    """``Session: <name>``."""

    line: int
    name: str


class ProfileLine(NamedTuple):
    """``Profile: <name>``."""

    line: int
    name: str


class OptionLine(NamedTuple):
    """``Option: <name> = <value>``."""

    line: int
    name: str
    value: str


class Standing(NamedTuple):
    """``1: Ana (143)`` in the session end block."""

    line: int
    place: int
    player: str
    amount: int


class SessionEnd(NamedTuple):
    """``*** SESSION END ***`` and the announced standings."""

    line: int
    standings: tuple[Standing, ...]


class CardsLine(NamedTuple):
    """``Cards: shown`` (a live table's log: only the cards turned face up) or ``Cards: all`` (the default)."""

    line: int
    shown_only: bool


class Preamble(NamedTuple):
    """A block of ``Session:`` / ``Profile:`` / ``Option:`` / ``Cards:`` lines."""

    line: int
    items: tuple[SessionLine | ProfileLine | OptionLine | CardsLine, ...]


class ParseFailure(NamedTuple):
    """A block of lines that could not be read: becomes a ``PARSE_ERROR`` finding."""

    file: str
    line: int  # the line of the error
    column: int
    message: str  # what went wrong, with the offending line and a caret
    hand_id: str | None  # if the block's first line names the hand
    first_line: int  # the block's first line
    end_line: int


class NothingHere(NamedTuple):
    """A block that holds no hand and says nothing to the audit: a file's header or prologue (an XML file's
    ``<?xml …?>`` and root element). Skipped; counted nowhere."""

    line: int  # the block's first line
    what: str  # what it is, in plain words ("the XML prologue")


Block = Union[Hand, Preamble, SessionEnd, ParseFailure, NothingHere]
