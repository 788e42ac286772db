"""The lines the live table writes itself, in the house format: the hand's head (seats and stacks), the forced
bets, and at the end of a hand the uncalled bets and the payout, one writer per way a hand is paid: the engine's
pots (``pot_lines``), a parole's split (``parole_lines``) and the host's claims (``claim_lines``)."""

from __future__ import annotations

from collections.abc import Mapping

from audit.engine.legal import settles_unchallenged
from audit.engine.result import HandResult
from audit.engine.state import HandState
from audit.engine.table import blind_seats, ring_from_button
from audit.pots import odd_chip_order
from audit.profile import Profile


def head_lines(number: int, started_at: str, table: str, button: int, stacks: Mapping[str, int],
               seat_of: Mapping[str, int], carried: int, points: bool) -> list[str]:
    """The hand's first line, the table's, a line per seat with its stack (points in points mode) and the pot
    carried over from a redeal."""
    head = [f"Hand #{number} - {started_at}", f"Table '{table}' Seat #{button} is the button"]
    if points:
        head += [f"Seat {seat_of[p]}: {p} ({c} point{'' if c == 1 else 's'})" for p, c in stacks.items()]
    else:
        head += [f"Seat {seat_of[p]}: {p} ({c} in chips)" for p, c in stacks.items()]
    if carried:
        head.append(f"Pot carried over: {carried}")
    return head


def forced_bet_lines(prof: Profile, stacks: Mapping[str, int], seat_of: Mapping[str, int], button: int,
                     small_blind: int) -> list[str]:
    """The antes and blinds the profile asks of each player (all-in when his stack is short), the deal and the
    first round's marker; in points mode no forced bets and no betting: the deal, then the draw."""
    if prof.points_mode:
        return ["*** DEALING HANDS ***", "*** DRAW ***"]
    lines: list[str] = []
    left = dict(stacks)
    if prof.ante:
        for p in stacks:
            amount = min(prof.ante, left[p])
            left[p] -= amount
            lines.append(f"{p}: posts the ante {amount}" + (" and is all-in" if left[p] == 0 else ""))
    if prof.blinds == "three":
        ring = ring_from_button(list(stacks), dict(seat_of), button)
        levels = {"small": small_blind, "big": 2 * small_blind, "over": 4 * small_blind}
        for kind, who in blind_seats(ring).items():
            amount = min(levels[kind], left[who])
            if amount <= 0:
                continue
            left[who] -= amount
            lines.append(f"{who}: posts {kind} blind {amount}" + (" and is all-in" if left[who] == 0 else ""))
    return lines + ["*** DEALING HANDS ***", "*** FIRST BETTING ROUND ***"]


def uncalled_lines(st: HandState) -> list[str]:
    """Each bet nobody called, returned to its player (TDA 15-B)."""
    return [f"Uncalled bet ({amount}) returned to {p}" for p, amount in st.returned_due.items() if amount > 0]


def pot_lines(st: HandState, result: HandResult, but_main: bool = False) -> list[str]:
    """Each pot of the engine's settlement to its winners (odd chips by the profile's rule); a pot nobody
    challenged (every other hand mucked, none shown) to the one left. ``but_main``: the host's claims stand for
    the main pot."""
    unchallenged = settles_unchallenged(st)
    out: list[str] = []
    for pot in result.pots:
        name = str(pot["name"])
        if but_main and name == "main":
            continue
        where = "pot" if name == "pot" else "main pot" if name == "main" else "side pot-" + name[5:]
        awards = dict(pot["awards"])
        if not awards and unchallenged is not None and unchallenged in pot["eligible"]:
            awards = {unchallenged: int(pot["amount"])}
        out += [f"{p} collected {awards[p]} from {where}" for p in st.order if awards.get(p, 0)]
    return out


def parole_lines(st: HandState, result: HandResult) -> list[str]:
    """An accepted parole: each player's share of every pot, in the odd chips' order."""
    split = {p: sum(pot["awards"].get(p, 0) for pot in result.pots) for p in st.order}
    return [f"{p} collected {split[p]} from pot (parole)" for p in odd_chip_order(st.order, st.button_index)
            if split[p]]


def claim_lines(claims: tuple[tuple[str, int], ...], result: HandResult) -> list[str]:
    """The host's claims of who took what, from the pot (or the main pot: the side pots as the engine pays
    them)."""
    where = "pot" if len(result.pots) <= 1 else "main pot"
    return [f"{p} collected {amount} from {where}" for p, amount in claims]


def payout_lines(st: HandState, result: HandResult, claims: tuple[tuple[str, int], ...]) -> list[str]:
    """The payout of a hand played out (not a redeal, not points): the uncalled bets back, then the host's
    claims, a parole's split or the engine's pots, and the summary."""
    out = uncalled_lines(st)
    if claims:
        out += claim_lines(claims, result)
        if len(result.pots) > 1 and st.parole.state != "accepted":
            out += pot_lines(st, result, but_main=True)
    elif st.parole.state == "accepted":
        out += parole_lines(st, result)
    else:
        out += pot_lines(st, result)
    return out + ["*** SUMMARY ***", f"Total pot {result.pot_total} | Rake 0"]
