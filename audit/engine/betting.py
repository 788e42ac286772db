"""Betting: checks, calls, bets, raises and folds.

- what is legal now: ``audit.engine.state``'s queries (to call, min raise-to, max raise-to, may raise, whose
  turn), ``audit.engine.allowed`` for whether acting at all is allowed;
- the judgement, before anything moves: ``check_turn`` (``ACTION_OUT_OF_TURN``), ``check_call``
  (``CALL_AMOUNT``), ``check_bet`` (``OPENERS``, ``BET_BELOW_MIN``), ``check_raise`` (``AMOUNT_NOTATION``,
  ``RAISE_NOT_REOPENED``, ``RAISE_BELOW_MIN``) and ``check_size`` (``BET_UNIT``, ``BET_OVER_POT``,
  ``BET_FIXED_SIZE``, ``RAISE_CAP``), besides the time limits (``clock``), the stack and the all-in mark
  (``forced``);
- what happened: ``apply_*``, which never refuse.
"""

from __future__ import annotations

from audit.engine.allowed import action_not_allowed, may_act
from audit.engine.clock import check_action_time
from audit.engine.draw import end_draw_phase
from audit.engine.forced import pay
from audit.engine.parole import all_answered, check_play_after_split, end_parole_answers, settle_parole
from audit.engine.rounds import open_round
from audit.engine.steps import BetLegal
from audit.engine.state import (
    BettingRound, HandState, Player, betting, cards_of, count_able, expected_actor, finding, gather, max_raise_to, note,
    note_all, only_all_ins_left, record, stack_of,
)
from audit.findings import Finding
from audit.model import Action
from audit.rules import Rule


def on_action(st: HandState, a: Action, pl: Player) -> None:
    """One betting action by ``pl``: the round opens if the log skipped its marker; judged, then applied."""
    p = a.player
    if st.points_mode:
        note_all(st, action_not_allowed(st, a, None))
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
        note_all(st, action_not_allowed(st, a, None))
        return
    legal = bet_legal(st, p) if st.steps is not None else None
    not_allowed = action_not_allowed(st, a, rnd)
    if not_allowed is None:
        note(st, check_turn(st, a, rnd))
    else:
        note_all(st, not_allowed)
        if may_act(st, a, rnd):
            note(st, check_turn(st, a, rnd))
    if a.took is not None or a.timed_out:
        note_all(st, check_action_time(st, a))
    if st.parole.open and a.kind != "fold":
        end_parole_answers(st, a.line)
    if st.parole.state is not None:
        note(st, check_play_after_split(st, p, a.line, a.kind))
    kind = a.kind
    if kind == "fold":
        pl.folded = True
        apply_fold(st, a, rnd)
    elif kind == "check":
        apply_check(st, a, rnd)
    elif kind == "call":
        note(st, check_call(st, a, rnd))
        pay(st, pl, a.amount, a.line, a.all_in, "call")
        apply_call(st, a, rnd)
    elif kind == "bet" and rnd.current <= 0:
        note_all(st, check_bet(st, a, rnd))
        pay(st, pl, a.amount, a.line, a.all_in, "bet")
        apply_bet(st, a, rnd)
    else:  # a raise, or a bet when a bet stands (judged as the raise it would be)
        judged = kind == "bet"
        raised = a._replace(kind="raise", to=rnd.bets.get(p, 0) + a.amount) if judged else a
        note_all(st, check_raise(st, raised, rnd, judged))
        pay(st, pl, raised.to - rnd.bets.get(p, 0), a.line, a.all_in, "raise")
        apply_raise(st, raised, rnd)
    if rnd.first_actor is None:
        rnd.first_actor = p
    st.last_actor = p
    if st.steps is not None:
        record(st, a.line, a, legal)
    after_action(st)


def _note_all(st: HandState, found: list[Finding] | None) -> None:
    if found:
        note_all(st, found)


# ------------------------------------------------------------------ the judgement
def check_turn(st: HandState, a: Action, rnd: BettingRound) -> Finding | None:
    """``ACTION_OUT_OF_TURN``: the player whose turn it is acts (the first to act, then clockwise among those
    who must still act)."""
    if not rnd.pending:
        return None
    expected = expected_actor(st, st.last_actor if rnd.acted else None)
    if expected is None or expected == a.player:
        return None
    return finding(st, Rule.ACTION_OUT_OF_TURN, a.line, "turn", (("player", a.player), ("turn", expected)),
                   player=a.player, expected=expected, actual=a.player)


def check_call(st: HandState, a: Action, rnd: BettingRound) -> Finding | None:
    """``CALL_AMOUNT``: a call is the amount owed, or every chip left when that is less (matching the largest
    all-in is as good when everyone else is all-in below the bet)."""
    p = a.player
    owed = rnd.to_call(p)
    if owed == 0:
        return None  # no bet to call: ACTION_NOT_ALLOWED
    have = max(0, stack_of(st, p))
    due = min(owed, have)
    if a.amount != due and not (a.amount > have) and not matches_all_ins(st, a.amount, p, rnd):
        return finding(st, Rule.CALL_AMOUNT, a.line, "short_stack" if have < owed else "wrong",
                       (("player", p), ("called_amount", a.amount), ("call_amount", due)), player=p,
                       expected=due, actual=a.amount)
    if a.amount > owed:
        return finding(st, Rule.CALL_AMOUNT, a.line, "wrong",
                       (("player", p), ("called_amount", a.amount), ("call_amount", owed)), player=p,
                       expected=owed, actual=a.amount)
    return None


def matches_all_ins(st: HandState, amount: int, p: str, rnd: BettingRound) -> bool:
    """When everyone else still in is all-in below the bet (after a blind posted short all-in), a call that
    matches the largest of them is as right as the full call, whose rest would come back uncalled."""
    top = 0
    for pl in st.dealt:
        if pl.name != p and not pl.folded:
            if not pl.all_in:
                return False
            bet = rnd.bets.get(pl.name, 0)
            if bet > top:
                top = bet
    return top < rnd.current and 0 < amount == top - rnd.bets.get(p, 0)


def check_bet(st: HandState, a: Action, rnd: BettingRound) -> list[Finding] | None:
    """An opening bet: openers, at least the minimum bet (unless all-in), its size."""
    p = a.player
    out: list[Finding] | None = None
    opened = check_open(st, a, rnd)
    if opened is not None:
        out = [opened]
    all_in = a.all_in or a.amount >= max(0, stack_of(st, p))
    below = a.amount < rnd.full and not all_in and not rnd.fixed  # fixed limit: judged as a size
    if below:
        found = finding(st, Rule.BET_BELOW_MIN, a.line, "bet",
                        (("player", p), ("bet_amount", a.amount), ("min_amount", rnd.full)), player=p,
                        expected=f"at least {rnd.full}", actual=a.amount)
        out = [found] if out is None else out + [found]
    sizes = check_size(st, a, rnd, a.amount, all_in, rnd.bets.get(p, 0) + a.amount, unit=not below)
    if sizes:
        out = sizes if out is None else out + sizes
    return out


def check_open(st: HandState, a: Action, rnd: BettingRound) -> Finding | None:
    """``OPENERS``: jacks or better to open, when the profile requires them."""
    if st.street != "first" or not st.profile.openers_jacks or rnd.opener is not None:
        return None
    strength = st.ranking.rank_hand(cards_of(st, a.player))
    if strength is None or st.ranking.jacks_or_better(strength):
        return None
    return finding(st, Rule.OPENERS, a.line, "jacks", (("player", a.player),), player=a.player,
                   expected="a pair of Jacks or better", actual=st.ranking.describe_strength(strength))


def check_raise(st: HandState, a: Action, rnd: BettingRound, judged: bool = False) -> list[Finding] | None:
    """A raise: the log's notation, the betting re-opened for the raiser, the minimum raise (unless all-in), its
    size. ``judged``: a bet when a bet stands, already judged as such (its notation and re-opening are not)."""
    p = a.player
    before = rnd.bets.get(p, 0)
    faced = rnd.current
    to = a.to
    increment = to - faced
    all_in = a.all_in or to - before >= max(0, stack_of(st, p))
    out: list[Finding] | None = None
    if not judged and a.amount != increment:
        out = [finding(st, Rule.AMOUNT_NOTATION, a.line, "raise",
                       (("player", p), ("said_amount", a.amount), ("to_amount", to), ("above_amount", increment),
                        ("bet_amount", faced)),
                       player=p, expected=f"raises {increment} to {to}", actual=f"raises {a.amount} to {to}")]
    found: Finding | None = None
    if not judged and not rnd.may_raise(p) and increment > 0:
        fixed = rnd.fixed
        found = finding(st, Rule.RAISE_NOT_REOPENED, a.line, "fixed" if fixed else "short",
                        (("player", p), ("to_amount", to), ("half_amount", rnd.full // 2 + rnd.full % 2),
                         ("since_amount", rnd.current - before), ("before_amount", before),
                         ("full_amount", rnd.full)),
                        player=p, expected=f"call {rnd.to_call(p)} or fold", actual=f"raise to {to}")
    elif increment < rnd.min_increment() and not all_in and increment > 0 and betting(st) != "fixed-limit":
        least = rnd.min_increment()  # (the full increment up to a whole bet unit)
        found = finding(st, Rule.RAISE_BELOW_MIN, a.line, "raise",
                        (("player", p), ("to_amount", to), ("increment_amount", increment), ("bet_amount", faced),
                         ("full_amount", least), ("min_to_amount", faced + least)),
                        player=p, expected=f"to at least {faced + least}", actual=f"to {to}")
    if found is not None:
        out = [found] if out is None else out + [found]
    sizes = check_size(st, a, rnd, increment, all_in, to)
    if sizes:
        out = sizes if out is None else out + sizes
    return out


def check_size(st: HandState, a: Action, rnd: BettingRound, increment: int, all_in: bool, to: int,
               unit: bool = True) -> list[Finding] | None:
    """Bet units (qdan), pot limit, fixed-limit sizes and the cap; ``to``: the player's total after it."""
    p = a.player
    prof = st.profile
    out: list[Finding] | None = None
    bet_unit = prof.bet_unit
    if unit and bet_unit > 1 and not all_in and increment % bet_unit:
        out = gather(out, finding(st, Rule.BET_UNIT, a.line, "bet" if a.kind == "bet" else "raise",
                           (("player", p), ("increment_amount", increment), ("unit_amount", bet_unit)),
                           player=p, expected=f"a multiple of {bet_unit}", actual=increment))
    structure = betting(st)
    if structure == "pot-limit":
        limit = max_raise_to(st, p)
        if to > limit and not (all_in and to <= limit):
            out = gather(out, finding(st, Rule.BET_OVER_POT, a.line, "pot",
                               (("player", p), ("to_amount", to), ("limit_amount", limit)),
                               player=p, expected=f"at most {limit}", actual=to))
    elif structure == "fixed-limit":
        size = rnd.full
        target = rnd.full_to + size
        if (to != target and not all_in) or to > target:
            variant = "bet" if a.kind == "bet" else "raise" if rnd.full_to == rnd.current else "raise_completing"
            out = gather(out, finding(st, Rule.BET_FIXED_SIZE, a.line, variant,
                               (("player", p), ("to_amount", to), ("size_amount", size), ("target_amount", target),
                                ("full_to_amount", rnd.full_to)),
                               player=p, expected=target, actual=to))
        cap = prof.raise_cap
        if cap is not None and raise_capped(st, rnd):
            kept = not prof.raise_cap_heads_up and count_able(st) <= 2
            out = gather(out, finding(st, Rule.RAISE_CAP, a.line, "kept" if kept else "cap",
                               (("player", p), ("cap", cap), ("n", rnd.began_with)),
                               player=p, expected=f"at most {cap} bets", actual=rnd.raises + 1))
    return out


def bet_legal(st: HandState, p: str) -> BetLegal:
    """What the betting rules allow ``p`` now (the round open): to call, the smallest raise-to (by whole bet
    units) and the largest, whether raising is open to him (not past a fixed-limit cap), his stack. The one
    answer the dispute page's steps record and ``audit.engine.legal.legal_now`` gives the live table."""
    rnd = st.round
    assert rnd is not None
    capped = raise_capped(st, rnd)
    return BetLegal(rnd.to_call(p), rnd.min_raise_to(), max_raise_to(st, p), rnd.may_raise(p) and not capped,
                    stack_of(st, p), capped)


def raise_capped(st: HandState, rnd: BettingRound) -> bool:
    """Whether the round's bets and raises have reached the profile's cap (fixed limit), so that no one may
    raise again (what is legal now: the live table asks this, ``check_size`` judges by it)."""
    cap = st.profile.raise_cap
    return (cap is not None and betting(st) == "fixed-limit" and rnd.raises >= cap
            and not cap_lifted_heads_up(st, rnd))


def cap_lifted_heads_up(st: HandState, rnd: BettingRound) -> bool:
    """``raise-cap = 4-not-heads-up`` (site): raising is unlimited in a round that began heads-up (two players
    able to bet: an all-in player bets no more); a round that began with three or more stays capped after folds
    leave two (RULES.md, "Site logs", after Robert's Rules)."""
    return not st.profile.raise_cap_heads_up and rnd.began_with <= 2


# ------------------------------------------------------------------ what happened
def apply_fold(st: HandState, a: Action, rnd: BettingRound) -> None:
    """The player (marked folded in his record) is out of the round (an open parole offer may now have all its
    answers)."""
    rnd.any_fold = True
    rnd.pending.discard(a.player)
    rnd.acted.add(a.player)
    if st.parole.open and all_answered(st):
        settle_parole(st)


def apply_check(st: HandState, a: Action, rnd: BettingRound) -> None:
    """The player has acted, adding nothing."""
    rnd.pending.discard(a.player)
    rnd.acted.add(a.player)


def apply_call(st: HandState, a: Action, rnd: BettingRound) -> None:
    """The call's chips are the player's bet in the round (its chips already put in)."""
    p = a.player
    rnd.bets[p] = rnd.bets.get(p, 0) + a.amount
    rnd.pending.discard(p)
    rnd.acted.add(p)


def apply_bet(st: HandState, a: Action, rnd: BettingRound) -> None:
    """An opening bet (its chips already put in): the bet to match; a full bet sets the increment."""
    p = a.player
    if a.amount >= rnd.full and not rnd.fixed:
        rnd.full = a.amount
    rnd.bets[p] = rnd.bets.get(p, 0) + a.amount
    rnd.current = rnd.bets[p]
    full = a.amount * 2 >= rnd.full if rnd.fixed else a.amount >= rnd.full
    if rnd.fixed and full:
        rnd.full_to = rnd.current
    after_raise(st, p, rnd, full)
    rnd.opener = rnd.opener or p


def apply_raise(st: HandState, a: Action, rnd: BettingRound) -> None:
    """A raise to ``a.to`` (its chips already put in): the bet to match; a full raise sets the increment."""
    p = a.player
    to = a.to
    increment = to - rnd.current
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
    rnd.any_bet = True
    pending: set[str] = set()
    for pl in st.dealt:
        q = pl.name
        if q != p and not pl.folded and not pl.all_in and rnd.to_call(q) > 0:
            pending.add(q)
    rnd.pending = pending


def after_action(st: HandState) -> None:
    """After each action: the hand is won when one player is left; the round is over when nobody can act."""
    rnd = st.round
    assert rnd is not None
    dealt = st.dealt
    live = 0
    only: str | None = None
    able = 0
    for pl in dealt:
        if pl.folded:
            continue
        live += 1
        only = pl.name
        if not pl.all_in:
            able += 1
    if live == 1:
        st.won_by_fold = only
        rnd.pending = set()
        return
    if able <= 1:
        owes = False  # whether a player able to act has chips to call
        for pl in dealt:
            if not pl.folded and not pl.all_in and rnd.to_call(pl.name) != 0:
                owes = True
                break
        if not owes or only_all_ins_left(st, rnd):
            rnd.pending = set()
