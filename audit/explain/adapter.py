"""The one adapter from the engine's step records (today untyped ``dict`` s with English text, written by
``Replay.record``) to explain's typed ``Step`` s. When the engine records typed steps itself, only this module
changes.

From each engine step it takes the line, street, stacks, pot, what was legal and the findings; it follows the
log's items alongside to know the cards each player holds (what a draw may throw), the bets in front of each
seat this round, every player's contributions, who has folded, and the pots built from the contributions
(``audit.pots.build_pots``) after every step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audit.explain.records import DrawAllowance, Legal, PotNow, Step
from audit.findings import Finding
from audit.model import Action, Collect, Dealt, Discard, Hand, Item, Post, Score, Show, StandPat
from audit.pots import build_pots, uncalled
from audit.profile import Profile
from audit.engine import HandResult

_SWEEP = frozenset({"draw", "second betting round", "show down", "summary", "redeal"})
"""Streets on whose first step the bets in front of the seats are swept into the pot."""


def follow_cards(holding: dict[str, tuple[str, ...]], pending: dict[str, Discard], item: Item) -> None:
    """Keep ``holding`` (each player's cards) up to date through one item of the hand."""
    t = type(item)
    if t is Dealt:
        assert isinstance(item, Dealt)
        groups = [c for g in item.groups for c in g]
        disc = pending.pop(item.player, None)
        if item.player not in holding or disc is None:
            if item.player not in holding:
                holding[item.player] = tuple(groups)
            elif len(item.groups) == 2 or len(groups) == 5:
                holding[item.player] = tuple(groups)
            return
        if len(item.groups) >= 2 or len(groups) == 5:
            holding[item.player] = tuple(groups)
        else:
            thrown = set(disc.cards or ())
            holding[item.player] = tuple(c for c in holding[item.player] if c not in thrown) + tuple(groups)
    elif t is Discard:
        assert isinstance(item, Discard)
        pending[item.player] = item
    elif t is Show:
        assert isinstance(item, Show)
        holding[item.player] = tuple(item.cards)


def final_cards(hand: Hand) -> dict[str, tuple[str, ...]]:
    """Each player's cards at the end of the hand, as far as the log shows them."""
    holding: dict[str, tuple[str, ...]] = {}
    for item in hand.body:
        follow_cards(holding, {}, item)
    return holding


def draw_allowance(profile: Profile | None, hand: tuple[str, ...] | None) -> DrawAllowance:
    """What a player holding ``hand`` may throw under ``profile``."""
    limit = profile.draw_limit if profile is not None else None
    with_ace = limit + 1 if profile is not None and profile.draw_limit_ace and limit is not None else None
    return DrawAllowance(tuple(hand) if hand is not None else None, limit, with_ace)


def _finding_key(f: Mapping[str, Any]) -> tuple[Any, ...]:
    return (f.get("line"), f.get("rule"), f.get("player"), f.get("message"))


class _Findings:
    """Turns the engine's finding dicts back into the ``Finding`` s they were made from (each used once)."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.left: dict[tuple[Any, ...], list[Finding]] = {}
        for f in findings:
            self.left.setdefault(_finding_key(f.as_dict()), []).append(f)

    def take(self, d: Mapping[str, Any]) -> Finding | None:
        same = self.left.get(_finding_key(d))
        return same.pop(0) if same else None

    def rest(self) -> list[Finding]:
        return [f for fs in self.left.values() for f in fs]


def steps_from_engine(result: HandResult, profile: Profile | None) -> list[Step]:
    """The typed steps of one replayed hand (``result`` from ``replay(..., steps=True)``): a first step with the
    seats and stacks, then one per engine step; every finding sits on the step of its line (else the last step
    before it)."""
    hand = result.hand
    order = [s.player for s in sorted(hand.seats, key=lambda x: x.seat) if s.player in result.dealt_in]
    by_line: dict[int, Item] = {}
    for line_item in hand.body:
        by_line.setdefault(line_item.line, line_item)
    findings = _Findings(result.findings)
    steps = [Step(index=0, line=hand.line, street="seats", text="Seats", item=None,
                  stacks=dict(result.start_stacks), pot=hand.carried, bets={}, contributions={}, folded=(),
                  pots=_pots({}, {}, order, (), hand.carried), legal=None, draw=None, findings=[])]
    holding: dict[str, tuple[str, ...]] = {}
    pending: dict[str, Discard] = {}
    body = iter(hand.body)
    draw_at: dict[int, DrawAllowance | None] = {}
    collected = 0
    previous = dict(result.start_stacks)
    contributions: dict[str, int] = {}
    bets: dict[str, int] = {}
    folded: list[str] = []
    dead = hand.carried
    street = "seats"

    def advance_to(line: int) -> DrawAllowance | None:
        """Follow the body up to ``line``; the draw allowance of the item on that line (before it)."""
        nonlocal collected
        draw: DrawAllowance | None = None
        for read in body:
            if read.line == line and isinstance(read, (Discard, StandPat)):
                draw = draw_allowance(profile, holding.get(read.player))
            if isinstance(read, Collect):
                collected += read.amount
            follow_cards(holding, pending, read)
            if read.line >= line:
                break
        return draw

    for s in result.steps or []:
        line = int(s["line"])
        if line not in draw_at:
            draw_at[line] = advance_to(line)
        item: Item | None = by_line.get(line)
        stacks: dict[str, int] = dict(s["stacks"])
        if s["street"] != street:
            street = str(s["street"])
            if street in _SWEEP:
                bets = {}
        if not isinstance(item, (Collect, Score)):  # winnings and points are not bets
            for p, now in stacks.items():
                moved = previous.get(p, now) - now  # > 0: into the pot; < 0: an uncalled bet back
                if not moved:
                    continue
                if isinstance(item, Post) and item.kind in ("dead", "both") and moved > 0:
                    live_part = _live_part(item, hand, moved)
                    dead += moved - live_part
                    moved = live_part
                contributions[p] = contributions.get(p, 0) + moved
                if not (isinstance(item, Post) and item.kind == "ante"):
                    bets[p] = max(0, bets.get(p, 0) + moved)
        if isinstance(item, Action) and item.kind == "fold" and item.player not in folded:
            folded.append(item.player)
        legal: Legal | None = None
        raw = s.get("legal")
        if raw:
            player = getattr(item, "player", None)
            legal = Legal(int(raw["to_call"]), int(raw["min_raise_to"]), int(raw["max_raise_to"]),
                          bool(raw["may_raise"]), previous.get(player) if isinstance(player, str) else None)
        previous = stacks
        placed = [f for f in (findings.take(d) for d in s["findings"]) if f is not None]
        steps.append(Step(index=len(steps), line=line, street=street, text=str(s["text"]), item=item,
                          stacks=stacks, pot=int(s["pot"]) - collected, bets={p: b for p, b in bets.items() if b},
                          contributions=dict(contributions), folded=tuple(folded),
                          pots=_pots(contributions, bets, order, folded, dead), legal=legal, draw=draw_at.get(line),
                          findings=placed))
    for finding in findings.rest():  # the settlement's and the session's: the step of their line
        target = steps[0]
        for step in steps:
            if step.line <= finding.line:
                target = step
            if step.line == finding.line:
                break
        target.findings.append(finding)
    return steps


def _live_part(post: Post, hand: Hand, moved: int) -> int:
    """Of a dead or small-and-big blind, the chips that count as the player's bet (the rest is dead money)."""
    if post.kind == "dead":
        return 0
    big = hand.game.big if hand.game is not None else 0
    return min(moved, big) if big else moved


def _pots(contributions: Mapping[str, int], bets: Mapping[str, int], order: Sequence[str], folded: Sequence[str],
          dead: int) -> list[PotNow]:
    """The pots the contributions build; a bet nobody has matched yet is not in any pot (it is in front of its
    player), so its excess over the next bet is left out."""
    top, excess = uncalled(bets)
    if top is not None:
        contributions = {**contributions, top: contributions.get(top, 0) - excess}
    live = [p for p in order if p not in folded]
    return [PotNow(p.name, p.amount, p.eligible) for p in build_pots(contributions, live, order, dead)]
