"""Pots from contributions: uncalled bets, side pots by contribution level, and splitting with odd chips.

Pure functions on ``player → chips`` maps, shared by the replay engine, ``explain`` and the simulator.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple


class Pot(NamedTuple):
    """A pot as built: ``name`` is ``pot`` when there is only one, else ``main``, ``side-1``, ``side-2`` …"""

    name: str
    amount: int
    eligible: tuple[str, ...]  # in seat order


def uncalled(bets: Mapping[str, int]) -> tuple[str | None, int]:
    """The bet nobody matched: (the player, the excess over the next largest contribution), or (None, 0)."""
    return uncalled_bet(bets if isinstance(bets, dict) else dict(bets))


def uncalled_bet(bets: dict[str, int]) -> tuple[str | None, int]:
    """``uncalled`` of a dict (the replay's, at every round's end: a dict's items are read without a tuple
    each, where a ``Mapping``'s went through the generic protocol)."""
    top: str | None = None
    first = second = 0
    for player, amount in bets.items():
        if amount > first:
            top, first, second = player, amount, first
        elif amount > second:
            second = amount
    if top is None or first <= second:
        return None, 0
    return top, first - second


def build_pots(contributions: Mapping[str, int], live: Iterable[str], seat_order: Sequence[str],
               dead: int = 0) -> list[Pot]:
    """Main and side pots by contribution level (TDA 21).

    ``live``: players still in the hand (not folded); only they are eligible. Folded chips stay in the levels
    they reached. ``dead``: chips that belong to no player's level (a carried pot, dead blinds): main pot.
    Chips above the last live level (possible only in a log that is wrong) go to the last pot.
    """
    return [Pot(name, amount, eligible)
            for name, amount, eligible in pot_levels(dict(contributions), list(live), list(seat_order), dead)]


def pot_levels(contributions: dict[str, int], live: list[str], seat_order: list[str],
               dead: int = 0) -> list[tuple[str, int, tuple[str, ...]]]:
    """``build_pots`` as plain ``(name, amount, eligible)`` tuples, for the replay's hot path (no ``Pot`` to
    build, the containers' types known to the compiled code)."""
    first = 0  # the first live player's level (0: none yet)
    several = False  # live players at two levels or more: side pots
    for p in live:
        level = contributions.get(p, 0)
        if level > 0:
            if not first:
                first = level
            elif level != first:
                several = True
    if not several:  # no set to build: at most one level, one pot (``live`` is short: a list will do)
        total = dead
        if not first:
            for amount_in in contributions.values():
                total += amount_in
            eligible = tuple([p for p in seat_order if p in live])
            return [("pot", total, eligible)] if total or eligible else []
        for amount_in in contributions.values():
            if amount_in > 0:  # what the levels below would count: every positive contribution
                total += amount_in
        eligible = tuple([p for p in seat_order if p in live and contributions.get(p, 0) >= first])
        return [("pot", total, eligible)]
    live_set = set(live)
    level_set: set[int] = set()
    for p in live_set:
        level = contributions.get(p, 0)
        if level > 0:
            level_set.add(level)
    amounts: list[int] = []
    eligibles: list[tuple[str, ...]] = []
    previous = 0
    for level in sorted(level_set):
        amount = 0
        for amount_in in contributions.values():
            if amount_in > previous:
                amount += (amount_in if amount_in < level else level) - previous
        eligible = tuple([p for p in seat_order if p in live_set and contributions.get(p, 0) >= level])
        if eligibles and eligible == eligibles[-1]:
            amounts[-1] += amount
        else:
            amounts.append(amount)
            eligibles.append(eligible)
        previous = level
    for amount_in in contributions.values():
        if amount_in > previous:
            amounts[-1] += amount_in - previous
    amounts[0] += dead
    if len(amounts) == 1:
        return [("pot", amounts[0], eligibles[0])]
    return [("main" if i == 0 else f"side-{i}", amounts[i], eligibles[i]) for i in range(len(amounts))]


def odd_chip_order(seat_order: list[str], button_index: int) -> list[str]:
    """Players clockwise starting left of the button (``button_index`` in ``seat_order``, or -1)."""
    n = len(seat_order)
    if n == 0:
        return []
    start = (button_index + 1) % n
    return [seat_order[(start + i) % n] for i in range(n)]


def split(amount: int, winners: list[str], order: list[str]) -> dict[str, int]:
    """Share ``amount`` among tied ``winners``; odd chips one each, in ``order`` (left of the button first)."""
    if not winners:
        return {}
    n = len(winners)
    share = amount // n
    odd = amount - share * n  # ``divmod``'s remainder
    awards = {w: share for w in winners}
    if not odd:
        return awards
    ranked = [p for p in order if p in awards] + [w for w in winners if w not in order]
    for i in range(odd):
        awards[ranked[i % len(ranked)]] += 1
    return awards
