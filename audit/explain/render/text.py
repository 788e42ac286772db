"""The terminal listing: for a session, its verdict and reasons first, then each hand: the verdict with its
reasons, the steps, the pots and the players."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from audit.explain.phrases import (
    correction_lines, describe, expected_actual, finding_sentence, legal_words, nothing_lines, party_name, pot_name,
    reason_note, segments_text, settlement_notes, street_name, table_notes, unreadable_verdict,
)
from audit.explain.records import Explained, HandExplanation, SessionExplanation, rules_broken
from audit.textout import printable
from audit.words import Unit, amount, language, rule_name, say


def render_text(items: Iterable[Explained], lang: str = "en") -> Iterator[str]:
    """A readable listing, one chunk per hand or session; a session's chunk comes before its hands (the hands
    of a session are held back until its totals arrive)."""
    lang = language(lang)
    held: list[HandExplanation] = []
    for item in items:
        if isinstance(item, SessionExplanation):
            yield printable(session_text(item, lang), newlines=True)
            for h in held:
                yield printable(hand_text(h, lang), newlines=True)
            held = []
        elif item.session is not None:
            held.append(item)
        else:
            for h in held:
                yield printable(hand_text(h, lang), newlines=True)
            held = []
            yield printable(hand_text(item, lang), newlines=True)
    for h in held:
        yield printable(hand_text(h, lang), newlines=True)


def _verdict_lines(item: Explained, notes: Sequence[str], lang: str, with_hand: bool) -> list[str]:
    transfers, reasons = item.transfers, item.reasons
    out = [f"  {n}" for n in notes]
    out += [f"  {line}" for line in correction_lines(item, lang)]
    out += [f"  {line}" for line in nothing_lines(item, lang, rules_broken(reasons))]
    if reasons:
        out.append(f"  {say('verdict.reasons', lang)}:")
    for r in reasons:
        f = r.finding
        where = say("verdict.see_step", lang, line=f.line)
        if with_hand and f.hand:
            where = f"{say('verdict.hand_verdict', lang, hand=f.hand)}, {where}"
        out.append(f"  - {where}: {finding_sentence(f, lang)} [{rule_name(f.rule, lang)} · {f.rule}]")
        note = reason_note(r, lang)
        if note:
            out.append(f"    {note}")
    return out


def session_text(s: SessionExplanation, lang: str) -> str:
    """A session's net corrections and the findings that moved chips."""
    out = [say("label.session_net", lang, name=s.name, hands=say("unit.hands", lang, n=len(s.hands)))]
    if s.balances:
        out.append("  " + say("label.session_sum", lang) + ": "
                   + ", ".join(f"{party_name(p, lang)} {'+' if d > 0 else ''}{amount(d, s.unit, lang)}"
                             for p, d in s.balances.items()))
    out += _verdict_lines(s, table_notes(s, lang), lang, True)
    return "\n".join(out) + "\n"


def hand_text(h: HandExplanation, lang: str) -> str:
    """One hand: verdict and reasons, seats, every step, pots, players."""
    def n(x: int) -> str:
        return amount(x, h.unit, lang)

    out: list[str] = []
    head = f"{say('label.hand', lang)} #{h.hand or '?'}"
    if h.table:
        head += f" · {say('label.table', lang)} '{h.table}'"
    if h.started_at:
        head += f" · {h.started_at}"
    out.append(head)
    meta = [f"{say('label.file', lang)}: {Path(h.file).name}"]
    if h.session:
        meta.append(f"{say('label.session', lang)}: {h.session}")
    if h.profile:
        meta.append(f"{say('label.profile', lang)}: {h.profile}")
    if h.unit:
        meta.append(say("label.money_in", lang, currency=h.unit))
    out.append("  " + " · ".join(meta))
    if h.error is not None:
        out.append(f"  {unreadable_verdict(h, lang)}")
        for f in h.findings:
            out.append(f"  !! {say('label.line', lang)} {f.line} {rule_name(f.rule, lang)} ({f.rule}): "
                       f"{finding_sentence(f, lang)}")
        return "\n".join(out) + "\n"
    s = h.settlement
    out.append(say("label.corrections", lang))
    out += _verdict_lines(h, settlement_notes(s, lang, h.unit) if s else [], lang, False)
    out.append("")
    seat_words = []
    for seat in h.seats:
        extra = f" ({say('label.button', lang)})" if seat.button else ""
        extra += f" ({say('label.sitting_out', lang)})" if not seat.dealt_in else ""
        seat_words.append(f"{seat.seat}: {seat.player} {n(seat.chips)}{extra}")
    out.append(f"  {say('label.seats', lang)}: " + " · ".join(seat_words)
               + (f" · {say('label.carried', lang, n=n(h.carried))}" if h.carried else ""))
    out.append("")
    out.append(say("label.steps", lang))
    street = None
    for step in h.steps:
        if step.street != street:
            street = step.street
            out.append(f"  -- {street_name(street, lang)} --")
        out.append(f"  {step.line:>5}  {segments_text(describe(step, lang, h.unit))}")
        stacks = ", ".join(f"{p} {n(v)}" for p, v in step.stacks.items())
        out.append(f"         {say('label.pot', lang)} {n(step.pot)} · {say('label.stacks', lang)}: {stacks}")
        if step.bets:
            out.append(f"         {say('label.bets', lang)}: " + ", ".join(f"{p} {n(v)}" for p, v in step.bets.items()))
        legal = legal_words(step, lang, h.unit)
        if legal:
            out.append(f"         {say('label.allowed', lang)}: {legal}")
        for f in step.findings:
            out.append(f"         !! {rule_name(f.rule, lang)} ({f.rule}, {say('severity.' + f.severity, lang)}): "
                       f"{finding_sentence(f, lang)}")
            ea = expected_actual(f, lang)
            if ea:
                out.append(f"            {say('label.expected', lang)}: {ea[0]} · {say('label.actual', lang)}: {ea[1]}")
    out.append("")
    out.append(say("label.pots", lang))
    if not h.pots:
        out.append(f"  {say('label.no_pots', lang)}")
    nobody = say("label.nobody", lang)
    for pot in h.pots:
        awards = ", ".join(f"{q} {n(v)}" for q, v in pot.awards.items()) or nobody
        got = ", ".join(f"{q} {n(v)}" for q, v in pot.collected.items()) or "-"
        out.append(f"  {pot_name(pot.name, lang)} {n(pot.amount)}: {say('label.eligible', lang).lower()} "
                   f"{', '.join(pot.eligible)}; {say('label.winners', lang).lower()} "
                   f"{', '.join(pot.winners) or nobody}; {say('label.awards', lang).lower()} "
                   f"{awards}; {say('label.collected', lang).lower()} {got}")
    if s is not None:
        out.append("")
        cols = [say(f"label.{k}", lang) for k in ("player", "start", "put_in", "should", "received", "difference")]
        width = max(len(p) for p in [*s.should_receive, cols[0]])
        out.append(f"  {cols[0]:<{width}}  " + "  ".join(cols[1:]))
        for p in s.should_receive:
            vals = [n(h.start_stacks.get(p, 0)), n(h.contributions.get(p, 0)), n(s.should_receive[p]),
                    n(s.received[p])]
            d = s.difference[p]
            cells = [f"{v:>{len(c)}}" for v, c in zip(vals, cols[1:])]
            cells.append(f"{(('+' if d > 0 else '') + n(d) if d else '0'):>{len(cols[5])}}")
            out.append(f"  {p:<{width}}  " + "  ".join(cells))
    return "\n".join(out) + "\n"
