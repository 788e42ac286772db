"""Building the record of what happened: each hand replayed into typed steps (through the one adapter from the
engine's step records), its pots, its settlement, and the verdict's reasons; a session's net corrections after
its last hand.

``explain_file`` / ``explain_text`` / ``explain_bytes`` / ``explain_blocks`` yield ``HandExplanation`` s and,
after each session's last hand, a ``SessionExplanation``; the renderers in ``audit.explain.render`` turn them
into text, JSON Lines or an HTML page.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from audit.errors import InputError
from audit.explain.adapter import draw_allowance, final_cards, steps_from_engine
from audit.explain.records import (
    CHIP_RULES, Explained, HandExplanation, PotView, Reason, SeatView, SessionExplanation, Step,
)
from audit.explain.settle import settle, settle_result
from audit.findings import Finding
from audit.model import Action, Muck, OptionLine, Preamble, ProfileLine, SessionLine
from audit.dialects.dispatch import parse_block
from audit.pipeline import Audited, audit_blocks
from audit.profile import Profile, load_profile
from audit.read import RawBlock, read_blocks, read_bytes_blocks, read_text_blocks
from audit.engine import HandResult

__all__ = ["draw_allowance", "explain_blocks", "explain_bytes", "explain_file", "explain_result", "explain_text",
           "session_totals"]


def explain_result(result: HandResult, profile: Profile | None = None) -> HandExplanation:
    """Explain one replayed hand (``result`` from ``replay(..., steps=True)``); ``profile`` gives the draw limit."""
    hand = result.hand
    steps = steps_from_engine(result, profile)
    pots = [PotView(str(p["name"]), int(p["amount"]), tuple(p["eligible"]), tuple(p["winners"]),
                    dict(p["awards"]), dict(p.get("collected", {})), int(p.get("rake", 0)))
            for p in result.pots]
    unit = hand.game.currency if hand.game is not None else ""
    explained = HandExplanation(
        hand=hand.hand_id, file=hand.file, session=result.session, profile=result.profile, table=hand.table,
        started_at=hand.started_at, button=hand.button, carried=hand.carried, unit=unit, seats=_seats(result),
        steps=steps, pots=pots, contributions=dict(result.contributions), start_stacks=dict(result.start_stacks),
        end_stacks=dict(result.end_stacks), rake=result.rake, redeal=result.redeal,
        settlement=settle_result(result), findings=list(result.findings))
    explained.reasons = reasons_of(explained.findings, steps)
    return explained


def reasons_of(findings: Sequence[Finding], steps: Sequence[Step]) -> list[Reason]:
    """The findings as reasons for the verdict, those that moved chips first, each with the step it happened
    at."""
    step_of: dict[int, int] = {}
    for step in steps:
        for f in step.findings:
            step_of[id(f)] = step.index
    reasons = [Reason(f, step_of.get(id(f)), f.rule in CHIP_RULES) for f in findings]
    return sorted(reasons, key=lambda r: not r.changes_chips)


def session_totals(name: str, file: str, hands: Sequence[HandExplanation],
                   findings: Sequence[Finding] = ()) -> SessionExplanation:
    """Net the corrections of ``hands`` (one session): per party, the sum of its balances, then settle."""
    net: dict[str, int] = {}
    for h in hands:
        if h.settlement is None:
            continue
        for p, d in h.settlement.balances.items():
            net[p] = net.get(p, 0) + d
    net = {p: d for p, d in net.items() if d}
    ids = [h.hand or "?" for h in hands]
    reasons = [r for h in hands for r in h.reasons if r.changes_chips]
    reasons += [Reason(f, None, f.rule in CHIP_RULES) for f in findings]
    units = {h.unit for h in hands}
    return SessionExplanation(name, file, ids, net, settle(net), list(findings), reasons,
                              units.pop() if len(units) == 1 else "")


def explain_file(path: str, profile: Profile | None = None, hand_id: str | None = None,
                 notices: list[str] | None = None) -> Iterator[Explained]:
    """Explain every hand of ``path`` in file order, each session's net corrections after its last hand.

    ``hand_id``: only that hand (and no session totals); ``InputError`` when the file has no such hand.
    ``notices``: collects what to tell the user on stderr (a command-line option the file overrode).
    """
    return explain_blocks(read_blocks(path), profile, hand_id, path, notices)


def explain_text(text: str, profile: Profile | None = None, hand_id: str | None = None,
                 name: str = "<text>") -> Iterator[Explained]:
    """``explain_file`` for a log held in a string (``name`` stands for the file)."""
    return explain_blocks(read_text_blocks(text, name), profile, hand_id, name)


def explain_bytes(data: bytes, profile: Profile | None = None, hand_id: str | None = None,
                  name: str = "<bytes>") -> Iterator[Explained]:
    """``explain_file`` for a log held as bytes (an upload), decoded as a file is."""
    return explain_blocks(read_bytes_blocks(data, name), profile, hand_id, name)


def explain_blocks(blocks: Iterable[RawBlock], profile: Profile | None = None, hand_id: str | None = None,
                   name: str = "<text>", notices: list[str] | None = None) -> Iterator[Explained]:
    """Explain the hands of blocks already cut from a log (``name``: the log, for messages)."""
    tracker = _ProfileTracker(profile or load_profile("home-open"))
    session_hands: list[HandExplanation] = []
    session_name: str | None = None
    session_file = ""
    found = False
    seen: list[str] = []
    paid_wrong: dict[str, str] = {}  # player → the last hand of this session that paid him wrong

    def close(findings: Sequence[Finding] = ()) -> Iterator[Explained]:
        nonlocal session_hands, session_name
        if session_name is not None and session_hands and hand_id is None:
            yield session_totals(session_name, session_file, session_hands, findings)
        session_hands, session_name = [], None
        paid_wrong.clear()

    for audited in audit_blocks(tracker.watch(blocks), profile, steps=True, notices=notices):
        if audited.result is None and audited.failure is None and not any(f.hand for f in audited.findings):
            if audited.findings and audited.session is not None and audited.session == session_name:
                yield from close(audited.findings)  # the session end block and its standings
            continue
        explained = _explain_audited(audited, tracker)
        seen.append(explained.hand or "?")
        if audited.session != session_name:
            yield from close()
        _link_knock_ons(explained, paid_wrong)
        if audited.session is not None:
            session_name, session_file = audited.session, explained.file
            session_hands.append(explained)
        if hand_id is None or explained.hand == hand_id:
            found = True
            yield explained
    yield from close()
    if hand_id is not None and not found:
        listed = ", ".join(seen[:20]) + (" …" if len(seen) > 20 else "")
        raise InputError(f"{name}: no hand {hand_id!r} (the file has: {listed or 'no hands'})")


def _link_knock_ons(h: HandExplanation, paid_wrong: dict[str, str]) -> None:
    """A stack that differs from the last hand's, for a player an earlier hand of the session paid wrong,
    follows from that hand; then remember whom this hand paid wrong."""
    h.reasons = [Reason(r.finding, r.step, r.changes_chips, paid_wrong.get(r.finding.player or ""))
                 if r.finding.rule == "STACK_CONTINUITY" else r for r in h.reasons]
    if h.settlement is not None:
        for p, d in h.settlement.difference.items():
            if d:
                paid_wrong[p] = h.hand or "?"


def _explain_audited(audited: Audited, tracker: _ProfileTracker) -> HandExplanation:
    if audited.result is not None:
        prof = tracker.profile if tracker.profile.name == audited.profile else _load_or_none(audited.profile)
        return explain_result(audited.result, prof)
    first = audited.findings[0] if audited.findings else None
    explained = HandExplanation(
        hand=first.hand if first else (audited.failure.hand_id if audited.failure else None),
        file=first.file if first else "", session=audited.session, profile=audited.profile,
        findings=list(audited.findings), error=first.message if first else "unreadable")
    explained.reasons = reasons_of(explained.findings, [])
    return explained


def _load_or_none(name: str | None) -> Profile | None:
    try:
        return load_profile(name) if name else None
    except Exception:
        return None


class _ProfileTracker:
    """Follows the preamble blocks as the pipeline reads them, to know the profile (with its options) in force.

    The pipeline reports only the profile's name; the draw limit may come from an ``Option:`` line.
    """

    def __init__(self, default: Profile) -> None:
        self.default = default
        self.profile = default

    def watch(self, blocks: Iterable[RawBlock]) -> Iterator[RawBlock]:
        for block in blocks:
            if block.kind == "preamble":
                try:
                    self._apply(parse_block(block))
                except Exception:  # the pipeline reports a bad preamble itself
                    pass
            yield block

    def _apply(self, parsed: object) -> None:
        if type(parsed) is not Preamble:
            return
        profile = self.profile
        for item in parsed.items:
            if type(item) is SessionLine:
                profile = self.default
            elif type(item) is ProfileLine:
                profile = load_profile(item.name)
            elif type(item) is OptionLine:
                profile = profile.with_options([(item.name, item.value)])
        self.profile = profile


def _seats(result: HandResult) -> list[SeatView]:
    hand = result.hand
    cards = final_cards(hand)
    folded = {i.player for i in hand.body if type(i) is Action and i.kind == "fold"}
    mucked = {i.player for i in hand.body if type(i) is Muck}
    return [SeatView(s.seat, s.player, s.chips, s.sitting_out, s.player in result.dealt_in, s.seat == hand.button,
                     tuple(cards.get(s.player, ())), s.player in folded, s.player in mucked,
                     result.end_stacks.get(s.player, s.chips))
            for s in sorted(hand.seats, key=lambda x: x.seat)]
