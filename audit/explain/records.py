"""The typed record of what happened in a hand, built once (``audit.explain.build``) and rendered by every
output (``audit.explain.render``): steps with the table as it stood after each, the pots, the settlement, the
verdict and its reasons. ``as_dict`` gives each record's JSON object (``audit explain --format json``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audit.explain.phrases import correction_sentence
from audit.explain.settle import Settlement, Transfer
from audit.findings import Finding
from audit.model import Dealt, Item

CHIP_RULES = frozenset({"POT_WINNER", "ODD_CHIP", "POT_AMOUNT", "UNCALLED_BET", "CHIPS_NOT_CONSERVED", "RAKE",
                        "PAROLE", "STACK_CONTINUITY", "STANDINGS"})
"""Rules whose findings mean chips went to the wrong place (what the corrections put right, or a stack that
carries an earlier mistake)."""

CARRY_RULES = frozenset({"STACK_CONTINUITY", "STANDINGS"})
"""Of ``CHIP_RULES``, those whose findings carry an earlier hand's mistake rather than this hand's payout."""


@dataclass(frozen=True)
class Legal:
    """What the betting rules allowed the player about to act."""

    to_call: int
    min_raise_to: int
    max_raise_to: int
    may_raise: bool
    stack_before: int | None = None  # raising is possible only with more chips than the call
    capped: bool = False  # a fixed-limit round past its cap

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"to_call": self.to_call, "min_raise_to": self.min_raise_to,
                               "max_raise_to": self.max_raise_to, "may_raise": self.may_raise}
        if self.stack_before is not None:
            out["stack_before"] = self.stack_before
        if self.capped:
            out["capped"] = True
        return out


@dataclass(frozen=True)
class DrawAllowance:
    """What the player about to draw may throw: the cards held (``None``: hidden) and the draw limit."""

    may_discard: tuple[str, ...] | None
    limit: int | None
    limit_keeping_ace: int | None

    def as_dict(self) -> dict[str, Any]:
        return {"may_discard": list(self.may_discard) if self.may_discard is not None else None,
                "limit": self.limit, "limit_keeping_ace": self.limit_keeping_ace}


@dataclass(frozen=True)
class PotNow:
    """A pot as the contributions build it at some step: ``pot``, or ``main`` and ``side-1`` …"""

    name: str
    amount: int
    eligible: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "amount": self.amount, "eligible": list(self.eligible)}


def event_of(item: Item | None) -> dict[str, Any] | None:
    """The log line behind a step as data: ``type`` (the model's class, lower case) and its fields."""
    if item is None:
        return None
    data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in item._asdict().items() if k != "line"}
    if type(item) is Dealt:
        data["groups"] = [list(g) for g in item.groups]
    return {"type": type(item).__name__.lower(), **data}


@dataclass
class Step:
    """One line of the hand and the table after it (``index`` 0: the seats before anything happened)."""

    index: int
    line: int
    street: str  # "seats", "forced bets", "dealing", "first betting round", "draw", …
    text: str  # the line in short English for the JSON (the adapter's; the pages say it with phrases.describe)
    item: Item | None  # the model item of the line (None for the seats step)
    stacks: dict[str, int]
    pot: int  # chips in the middle (less what has been collected)
    bets: dict[str, int]  # chips in front of each seat in this betting round (antes go straight in)
    contributions: dict[str, int]  # chips each player has put in so far (less uncalled bets returned)
    folded: tuple[str, ...]
    pots: list[PotNow]  # main and side pots built from the contributions
    legal: Legal | None
    draw: DrawAllowance | None
    findings: list[Finding]

    @property
    def event(self) -> dict[str, Any] | None:
        """The step's log line as data (``{"type": "seats"}`` for the first step)."""
        return {"type": "seats"} if self.index == 0 and self.item is None else event_of(self.item)

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "street": self.street, "text": self.text, "event": self.event,
                "stacks": dict(self.stacks), "pot": self.pot,
                "legal": self.legal.as_dict() if self.legal else None,
                "draw": self.draw.as_dict() if self.draw else None,
                "findings": [f.as_dict() for f in self.findings],
                "bets": dict(self.bets), "pots": [p.as_dict() for p in self.pots]}


@dataclass(frozen=True)
class SeatView:
    """A seat at the start of the hand and how it ended."""

    seat: int
    player: str
    chips: int
    sitting_out: bool
    dealt_in: bool
    button: bool
    cards: tuple[str, ...]
    folded: bool
    mucked: bool
    end: int

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "player": self.player, "chips": self.chips, "sitting_out": self.sitting_out,
                "dealt_in": self.dealt_in, "button": self.button, "cards": list(self.cards),
                "folded": self.folded, "mucked": self.mucked, "end": self.end}


@dataclass(frozen=True)
class PotView:
    """A pot as the engine built and settled it, with what the log says was collected from it."""

    name: str
    amount: int
    eligible: tuple[str, ...]
    winners: tuple[str, ...]
    awards: dict[str, int]
    collected: dict[str, int]
    rake: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "amount": self.amount, "eligible": list(self.eligible),
                "winners": list(self.winners), "awards": dict(self.awards), "collected": dict(self.collected),
                "rake": self.rake}


@dataclass(frozen=True)
class Reason:
    """A finding given as a reason under the verdict: the step where it happened, whether it moved chips, and,
    for a knock-on finding, the earlier hand whose mistake it carries."""

    finding: Finding
    step: int | None  # index of the step of the finding's line
    changes_chips: bool
    follows_from: str | None = None  # the hand id of the cause
    corrected_before: str | None = None  # a wrong payment the table put right before this later hand
    table_correction: str | None = None  # a stack change that is the table's correction of this earlier hand

    def as_dict(self) -> dict[str, Any]:
        f = self.finding
        return {"rule": f.rule, "severity": f.severity, "hand": f.hand, "player": f.player, "line": f.line,
                "step": self.step, "changes_chips": self.changes_chips, "message": f.message,
                "follows_from": self.follows_from, "corrected_before": self.corrected_before,
                "table_correction": self.table_correction}


@dataclass
class HandExplanation:
    """One hand explained (``as_dict`` is its JSON object)."""

    hand: str | None
    file: str
    session: str | None
    profile: str | None
    table: str = ""
    started_at: str = ""
    button: int = 0
    carried: int = 0
    unit: str = ""  # "" chips; else the currency (amounts in cents)
    seats: list[SeatView] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    pots: list[PotView] = field(default_factory=list)
    contributions: dict[str, int] = field(default_factory=dict)
    start_stacks: dict[str, int] = field(default_factory=dict)
    end_stacks: dict[str, int] = field(default_factory=dict)
    rake: int = 0
    redeal: bool = False
    settlement: Settlement | None = None
    findings: list[Finding] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    error: str | None = None  # the hand could not be read or replayed
    corrected_before: str | None = None  # the table put this hand's wrong payment right before that later hand
    table_corrects: list[str] = field(default_factory=list)  # earlier hands whose payment this hand's stacks correct

    @property
    def transfers(self) -> list[Transfer]:
        return self.settlement.transfers if self.settlement is not None else []

    def as_dict(self) -> dict[str, Any]:
        s = self.settlement
        out: dict[str, Any] = {
            "kind": "hand", "hand": self.hand, "file": self.file, "session": self.session, "profile": self.profile,
            "table": self.table, "started_at": self.started_at, "button": self.button, "carried": self.carried,
            "seats": [x.as_dict() for x in self.seats], "steps": [x.as_dict() for x in self.steps],
            "pots": [p.as_dict() for p in self.pots],
            "should_receive": dict(s.should_receive) if s else {}, "received": dict(s.received) if s else {},
            "contributions": self.contributions, "start_stacks": self.start_stacks, "end_stacks": self.end_stacks,
            "rake": self.rake, "redeal": self.redeal, "findings": [f.as_dict() for f in self.findings],
            "error": self.error,
        }
        if s is not None:
            out.update(s.as_dict())
        else:
            out.update({"difference": {}, "corrections": [], "remainder": None, "rake_kept": 0,
                        "unjudged_pots": []})
        out["currency"] = self.unit or None
        out["verdict"] = verdict_dict(self.transfers, self.reasons, self.unit)
        out["reasons"] = [r.as_dict() for r in self.reasons]
        out["corrected_before"] = self.corrected_before
        out["table_corrects"] = list(self.table_corrects)
        return out


@dataclass
class SessionExplanation:
    """The net corrections over all the hands of one session (``as_dict``: its JSON object)."""

    name: str
    file: str
    hands: list[str]
    balances: dict[str, int]  # party → net chips owed to it over the session (sums to zero)
    transfers: list[Transfer]
    findings: list[Finding] = field(default_factory=list)  # session-end findings (standings)
    reasons: list[Reason] = field(default_factory=list)  # the hands' findings that moved chips
    unit: str = ""
    table_corrections: list[TableCorrection] = field(default_factory=list)  # netted by the verdict

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "session", "hand": None, "session": self.name, "file": self.file, "hands": self.hands,
                "difference": dict(self.balances), "corrections": [t.as_dict() for t in self.transfers],
                "findings": [f.as_dict() for f in self.findings], "currency": self.unit or None,
                "verdict": verdict_dict(self.transfers, self.reasons, self.unit),
                "reasons": [r.as_dict() for r in self.reasons],
                "table_corrections": [c.as_dict() for c in self.table_corrections]}


@dataclass(frozen=True)
class TableCorrection:
    """Stacks that changed between hands exactly as an earlier wrong payment had to be reversed: the table put
    ``corrects`` right before ``hand`` (``chips``: player → the change of the stack, the hand's difference)."""

    hand: str
    corrects: tuple[str, ...]
    chips: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {"hand": self.hand, "corrects": list(self.corrects), "chips": dict(self.chips)}


def rules_broken(reasons: list[Reason]) -> bool:
    """Any reason that broke a rule or moved chips, leaving out the table's own corrections and the wrong payments
    they put right (nothing of those is left to settle)."""
    return any((r.finding.severity != "warning" or r.changes_chips) and r.table_correction is None
               and r.corrected_before is None for r in reasons)


def verdict_dict(transfers: list[Transfer], reasons: list[Reason], unit: str) -> dict[str, Any]:
    """The verdict as JSON: nothing to pay back or not, any rule broken or not, and who owes whom in English;
    ``corrected_at_table``: the hands whose wrong payment the table put right itself (netted)."""
    return {"settled": not transfers,
            "rules_broken": any(r.finding.severity != "warning" and r.table_correction is None for r in reasons),
            "sentences": [correction_sentence(t, "en", unit) for t in transfers],
            "corrected_at_table": sorted({r.finding.hand or "?" for r in reasons if r.corrected_before})}


Explained = HandExplanation | SessionExplanation
