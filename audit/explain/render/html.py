"""One self-contained HTML page (no network, no external files) for a dispute, readable on a phone.

The page puts each verdict first with its reasons (each finding as one sentence linking to the step where it
happened), then a picture of the table that steps through the hand (bets in front of the seats, the pots as
labelled main and side pots with their eligible players, winners marked; previous / next buttons and the arrow
keys), then every step listed (the whole hand is there with JavaScript off), the pots and the players. The
markup is ``templates/page.html`` (Jinja2, autoescaped), the looks ``page.css``, the stepping ``page.js``: all
inlined. This module only turns the record into the values the template shows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from audit.explain.phrases import (
    correction_lines, describe, expected_actual, finding_sentence, legal_words, nothing_lines, party_name, pot_name,
    reason_note, settlement_notes, street_name, table_notes, unreadable_verdict,
)
from audit.explain.adapter import follow_cards
from audit.explain.records import (
    Explained, HandExplanation, PotNow, Reason, SeatView, SessionExplanation, Step, rules_broken,
)
from audit.model import Collect, Muck
from audit.words import Unit, amount, language, rule_name, say

_HERE = Path(__file__).resolve().parent
SUITS = {"s": ("♠", "black", "spades", "picas"), "h": ("♥", "red", "hearts", "corazones"),
         "d": ("♦", "red", "diamonds", "diamantes"), "c": ("♣", "black", "clubs", "tréboles")}
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K", "A")


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(_HERE / "templates")), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    return env


def render_html(items: Iterable[Explained], lang: str = "en", source: str = "",
                links: dict[str, Any] | None = None, receipt: dict[str, Any] | None = None) -> str:
    """The page for ``items`` in ``lang``; ``source`` names the file (its name only, never a server path).
    ``links`` (the service's pages): ``back`` (url, text), ``langs`` [(url, name, current)], ``signout`` (url,
    text), ``anonymize`` (url, text): the page with or without names, or None: a bar of links at the top.
    ``receipt``: the verdict's receipt (``audit.trust.receipt``), shown at the end as a short code and one line
    to copy."""
    lang = language(lang)
    all_items = list(items)
    hands = [i for i in all_items if isinstance(i, HandExplanation)]
    anchors = _anchors(hands)
    hands_by_id: dict[str, HandExplanation] = {}
    for h in hands:
        hands_by_id.setdefault(h.hand or "", h)
    title = say("label.title_many" if len(hands) > 1 else "label.title", lang)
    view = {
        "lang": lang, "title": title, "source": Path(source).name if source else "",
        "css": (_HERE / "templates" / "page.css").read_text(encoding="utf-8"),
        "js": (_HERE / "templates" / "page.js").read_text(encoding="utf-8"),
        "sessions": [_session_view(s, lang, anchors, hands_by_id) for s in all_items if isinstance(s, SessionExplanation)],
        "nav": [{"anchor": anchors[id(h)], "hand": h.hand or "?", "n": len(h.findings),
                 "chips": any(r.changes_chips for r in h.reasons)} for h in hands] if len(hands) > 1 else [],
        "hands": [_hand_view(h, lang, anchors, hands_by_id) for h in hands],
        "t": lambda key, **kw: say(key, lang, **kw), "links": links,
        "receipt": _receipt_view(receipt, lang, (links or {}).get("anonymize")) if receipt else None,
    }
    return _environment().get_template("page.html").render(**view)


def _receipt_view(receipt: dict[str, Any], lang: str, toggle: tuple[str, str] | None) -> dict[str, Any]:
    from audit.trust.receipt import receipt_line, short_code

    chain = receipt.get("chain")
    return {"code": short_code(receipt), "line": receipt_line(receipt), "anonymized": bool(receipt.get("anonymized")),
            "chain": say("receipt.chain", lang, position=chain["position"], at=chain.get("at", "")) if chain else "",
            "toggle": toggle}


def _anchors(hands: Sequence[HandExplanation]) -> dict[int, str]:
    out: dict[int, str] = {}
    used: set[str] = set()
    for i, h in enumerate(hands):
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in (h.hand or ""))
        anchor = f"hand-{safe}" if safe and f"hand-{safe}" not in used else f"hand-{i}-{safe}"
        used.add(anchor)
        out[id(h)] = anchor
    return out


def _hand_anchor_by_id(anchors: dict[int, str], hands_by_id: dict[str, HandExplanation], hand: str | None) -> str:
    h = hands_by_id.get(hand or "")
    return anchors.get(id(h), "") if h is not None else ""


def _reason_view(r: Reason, lang: str, hand_anchor: str, cause_anchor: str, with_hand: bool) -> dict[str, Any]:
    f = r.finding
    return {"sentence": finding_sentence(f, lang), "rule": f.rule, "name": rule_name(f.rule, lang),
            "line": f.line, "hand": f.hand if with_hand else None, "chips": r.changes_chips,
            "severity": say(f"severity.{f.severity}", lang), "bad": f.severity != "warning",
            "href": f"#{hand_anchor}-step-{r.step}" if hand_anchor and r.step is not None
            else (f"#{hand_anchor}" if hand_anchor else ""),
            "follows": reason_note(r, lang), "cause": f"#{cause_anchor}" if cause_anchor else "",
            "table": r.table_correction is not None}


def _verdict_view(item: Explained, notes: Sequence[str], lang: str, anchors: dict[int, str],
                  hands_by_id: dict[str, HandExplanation], with_hand: bool) -> dict[str, Any]:
    transfers, reasons = item.transfers, item.reasons
    unreadable = isinstance(item, HandExplanation) and item.error is not None
    broken = rules_broken(reasons) and not unreadable
    corrections = correction_lines(item, lang)  # none for a payment the table corrected itself
    return {
        "notes": list(notes), "corrections": corrections,
        "nothing": [unreadable_verdict(item, lang)] if unreadable and not transfers
        else nothing_lines(item, lang, broken),
        "bad": bool(corrections) or broken,
        "reasons": [_reason_view(r, lang, _hand_anchor_by_id(anchors, hands_by_id, r.finding.hand),
                                 _hand_anchor_by_id(anchors, hands_by_id, r.follows_from or r.table_correction
                                                    or r.corrected_before), with_hand)
                    for r in reasons],
    }


def _session_view(s: SessionExplanation, lang: str, anchors: dict[int, str],
                  hands_by_id: dict[str, HandExplanation]) -> dict[str, Any]:
    return {
        "title": say("label.session_net", lang, name=s.name, hands=say("unit.hands", lang, n=len(s.hands))),
        "verdict": _verdict_view(s, table_notes(s, lang), lang, anchors, hands_by_id, True),
        "balances": [(party_name(p, lang), ("+" if d > 0 else "") + amount(d, s.unit, lang))
                     for p, d in s.balances.items()],
    }


def card_view(card: str, lang: str) -> dict[str, str]:
    """A card for the template: the rank shown, the suit symbol, its colour and a title in words."""
    if card == "Jk":
        return {"rank": "★", "suit": "", "colour": "joker", "title": "Joker"}
    rank, suit = card[:-1], card[-1:]
    info = SUITS.get(suit)
    if info is None or rank not in RANKS:
        return {"rank": card, "suit": "", "colour": "bad", "title": card}
    shown = "10" if rank == "T" else rank
    return {"rank": shown, "suit": info[0] + "\ufe0e", "colour": info[1],
            "title": f"{shown} {info[3] if lang == 'es' else info[2]}"}


def _segments(step: Step, lang: str, unit: Unit) -> list[Any]:
    return [[card_view(c, lang) for c in seg] if isinstance(seg, list) else seg
            for seg in describe(step, lang, unit)]


def _pot_bars(pots: Sequence[PotNow], winners: dict[str, tuple[str, ...]], lang: str, unit: Unit) -> list[dict[str, Any]]:
    total = sum(p.amount for p in pots) or 1
    return [{"name": pot_name(p.name, lang), "amount": amount(p.amount, unit, lang),
             "width": max(4, round(100 * p.amount / total)), "main": i == 0,
             "eligible": [(q, q in winners.get(p.name, ())) for q in p.eligible]}
            for i, p in enumerate(pots)]


def _seat_places(n: int) -> list[str]:
    """Where each of ``n`` seats sits around the oval: seat 1 at the bottom, then clockwise; with 4 or 8 seats,
    half a step round so no seat sits at the middle of a side; seats near the sides hang from its edge."""
    places: list[str] = []
    step = 2 * math.pi / max(n, 1)
    for i in range(n):
        angle = math.pi / 2 + step * (i + (0.5 if n % 4 == 0 else 0))
        x = 50 + 38 * math.cos(angle)
        top = min(91.0, max(9.0, 50 + 40 * math.sin(angle)))
        if x < 27:
            places.append(f"left:0;top:{top:.1f}%;transform:translate(0,-50%)")
        elif x > 73:
            places.append(f"right:0;top:{top:.1f}%;transform:translate(0,-50%)")
        else:
            places.append(f"left:{x:.1f}%;top:{top:.1f}%")
    return places


def _settled_from(h: HandExplanation) -> int:
    """The index of the first step at which the pots are settled: the first pot collected, else the summary, else
    the last step (a hand that never got there)."""
    for step in h.steps:
        if isinstance(step.item, Collect) or step.street == "summary":
            return step.index
    return h.steps[-1].index if h.steps else 0


def _opening_step(h: HandExplanation, shown: Sequence[Step]) -> Step:
    """The step the picture opens on: that of the first finding that moves chips, else the first step."""
    at = [r.step for r in h.reasons if r.changes_chips and r.step is not None]
    if at and shown:
        first = min(at)
        for step in shown:
            if step.index >= first:
                return step
    return shown[0] if shown else h.steps[0]


def _seat_state(h: HandExplanation, step: Step, seats: Sequence[SeatView], holding: dict[str, tuple[str, ...]],
                mucked: set[str], settled: bool, winners: set[str], lang: str) -> dict[str, Any]:
    """The picture of the table at ``step``, per seat: stack, bet, folded, cards held then, status; winners and
    what each was due and got only once the pots are settled; the pot in the middle is the pots' total."""
    s = h.settlement
    unit = h.unit

    def n(x: int) -> str:
        return amount(x, unit, lang)

    def due(p: str) -> str:
        if not settled or s is None or not s.difference.get(p, 0):
            return ""
        return say("label.due", lang, a=n(s.should_receive.get(p, 0)), b=n(s.received.get(p, 0)))

    def status(x: SeatView) -> str:
        if not x.dealt_in:
            return say("label.sitting_out", lang)
        if x.player in step.folded:
            return say("label.folded", lang)
        if x.player in mucked:
            return say("label.mucked", lang)
        return ""

    def cards(p: str) -> list[list[str]]:
        return [[c["rank"], c["suit"], c["colour"], c["title"]] for c in (card_view(x, lang) for x in holding.get(p, ()))]

    return {"st": [n(step.stacks.get(x.player, x.chips)) for x in seats],
            "b": [n(step.bets[x.player]) if step.bets.get(x.player) else "" for x in seats],
            "f": [1 if x.player in step.folded else 0 for x in seats],
            "w": [1 if settled and x.player in winners else 0 for x in seats],
            "d": [due(x.player) for x in seats],
            "s": [status(x) for x in seats],
            "c": [cards(x.player) for x in seats],
            "p": n(sum(p.amount for p in step.pots)), "settled": settled}


def _hand_view(h: HandExplanation, lang: str, anchors: dict[int, str],
               hands_by_id: dict[str, HandExplanation]) -> dict[str, Any]:
    anchor = anchors[id(h)]
    unit = h.unit

    def n(x: int) -> str:
        return amount(x, unit, lang)

    meta = []
    if h.table:
        meta.append(f"{say('label.table', lang)} '{h.table}'")
    if h.started_at:
        meta.append(h.started_at)
    if h.session:
        meta.append(f"{say('label.session', lang)}: {h.session}")
    if h.profile:
        meta.append(f"{say('label.profile', lang)}: {h.profile}")
    meta.append(f"{say('label.file', lang)}: {Path(h.file).name}")
    if unit:
        meta.append(say("label.money_in", lang, currency=unit))
    s = h.settlement
    view: dict[str, Any] = {
        "anchor": anchor, "hand": h.hand or "?", "meta": meta, "error": h.error,
        "count": say("unit.findings", lang, n=len(h.findings)) if h.findings else "",
        "verdict": _verdict_view(h, settlement_notes(s, lang, unit) if s else [], lang, anchors,
                                 {**hands_by_id, h.hand or "": h}, False),
    }
    if h.error is not None:
        return view
    winners_by_pot = {p.name: p.winners for p in h.pots}
    winners = {w for p in h.pots for w in p.winners}
    seats = [x for x in h.seats]
    places = _seat_places(len(seats))
    steps_view: list[dict[str, Any]] = []
    street = None
    shown = [st for st in h.steps if not (type(st.item).__name__ == "Marker" and not st.findings)]
    settled_from = _settled_from(h)
    holding: dict[str, tuple[str, ...]] = {}
    pending: dict[str, Any] = {}
    mucked: set[str] = set()
    states: dict[int, dict[str, Any]] = {}  # step index → the picture of the table at that step
    for step in h.steps:
        if step.item is not None:
            follow_cards(holding, pending, step.item)
            if isinstance(step.item, Muck):
                mucked.add(step.item.player)
        settled = step.index >= settled_from
        states[step.index] = _seat_state(h, step, seats, holding, mucked, settled, winners, lang)
        heading = street_name(step.street, lang) if step.street != street else ""
        street = step.street
        if step not in shown:
            if heading:
                steps_view.append({"heading": heading, "step": None})
            continue
        pots_now = _pot_bars(step.pots, winners_by_pot if settled else {}, lang, unit)
        findings = []
        for f in step.findings:
            ea = expected_actual(f, lang)
            findings.append({"rule": f.rule, "name": rule_name(f.rule, lang), "severity": say(f"severity.{f.severity}", lang),
                             "sentence": finding_sentence(f, lang), "ea": ea})
        steps_view.append({
            "heading": heading, "step": {
                "id": f"{anchor}-step-{step.index}", "index": len([v for v in steps_view if v["step"]]),
                "line": step.line, "segments": _segments(step, lang, unit), "pot": states[step.index]["p"],
                "legal": legal_words(step, lang, unit),
                "stacks": [(p, n(v), step.index > 0 and h.steps[step.index - 1].stacks.get(p) != v)
                           for p, v in step.stacks.items()],
                "bets": [(p, n(v)) for p, v in step.bets.items()], "pots": pots_now,
                "data": json.dumps(states[step.index], ensure_ascii=False, separators=(",", ":")),
                "findings": findings}})
    opening = _opening_step(h, shown)
    state = states[opening.index]
    stage_seats = []
    for j, (x, place) in enumerate(zip(seats, places)):
        stage_seats.append({
            "player": x.player, "place": place, "dealer": x.button, "out": not x.dealt_in,
            "folded": bool(state["f"][j]), "winner": bool(state["w"][j]), "owed": bool(state["d"][j]),
            "start": n(x.chips), "stack": state["st"][j], "bet": state["b"][j],
            "cards": [{"rank": c[0], "suit": c[1], "colour": c[2], "title": c[3]} for c in state["c"][j]],
            "status": state["s"][j], "due": state["d"][j]})
    total_steps = len([v for v in steps_view if v["step"]])
    opening_at = shown.index(opening) if opening in shown else 0
    view.update({
        "seats": stage_seats, "steps": steps_view, "carried": say("label.carried", lang, n=n(h.carried)) if h.carried else "",
        "stage": {"pot": state["p"], "pots": _pot_bars(opening.pots, winners_by_pot if state["settled"] else {},
                                                       lang, unit),
                  "caption": _segments(opening, lang, unit), "at": opening_at,
                  "count": say("label.step_of", lang, i=opening_at + 1, n=total_steps)},
        "step_of": say("label.step_of", lang, i="{i}", n="{n}"),
        "pots": [{"name": pot_name(p.name, lang), "amount": n(p.amount), "eligible": ", ".join(p.eligible),
                  "winners": ", ".join(p.winners) or say("label.nobody", lang),
                  "awards": ", ".join(f"{q} {n(v)}" for q, v in p.awards.items()) or say("label.nobody", lang),
                  "collected": ", ".join(f"{q} {n(v)}" for q, v in p.collected.items()) or "—",
                  "mismatch": dict(p.awards) != {q: v for q, v in p.collected.items() if v}} for p in h.pots],
        "players": [] if s is None else [
            {"player": p, "cells": [n(h.start_stacks.get(p, 0)), n(h.contributions.get(p, 0)),
                                    n(s.should_receive[p]), n(s.received[p])],
             "diff": ("+" if s.difference[p] > 0 else "") + n(s.difference[p]) if s.difference[p] else "0",
             "sign": (s.difference[p] > 0) - (s.difference[p] < 0), "end": n(h.end_stacks.get(p, 0)),
             "winner": p in winners} for p in s.should_receive],
    })
    return view
