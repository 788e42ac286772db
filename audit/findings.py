"""Findings: what the audit says about a hand, as data (never exceptions)."""

from __future__ import annotations

from typing import Any, NamedTuple

from audit.model import ParseFailure
from audit.rules import Rule


class Finding(NamedTuple):
    """One rule broken (or one hand that could not be read), pointing at a line of a file."""

    rule: str
    severity: str
    file: str
    hand: str | None
    player: str | None
    street: str | None
    line: int
    expected: str | None
    actual: str | None
    message: str
    session: str | None = None
    msg_id: str | None = None  # the message in audit/words (e.g. "finding.ODD_CHIP"); None: ``message`` only
    params: tuple[tuple[str, str | int], ...] = ()  # the message's parameters, as (name, value) pairs

    def as_dict(self) -> dict[str, Any]:
        """The JSON Lines object of ``audit check --format json``."""
        return {"file": self.file, "session": self.session, "hand": self.hand, "rule": self.rule,
                "severity": self.severity, "player": self.player, "street": self.street, "line": self.line,
                "message": self.message, "expected": self.expected, "actual": self.actual}


def make_finding(rule: Rule, file: str, hand: str | None, line: int, message: str, *, player: str | None = None,
                 street: str | None = None, expected: object = None, actual: object = None,
                 session: str | None = None) -> Finding:
    """A finding for ``rule``, with its severity from the catalogue."""
    return Finding(rule.value, rule.severity, file, hand, player, street, line,
                   None if expected is None else str(expected), None if actual is None else str(actual),
                   message, session)


def parse_finding(failure: ParseFailure, session: str | None = None) -> Finding:
    """The ``PARSE_ERROR`` finding for a block that could not be read."""
    return make_finding(Rule.PARSE_ERROR, failure.file, failure.hand_id, failure.line,
                        f"This hand could not be read: {failure.message}", session=session)
