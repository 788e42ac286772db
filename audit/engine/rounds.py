"""Betting rounds opened and closed: the bet to match when a round opens (the blinds), who must still act, the
uncalled bet when it closes, and a round that ended before everyone answered (``ROUND_INCOMPLETE``)."""

from __future__ import annotations

from audit.engine.deal import end_deal
from audit.engine.forced import check_forced_bets

from audit.engine.state import BettingRound, HandState, betting, count_able, finding, note, only_all_ins_left
from audit.engine.table import round_min_bet, round_start, short_blind_level
from audit.findings import Finding
from audit.pots import uncalled_bet
from audit.rules import Rule


def nothing_to_call(rnd: BettingRound, players: set[str] | list[str]) -> bool:
    """Whether none of ``players`` has chips to call in the round."""
    for p in players:
        if rnd.to_call(p) != 0:
            return False
    return True


def open_round(st: HandState, street: str, line: int) -> None:
    """The first or second betting round begins (a marker, or the first action after the deal or the draw)."""
    if street == "first" and st.street in ("pre", "deal"):
        if st.street == "pre":
            check_forced_bets(st, line)
        end_deal(st, line)
    st.street = street
    bets: dict[str, int] = {}
    current = 0
    if street == "first":
        bets = dict(st.pre_bets)
        first = True
        for amount in bets.values():
            if first or amount > current:
                current = amount
                first = False
        if st.blind_all_in:
            short = short_blind_level(st)
            if short > current:
                current = short  # a blind posted short all-in does not lower the bet (RULES.md)
    pending: set[str] = set()
    for pl in st.dealt:
        if not pl.folded and not pl.all_in:
            pending.add(pl.name)
    # (the round is made with its pending players: not with a set of its own, replaced at once)
    rnd = BettingRound(bets, current, round_min_bet(st, street), betting(st) == "fixed-limit", pending,
                       st.profile.bet_unit)
    st.round = rnd
    st.rounds[street] = rnd
    if street == "second" and len(pending) <= 1 and nothing_to_call(rnd, pending):
        rnd.pending = pending = set()
    # (every pending player can act: with two pending, two can)
    if len(pending) <= 1 and count_able(st) <= 1 and (nothing_to_call(rnd, pending) or only_all_ins_left(st, rnd)):
        rnd.pending = set()
        rnd.nobody_to_act = True
    st.next_to_act = round_start(st, street)


def close_round(st: HandState, line: int) -> None:
    """The round ends here (judged: every active player answered the last bet); the uncalled bet is due back."""
    rnd = st.round
    if rnd is None:
        return
    note(st, check_round_complete(st, rnd, line))
    settle_uncalled(st, rnd)
    rnd.end_line = line
    st.round = None
    st.last_actor = None


def check_round_complete(st: HandState, rnd: BettingRound, line: int) -> Finding | None:
    """``ROUND_INCOMPLETE``: the round ends (at ``line``) with every player still able to act having answered
    the last bet (or the hand won)."""
    if not rnd.pending or st.won_by_fold is not None:
        return None
    waiting = [p for p in st.order if p in rnd.pending]
    who = waiting[0]
    street = "first" if st.street == "first" else "second" if st.street == "second" else "other"
    return finding(st, Rule.ROUND_INCOMPLETE, line, street,
                   (("waiting", ", ".join(waiting)), ("bet_amount", rnd.current)), player=who,
                   expected=f"{who} to act", actual="the round ended")


def settle_uncalled(st: HandState, rnd: BettingRound) -> None:
    """The part of the top bet nobody called is due back to its player."""
    top, excess = uncalled_bet(rnd.bets)
    if top is None or excess <= 0:
        return
    st.returned_due[top] = st.returned_due.get(top, 0) + excess
    rnd.bets[top] -= excess
