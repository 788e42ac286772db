"""The walk over one hand: each line of the body, in order, to the phase it belongs to; the street markers move
the hand from forced bets to the deal, the betting rounds, the draw, the show down and the summary.

``replay(hand, profile)`` is the engine's entry point (``from audit import replay``).
"""

from __future__ import annotations

from typing import Any, Final, cast

from audit.engine.betting import on_action
from audit.engine.deal import deal_to, on_deck
from audit.engine.draw import (
    draw_received, end_draw_phase, on_discard, on_reshuffle, on_stand_pat, received_without_discard,
)
from audit.engine.forced import check_forced_bets, on_post
from audit.engine.parole import end_parole_answers, on_parole
from audit.engine.result import HandResult
from audit.engine.rounds import close_round, open_round
from audit.engine.settle import finish, on_collect, on_summary, on_uncalled
from audit.engine.showdown import on_muck, on_score, on_show
from audit.engine.allowed import round_not_allowed
from audit.engine.showdown import check_points_mode

from audit.engine.state import HandState, Player, finding, note, record
from audit.findings import Finding
from audit.engine.table import check_seats, min_bet
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Event, Hand, Item, Marker, Muck, NoPlay, Parole, Post, Reshuffle,
    Score, Show, StandPat, SummaryTotal, Uncalled,
)
from audit.profile import Profile
from audit.rules import Rule

# the body's line types, numbered for ``follow``'s dispatch
_KIND: Final[dict[type, int]] = {
    Action: 0, Dealt: 1, Post: 2, Marker: 3, Discard: 4, Show: 5, Collect: 6, StandPat: 7, SummaryTotal: 8,
    Uncalled: 9, DeckLine: 10, Muck: 11, Event: 12, Reshuffle: 13, Parole: 14, NoPlay: 15, Score: 16,
}
# the kinds of line whose player must have a seat (UNKNOWN_PLAYER, and the line is skipped)
_SEATED: Final[frozenset[int]] = frozenset({0, 1, 2, 4, 5, 6, 7, 9, 11, 14, 15, 16})
# the same kinds as bits of one int (``_SEATED_BITS >> kind & 1``: no set look-up, no int object per line)
_SEATED_BITS: Final = (1 << 0 | 1 << 1 | 1 << 2 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 9 | 1 << 11 | 1 << 14
                       | 1 << 15 | 1 << 16)


def replay(hand: Hand, profile: Profile, session: str | None = None, steps: bool = False) -> HandResult:
    """Replay one hand under ``profile``; ``steps=True`` also records every step for ``explain``."""
    return walk(start(hand, profile, session, steps))


def start(hand: Hand, profile: Profile, session: str | None = None, steps: bool = False) -> HandState:
    """The state before the first line of ``hand``'s body (the seats and the table judged)."""
    st = HandState(hand, profile, session, steps)
    st.min_bet = min_bet(st)
    note(st, check_seats(st))
    note(st, check_points_mode(st))
    return st


def walk(st: HandState) -> HandResult:
    """Every line of the body to its phase (``follow``), then the settlement."""
    findings = st.findings
    for item in st.hand.body:
        before = len(findings)
        if not follow(st, item):
            continue
        steps = st.steps
        if steps is not None and len(findings) > before:
            line = st.last_line
            if not steps or steps[-1].line != line:
                record(st, line, item)
            steps[-1].findings.extend(findings[before:])
    return finish(st)


def follow(st: HandState, item: Item) -> bool:
    """One line of the log, to the phase it belongs to; ``False`` when it was skipped (its player has no seat:
    ``UNKNOWN_PLAYER``)."""
    # one dict look-up by type (the classes are module globals: comparing with each costs a look-up too)
    kind = _KIND.get(type(item), -1)
    row: tuple[Any, ...] = item  # every line's first field is its line number, the second its player
    pl: Player | None = None  # the line's player, looked up once for the phases that read his record
    if kind >= 0 and (_SEATED_BITS >> kind) & 1:
        pl = st.players.get(row[1])
        if pl is None:
            st.findings.append(unknown_player(st, row[1], row[0]))
            return False
    if kind == 0:
        assert pl is not None
        on_action(st, cast(Action, item), pl)
    elif kind == 1:
        assert pl is not None
        on_dealt(st, cast(Dealt, item), pl)
    elif kind == 2:
        assert pl is not None
        on_post(st, cast(Post, item), pl)
    elif kind == 3:
        on_marker(st, cast(Marker, item))
    elif kind == 4:
        assert pl is not None
        on_discard(st, cast(Discard, item), pl)
    elif kind == 5:
        assert pl is not None
        on_show(st, cast(Show, item), pl)
    elif kind == 6:
        on_collect(st, cast(Collect, item))
    elif kind == 7:
        assert pl is not None
        on_stand_pat(st, cast(StandPat, item), pl)
    elif kind == 8:
        on_summary(st, cast(SummaryTotal, item))
    elif kind == 9:
        on_uncalled(st, cast(Uncalled, item))
    elif kind == 10:
        on_deck(st, cast(DeckLine, item))
    elif kind == 11:
        on_muck(st, cast(Muck, item))
    elif kind == 12:
        on_event(st, cast(Event, item))
    elif kind == 13:
        on_reshuffle(st, cast(Reshuffle, item))
    elif kind == 14:
        on_parole(st, cast(Parole, item))
    elif kind == 15:
        on_noplay(st, cast(NoPlay, item))
    elif kind == 16:
        on_score(st, cast(Score, item))
    else:
        raise KeyError(type(item))
    st.last_line = row[0]
    return True


def unknown_player(st: HandState, player: str, line: int) -> Finding:
    """``UNKNOWN_PLAYER``: a line names a player without a seat."""
    return finding(st, Rule.UNKNOWN_PLAYER, line, "no_seat", (("player", player),), player=player)


def on_marker(st: HandState, m: Marker) -> None:
    """A street line (``*** DRAW ***`` …): the street moves on, closing what it ends."""
    street = m.street
    if st.parole.open:
        end_parole_answers(st, m.line)
    if street == "deal":
        check_forced_bets(st, m.line)
        st.street = "deal"
    elif street in ("first", "second") and st.points_mode:
        note(st, round_not_allowed(st, m))
        st.street = "deal" if street == "first" else "draw"
    elif street in ("first", "second"):
        close_round(st, m.line)
        if street == "second" and st.street in ("first", "deal", "draw"):
            end_draw_phase(st, m.line)
        open_round(st, street, m.line)
    elif street == "draw":
        close_round(st, m.line)
        st.street = "draw"
    elif street == "showdown":
        close_round(st, m.line)
        st.street = "showdown"
    elif street == "summary":
        close_round(st, m.line)
        st.street = "summary"
    elif street == "redeal":
        close_round(st, m.line)
        st.redeal_line = m.line
        st.street = "summary"
    if st.steps is not None:
        record(st, m.line, m)


def on_dealt(st: HandState, d: Dealt, pl: Player) -> None:
    """Cards to ``pl``: his first five, or his new cards after a discard."""
    if st.street in ("pre", "deal") and pl.cards is None:
        deal_to(st, d, pl)
    elif st.street in ("draw", "first", "deal", "second") and d.player in st.stub.waiting:
        draw_received(st, d, pl)
    else:
        st.findings.append(received_without_discard(st, d))
    if st.steps is not None:
        record(st, d.line, d)


def on_event(st: HandState, e: Event) -> None:
    """A line that changes nothing (a disconnection, a chat line); its player must have a seat in a house log."""
    if e.player not in st.players and st.hand.shows_all_cards:
        st.findings.append(unknown_player(st, e.player, e.line))


def on_noplay(st: HandState, item: NoPlay) -> None:
    """A seated player who does not play this hand (taken out of the deal when the state was built)."""
    if st.steps is not None:
        record(st, item.line, item)
