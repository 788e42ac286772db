"""The record of a hand step by step, for ``explain``: after each line of the log, the table as the engine saw it
and what the rules allowed before it. Typed data only (no words: ``audit.explain`` says them).

Recorded only when asked for (``replay(..., steps=True)``); nothing here runs for ``audit check``.
"""

from __future__ import annotations

from audit.findings import Finding
from audit.model import Item
from audit.pots import Pot


class BetLegal:
    """What the betting rules allowed the player about to act: chips to call, the smallest and the largest
    raise-to, whether raising was open to him, and his stack before acting; ``capped``: a fixed-limit round past
    its cap (raising closed for everyone)."""

    def __init__(self, to_call: int, min_raise_to: int, max_raise_to: int, may_raise: bool,
                 stack_before: int, capped: bool = False) -> None:
        self.to_call = to_call
        self.min_raise_to = min_raise_to
        self.max_raise_to = max_raise_to
        self.may_raise = may_raise
        self.stack_before = stack_before
        self.capped = capped


class DrawLegal:
    """What the player about to draw could throw: the cards he held (``None``: the log does not show them) and
    the draw limit (and the limit when keeping an ace or the joker, under ``3+ace``)."""

    def __init__(self, may_discard: tuple[str, ...] | None, limit: int, limit_keeping_ace: int | None) -> None:
        self.may_discard = may_discard
        self.limit = limit
        self.limit_keeping_ace = limit_keeping_ace


class Step:
    """One line of the hand and the table after it.

    ``street``: the street's key (``pre``, ``deal``, ``first``, ``draw``, ``second``, ``showdown``,
    ``summary``); ``bets``: each player's chips in front of him in this betting round (blinds before the first
    round; nothing once a round is closed); ``contributions``: the chips each player has put in, less what came
    back uncalled and less dead blinds; ``dead``: chips in the middle that are nobody's bet (a carried pot, dead
    blinds); ``pot``: the chips in the middle, less what has been collected; ``findings``: those made at this
    line.
    """

    def __init__(self, line: int, street: str, item: Item, stacks: dict[str, int], bets: dict[str, int],
                 contributions: dict[str, int], dead: int, folded: tuple[str, ...], pot: int,
                 legal: BetLegal | None = None, draw: DrawLegal | None = None,
                 pots: list[Pot] | None = None) -> None:
        self.line = line
        self.street = street
        self.item = item
        self.stacks = stacks
        self.bets = bets
        self.contributions = contributions
        self.dead = dead
        self.folded = folded
        self.pot = pot
        self.legal = legal
        self.draw = draw
        self.pots: list[Pot] = pots if pots is not None else []
        self.findings: list[Finding] = []
