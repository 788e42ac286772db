"""Betting: checks, calls, bets, raises and folds, against what is legal now (``audit.engine.state``'s queries:
to call, min raise-to, max raise-to, may raise), the turn, the sizes (minimum, bet unit, pot limit, fixed limit
and its cap), openers and the time limits."""

from __future__ import annotations

from typing import Any

from audit.engine.draw import end_draw_phase
from audit.engine.forced import put_in
from audit.engine.parole import all_answered, end_parole_answers, settle_parole
from audit.engine.rounds import open_round
from audit.engine.state import (
    BettingRound, HandState, add, betting, count_able, describe_item, expected_actor, max_raise_to,
    only_all_ins_left, record,
)
from audit.model import Action
from audit.rules import Rule


def on_action(st: HandState, a: Action) -> None:
    """One betting action: the round opens if the log skipped its marker; judged, then applied."""
    p = a.player
    if st.points_mode:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} {describe_item(a).split(' ', 1)[1]}, but a game without "
            "bets has no betting.", player=p, expected="no betting", actual=a.kind)
        if st.steps is not None:
            record(st, a.line, a)
        return
    if st.street in ("pre", "deal"):
        open_round(st, "first", a.line)
    elif st.street == "draw":
        end_draw_phase(st, a.line)
        open_round(st, "second", a.line)
    rnd = st.round
    if rnd is None or st.street not in ("first", "second"):
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted ({a.kind}) when there was no betting round.",
            player=p)
        return
    legal: dict[str, Any] | None = None
    if st.steps is not None:
        legal = {"to_call": rnd.to_call(p), "min_raise_to": rnd.min_raise_to(),
                 "max_raise_to": max_raise_to(st, p), "may_raise": rnd.may_raise(p)}
    judge_turn(st, a)
    check_time(st, a)
    if st.parole_open and a.kind != "fold":
        end_parole_answers(st, a.line)
    if st.parole_state == "accepted":
        add(st, Rule.PAROLE, a.line, f"{p} acted after the parole was accepted; the hand ends with the split.",
            player=p, expected="the split", actual=a.kind)
    kind = a.kind
    if kind == "fold":
        st.folded.add(p)
        rnd.pending.discard(p)
        rnd.acted.add(p)
        if st.parole_open and all_answered(st):
            settle_parole(st)
    elif kind == "check":
        if rnd.to_call(p) > 0:
            add(st, Rule.ACTION_NOT_ALLOWED, a.line,
                f"{p} checked while facing a bet of {rnd.current}; he had to call {rnd.to_call(p)}, "
                "raise or fold.", player=p, expected=f"call {rnd.to_call(p)}", actual="check")
        rnd.pending.discard(p)
        rnd.acted.add(p)
    elif kind == "call":
        apply_call(st, a, rnd)
    elif kind == "bet":
        apply_bet(st, a, rnd)
    else:
        apply_raise(st, a, rnd)
    if rnd.first_actor is None:
        rnd.first_actor = p
    st.last_actor = p
    if st.steps is not None:
        record(st, a.line, a, legal)
    after_action(st)


def judge_turn(st: HandState, a: Action) -> None:
    """Whether ``a.player`` may act now, and whose turn it was."""
    p = a.player
    rnd = st.round
    assert rnd is not None
    if p in st.folded:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted after folding.", player=p)
        return
    if p in st.all_in:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted after going all-in.", player=p)
        return
    if st.won_by_fold is not None:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted after the hand was already won.", player=p)
        return
    if not rnd.pending:
        if a.kind == "call" and p not in rnd.acted and rnd.to_call(p) > 0 and only_all_ins_left(st, rnd):
            return  # completing a short all-in blind: allowed, though the chips come back uncalled
        add(st, Rule.ACTION_NOT_ALLOWED, a.line,
            f"{p} acted after the betting round was already complete.", player=p)
        return
    expected = expected_actor(st, st.last_actor if rnd.acted else None)
    if expected is not None and expected != p:
        add(st, Rule.ACTION_OUT_OF_TURN, a.line, f"{p} acted out of turn: it was {expected}'s turn.",
            player=p, expected=expected, actual=p)


def check_time(st: HandState, a: Action) -> None:
    """``TIME_LIMIT``: the time limit, the raise clock, and what a timed-out player is made to do."""
    prof = st.profile
    if prof.time_limit is not None and a.took is not None and a.took > prof.time_limit and not a.timed_out:
        add(st, Rule.TIME_LIMIT, a.line, f"{a.player} took {a.took:g}s; the limit is {prof.time_limit}s.",
            player=a.player, expected=f"at most {prof.time_limit}s", actual=f"{a.took:g}s")
    if (prof.raise_time_limit is not None and a.kind in ("bet", "raise") and a.took is not None
            and a.took > prof.raise_time_limit):
        add(st, Rule.TIME_LIMIT, a.line,
            f"{a.player} {'bet' if a.kind == 'bet' else 'raised'} after {a.took:g}s; betting and raising "
            f"are allowed only within {prof.raise_time_limit}s (after that only check, call or fold).",
            player=a.player,
            expected=f"at most {prof.raise_time_limit}s", actual=f"{a.took:g}s")
    if a.timed_out:
        rnd = st.round
        facing = rnd is not None and rnd.to_call(a.player) > 0
        right = "fold" if facing else "check"
        if a.kind != right:
            add(st, Rule.TIME_LIMIT, a.line,
                f"{a.player} timed out; the house should have made him {right}, not {a.kind}.",
                player=a.player, expected=right, actual=a.kind)


def apply_call(st: HandState, a: Action, rnd: BettingRound) -> None:
    """A call: judged against the amount owed (or the whole stack), then applied."""
    p = a.player
    owed = rnd.to_call(p)
    have = max(0, st.stack.get(p, 0))
    if owed == 0:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} called but there was no bet to call; that is a check.",
            player=p, expected="check", actual=f"call {a.amount}")
    elif a.amount != min(owed, have) and not (a.amount > have) and not matches_all_ins(st, a.amount, p, rnd):
        add(st, Rule.CALL_AMOUNT, a.line,
            f"{p} called {a.amount}, but the call was {min(owed, have)}"
            f"{' (all his chips)' if have < owed else ''}.", player=p, expected=min(owed, have),
            actual=a.amount)
    elif a.amount > owed:
        add(st, Rule.CALL_AMOUNT, a.line, f"{p} called {a.amount}, but the call was {owed}.", player=p,
            expected=owed, actual=a.amount)
    put_in(st, p, a.amount, a.line, a.all_in, "a call")
    rnd.bets[p] = rnd.bets.get(p, 0) + a.amount
    rnd.pending.discard(p)
    rnd.acted.add(p)


def matches_all_ins(st: HandState, amount: int, p: str, rnd: BettingRound) -> bool:
    """When everyone else still in is all-in below the bet (after a blind posted short all-in), a call that
    matches the largest of them is as right as the full call, whose rest would come back uncalled."""
    top = 0
    for q in st.order:
        if q != p and q not in st.folded:
            if q not in st.all_in:
                return False
            bet = rnd.bets.get(q, 0)
            if bet > top:
                top = bet
    return top < rnd.current and 0 < amount == top - rnd.bets.get(p, 0)


def apply_bet(st: HandState, a: Action, rnd: BettingRound) -> None:
    """An opening bet (a bet when one stands is judged, then applied as a raise)."""
    p = a.player
    if rnd.current > 0:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line,
            f"{p} bet {a.amount}, but a bet of {rnd.current} already stood; that would be a raise.",
            player=p, expected="call, raise or fold", actual=f"bet {a.amount}")
        apply_raise(st, a._replace(kind="raise", amount=a.amount, to=rnd.bets.get(p, 0) + a.amount), rnd,
                    judged=True)
        return
    have = max(0, st.stack.get(p, 0))
    all_in = a.all_in or a.amount >= have
    check_open(st, a, rnd)
    below = a.amount < rnd.full and not all_in and not rnd.fixed  # fixed limit: judged as a size
    if below:
        add(st, Rule.BET_BELOW_MIN, a.line,
            f"{p} opened with {a.amount}; the minimum bet is {rnd.full}.", player=p,
            expected=f"at least {rnd.full}", actual=a.amount)
    elif a.amount >= rnd.full and not rnd.fixed:
        rnd.full = a.amount
    check_size(st, a, rnd, a.amount, all_in, rnd.bets.get(p, 0) + a.amount, unit=not below)
    put_in(st, p, a.amount, a.line, a.all_in, "a bet")
    rnd.bets[p] = rnd.bets.get(p, 0) + a.amount
    rnd.current = rnd.bets[p]
    full = a.amount * 2 >= rnd.full if rnd.fixed else a.amount >= rnd.full
    if rnd.fixed and full:
        rnd.full_to = rnd.current
    after_raise(st, p, rnd, full)
    rnd.opener = rnd.opener or p


def check_open(st: HandState, a: Action, rnd: BettingRound) -> None:
    """``OPENERS``: jacks or better to open, when the profile requires them."""
    if st.street != "first" or not st.profile.openers_jacks or rnd.opener is not None:
        return
    cards = st.cards.get(a.player)
    if cards is None or len(cards) != 5:
        return
    try:
        strength = st.ranking.strength(cards)
    except ValueError:  # a card this deck does not have, or one twice: reported where it was dealt
        return
    jacks = st.ranking.strength(("Jc", "Jd", "2h", "3s", "4c"))
    if strength[0] < jacks[0] or (strength[0] == jacks[0] and strength[1:2] < jacks[1:2]):
        add(st, Rule.OPENERS, a.line, f"{a.player} opened without a pair of Jacks or better.",
            player=a.player, expected="a pair of Jacks or better", actual=st.ranking.describe(cards))


def check_size(st: HandState, a: Action, rnd: BettingRound, increment: int, all_in: bool, to: int,
               unit: bool = True) -> None:
    """Bet units (qdan), pot limit and fixed-limit sizes and cap; ``to``: the player's total after it."""
    p = a.player
    prof = st.profile
    bet_unit = prof.bet_unit
    if unit and bet_unit > 1 and not all_in and increment % bet_unit:
        add(st, Rule.BET_UNIT, a.line, f"{p}'s {a.kind} of {increment} is not a multiple of {bet_unit}.",
            player=p, expected=f"a multiple of {bet_unit}", actual=increment)
    structure = betting(st)
    if structure == "pot-limit":
        limit = max_raise_to(st, p)
        if to > limit and not (all_in and to <= limit):
            add(st, Rule.BET_OVER_POT, a.line, f"{p} made it {to}; pot limit allowed at most {limit}.",
                player=p, expected=f"at most {limit}", actual=to)
    elif structure == "fixed-limit":
        size = rnd.full
        target = rnd.full_to + size
        if (to != target and not all_in) or to > target:
            if a.kind == "bet":
                msg = f"{p} bet {to}; in this round every bet is {size}."
            else:
                completing = ("" if rnd.full_to == rnd.current
                              else f" (completing the last full bet of {rnd.full_to})")
                msg = f"{p} raised to {to}; in this round a raise is one bet of {size}, so to {target}{completing}."
            add(st, Rule.BET_FIXED_SIZE, a.line, msg, player=p, expected=target, actual=to)
        cap = prof.raise_cap
        if cap is not None and rnd.raises >= cap and not cap_lifted_heads_up(st, rnd):
            why = ""
            if not prof.raise_cap_heads_up and count_able(st) <= 2:
                why = (f" The cap was reached with {rnd.capped_with} players able to bet, so folds since then "
                       "do not lift it.")
            add(st, Rule.RAISE_CAP, a.line, f"{p} raised after the cap of {cap} bets was reached.{why}",
                player=p, expected=f"at most {cap} bets", actual=rnd.raises + 1)


def cap_lifted_heads_up(st: HandState, rnd: BettingRound) -> bool:
    """``raise-cap = 4-not-heads-up`` (site), as Robert's Rules say: raising is unlimited when the action is
    heads-up (two players able to bet: an all-in player bets no more) before the cap is reached; a cap
    reached with three or more stays in force after folds leave two."""
    return not st.profile.raise_cap_heads_up and rnd.capped_with <= 2 and count_able(st) <= 2


def apply_raise(st: HandState, a: Action, rnd: BettingRound, judged: bool = False) -> None:
    """A raise: judged (a bet to raise, the notation, re-opened, the minimum, the size), then applied."""
    p = a.player
    before = rnd.bets.get(p, 0)
    faced = rnd.current
    if not judged and rnd.current == 0:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} raised but there was no bet to raise; that is a bet.",
            player=p, expected=f"bet {a.to}", actual=f"raise to {a.to}")
    if not judged and a.amount != a.to - faced:
        add(st, Rule.AMOUNT_NOTATION, a.line,
            f"{p} 'raises {a.amount} to {a.to}', but {a.to} is {a.to - faced} above the bet of {faced}.",
            player=p, expected=f"raises {a.to - faced} to {a.to}", actual=f"raises {a.amount} to {a.to}")
    to = a.to
    added = to - before
    have = max(0, st.stack.get(p, 0))
    all_in = a.all_in or added >= have
    increment = to - faced
    if not judged and not rnd.may_raise(p) and increment > 0:
        since = rnd.current - before
        if rnd.fixed:
            why = (f"since {p} acted nobody made a full raise or went all-in for at least half a bet "
                   f"({rnd.full // 2 + rnd.full % 2})")
        else:
            why = (f"the bet went up only {since} since {p}'s bet of {before}, less than the full raise of "
                   f"{rnd.full}")
        add(st, Rule.RAISE_NOT_REOPENED, a.line,
            f"{p} raised to {to}, but the betting was not re-opened for {p}: {why}.",
            player=p, expected=f"call {rnd.to_call(p)} or fold", actual=f"raise to {to}")
    elif increment < rnd.full and not all_in and increment > 0 and betting(st) != "fixed-limit":
        add(st, Rule.RAISE_BELOW_MIN, a.line,
            f"{p} raised to {to}, {increment} more than the bet of {faced}; the smallest raise was "
            f"{rnd.full} (to {faced + rnd.full}).", player=p, expected=f"to at least {faced + rnd.full}",
            actual=f"to {to}")
    if increment <= 0:
        add(st, Rule.ACTION_NOT_ALLOWED, a.line, f"{p} 'raised' to {to}, which is not above the bet of {faced}.",
            player=p, expected=f"more than {faced}", actual=to)
    check_size(st, a, rnd, increment, all_in, to)
    put_in(st, p, added, a.line, a.all_in, "a raise")
    rnd.bets[p] = to
    if to > rnd.current:
        rnd.current = to
    if rnd.fixed:
        full = increment * 2 >= rnd.full  # TDA 47-B: an all-in of at least half a bet counts as full
        if full:
            rnd.full_to = to
    else:
        full = increment >= rnd.full
        if full:
            rnd.full = increment
    after_raise(st, p, rnd, full)


def after_raise(st: HandState, p: str, rnd: BettingRound, full: bool) -> None:
    """A bet or raise re-opens the round: everyone able to act who owes chips must answer it."""
    rnd.acted.add(p)
    rnd.last_aggressor = p
    if full:
        rnd.raises += 1
        if rnd.raises == st.profile.raise_cap and not rnd.capped_with:
            rnd.capped_with = count_able(st)
    rnd.any_bet = True
    pending: set[str] = set()
    in_hand = st.in_hand
    folded = st.folded
    all_in = st.all_in
    for q in st.order:
        if q != p and q in in_hand and q not in folded and q not in all_in and rnd.to_call(q) > 0:
            pending.add(q)
    rnd.pending = pending


def after_action(st: HandState) -> None:
    """After each action: the hand is won when one player is left; the round is over when nobody can act."""
    rnd = st.round
    assert rnd is not None
    folded = st.folded
    all_in = st.all_in
    live = 0
    only: str | None = None
    able = 0
    owes = False
    for q in st.order:
        if q in folded:
            continue
        live += 1
        only = q
        if q not in all_in:
            able += 1
            if not owes and rnd.to_call(q) != 0:
                owes = True
    if live == 1:
        st.won_by_fold = only
        rnd.pending = set()
        return
    if able <= 1 and (not owes or only_all_ins_left(st, rnd)):
        rnd.pending = set()
