"""Settling a hand: what each player should have received against what the log says, and the fewest plain
transfers that put it right."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.engine import HandResult
from audit.findings import Finding
from audit.owed import dues

POT = "the pot"
"""The party that stands for the pot in corrections (chips the log paid to nobody, or out of nothing).
Player names are one word, so this name (with a space) is never a player's."""

HOUSE = "the house"
"""The party that stands for the house in corrections (a rake the game does not allow)."""

# ---------------------------------------------------------------------------------------------------- settling
@dataclass(frozen=True)
class Transfer:
    """``payer`` owes ``payee`` ``chips`` (either may be ``POT`` or ``HOUSE``)."""

    payer: str
    payee: str
    chips: int

    def as_dict(self) -> dict[str, Any]:
        return {"from": self.payer, "to": self.payee, "chips": self.chips}


def settle(balances: Mapping[str, int]) -> list[Transfer]:
    """Pairwise transfers that settle ``balances`` (party → chips owed to it; negative: chips it owes).

    Greedy: the largest debtor pays the largest creditor as much as both allow, again and again; ties go to
    the party named first in ``balances``. The balances must sum to zero (``ValueError`` otherwise).
    """
    if sum(balances.values()) != 0:
        raise ValueError(f"balances do not sum to zero: {dict(balances)}")
    index = {name: i for i, name in enumerate(balances)}
    creditors = {p: a for p, a in balances.items() if a > 0}
    debtors = {p: -a for p, a in balances.items() if a < 0}
    out: list[Transfer] = []
    while creditors and debtors:
        payer = min(debtors, key=lambda p: (-debtors[p], index[p]))
        payee = min(creditors, key=lambda p: (-creditors[p], index[p]))
        chips = min(debtors[payer], creditors[payee])
        out.append(Transfer(payer, payee, chips))
        debtors[payer] -= chips
        creditors[payee] -= chips
        if not debtors[payer]:
            del debtors[payer]
        if not creditors[payee]:
            del creditors[payee]
    return out


@dataclass
class Settlement:
    """What each player should have received against what the log says, and how to put it right.

    ``difference``: player → should_receive − received (+: the player is owed; −: the player got too much).
    ``remainder``: the sum of the differences: chips the log paid to nobody (> 0) or created (< 0); it is put
    against ``party`` (``POT``, or ``HOUSE`` for a rake the game does not allow) so the transfers balance.
    ``rake_kept``: a rake the game allows, taken off the winners' due before comparing.
    """

    should_receive: dict[str, int]
    received: dict[str, int]
    difference: dict[str, int]
    remainder: int
    party: str
    rake_kept: int
    balances: dict[str, int]  # difference (non-zero only) plus the party's share of the remainder
    transfers: list[Transfer]
    unjudged: list[str] = field(default_factory=list)  # pots whose winner the log cannot show (taken as paid)

    def as_dict(self) -> dict[str, Any]:
        return {"difference": dict(self.difference), "corrections": [t.as_dict() for t in self.transfers],
                "remainder": {"chips": self.remainder, "party": self.party} if self.remainder else None,
                "rake_kept": self.rake_kept, "unjudged_pots": list(self.unjudged)}


def settle_result(result: HandResult) -> Settlement:
    """The settlement of one replayed hand: what each player should have received (``audit.owed.dues``, the
    engine's awards with the verdict's adjustments) against what the log says, and the transfers that put it
    right."""
    d = dues(result)
    difference = d.difference()
    remainder = sum(difference.values())
    party = HOUSE if result.rake > 0 and d.rake_disallowed and remainder > 0 else POT
    balances = {p: n for p, n in difference.items() if n}
    if remainder:
        balances[party] = -remainder
    return Settlement(d.due, d.received, difference, remainder, party, d.rake_kept, balances, settle(balances),
                      d.unjudged)


def finding_parties(f: Finding, pots: Sequence[Mapping[str, Any]]) -> set[str]:
    """The parties a finding says chips went wrong for: its player and the players its message names (the tied
    winner owed, the odd chip's owner and taker, the pot's winners); a finding about a whole pot (no player:
    paid in all more or less than it held) names every player who collected from it or was owed from it; a
    finding about the whole hand (no pot, no player: chips not conserved, a rake) names ``POT`` and ``HOUSE``."""
    params = f.params if isinstance(f.params, dict) else dict(f.params)
    out = {f.player} if f.player else set()
    for key in ("owed", "owner", "paid"):
        value = params.get(key)
        if value:
            out.update(str(value).split(", "))
    winners = params.get("winners_and")
    if winners:
        out.update(str(winners).split("\n"))
    if f.player is None:
        pot = params.get("the_pot")
        if pot is None:
            out.update((POT, HOUSE))
        for p in pots:
            if pot is None or p["name"] == pot or (pot in ("pot", "main") and p["name"] in ("pot", "main")):
                out.update(p.get("collected", {}))
                out.update(p["awards"])
    return out
