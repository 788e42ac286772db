"""Findings: what the audit says about a hand, as data (never exceptions)."""

from __future__ import annotations

from typing import Any, NamedTuple

from audit.model import ParseFailure
from audit.rules import Rule

Params = tuple[tuple[str, str | int], ...]
"""A message's parameters as ``(name, value)`` pairs; the name says what the value is (``audit.words``)."""


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
    msg_id: str | None = None  # the message in audit/words (``finding.ODD_CHIP.wrong``); None: ``message`` only
    params: Params = ()  # the message's parameters, as (name, value) pairs

    def as_dict(self) -> dict[str, Any]:
        """The JSON Lines object of ``audit check --format json``: the English ``message``, and ``msg_id`` and
        ``params`` to say it in another language (``audit.words.finding_message``)."""
        return {"file": self.file, "session": self.session, "hand": self.hand, "rule": self.rule,
                "severity": self.severity, "player": self.player, "street": self.street, "line": self.line,
                "message": self.message, "expected": self.expected, "actual": self.actual, "msg_id": self.msg_id,
                "params": dict(self.params)}


def said_finding(rule: Rule, key: str, params: Params, file: str, hand: str | None, line: int, *,
                 player: str | None = None, street: str | None = None, expected: object = None,
                 actual: object = None, session: str | None = None, unit: str = "") -> Finding:
    """A finding for ``rule`` whose message is ``key`` in the catalogue (``audit.words``) with ``params``; its
    English ``message`` is rendered now, once, as the finding is made (never on the way of a clean hand).
    ``unit``: the hand's currency, so that amounts read as money ("" for chips)."""
    from audit.words import finding_message

    if unit:
        params = params + (("unit", unit),)
    return Finding(rule.value, rule.severity, file, hand, player, street, line,
                   None if expected is None else str(expected), None if actual is None else str(actual),
                   finding_message(key, "en", params), session, key, params)


def parse_finding(failure: ParseFailure, session: str | None = None) -> Finding:
    """The ``PARSE_ERROR`` finding for a block that could not be read."""
    return said_finding(Rule.PARSE_ERROR, "finding.PARSE_ERROR.unreadable", (("detail_en", failure.message),),
                        failure.file, failure.hand_id, failure.line, session=session)
