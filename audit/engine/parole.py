"""Parole (``parole = yes``): an offer to split every pot, made by the first player to act in the second betting
round before any chips go in; every other player still in answers it in turn; one acceptance splits the pots
and ends the hand, all declining lets play go on."""

from __future__ import annotations

from audit.engine.draw import end_draw_phase
from audit.engine.rounds import open_round

from audit.engine.state import HandState, clockwise_from, finding, note, note_all, record
from audit.findings import Finding
from audit.engine.table import round_start
from audit.engine.result import PotResult
from audit.model import Collect, Parole
from audit.rules import Rule


def on_parole(st: HandState, item: Parole) -> None:
    """An offer, an acceptance or a refusal: judged, then applied."""
    if not st.profile.parole:
        if st.parole.state is None:
            note(st, finding(st, Rule.PAROLE, item.line, "not_in_game", (), player=item.player,
                             expected="no parole", actual=f"{item.player} {item.kind}s parole"))
        st.parole.state = "not-allowed"
        return
    if item.kind == "offer":
        if st.street == "draw":
            end_draw_phase(st, item.line)
            open_round(st, "second", item.line)
        note(st, check_offer(st, item))
        st.parole.state = "offered"
        st.parole.open = True
        st.parole.offerer = item.player
        st.parole.answers = []
        st.parole.accepted = False
    elif st.parole.state != "offered":
        note(st, finding(st, Rule.PAROLE, item.line,
                         item.kind + ("_unoffered" if st.parole.state is None else "_late"),
                         (("player", item.player),), player=item.player, expected="no answer",
                         actual=f"{item.player} {item.kind}s parole"))
        if st.parole.state is None and item.kind == "accept":
            st.parole.state = "accepted"
    else:
        answer_parole(st, item)
    if st.steps is not None:
        record(st, item.line, item)


def check_offer(st: HandState, item: Parole) -> Finding | None:
    """``PAROLE``: one offer a hand, by the first player to act in the second betting round, before any chips
    go in."""
    p = item.player
    rnd = st.round
    first = round_start(st, "second") if rnd is not None and st.street == "second" else None
    if st.parole.state is not None:
        return finding(st, Rule.PAROLE, item.line, "offered_twice", (("player", p),), player=p,
                       expected="one offer", actual="a second offer")
    if may_offer_parole(st, p):
        return None
    when = ("first_round" if st.street in ("pre", "deal", "first")
            else "chips_in" if rnd is not None and rnd.current > 0
            else "after_action" if rnd is not None and rnd.acted
            else "out_of_turn")
    return finding(st, Rule.PAROLE, item.line, "offer_wrong" if first else "offer_wrong_nobody",
                   (("player", p), ("when_word", "finding.PAROLE.when_" + when), ("first", first or "")),
                   player=p, expected=f"{first} in the second round" if first else "no offer", actual=p)


def may_offer_parole(st: HandState, player: str) -> bool:
    """Whether ``player`` may offer parole now (what is legal now): the game has it, nobody offered it in this
    hand, and he is the first to act in the second betting round, before any chips go in."""
    rnd = st.round
    return (st.profile.parole and st.parole.state is None and st.street == "second" and rnd is not None
            and not rnd.acted and rnd.current <= 0 and player == round_start(st, "second"))


def next_parole_answer(st: HandState) -> str | None:
    """Who answers the open offer next (``None``: no offer waits for answers)."""
    if not st.parole.open:
        return None
    answers = st.parole.answers
    waiting = [q for q in parole_answerers(st) if q not in answers]
    return waiting[0] if waiting else None


def parole_answerers(st: HandState) -> list[str]:
    """Who answers the offer, in turn: every other player still in, from the offerer's left."""
    offerer = st.parole.offerer
    ring = clockwise_from(st, st.order.index(offerer) + 1) if offerer in st.order else st.order
    return [q for q in ring if q != offerer and not st.players[q].folded]


def answer_parole(st: HandState, item: Parole) -> None:
    """One answer to the offer (judged): each player still in answers once, in turn, even after an acceptance."""
    p = item.player
    answerers = parole_answerers(st)
    answers = st.parole.answers
    note(st, check_answer(st, item, answerers))
    if p == st.parole.offerer or p in answers or p not in answerers:
        return  # not an answer that counts
    waiting = [q for q in answerers if q not in answers]
    answers.append(p)
    if item.kind == "accept":
        st.parole.accepted = True
    if len(waiting) == 1:
        settle_parole(st)


def check_answer(st: HandState, item: Parole, answerers: list[str]) -> Finding | None:
    """``PAROLE``: an answer from a player still in, not the offerer, once, in turn."""
    p = item.player
    answers = st.parole.answers
    params = (("player", p),)
    if p == st.parole.offerer:
        return finding(st, Rule.PAROLE, item.line, "own_offer", params, player=p,
                       expected="an answer from another player", actual=p)
    if p in answers:
        return finding(st, Rule.PAROLE, item.line, "answered_twice", params, player=p, expected="one answer",
                       actual="a second answer")
    if p not in answerers:
        return finding(st, Rule.PAROLE, item.line, "answer_not_in", params, player=p,
                       expected="an answer from a player still in", actual=p)
    waiting = [q for q in answerers if q not in answers]
    if p != waiting[0]:
        return finding(st, Rule.PAROLE, item.line, "answer_out_of_turn", params + (("turn", waiting[0]),), player=p,
                       expected=waiting[0], actual=p)
    return None


def settle_parole(st: HandState) -> None:
    """Everyone has answered: one acceptance splits every pot and ends the hand; otherwise play goes on."""
    st.parole.open = False
    if st.parole.accepted:
        st.parole.state = "accepted"
        if st.round is not None:
            st.round.pending = set()  # the hand ends with the split
    else:
        st.parole.state = "declined"


def end_parole_answers(st: HandState, line: int) -> None:
    """The hand moved on (at ``line``) while the offer was open: judged, then the offer is settled."""
    note_all(st, check_answers_missing(st, line))
    settle_parole(st)


def check_answers_missing(st: HandState, line: int) -> list[Finding] | None:
    """``PAROLE``: every player still in answers the offer, in turn, even after someone has accepted."""
    variant = "no_answer_after_accept" if st.parole.accepted else "no_answer"
    return [finding(st, Rule.PAROLE, line, variant, (("player", q),), player=q, expected=f"{q} answers",
                    actual="no answer")
            for q in parole_answerers(st) if q not in st.parole.answers]


def check_play_after_split(st: HandState, player: str, line: int, kind: str) -> Finding | None:
    """``PAROLE``: after an accepted parole the hand ends with the split: no more betting (``kind``: the
    action), no show down (``kind`` ``show``: judged at the first hand shown)."""
    if st.parole.state != "accepted":
        return None
    if kind != "show":
        return finding(st, Rule.PAROLE, line, "acted_after_split", (("player", player),), player=player,
                       expected="the split", actual=kind)
    if st.show_order:
        return None
    return finding(st, Rule.PAROLE, line, "show_after_split", (), player=player, expected="no show down",
                   actual="show down")


def all_answered(st: HandState) -> bool:
    """Whether every player who answers the open offer has answered it."""
    answers = st.parole.answers
    return all(q in answers for q in parole_answerers(st))


# ------------------------------------------------------------------ the split
def check_paid_as_split(st: HandState) -> Finding | None:
    """``PAROLE``: a pot paid as a parole split when no parole was accepted (flagged once when the game has no
    parole at all)."""
    if st.parole.state == "not-allowed":
        return None
    for c in st.collected:
        if c.pot == "parole":
            return finding(st, Rule.PAROLE, c.line, "paid_as_split", (("player", c.player), ("amount", c.amount)),
                           player=c.player, expected="from pot", actual="from pot (parole)", street="summary")
    return None


def attribute_parole_collects(results: list[PotResult], collected: list[Collect]) -> None:
    """The log says only what each player took from the split: put it against the pots he shares, up to his
    share of each (any excess against the first), so each pot shows what was collected from it."""
    left: dict[str, int] = {}
    for c in collected:
        left[c.player] = left.get(c.player, 0) + c.amount
    for r in results:
        awards: dict[str, int] = r["awards"]
        for q in r["eligible"]:
            take = min(left.get(q, 0), awards.get(q, 0))
            if take > 0:
                r["collected"][q] = take
                left[q] -= take
    for q, extra in left.items():
        if extra > 0:
            home = next((r for r in results if q in r["eligible"]), results[0])
            home["collected"][q] = home["collected"].get(q, 0) + extra


def check_parole_split(st: HandState, results: list[PotResult]) -> list[Finding] | None:
    """``PAROLE``: after an accepted parole every pot is split among its eligible players (odd chips from the
    button's left): each player's collected total must match his shares."""
    want: dict[str, int] = {}
    for r in results:
        for q, amt in r["awards"].items():
            want[q] = want.get(q, 0) + amt
    got: dict[str, int] = {}
    lines: dict[str, int] = {}
    for c in st.collected:
        got[c.player] = got.get(c.player, 0) + c.amount
        lines.setdefault(c.player, c.line)
    line = min(lines.values()) if lines else st.hand.end_line
    shares = "\n".join(f"pot_amount={r['amount']}\tplayers={', '.join(r['eligible'])}" for r in results)
    return [finding(st, Rule.PAROLE, lines.get(q, line), "split_wrong",
                    (("player", q), ("want_amount", want.get(q, 0)), ("got_amount", got.get(q, 0)),
                     ("share_items", shares)),
                    player=q, expected=want.get(q, 0), actual=got.get(q, 0), street="summary")
            for q in st.order if (q in want or q in got) and got.get(q, 0) != want.get(q, 0)]
