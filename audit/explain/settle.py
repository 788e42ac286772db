"""Settling a hand: what each player should have received against what the log says, and the fewest plain
transfers that put it right."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.engine import HandResult
from audit.findings import Finding

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
    """The settlement of one replayed hand.

    ``should_receive`` is the engine's, with two adjustments: a pot whose winner cannot be known (a site log
    where nobody's cards were shown) is taken as the log paid it; and where the game allows a rake, the house
    keeps exactly the rake the summary states: taken off the winners' due if the engine's awards did not net
    it, and what a pot paid short beyond it is owed to that pot's winners.
    """
    players = list(dict.fromkeys([*result.dealt_in, *result.should_receive, *result.received]))
    due = {p: result.should_receive.get(p, 0) for p in players}
    unjudged: list[str] = []
    for pot in result.pots:
        if not pot["winners"] and pot["eligible"]:
            unjudged.append(str(pot["name"]))
            for p, n in pot.get("collected", {}).items():
                due[p] = due.get(p, 0) + int(n)
    players = list(dict.fromkeys([*players, *due]))
    received = {p: result.received.get(p, 0) for p in players}
    due = {p: due.get(p, 0) for p in players}
    rake = result.rake
    rake_disallowed = any(f.rule == "RAKE" for f in result.findings)
    rake_kept = 0
    if rake > 0 and not rake_disallowed and not result.redeal:
        rake_kept = rake
        kept_by_engine = sum(result.contributions.values()) + result.hand.carried - sum(due.values())
        if rake > kept_by_engine:
            # the awards are gross: the rake comes off the winners' due, first off those the log paid short
            left = rake - max(0, kept_by_engine)
            for p in sorted(players, key=lambda q: -(due[q] - received[q])):
                take = min(left, max(0, due[p] - received[p]))
                due[p] -= take
                left -= take
            for p in sorted(players, key=lambda q: -due[q]):
                take = min(left, due[p])
                due[p] -= take
                left -= take
            rake_kept = rake - left
        elif kept_by_engine > rake:
            # the engine took every chip a pot paid short as rake; beyond the stated rake they are the winners'
            left = kept_by_engine - rake
            for pot in result.pots:
                short = min(left, int(pot.get("rake", 0)))
                if short <= 0 or not pot["winners"]:
                    continue
                winners = list(pot["winners"])
                share, odd = divmod(short, len(winners))
                for i, w in enumerate(winners):
                    due[w] = due.get(w, 0) + share + (1 if i < odd else 0)
                left -= short
    difference = {p: due[p] - received[p] for p in players}
    remainder = sum(difference.values())
    party = HOUSE if rake > 0 and rake_disallowed and remainder > 0 else POT
    balances = {p: d for p, d in difference.items() if d}
    if remainder:
        balances[party] = -remainder
    return Settlement(due, received, difference, remainder, party, rake_kept, balances, settle(balances),
                      unjudged)


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
