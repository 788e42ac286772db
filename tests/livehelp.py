"""Simulated sessions as a live table's entries: what a host would tap, hand after hand, cards shown at the end.

``session_plan(text)`` reads one simulated session (``audit.simulate``) and gives the table to open and, for each
hand, its entries with the engine's view of what was legal before each one (``expected``), replayed from the
simulator's own log (every card listed) with ``audit.engine``: the live table must offer the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.engine.state import HandState
from audit.engine.streets import follow, start
from audit.engine.legal import legal_now
from audit.model import (
    Action, Dealt, DeckLine, Discard, Hand, Marker, Muck, Parole, Post, Preamble, Reshuffle, SessionEnd, Show, StandPat,
)
from audit.dialects.dispatch import parse_block
from audit.profile import Profile
from audit.read import read_text_blocks


@dataclass
class Planned:
    entry: dict[str, Any]
    to_act: str | None  # whose turn the engine says it is before the entry, on the simulator's log
    allowed: dict[str, Any]


@dataclass
class SessionPlan:
    table: dict[str, Any]
    hands: list[list[Planned]] = field(default_factory=list)
    standings: list[tuple[int, str, int]] = field(default_factory=list)


def session_plan(text: str, profile: Profile, options: dict[str, str]) -> SessionPlan:
    """The table and the entries of one simulated session (see the module's docstring)."""
    blocks = [parse_block(b) for b in read_text_blocks(text, "sim.txt")]
    hands = [b for b in blocks if type(b) is Hand]
    first = hands[0]
    small = next((p.amount for p in first.body if type(p) is Post and p.kind == "small" and not p.all_in), 1)
    table = {"name": first.table, "profile": profile.name, "options": options, "button": first.button,
             "seats": [{"seat": s.seat, "player": s.player, "chips": s.chips} for s in first.seats],
             "small_blind": small}
    plan = SessionPlan(table)
    for hand in hands:
        plan.hands.append(_hand_entries(hand, profile))
    for b in blocks:
        if type(b) is SessionEnd:
            plan.standings = [(s.place, s.player, s.amount) for s in b.standings]
    assert not any(type(b) is Preamble and len(b.items) > 2 for b in blocks[1:])
    return plan


def _hand_entries(hand: Hand, profile: Profile) -> list[Planned]:
    # the log as a live table writes it: no card but those shown down
    body = tuple(i._replace(cards=None) if type(i) is Discard else i for i in hand.body
                 if type(i) not in (Dealt, DeckLine, Reshuffle))
    shown = hand._replace(shows_all_cards=False, body=body)
    st: HandState = start(shown, profile)
    bets: dict[str, int] = {}
    out: list[Planned] = []
    for item in shown.body:
        kind = type(item)
        entry: dict[str, Any] | None = None
        if kind is Post and item.kind in ("small", "big", "over", "live"):
            bets[item.player] = bets.get(item.player, 0) + item.amount
        elif kind is Marker and item.street in ("first", "second") and item.street == "second":
            bets = {}
        elif kind is Action:
            p = item.player
            if item.kind == "call":
                bets[p] = bets.get(p, 0) + item.amount
                entry = {"player": p, "action": "call"}
            elif item.kind == "bet":
                bets[p] = bets.get(p, 0) + item.amount
                entry = {"player": p, "action": "bet", "to": bets[p]}
            elif item.kind == "raise":
                bets[p] = item.to
                entry = {"player": p, "action": "raise", "to": item.to}
            else:
                entry = {"player": p, "action": item.kind}
        elif kind is Discard:
            entry = {"player": item.player, "action": "draw", "count": item.count}
        elif kind is StandPat:
            entry = {"player": item.player, "action": "stand-pat"}
        elif kind is Show:
            entry = {"player": item.player, "action": "show", "cards": list(item.cards)}
        elif kind is Muck:
            entry = {"player": item.player, "action": "muck"}
        elif kind is Parole:
            entry = {"player": item.player, "action": item.kind + "-parole"}
        if entry is not None:
            legal = legal_now(st)
            out.append(Planned(entry, legal.to_act, legal.allowed()))
        follow(st, item)
    return out
