"""What the host may enter, as rows of one table: each action's name (INTERFACE.md, "The live table"), the
fields its entry carries, the writer of its log line and the word of its button on the page. A new action is one
row here, one line writer and one word in ``audit/words``.

A line writer gets the engine's state of the hand in play before the entry, the player and the entry, and
returns the house-format line (judged by the engine once written), or raises ``EntryError`` for an entry that
cannot be understood (an amount missing or impossible, a card that is no card).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from audit.engine.state import HandState, stack_of
from audit.live.config import MAX_CHIPS
from audit.live.errors import EntryError

CARD: Final = re.compile(r"^(?:([2-9TJQKA]|10)([cdhs])|Jk)$")

LineWriter = Callable[[HandState, str, dict[str, Any]], str]


@dataclass(frozen=True)
class Action:
    """One kind of entry: ``name``; ``fields``: what its entry carries besides ``player`` and ``action``;
    ``write``: its line (``None``: no line of the hand in play, ``collect`` is a claim on the hand just played);
    ``word``: the message key of its button."""

    name: str
    fields: tuple[str, ...]
    write: LineWriter | None
    word: str


def _fold(st: HandState, p: str, entry: dict[str, Any]) -> str:
    return f"{p}: folds"


def _check(st: HandState, p: str, entry: dict[str, Any]) -> str:
    return f"{p}: checks"


def _call(st: HandState, p: str, entry: dict[str, Any]) -> str:
    rnd = st.round
    stack = stack_of(st, p)
    owed = rnd.to_call(p) if rnd is not None else 0
    amount = min(owed, stack) if stack > 0 else owed
    return f"{p}: calls {amount}" + (" and is all-in" if 0 < amount == stack else "")


def _raised_to(st: HandState, p: str, entry: dict[str, Any]) -> tuple[int, int, str]:
    """(the player's chips in this round before, the total ``to`` he makes it, `` and is all-in`` or '')."""
    rnd = st.round
    to = entry.get("to")
    if type(to) is not int or not 0 < to < MAX_CHIPS:
        raise EntryError("refusal.to")
    mine = rnd.bets.get(p, 0) if rnd is not None else 0
    if to <= mine:
        raise EntryError("refusal.to_above", player=p, mine_amount=mine)
    return mine, to, " and is all-in" if to - mine == stack_of(st, p) else ""


def _bet(st: HandState, p: str, entry: dict[str, Any]) -> str:
    mine, to, all_in = _raised_to(st, p, entry)
    return f"{p}: bets {to - mine}{all_in}"


def _raise(st: HandState, p: str, entry: dict[str, Any]) -> str:
    _, to, all_in = _raised_to(st, p, entry)
    current = st.round.current if st.round is not None else 0
    return f"{p}: raises {max(0, to - current)} to {to}{all_in}"


def _draw(st: HandState, p: str, entry: dict[str, Any]) -> str:
    count = entry.get("count")
    if type(count) is not int or not 0 <= count <= 5:
        raise EntryError("refusal.count")
    if count == 0:
        return f"{p}: stands pat"
    return f"{p}: discards {count} card{'s' if count > 1 else ''}"


def _stand_pat(st: HandState, p: str, entry: dict[str, Any]) -> str:
    return f"{p}: stands pat"


def _show(st: HandState, p: str, entry: dict[str, Any]) -> str:
    return f"{p}: shows [{' '.join(read_cards(entry.get('cards')))}]"


def _muck(st: HandState, p: str, entry: dict[str, Any]) -> str:
    return f"{p}: mucks hand"


def _parole(answer: str) -> LineWriter:
    def write(st: HandState, p: str, entry: dict[str, Any]) -> str:
        return f"{p}: {answer} parole"
    return write


ACTIONS: Final = (
    Action("fold", (), _fold, "table.fold"),
    Action("check", (), _check, "table.check"),
    Action("call", (), _call, "table.call"),
    Action("bet", ("to",), _bet, "table.bet_to"),
    Action("raise", ("to",), _raise, "table.raise_to"),
    Action("draw", ("count",), _draw, "table.draw"),
    Action("stand-pat", (), _stand_pat, "table.stand_pat"),
    Action("show", ("cards",), _show, "table.show"),
    Action("muck", (), _muck, "table.muck"),
    Action("collect", ("to",), None, "table.collect"),
    Action("offer-parole", (), _parole("offers"), "table.offer_parole"),
    Action("accept-parole", (), _parole("accepts"), "table.accept_parole"),
    Action("decline-parole", (), _parole("declines"), "table.decline_parole"),
)
"""The table of actions (``collect``: the host's own claim of who took what, right after a hand ends)."""

BY_NAME: Final = {a.name: a for a in ACTIONS}
ACTION_NAMES: Final = tuple(a.name for a in ACTIONS)
ENTRY_FIELDS: Final = ("player", "action", *dict.fromkeys(f for a in ACTIONS for f in a.fields), "at")
"""What an entry keeps when stored: its player and action, any action's fields, and when it was made."""


def read_cards(value: object) -> list[str]:
    """Five cards from ``["As", "Kd", ...]`` or ``"As Kd ..."`` (``10`` is ``T``); ``EntryError`` otherwise."""
    if isinstance(value, str):
        items: list[object] = list(value.replace(",", " ").split())
    elif isinstance(value, list):
        items = list(value)
    else:
        raise EntryError("refusal.cards")
    cards: list[str] = []
    for c in items:
        m = CARD.match(c) if isinstance(c, str) else None
        if m is None:
            raise EntryError("refusal.not_a_card", card=repr(str(c)[:10]))
        cards.append("Jk" if c == "Jk" else ("T" if m.group(1) == "10" else m.group(1)) + m.group(2))
    if len(cards) != 5:
        raise EntryError("refusal.cards")
    return cards
