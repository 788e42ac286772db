"""Building the record of what happened: each hand replayed into typed steps (through the one adapter from the
engine's step records), its pots, its settlement, and the verdict's reasons; a session's net corrections after
its last hand.

``explain_file`` / ``explain_text`` / ``explain_bytes`` / ``explain_blocks`` yield ``HandExplanation`` s and,
after each session's last hand, a ``SessionExplanation``; the renderers in ``audit.explain.render`` turn them
into text, JSON Lines or an HTML page.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from audit.errors import InputError
from audit.explain.adapter import draw_allowance, final_cards, steps_from_engine
from audit.explain.records import (
    CARRY_RULES, CHIP_RULES, Explained, HandExplanation, PotView, Reason, SeatView, SessionExplanation, Step, TableCorrection,
)
from audit.explain.settle import Settlement, finding_parties, settle, settle_result
from audit.findings import Finding
from audit.model import Action, Muck, OptionLine, Preamble, ProfileLine, SessionLine
from audit.owed import TableCorrections, stack_changes
from audit.dialects.dispatch import parse_block
from audit.pipeline import Audited, audit_blocks
from audit.profile import Profile, load_profile
from audit.read import RawBlock, read_blocks, read_bytes_blocks, read_text_blocks
from audit.rules import Rule
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
    explained.reasons = reasons_of(explained.findings, steps, explained.settlement, result.pots)
    return explained


def reasons_of(findings: Sequence[Finding], steps: Sequence[Step], settlement: Settlement | None = None,
               pots: Sequence[Mapping[str, Any]] = ()) -> list[Reason]:
    """The findings as reasons for the verdict, those that moved chips first, each with the step it happened
    at. With the hand's settlement, a finding of a rule about chips moved them only if a party it names is owed
    or owes chips in it (a bet not returned that the same player then collected with the pot moved nothing):
    so every reason that moved chips has its line in the verdict."""
    step_of: dict[int, int] = {}
    for step in steps:
        for f in step.findings:
            step_of[id(f)] = step.index
    reasons = [Reason(f, step_of.get(id(f)), moved_chips(f, settlement, pots)) for f in findings]
    return sorted(reasons, key=lambda r: not r.changes_chips)


def moved_chips(f: Finding, settlement: Settlement | None, pots: Sequence[Mapping[str, Any]]) -> bool:
    """Whether finding ``f`` stands for chips in the wrong place (``reasons_of``); a stack or standings that
    carry an earlier hand's mistake always do."""
    if f.rule not in CHIP_RULES:
        return False
    if settlement is None or f.rule in CARRY_RULES:
        return True
    balances = settlement.balances
    return any(balances.get(p) for p in finding_parties(f, pots))


def session_totals(name: str, file: str, hands: Sequence[HandExplanation],
                   findings: Sequence[Finding] = (),
                   table_corrections: Sequence[TableCorrection] = ()) -> SessionExplanation:
    """What each player should hold at the end of the session against what they hold: per party, the sum of the
    balances of ``hands`` (one session), leaving out each hand the table itself put right later (a stack change
    between hands that exactly reverses its wrong payment, ``table_corrections``), then settle."""
    net: dict[str, int] = {}
    for h in hands:
        if h.settlement is None or h.corrected_before is not None:
            continue
        for p, d in h.settlement.balances.items():
            net[p] = net.get(p, 0) + d
    net = {p: d for p, d in net.items() if d}
    ids = [h.hand or "?" for h in hands]
    reasons = [r for h in hands for r in h.reasons if r.changes_chips or r.table_correction is not None]
    reasons += [Reason(f, None, f.rule in CHIP_RULES) for f in findings]
    units = {h.unit for h in hands}
    return SessionExplanation(name, file, ids, net, settle(net), list(findings), reasons,
                              units.pop() if len(units) == 1 else "", list(table_corrections))


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
    """Explain the hands of blocks already cut from a log (``name``: the log, for messages).

    A session's hands come out when its totals do (a later hand can show the table corrected an earlier one);
    with ``hand_id``, that hand comes out once the next hand of its session has been read (or its session ends),
    so the log is read only so far."""
    tracker = _ProfileTracker(profile or load_profile("home-open"))
    session = _Session()
    found = False
    seen: list[str] = []
    held: list[HandExplanation] = []  # hands not yet given out

    def close(findings: Sequence[Finding] = ()) -> Iterator[Explained]:
        nonlocal session
        yield from held
        held.clear()
        if session.name is not None and session.hands and hand_id is None:
            yield session_totals(session.name, session.file, session.hands, findings, session.corrections)
        session = _Session()

    for audited in audit_blocks(tracker.watch(blocks), profile, steps=True, notices=notices):
        if audited.result is None and audited.failure is None and not any(f.hand for f in audited.findings):
            for f in audited.findings:
                if f.rule == Rule.UNSUPPORTED_SITE:  # no hand of it was read: nothing to explain
                    raise InputError(f"{name}: {f.message}")
            if audited.findings and audited.session is not None and audited.session == session.name:
                yield from close(audited.findings)  # the session end block and its standings
            continue
        explained = _explain_audited(audited, tracker)
        seen.append(explained.hand or "?")
        if audited.session != session.name:
            yield from close()
        session.link(explained)
        if audited.session is not None:
            session.name, session.file = audited.session, explained.file
            session.hands.append(explained)
        if hand_id is not None and held:
            yield from held  # the hand asked for, now that the hand after it has been read
            held.clear()
        if hand_id is None or explained.hand == hand_id:
            found = True
            if audited.session is None and hand_id is None:
                yield explained
            else:
                held.append(explained)
    yield from close()
    if hand_id is not None and not found:
        listed = ", ".join(seen[:20]) + (" …" if len(seen) > 20 else "")
        raise InputError(f"{name}: no hand {hand_id!r} (the file has: {listed or 'no hands'})")


class _Session:
    """The hands of the session being read, and what links them: for each player, the last hand that paid them
    wrong (a later stack change follows from it), and the wrong payments the table has not put right yet."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.file = ""
        self.hands: list[HandExplanation] = []
        self.paid_wrong: dict[str, str] = {}  # player → the last hand of this session that paid them wrong
        self.open: TableCorrections[HandExplanation] = TableCorrections()
        self.corrections: list[TableCorrection] = []

    def link(self, h: HandExplanation) -> None:
        """A stack that differs from the last hand's: the table's correction when the changes are exactly an
        earlier hand's wrong payment reversed (or all those not yet corrected together: ``TableCorrections``);
        else it follows from the last earlier hand of the session that paid that player wrong. Then remember
        whom this hand paid wrong."""
        changes = stack_changes(r.finding for r in h.reasons)
        corrected = self.open.corrected_by(changes)
        if corrected:
            ids = tuple(c.hand or "?" for c in corrected)
            for c in corrected:
                c.corrected_before = h.hand or "?"
                c.reasons = [replace(r, corrected_before=c.corrected_before) if r.changes_chips else r
                             for r in c.reasons]
            h.table_corrects = list(ids)
            self.corrections.append(TableCorrection(h.hand or "?", ids, changes))
        h.reasons = [replace(r, changes_chips=False, table_correction=h.table_corrects[-1])
                     if corrected and r.finding.rule == "STACK_CONTINUITY" and (r.finding.player or "") in changes
                     else replace(r, follows_from=self.paid_wrong.get(r.finding.player or ""))
                     if r.finding.rule == "STACK_CONTINUITY" else r for r in h.reasons]
        if h.settlement is not None and self.open.paid(h, h.settlement.difference):
            for p, d in h.settlement.difference.items():
                if d:
                    self.paid_wrong[p] = h.hand or "?"


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
