"""What the replay of one hand gives: its findings, its pots as built and settled, what each player should have
received and what the log says he received, and the steps for ``explain``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.engine.deal import checks_not_made
from audit.engine.steps import Step
from audit.findings import Finding
from audit.model import Hand


class PotResult(dict[str, Any]):
    """A pot as built and settled: ``name``, ``amount``, ``eligible``, ``winners``, ``awards`` (player → chips),
    and ``collected`` (player → chips, from the log)."""


@dataclass
class HandResult:
    """Everything the replay learnt about one hand."""

    hand: Hand
    profile: str
    session: str | None
    findings: list[Finding]
    pots: list[PotResult]
    should_receive: dict[str, int]  # pots won + uncalled bets due back
    received: dict[str, int]  # from the log: collected + returned
    contributions: dict[str, int]  # chips each player put in (antes, blinds, bets), before any return
    start_stacks: dict[str, int]
    end_stacks: dict[str, int]  # what the log implies each player holds after the hand
    dealt_in: list[str]
    redeal: bool = False
    pot_total: int = 0
    rake: int = 0
    steps: list[Step] | None = None
    points: dict[str, int] = field(default_factory=dict)
    unjudged: tuple[str, ...] = ()  # what the shown cards could not prove (``Cards: shown``): ``unchecked``

    # Written out (the dataclass keeps it): the generated one runs as interpreted code, once per hand.
    def __init__(self, hand: Hand, profile: str, session: str | None, findings: list[Finding],
                 pots: list[PotResult], should_receive: dict[str, int], received: dict[str, int],
                 contributions: dict[str, int], start_stacks: dict[str, int], end_stacks: dict[str, int],
                 dealt_in: list[str], redeal: bool = False, pot_total: int = 0, rake: int = 0,
                 steps: list[Step] | None = None, points: dict[str, int] | None = None,
                 unjudged: tuple[str, ...] = ()) -> None:
        self.hand = hand
        self.profile = profile
        self.session = session
        self.findings = findings
        self.pots = pots
        self.should_receive = should_receive
        self.received = received
        self.contributions = contributions
        self.start_stacks = start_stacks
        self.end_stacks = end_stacks
        self.dealt_in = dealt_in
        self.redeal = redeal
        self.pot_total = pot_total
        self.rake = rake
        self.steps = steps
        self.points = {} if points is None else points
        self.unjudged = unjudged

    @property
    def unchecked(self) -> tuple[str, ...]:
        """The checks this hand's log did not allow: ``deck``, ``duplicates``, ``discards`` when it shows only
        some cards (said once per hand), and ``draw_limit`` or ``openers`` when the shown cards could not prove
        a draw of four under ``3+ace`` or an opener's openers; else none."""
        return checks_not_made(self.hand) + self.unjudged
