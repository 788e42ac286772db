"""What is legal now, as one typed answer: ``legal_now(state) -> Legal``.

Whose turn it is and what that player may do at the point the replay has reached: in a betting round the
betting's queries (``audit.engine.betting.bet_legal``: to call, min / max raise-to by whole bet units, may raise,
the fixed-limit cap) and the pot-sized and half-pot amounts already in units and within them; in the draw who
draws next and his limit; in a parole offer who answers; at the show down who shows next, and whether the pot
goes without a show to the one player nobody is left to beat. The dispute page's steps record the same betting
answer (``bet_legal``), the live table (``audit.live``) offers this one, and the engine judges by the same
queries, so the three cannot disagree.

This module sits above the phases (it asks them, they never ask it): ``ACTION_NOT_ALLOWED``, the judgement of an
action the rules do not allow at all, stays in ``audit.engine.allowed``, which the phases import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit.engine.betting import bet_legal
from audit.engine.parole import may_offer_parole, next_parole_answer
from audit.engine.showdown import first_to_show
from audit.engine.state import HandState, draw_limit, expected_actor, next_to_draw, pot_now


@dataclass(frozen=True)
class Legal:
    """What the player whose turn it is may do (``to_act``: ``None`` when nobody has to act).

    ``actions``: the entries open to him (``fold``, ``check``, ``call``, ``bet``, ``raise``, ``offer-parole``,
    ``accept-parole``, ``decline-parole``, ``draw``, ``stand-pat``, ``show``, ``muck``); ``to_call``; ``min_to``
    and ``max_to``: what a bet or raise may make his total this round (``min_to`` never above ``max_to``: a
    short stack's only raise is all-in); ``may_raise``: the betting is open to him; ``capped``: a fixed-limit
    round past its cap; ``draw_max``; ``bet_unit``; ``pot_to`` and ``half_pot_to``: a pot-sized and a half-pot
    bet or raise, in whole units and within the limits (``None`` where the stack does not reach them: the
    all-in is the choice then); ``all_in_to``: ``max_to`` when it is every chip he has, else ``None``;
    ``shows_next``: who shows next at the show down; ``unchallenged``: the player who takes the pot without a
    show (every other hand folded or mucked).
    """

    to_act: str | None = None
    actions: tuple[str, ...] = ()
    to_call: int = 0
    min_to: int = 0
    max_to: int = 0
    may_raise: bool = False
    capped: bool = False
    draw_max: int = 0
    bet_unit: int = 1
    pot_to: int | None = None
    half_pot_to: int | None = None
    all_in_to: int | None = None
    shows_next: str | None = None
    unchallenged: str | None = None

    def allowed(self) -> dict[str, Any]:
        """The live table's ``allowed`` (INTERFACE.md: ``actions``, ``to_call``, ``min_to``, ``max_to``,
        ``may_raise``, ``draw_max``; added: ``bet_unit``, ``capped``, ``pot_to``, ``half_pot_to``,
        ``all_in_to``)."""
        return {"actions": list(self.actions), "to_call": self.to_call, "min_to": self.min_to,
                "max_to": self.max_to, "may_raise": self.may_raise, "draw_max": self.draw_max,
                "bet_unit": self.bet_unit, "capped": self.capped, "pot_to": self.pot_to,
                "half_pot_to": self.half_pot_to, "all_in_to": self.all_in_to}


NOTHING = Legal()


def legal_now(st: HandState) -> Legal:
    """What is legal after the last line the replay followed (see ``Legal``)."""
    unchallenged = settles_unchallenged(st)
    if unchallenged is not None:
        return Legal(unchallenged=unchallenged)
    answering = next_parole_answer(st)
    if answering is not None:
        return Legal(answering, ("accept-parole", "decline-parole"))
    street = st.street
    if street in ("first", "second") and st.round is not None:
        return _betting(st)
    if street == "draw":
        p = next_to_draw(st)
        if p is None:
            return NOTHING
        return Legal(p, ("draw", "stand-pat"), draw_max=draw_limit(st, p, None))
    if street == "showdown":
        p = shows_next(st)
        return NOTHING if p is None else Legal(p, ("show", "muck"), shows_next=p)
    return NOTHING


def _betting(st: HandState) -> Legal:
    rnd = st.round
    assert rnd is not None
    p = expected_actor(st, st.last_actor)
    if p is None:
        return NOTHING
    bet = bet_legal(st, p)
    owed = bet.to_call
    top = bet.max_raise_to
    low = min(bet.min_raise_to, top)
    actions = ["fold", "check" if owed == 0 else "call"]
    if bet.may_raise and bet.stack_before > owed:
        actions.append("bet" if rnd.current == 0 else "raise")
    if may_offer_parole(st, p):
        actions.append("offer-parole")
    unit = rnd.unit
    all_in_to = top if top == rnd.bets.get(p, 0) + max(0, bet.stack_before) else None
    pot = pot_now(st) + owed  # the pot after his call: dead money and every bet in front included
    current = rnd.current

    def sized(amount: int) -> int | None:
        """A bet or raise to ``amount``, in whole units above the bet, at least the minimum; ``None`` where it
        is more than he may make it, or all he has (the all-in is the choice then)."""
        above = amount - current
        above -= above % unit
        to = max(low, current + above)
        return to if to < top or (to == top and all_in_to is None) else None

    return Legal(p, tuple(actions), owed, low, top, bet.may_raise, bet.capped, bet_unit=unit,
                 pot_to=sized(current + pot), half_pot_to=sized(current + pot // 2), all_in_to=all_in_to)


def shows_next(st: HandState) -> str | None:
    """Who shows next at the show down: the first to show while he has not, then clockwise from the last to
    show (or muck) among those still holding a hand."""
    live = [pl.name for pl in st.dealt if not pl.folded]
    waiting = [q for q in live if q not in st.shown and q not in st.mucked]
    if not waiting:
        return None
    first = first_to_show(st, live)
    if first is not None and first in waiting:
        return first
    if st.show_order or st.mucked:
        n = len(st.order)
        last = st.show_order[-1] if st.show_order else first
        at = st.order.index(last) if last in st.order else st.button_index
        for i in range(1, n + 1):
            q = st.order[(at + i) % n]
            if q in waiting:
                return q
    return waiting[0]


def settles_unchallenged(st: HandState) -> str | None:
    """The player the pot goes to without a show: the last one left when the others folded, or, at the show
    down, the one hand not mucked when no hand was shown (nobody left to beat)."""
    if st.won_by_fold is not None:
        return st.won_by_fold
    if st.street != "showdown" or st.shown:
        return None
    holding = [pl.name for pl in st.dealt if not pl.folded and pl.name not in st.mucked]
    return holding[0] if len(holding) == 1 else None
