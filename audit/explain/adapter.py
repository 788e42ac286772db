"""The one adapter from the engine's typed steps (``audit.engine.steps.Step``, recorded by the replay with
``steps=True``) to explain's ``Step`` s: the street's name, the log line as plain data with the JSON's short
English ``text`` (scripts read it: its words stay fixed), what was legal (to call, min / max raise-to, may raise; or
for a draw the cards that could go and the limit), the findings made at the step, and the pots as they stand after
every step (``audit.engine.state.pots_in_progress``, recorded by the engine: the bets in front apart, side pots from
all-ins only). The cards each player ends with are followed here too, for the
seats.
"""

from __future__ import annotations

from audit.engine import STREET_NAMES, HandResult
from audit.engine.state import pots_in_progress
from audit.explain.records import DrawAllowance, Legal, PotNow, Step
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Hand, Item, Marker, Muck, NoPlay, Parole, Post, Reshuffle, Score, Show,
    StandPat, Uncalled,
)
from audit.pots import Pot
from audit.profile import Profile


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


def step_text(item: Item) -> str:
    """The short English line of a step in the JSON (``text``): fixed words that scripts read, never translated."""
    if isinstance(item, Action):
        if item.kind in ("fold", "check"):
            return f"{item.player} {item.kind}s"
        if item.kind == "raise":
            return f"{item.player} raises to {item.to}" + (" (all-in)" if item.all_in else "")
        return f"{item.player} {item.kind}s {item.amount}" + (" (all-in)" if item.all_in else "")
    if isinstance(item, Post):
        return f"{item.player} posts {item.kind} {item.amount}"
    if isinstance(item, Marker):
        return str(STREET_NAMES.get(item.street, item.street)).capitalize()
    if isinstance(item, Dealt):
        return f"{item.player} receives {' '.join(c for g in item.groups for c in g)}"
    if isinstance(item, Discard):
        return f"{item.player} discards {item.count}"
    if isinstance(item, StandPat):
        return f"{item.player} stands pat"
    if isinstance(item, Show):
        return f"{item.player} shows {' '.join(item.cards)}"
    if isinstance(item, Muck):
        return f"{item.player} mucks"
    if isinstance(item, Collect):
        return f"{item.player} collects {item.amount} from {item.pot}"
    if isinstance(item, Uncalled):
        return f"{item.amount} returned to {item.player} (uncalled)"
    if isinstance(item, Parole):
        return f"{item.player} {item.kind}s parole"
    if isinstance(item, Score):
        return f"{item.player} scores {item.points}"
    if isinstance(item, NoPlay):
        return f"{item.player} does not play"
    if isinstance(item, DeckLine):
        return "Deck"
    if isinstance(item, Reshuffle):
        return "Dealer reshuffles"
    return type(item).__name__


def steps_from_engine(result: HandResult, profile: Profile | None = None) -> list[Step]:
    """The typed steps of one replayed hand (``result`` from ``replay(..., steps=True)``): a first step with the
    seats and stacks, then one per engine step; every finding sits on the step of its line (else the last step
    before it). ``profile`` is not read: the engine's steps carry the draw limit in force."""
    hand = result.hand
    order = [s.player for s in sorted(hand.seats, key=lambda x: x.seat) if s.player in result.dealt_in]
    kept = {id(f) for f in result.findings}  # a finding the pipeline capped is not shown
    placed: set[int] = set()
    steps = [Step(index=0, line=hand.line, street="seats", text="Seats", item=None,
                  stacks=dict(result.start_stacks), pot=hand.carried, bets={}, contributions={}, folded=(),
                  pots=_pots(pots_in_progress({}, {}, order, (), set(), hand.carried)), legal=None, draw=None, findings=[])]
    for s in result.steps or []:
        legal = s.legal
        draw = s.draw
        findings = [f for f in s.findings if id(f) in kept]
        placed.update(id(f) for f in findings)
        steps.append(Step(
            index=len(steps), line=s.line, street=STREET_NAMES.get(s.street, s.street), text=step_text(s.item),
            item=s.item, stacks=dict(s.stacks), pot=s.pot, bets=dict(s.bets), contributions=dict(s.contributions),
            folded=s.folded, pots=_pots(s.pots),
            legal=Legal(legal.to_call, legal.min_raise_to, legal.max_raise_to, legal.may_raise, legal.stack_before,
                        legal.capped)
            if legal is not None else None,
            draw=DrawAllowance(draw.may_discard, draw.limit, draw.limit_keeping_ace) if draw is not None else None,
            findings=findings))
    for finding in result.findings:  # the settlement's and the session's: the step of their line
        if id(finding) in placed:
            continue
        target = steps[0]
        for step in steps:
            if step.line <= finding.line:
                target = step
            if step.line == finding.line:
                break
        target.findings.append(finding)
    return steps


def _pots(pots: list[Pot]) -> list[PotNow]:
    return [PotNow(p.name, p.amount, p.eligible) for p in pots]
