"""The table's own corrections: a stack that changed between two hands of a session exactly as an earlier hand's
wrong payment had to be reversed means the table put that hand right itself, and nothing is left to pay for it.

One judgement for every place that sums chips owed: the verdict of ``audit explain`` (``audit.explain.build``)
and the rows ``audit ingest`` stores (``audit.store.rows``: ``hands.corrects``, which the reports net).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

from audit.findings import Finding

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
