"""The sentences of an explanation in a language: steps, what was allowed, pots, corrections, findings, hand
names. Every word comes from the message files of ``audit.words``; amounts by the hand's unit (money for a
site hand in a currency, chips otherwise)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from audit.check import finding_text
from audit.explain.settle import HOUSE, POT, Settlement, Transfer
from audit.findings import Finding
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Event, Marker, Muck, NoPlay, Parole, Post, Reshuffle, Score, Show,
    StandPat, Uncalled,
)
from audit.words import Unit, amount, hand_name, has, quantity, say

if TYPE_CHECKING:
    from audit.explain.records import Explained, Reason, Step

MARKERS = {"deal": "dealing", "first": "first betting round", "draw": "draw", "second": "second betting round",
           "showdown": "show down", "summary": "summary", "redeal": "redeal"}
"""A street line's name in the model → the street's name in the steps."""

Segment = str | list[str]
"""A piece of a step's description: words, or a list of cards."""


def party_name(name: str, lang: str) -> str:
    """A party of a correction: a player's name, or the pot / the house in words."""
    if name == POT:
        return say("label.the_pot", lang)
    if name == HOUSE:
        return say("label.the_house", lang)
    return name


def pot_name(name: str, lang: str) -> str:
    """``main`` → Main pot / Bote principal; ``side-2`` → Side pot 2 / Bote lateral 2."""
    if name.startswith("side-"):
        return say("pot.side_n", lang, n=name[5:])
    return say(f"pot.{name}", lang) if has(f"pot.{name}") else name


def street_name(street: str, lang: str) -> str:
    """A street (``first betting round`` …) in words."""
    return say(f"street.{street}", lang) if has(f"street.{street}") else street


def correction_sentence(t: Transfer, lang: str, unit: Unit = "") -> str:
    """One transfer in plain words."""
    a = quantity(t.chips, unit, lang)
    if t.payer == POT:
        return say("verdict.pot_owes", lang, payee=t.payee, amount=a)
    if t.payer == HOUSE:
        return say("verdict.house_owes", lang, payee=t.payee, amount=a)
    if t.payee == POT:
        return say("verdict.owes_pot", lang, payer=t.payer, amount=a)
    if t.payee == HOUSE:
        return say("verdict.owes_house", lang, payer=t.payer, amount=a)
    return say("verdict.owes", lang, payer=t.payer, payee=t.payee, amount=a)


def settlement_notes(s: Settlement, lang: str, unit: Unit = "") -> list[str]:
    """The plain statements that go with the transfers: pots nobody can judge, rake kept, chips lost or
    created by the log."""
    notes: list[str] = [say("verdict.unjudged", lang, pot=pot_name(name, lang)) for name in s.unjudged]
    if s.rake_kept:
        notes.append(say("verdict.rake_kept", lang, amount=quantity(s.rake_kept, unit, lang)))
    if s.remainder > 0:
        notes.append(say("verdict.lost", lang, amount=quantity(s.remainder, unit, lang)))
    elif s.remainder < 0:
        notes.append(say("verdict.created", lang, amount=quantity(-s.remainder, unit, lang)))
    return notes


def correction_lines(item: Explained, lang: str) -> list[str]:
    """The verdict's transfers in plain words; for a hand the table corrected later (``corrected_lines``)
    none: nothing is left to pay."""
    if getattr(item, "corrected_before", None) is not None:
        return []
    return [correction_sentence(t, lang, item.unit) for t in item.transfers]


def corrected_lines(item: Explained, lang: str) -> list[str]:
    """For a hand the table corrected itself before a later hand: each transfer it once called for, in the past
    and said corrected ("Маша owed O'Neil 1 chip, corrected at the table before hand #387709: nothing is left to
    pay for it."); [] for any other."""
    before = getattr(item, "corrected_before", None)
    if before is None:
        return []
    out = []
    for t in item.transfers:
        line = say("verdict.owed_corrected", lang, payer=party_name(t.payer, lang), payee=party_name(t.payee, lang),
                   amount=quantity(t.chips, item.unit, lang), hand=before)
        out.append(line[:1].upper() + line[1:])
    return out


def nothing_lines(item: Explained, lang: str, broken: bool) -> list[str]:
    """What a verdict says when nothing is left to pay: the payments the table corrected itself, in the past
    (``corrected_lines``), else that there is nothing to correct; and, with ``broken`` (``rules_broken``), that the
    rules were broken all the same. [] when something is still to be paid (the transfers say it)."""
    corrected = corrected_lines(item, lang)
    if not corrected and item.transfers:
        return []
    if broken:
        return [*corrected, say("verdict.nothing_but", lang)]
    return corrected or [say("verdict.nothing", lang)]


def table_notes(item: Explained, lang: str) -> list[str]:
    """A session's statements of the hands the table corrected itself (netted by its verdict)."""
    return [say("verdict.session_corrected", lang, hand=", #".join(c.corrects), before=c.hand)
            for c in getattr(item, "table_corrections", ())]


def reason_note(r: Reason, lang: str) -> str:
    """What links a reason to another hand: the table's correction of it, its correction later, or the earlier
    mistake it carries ('' when none)."""
    if r.table_correction is not None:
        return say("verdict.table_correction", lang, hand=r.table_correction)
    if r.corrected_before is not None:
        return say("verdict.corrected_at_table", lang, hand=r.corrected_before)
    if r.follows_from is not None:
        return say("verdict.follows_from", lang, hand=r.follows_from, player=r.finding.player or "?")
    return ""


finding_sentence = finding_text
"""A finding as one sentence in a language (``audit.check.finding_text``)."""


_NEUTRAL = re.compile(r"[\d\s.,:;+\-−–/()$€%#]*")


def expected_actual(f: Finding, lang: str) -> tuple[str, str] | None:
    """The finding's expected and actual values to show, or ``None``: in another language than English, only
    values without words (figures): they are the engine's English data, its message is in the language."""
    if f.expected is None and f.actual is None:
        return None
    values = (f.expected or "—", f.actual or "—")
    if lang != "en" and not all(_NEUTRAL.fullmatch(v) for v in values):
        return None
    return values


def describe(step: Step, lang: str, unit: Unit = "") -> list[Segment]:
    """A step in words with its cards as card lists."""
    item = step.item
    if item is None:
        return [say("step.seats", lang) if step.index == 0 else step.text]

    def n(x: int) -> str:
        return amount(x, unit, lang)

    took = ""
    t_took = getattr(item, "took", None)
    if isinstance(t_took, float):
        took = say("step.took", lang, s=format(t_took, "g"))
    if isinstance(item, Post):
        what = say(f"post.{item.kind}", lang) if has(f"post.{item.kind}") else item.kind
        return [say("step.post", lang, p=item.player, what=what, n=n(item.amount))
                + (say("step.all_in", lang) if item.all_in else "")]
    if isinstance(item, NoPlay):
        key = f"step.{item.kind}" if has(f"step.{item.kind}") else "step.noplay"
        return [say(key, lang, p=item.player)]
    if isinstance(item, Marker):
        return [street_name(MARKERS.get(item.street, item.street), lang)]
    if isinstance(item, DeckLine):
        return [say("step.deck", lang), list(item.cards)]
    if isinstance(item, Dealt):
        groups = [list(g) for g in item.groups]
        if step.street in ("dealing", "forced bets"):
            return [say("step.dealt", lang, p=item.player), [c for g in groups for c in g]]
        if len(groups) >= 2:
            return [say("step.keeps", lang, p=item.player), groups[0], say("step.gets", lang), groups[1]]
        return [say("step.draws", lang, p=item.player), groups[0] if groups else []]
    if isinstance(item, Action):
        text = say(f"step.{item.kind}", lang, p=item.player, n=n(item.amount), to=n(item.to))
        if item.all_in:
            text += say("step.all_in", lang)
        if item.timed_out:
            text += say("step.timed_out", lang)
        return [text + took]
    if isinstance(item, Parole):
        return [say(f"step.{item.kind}", lang, p=item.player) + took]
    if isinstance(item, Discard):
        out: list[Segment] = [say("step.discard", lang, p=item.player, n=item.count) + took]
        if item.cards:
            out.append(list(item.cards))
        return out
    if isinstance(item, StandPat):
        return [say("step.stand", lang, p=item.player) + (say("step.timed_out", lang) if item.timed_out else "")
                + took]
    if isinstance(item, Reshuffle):
        return [say("step.reshuffle", lang), list(item.cards)]
    if isinstance(item, Show):
        shown: list[Segment] = [say("step.show", lang, p=item.player), list(item.cards)]
        if item.description:
            shown.append(f"({hand_name(item.description, lang)})")
        return shown
    if isinstance(item, Muck):
        return [say("step.muck", lang, p=item.player)]
    if isinstance(item, Collect):
        return [say("step.collect", lang, p=item.player, n=n(item.amount), pot=pot_name(item.pot, lang).lower())]
    if isinstance(item, Uncalled):
        return [say("step.uncalled", lang, p=item.player, n=quantity(item.amount, unit, lang))]
    if isinstance(item, Score):
        return [say("step.score", lang, p=item.player, n=item.points)]
    if isinstance(item, Event):
        key = f"event.{item.kind}" if has(f"event.{item.kind}") else "event.other"
        return [say(key, lang, p=item.player)]
    return [step.text]


_RANK_VALUES = {"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}


def card_words(card: str, lang: str) -> str:
    """A card as the log writes it in English (``Ah``), in words in another language (``as de corazones``)."""
    if lang == "en":
        return card
    if card == "Jk":
        return say("card.joker", lang)
    rank, suit = card[:-1], card[-1:]
    value = _RANK_VALUES.get(rank) or (int(rank) if rank.isdigit() else 0)
    if not 2 <= value <= 14 or not has(f"suit.{suit}"):
        return card
    return say("card.named", lang, rank=say(f"rank.one.{value}", lang), suit=say(f"suit.{suit}", lang))


def unreadable_verdict(item: Explained, lang: str) -> str:
    """What the verdict says of a hand that could not be judged: another game, or a hand that could not be
    read (never that rules were broken)."""
    other = any(f.rule == "UNSUPPORTED_GAME" for f in item.findings)
    return say("verdict.other_game" if other else "verdict.unreadable_hand", lang)


def legal_words(step: Step, lang: str, unit: Unit = "") -> str:
    """What the rules allowed before this step, in words ('' when there is nothing to say)."""
    parts: list[str] = []
    legal = step.legal
    if legal is not None:
        parts.append(say("legal.to_call", lang, n=amount(legal.to_call, unit, lang)))
        if legal.stack_before is not None and legal.stack_before <= legal.to_call:
            parts.append(say("legal.raise_no_chips", lang))
        elif legal.max_raise_to < legal.min_raise_to and legal.may_raise:
            parts.append(say("legal.raise_all_in", lang, n=amount(legal.max_raise_to, unit, lang)))
        else:
            parts.append(say("legal.min_raise", lang, n=amount(legal.min_raise_to, unit, lang)))
            parts.append(say("legal.max_raise", lang, n=amount(legal.max_raise_to, unit, lang)))
            parts.append(say("legal.raise_open" if legal.may_raise else "legal.raise_capped" if legal.capped
                             else "legal.raise_closed", lang))
    draw = step.draw
    if draw is not None and draw.limit is not None:
        cards = draw.may_discard
        key = ("legal.draw_may" if cards else "legal.draw_limit") + ("_ace" if draw.limit_keeping_ace else "")
        sep = " " if lang == "en" else ", "
        parts.append(say(key, lang, n=draw.limit, m=draw.limit_keeping_ace or 0)
                     + (" " + sep.join(card_words(c, lang) for c in cards) if cards else ""))
    return " · ".join(parts)


def segments_text(segs: Sequence[Segment]) -> str:
    """Segments as one line of text, cards in brackets."""
    return " ".join(f"[{' '.join(s)}]" if isinstance(s, list) else s for s in segs)
