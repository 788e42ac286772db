"""Parole (``parole = yes``): an offer to split every pot, made by the first player to act in the second betting
round before any chips go in; every other player still in answers it in turn; one acceptance splits the pots
and ends the hand, all declining lets play go on."""

from __future__ import annotations

from audit.engine.draw import end_draw_phase
from audit.engine.rounds import open_round
from audit.engine.state import HandState, add, clockwise_from, record
from audit.engine.table import round_start
from audit.model import Parole
from audit.rules import Rule


def on_parole(st: HandState, item: Parole) -> None:
    """An offer, an acceptance or a refusal."""
    p = item.player
    if not st.profile.parole:
        if st.parole_state is None:
            add(st, Rule.PAROLE, item.line, "Parole is not part of this game.", player=p,
                expected="no parole", actual=f"{p} {item.kind}s parole")
        st.parole_state = "not-allowed"
        return
    if item.kind == "offer":
        if st.street == "draw":
            end_draw_phase(st, item.line)
            open_round(st, "second", item.line)
        rnd = st.round
        first = round_start(st, "second") if rnd is not None and st.street == "second" else None
        if st.parole_state is not None:
            add(st, Rule.PAROLE, item.line, f"{p} offered parole, but parole was already offered this hand.",
                player=p, expected="one offer", actual="a second offer")
        elif st.street != "second" or rnd is None or rnd.acted or rnd.current > 0 or p != first:
            when = ("in the first betting round" if st.street in ("pre", "deal", "first")
                    else "after chips went in" if rnd is not None and rnd.current > 0
                    else "after the round's first action" if rnd is not None and rnd.acted
                    else "out of turn")
            add(st, Rule.PAROLE, item.line,
                f"{p} offered parole {when}; only the first player to act in the second betting round"
                f"{f' ({first})' if first else ''} may, before any chips go in.", player=p,
                expected=f"{first} in the second round" if first else "no offer", actual=p)
        st.parole_state = "offered"
        st.parole_open = True
        st.parole_offerer = p
        st.parole_answers = []
        st.parole_accepted = False
    elif st.parole_state != "offered":
        verb = "accepted" if item.kind == "accept" else "declined"
        if st.parole_state is None:
            add(st, Rule.PAROLE, item.line, f"{p} {verb} a parole nobody offered.", player=p,
                expected="no answer", actual=f"{p} {item.kind}s parole")
            if item.kind == "accept":
                st.parole_state = "accepted"
        else:
            add(st, Rule.PAROLE, item.line, f"{p} {verb} the parole after everyone had answered it.",
                player=p, expected="no answer", actual=f"{p} {item.kind}s parole")
    else:
        answer_parole(st, item)
    if st.steps is not None:
        record(st, item.line, item)


def parole_answerers(st: HandState) -> list[str]:
    """Who answers the offer, in turn: every other player still in, from the offerer's left."""
    offerer = st.parole_offerer
    ring = clockwise_from(st, st.order.index(offerer) + 1) if offerer in st.order else st.order
    return [q for q in ring if q != offerer and q not in st.folded]


def answer_parole(st: HandState, item: Parole) -> None:
    """One answer to the offer: each player still in answers once, in turn, even after an acceptance."""
    p = item.player
    answerers = parole_answerers(st)
    answers = st.parole_answers
    if p == st.parole_offerer:
        add(st, Rule.PAROLE, item.line, f"{p} answered his own offer of parole.", player=p,
            expected="an answer from another player", actual=p)
        return
    if p in answers:
        add(st, Rule.PAROLE, item.line, f"{p} answered the parole twice; each player answers once.",
            player=p, expected="one answer", actual="a second answer")
        return
    if p not in answerers:
        add(st, Rule.PAROLE, item.line, f"{p} answered the parole but is no longer in the hand.", player=p,
            expected="an answer from a player still in", actual=p)
        return
    waiting = [q for q in answerers if q not in answers]
    if p != waiting[0]:
        add(st, Rule.PAROLE, item.line, f"{p} answered the parole out of turn: it was {waiting[0]}'s "
            "answer.", player=p, expected=waiting[0], actual=p)
    answers.append(p)
    if item.kind == "accept":
        st.parole_accepted = True
    if len(waiting) == 1:
        settle_parole(st)


def settle_parole(st: HandState) -> None:
    """Everyone has answered: one acceptance splits every pot and ends the hand; otherwise play goes on."""
    st.parole_open = False
    if st.parole_accepted:
        st.parole_state = "accepted"
        if st.round is not None:
            st.round.pending = set()  # the hand ends with the split
    else:
        st.parole_state = "declined"


def end_parole_answers(st: HandState, line: int) -> None:
    """The hand moved on while the offer was open: whoever still in has not answered missed his turn."""
    answers = st.parole_answers
    why = "even after someone has accepted" if st.parole_accepted else "before play goes on"
    for q in parole_answerers(st):
        if q not in answers:
            add(st, Rule.PAROLE, line, f"{q} did not answer the parole; every player still in answers it, "
                f"in turn, {why}.", player=q, expected=f"{q} answers", actual="no answer")
    settle_parole(st)


def all_answered(st: HandState) -> bool:
    """Whether every player who answers the open offer has answered it."""
    answers = st.parole_answers
    return all(q in answers for q in parole_answerers(st))
