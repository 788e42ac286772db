"""``ACTION_NOT_ALLOWED``: a line the rules do not allow at that point of the hand, judged in one place.

The variants (each a message id ``finding.ACTION_NOT_ALLOWED.<variant>``): a forced bet after the deal; a betting
round or a bet in a game without bets; an action with no betting round open, after folding, after going all-in,
after the hand was won or after the round was complete; a check facing a bet, a call with nothing to call, a bet
when a bet stands, a raise with no bet to raise or to no more than the bet.
"""

from __future__ import annotations


from audit.engine.state import BettingRound, HandState, finding, only_all_ins_left
from audit.findings import Finding
from audit.model import Action, Marker, Post
from audit.rules import Rule


def post_not_allowed(st: HandState, post: Post) -> Finding | None:
    """A forced bet is posted before the cards are dealt."""
    if st.street == "pre":
        return None
    return finding(st, Rule.ACTION_NOT_ALLOWED, post.line, "post_after_deal", (("player", post.player),),
                   player=post.player)


def round_not_allowed(st: HandState, m: Marker) -> Finding | None:
    """A betting round's marker in a game without bets."""
    if not st.points_mode or m.street not in ("first", "second"):
        return None
    return finding(st, Rule.ACTION_NOT_ALLOWED, m.line, "no_betting_round", expected="the draw",
                   actual="the first betting round" if m.street == "first" else "the second betting round",
                   street=m.street)


def action_not_allowed(st: HandState, a: Action, rnd: BettingRound | None) -> list[Finding] | None:
    """What is wrong with acting at all now (a game without bets, no round, folded, all-in, the hand won, the
    round complete), then with this kind of action (check, call, bet, raise) against the bet standing. ``rnd``:
    the round open (``None``: none). ``None`` when it is allowed."""
    p = a.player
    kind = a.kind
    if st.points_mode:
        all_in = "finding.ACTION_NOT_ALLOWED.all_in" if a.all_in and kind in ("call", "bet", "raise") else ""
        return [finding(st, Rule.ACTION_NOT_ALLOWED, a.line, "no_betting_" + kind,
                        (("player", p), ("amount", a.amount), ("to_amount", a.to), ("all_in_word", all_in)),
                        player=p, expected="no betting", actual=kind)]
    if rnd is None or st.street not in ("first", "second"):
        return [finding(st, Rule.ACTION_NOT_ALLOWED, a.line, "no_round", (("player", p), ("kind_word", "action." + kind)), player=p)]
    out: list[Finding] | None = None
    turn = _turn_not_allowed(st, a, rnd)
    if turn:
        out = [finding(st, Rule.ACTION_NOT_ALLOWED, a.line, turn, (("player", p),), player=p)]
    found: Finding | None = None
    if kind == "check":
        owed = rnd.to_call(p)
        if owed > 0:
            found = finding(st, Rule.ACTION_NOT_ALLOWED, a.line, "check_facing_bet",
                            (("player", p), ("bet_amount", rnd.current), ("call_amount", owed)),
                            player=p, expected=f"call {owed}", actual="check")
    elif kind == "call":
        if rnd.to_call(p) == 0:
            found = finding(st, Rule.ACTION_NOT_ALLOWED, a.line, "call_nothing", (("player", p),), player=p, expected="check",
                            actual=f"call {a.amount}")
    elif kind == "bet":
        if rnd.current > 0:
            found = finding(st, Rule.ACTION_NOT_ALLOWED, a.line, "bet_standing",
                            (("player", p), ("bet_amount", a.amount), ("standing_amount", rnd.current)),
                            player=p, expected="call, raise or fold", actual=f"bet {a.amount}")
    elif kind == "raise" and rnd.current == 0:
        found = finding(st, Rule.ACTION_NOT_ALLOWED, a.line, "raise_nothing", (("player", p), ("to_amount", a.to)), player=p,
                        expected=f"bet {a.to}", actual=f"raise to {a.to}")
    if found is not None:
        out = [found] if out is None else out + [found]
    if kind in ("bet", "raise"):
        to = rnd.bets.get(p, 0) + a.amount if kind == "bet" else a.to
        if kind == "raise" or rnd.current > 0:  # a bet when one stands is judged as the raise it would be
            faced = rnd.current
            if to - faced <= 0:
                found = finding(st, Rule.ACTION_NOT_ALLOWED, a.line, "raise_not_above",
                                (("player", p), ("to_amount", to), ("bet_amount", faced)),
                                player=p, expected=f"more than {faced}", actual=to)
                out = [found] if out is None else out + [found]
    return out


def _turn_not_allowed(st: HandState, a: Action, rnd: BettingRound) -> str:
    """Why ``a.player`` may not act at all now ('' when he may): the variant's name."""
    p = a.player
    pl = st.players.get(p)
    if pl is not None and pl.folded:
        return "after_fold"
    if pl is not None and pl.all_in:
        return "after_all_in"
    if st.won_by_fold is not None:
        return "after_won"
    if not rnd.pending:
        if a.kind == "call" and p not in rnd.acted and rnd.to_call(p) > 0 and only_all_ins_left(st, rnd):
            return ""  # completing a short all-in blind: allowed, though the chips come back uncalled
        return "round_complete"
    return ""


def may_act(st: HandState, a: Action, rnd: BettingRound) -> bool:
    """Whether ``a.player`` may act at all now (whose turn it is is another matter)."""
    return not _turn_not_allowed(st, a, rnd)
