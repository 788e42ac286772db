"""A stored log's hands explained, through ``audit.explain``: the dispute page of one hand (HTML), its JSON
object, and the verdicts of every hand for the page that answers an upload.

These run in the service's explanations pool, in the club's turn (``@slow``). A hand's page reads the log block
by block without replaying it: only the hand asked for and the earlier hands of its session (they give its
stacks, its button, the blinds owed) are replayed, with the preamble lines (profiles, options) before it; the
page is the one ``audit explain`` makes from the whole log. A hand the log does not have costs one read of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from audit.errors import InputError
from audit.serve.service import slow


@dataclass
class VerdictView:
    """A verdict for the page: who owes whom, plain statements, or that nothing is owed; and why."""

    title: str
    hand: str | None = None
    corrections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    nothing: list[str] = field(default_factory=list)
    reasons: list[dict[str, Any]] = field(default_factory=list)
    bad: bool = False
    unreadable: bool = False  # a hand that could not be read, or another game: not judged


@dataclass
class LogVerdicts:
    """Every verdict of a log: the sessions', then each hand with something to say; the other hands by id."""

    sessions: list[VerdictView] = field(default_factory=list)
    hands: list[VerdictView] = field(default_factory=list)
    clean: list[str] = field(default_factory=list)
    more: int = 0  # hands with something to say beyond those shown


def _profile(label: str) -> Any:
    from audit.profile import load_profile
    from audit.serve.db import parse_label

    name, options = parse_label(label)
    return load_profile(name).with_options(options)


def _hand(data: bytes, name: str, label: str, hand: str) -> list[Any] | None:
    """The explanation of the first hand with id ``hand`` (``None``: the log has none), as ``audit explain``
    gives it from the whole log. Only the blocks it depends on are replayed (``hand_blocks``)."""
    from audit.explain.build import explain_blocks

    profile = None
    for blocks in hand_blocks(data, name, hand):
        profile = profile or _profile(label)
        try:
            return [next(iter(explain_blocks(iter(blocks), profile, hand, name)))]
        except StopIteration:
            continue
        except InputError as exc:
            if "no hand" in str(exc):
                continue
            raise
    return None


def hand_blocks(data: bytes, name: str, hand: str) -> Iterator[list[Any]]:
    """For each block of the log that holds hand ``hand`` (in file order), the blocks explaining it needs: every
    preamble before it (the profile, its options, the session), the blocks of its session before it (hands give
    the stacks, the button and the blinds owed; a hand that could not be read, or a session end, changes what the
    next hand is checked against), and the block itself. Blocks of other sessions, and hands outside any
    session, change nothing for it and are neither parsed nor replayed; a block is parsed only when the hand's id
    is written in it. The block after the hand's comes with it: the next hand's stacks may correct its payment."""
    from audit.dialects.dispatch import parse_block
    from audit.model import Hand, ParseFailure, Preamble, SessionLine
    from audit.read import read_bytes_blocks

    kept: list[tuple[Any, bool]] = []  # in file order: (block, a preamble) for preambles and the current session
    in_session = False
    pending: list[Any] | None = None  # the blocks of a hand found, waiting for the block after it
    for block in read_bytes_blocks(data, name):
        if pending is not None:
            # the block after the hand too: a stack change before the next hand may be the table's correction of
            # this hand's payment, which its page says (as `audit explain` does, reading on to the next hand)
            yield pending + [block]
            pending = None
        parsed = None
        if block.kind == "preamble":
            parsed = parse_block(block)
            if type(parsed) is Preamble:
                if any(type(item) is SessionLine for item in parsed.items):
                    kept = [k for k in kept if k[1]]  # a new session: the last one's blocks go
                    in_session = True
                kept.append((block, True))
                continue
        if any(hand in line for line in block.lines):
            parsed = parsed or parse_block(block)
            if type(parsed) in (Hand, ParseFailure) and parsed.hand_id == hand:  # type: ignore[union-attr]
                pending = [b for b, _ in kept] + [block]
        if in_session:
            kept.append((block, False))
    if pending is not None:
        yield pending


Seal = Callable[[dict[str, Any]], dict[str, Any]]
"""The service's seal on a receipt: its chain's link for the log, and its signature (``Service.seal``)."""


def _receipted(data: bytes, name: str, label: str, hand: str, anonymize: bool,
               seal: Seal | None) -> tuple[list[Any], dict[str, Any]] | None:
    """The explanation of ``hand`` to give out (without names when ``anonymize``) and its receipt, sealed."""
    import hashlib

    from audit.serve.db import parse_label
    from audit.trust.anonymize import explain_anonymized
    from audit.trust.receipt import make_receipt

    items = _hand(data, name, label, hand)
    if not items:
        return None
    profile, options = parse_label(label)
    receipt = make_receipt(items[0], hashlib.sha256(data).hexdigest(), profile, options, anonymize)
    shown = explain_anonymized(data, name, _profile(label), hand, items)[:1] if anonymize else items
    return shown, seal(receipt) if seal is not None else receipt


@slow
def hand_page(data: bytes, name: str, label: str, hand: str, lang: str,
              links: dict[str, Any] | None = None, anonymize: bool = False, seal: Seal | None = None) -> str | None:
    """The dispute page of ``hand`` (``None``: the log has no such hand) with its receipt; ``links``: the
    service's way back, language switch and sign-out (``audit.explain.render.html.render_html``);
    ``anonymize``: players as Player A, Player B …"""
    from audit.explain import render_html
    from audit.trust.anonymize import shown_names

    found = _receipted(data, name, label, hand, anonymize, seal)
    if found is None:
        return None
    items, receipt = found
    page = render_html(items, lang, source=name, links=links, receipt=receipt)
    return shown_names(page, lang) if anonymize else page


@slow
def hand_json(data: bytes, name: str, label: str, hand: str, anonymize: bool = False,
              seal: Seal | None = None) -> dict[str, Any] | None:
    """What ``audit explain --format json`` gives for ``hand`` (the first hand with that id), with its receipt
    sealed, or ``None``."""
    import json

    from audit.trust.anonymize import shown_names

    found = _receipted(data, name, label, hand, anonymize, seal)
    if found is None:
        return None
    items, receipt = found
    obj = {**items[0].as_dict(), "receipt": receipt}
    return dict(json.loads(shown_names(json.dumps(obj)))) if anonymize else obj


@slow
def session_receipt(data: bytes, name: str, label: str, seal: Seal) -> dict[str, Any] | None:
    """The sealed receipt of the last session's verdict in ``data`` (a live table's log; ``None``: no session
    ended in it)."""
    import hashlib

    from audit.explain import SessionExplanation, explain_bytes
    from audit.serve.db import parse_label
    from audit.trust.receipt import make_receipt

    sessions = [i for i in explain_bytes(data, _profile(label), None, name) if isinstance(i, SessionExplanation)]
    if not sessions:
        return None
    profile, options = parse_label(label)
    return seal(make_receipt(sessions[-1], hashlib.sha256(data).hexdigest(), profile, options))


@slow
def log_verdicts(data: bytes, name: str, label: str, lang: str, most: int = 200) -> LogVerdicts:
    """The verdict of every session and of each hand with a finding or a correction (at most ``most``)."""
    from audit.explain import HandExplanation, explain_bytes, settlement_notes
    from audit.explain.phrases import correction_lines, nothing_lines, table_notes, unreadable_verdict
    from audit.explain.records import rules_broken
    from audit.words import say

    out = LogVerdicts()
    for item in explain_bytes(data, _profile(label), None, name):
        if isinstance(item, HandExplanation):
            if not item.findings and not item.transfers:
                out.clean.append(item.hand or "?")
                continue
            if len(out.hands) >= most:
                out.more += 1
                continue
            notes = settlement_notes(item.settlement, lang, item.unit) if item.settlement is not None else []
            view = VerdictView(say("serve.hand", lang, hand=item.hand or "?"), item.hand, notes=notes)
        else:
            hands = say("unit.hands", lang, n=len(item.hands))
            view = VerdictView(say("serve.session", lang, name=item.name, hands=hands), notes=table_notes(item, lang))
        view.corrections = correction_lines(item, lang)
        broken = rules_broken(item.reasons)
        view.bad = bool(view.corrections) or broken  # a payment the table corrected has no correction left
        if isinstance(item, HandExplanation) and item.error is not None:
            view.unreadable, view.bad, broken = True, False, False
        view.nothing = [unreadable_verdict(item, lang)] if view.unreadable and not view.corrections \
            else nothing_lines(item, lang, broken)
        view.reasons = [_reason(r, lang) for r in item.reasons]
        (out.hands if isinstance(item, HandExplanation) else out.sessions).append(view)
    return out


def _reason(reason: Any, lang: str) -> dict[str, Any]:
    from audit.explain.phrases import finding_sentence
    from audit.words import rule_name

    from audit.explain.phrases import reason_note

    f = reason.finding
    return {"sentence": finding_sentence(f, lang), "rule": f.rule, "name": rule_name(f.rule, lang),
            "hand": f.hand, "line": f.line, "chips": reason.changes_chips, "bad": f.severity != "warning",
            "note": reason_note(reason, lang)}


def finding_sentence(finding: dict[str, Any], lang: str) -> str:
    """A stored finding (a row of ``findings``) as one sentence in ``lang``."""
    from audit.check import finding_text
    from audit.findings import Finding

    params = finding.get("params") or {}
    f = Finding(finding["rule"], finding["severity"], finding.get("file") or "", finding.get("hand"),
                finding.get("player"), finding.get("street"), int(finding.get("line") or 0), finding.get("expected"),
                finding.get("actual"), finding.get("message") or "", finding.get("session"), finding.get("msg_id"),
                tuple(params.items()))
    return finding_text(f, lang)
