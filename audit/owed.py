"""What a hand owes each player, and the wrong payments a table put right itself.

One judgement for every place that sums chips owed: the verdict of ``audit explain`` (``audit.explain.settle``
settles ``dues``, ``audit.explain.build`` follows ``TableCorrections``) and the rows ``audit ingest`` stores for
every hand (``audit.store.rows``: ``seats.owed`` and ``hands.corrects``, which the reports net). Compiled with the
hot path (``audit/_native.py``), since ingest asks it of every hand.

A table's own correction: a stack that changed between two hands of a session exactly as an earlier hand's wrong
payment had to be reversed means the table put that hand right itself, and nothing is left to pay for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

from audit.engine.result import HandResult
from audit.findings import Finding


class Dues:
    """What each player of a hand should have received against what the log says (``dues``)."""

    def __init__(self, players: list[str], due: dict[str, int], received: dict[str, int], rake_kept: int,
                 rake_disallowed: bool, unjudged: list[str]) -> None:
        self.players = players  # dealt in, owed or paid, in that order
        self.due = due  # player -> chips they should have received
        self.received = received  # player -> chips the log says they received
        self.rake_kept = rake_kept  # a rake the game allows, taken off the winners' due before comparing
        self.rake_disallowed = rake_disallowed  # a RAKE finding: the game allows none, or less
        self.unjudged = unjudged  # pots whose winner the log cannot show (taken as paid)

    def difference(self) -> dict[str, int]:
        """Player → should receive − received (+: the player is owed; −: the player got too much)."""
        due, received = self.due, self.received
        return {p: due[p] - received[p] for p in self.players}


def dues(result: HandResult) -> Dues:
    """What each player of a replayed hand should have received, against what the log says.

    ``should_receive`` is the engine's, with two adjustments: a pot whose winner cannot be known (a site log
    where nobody's cards were shown) is taken as the log paid it; and where the game allows a rake, the house
    keeps exactly the rake the summary states: taken off the winners' due if the engine's awards did not net
    it, and what a pot paid short beyond it is owed to that pot's winners.
    """
    should_receive, paid = result.should_receive, result.received
    players = list(dict.fromkeys([*result.dealt_in, *should_receive, *paid]))
    due = {p: should_receive.get(p, 0) for p in players}
    unjudged: list[str] = []
    for pot in result.pots:
        if not pot["winners"] and pot["eligible"]:
            unjudged.append(str(pot["name"]))
            for p, n in pot.get("collected", {}).items():
                due[p] = due.get(p, 0) + int(n)
    if unjudged:  # a player who only collected from an unjudged pot is one more
        players = list(dict.fromkeys([*players, *due]))
    received = {p: paid.get(p, 0) for p in players}
    rake = result.rake
    rake_disallowed = False
    for f in result.findings:
        if f.rule == "RAKE":
            rake_disallowed = True
            break
    rake_kept = 0
    if rake > 0 and not rake_disallowed and not result.redeal:
        rake_kept = _keep_rake(result, players, due, received)
    return Dues(players, due, received, rake_kept, rake_disallowed, unjudged)


def _keep_rake(result: HandResult, players: list[str], due: dict[str, int], received: dict[str, int]) -> int:
    """The rake a game allows, kept by the house exactly as the summary states it (``due`` adjusted in place);
    the rake kept."""
    rake = result.rake
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
        return rake - left
    if kept_by_engine > rake:
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
    return rake


H = TypeVar("H")
"""What a caller knows a hand by (an explained hand, a hand's id)."""


def stack_changes(findings: Iterable[Finding]) -> dict[str, int]:
    """Player → how much the stack they sat down with differs from the one they ended the last hand with (the
    ``STACK_CONTINUITY`` findings of a stack carried wrong); empty when every stack carried over."""
    changes: dict[str, int] = {}
    for f in findings:
        if f.rule != "STACK_CONTINUITY" or f.msg_id != "finding.STACK_CONTINUITY.carried":
            continue
        params = dict(f.params)
        stack, ended = params.get("stack_chips"), params.get("ended_amount")
        if isinstance(stack, int) and isinstance(ended, int):
            player = f.player or ""
            changes[player] = changes.get(player, 0) + stack - ended
    return changes


class TableCorrections(Generic[H]):
    """The hands of one session that paid someone wrong and that the table has not put right yet, in order."""

    def __init__(self) -> None:
        self.open: list[tuple[H, dict[str, int]]] = []  # (hand, player → chips owed to them, non-zero only)

    def corrected_by(self, changes: Mapping[str, int]) -> list[H]:
        """The open hands whose wrong payments ``changes`` (``stack_changes`` of a later hand) reverse exactly:
        the latest such hand alone, else all of them together; [] when the changes correct nothing. The hands
        returned are closed."""
        if not changes:
            return []
        wanted = {p: d for p, d in changes.items() if d}
        if not wanted:
            return []
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][1] == wanted:
                return [self.open.pop(i)[0]]
        total: dict[str, int] = {}
        for _, owed in self.open:
            for p, d in owed.items():
                total[p] = total.get(p, 0) + d
        if self.open and {p: d for p, d in total.items() if d} == wanted:
            hands = [h for h, _ in self.open]
            self.open.clear()
            return hands
        return []

    def paid(self, hand: H, difference: Mapping[str, int]) -> bool:
        """Remember ``hand`` as open when its settlement's ``difference`` (player → chips owed to them) is not
        all zero; whether it is."""
        owed = {p: d for p, d in difference.items() if d}
        if owed:
            self.open.append((hand, owed))
        return bool(owed)
