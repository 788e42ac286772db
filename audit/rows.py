"""The rows ``audit ingest`` stores for one file: hands, seats, actions, pots, awards, findings, parse errors.

Plain tuples in the column order of ``audit.store.SCHEMA``; ``audit.ingest`` turns them into Arrow batches. This
module is compiled with the rest of the hot path (``audit/_native.py``): a worker spends about as long building
rows as replaying, in plain Python.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from audit.findings import Finding
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, Parole, Post, Reshuffle, Score,
    Show, StandPat, SummaryTotal, Uncalled,
)
from audit.pipeline import Audited
from audit.engine.result import HandResult
from audit.store import hand_key

Row = tuple[Any, ...]
TABLES = ("hands", "seats", "actions", "pots", "awards", "findings", "parse_errors")
_NO_HAND_ROW = ("PARSE_ERROR", "UNSUPPORTED_GAME")
_STARTED = re.compile(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})\D{1,3}(\d{1,2}):(\d{2})(?::(\d{2}))?")


def parse_started_at(text: str | None) -> dt.datetime | None:
    """``"2026/12/01 22:14:48"`` (or a site's ``2011/06/26 - 21:35:49 ET``) as a naive datetime; ``None`` if
    the text holds no readable date and time."""
    if not text:
        return None
    m = _STARTED.search(text)
    if m is None:
        return None
    seconds = m.group(6)
    try:
        return dt.datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)),
                           int(seconds) if seconds else 0)
    except ValueError:
        return None


def _join(cards: tuple[str, ...] | None) -> str | None:
    return None if cards is None else " ".join(cards)


def action_row(item: object, street: str) -> Row | None:
    """(line, street, player, kind, amount, to_amount, all_in, timed_out, took, cards, detail) of a body item."""
    if isinstance(item, Action):
        return (item.line, street, item.player, item.kind, item.amount, item.to, item.all_in, item.timed_out,
                item.took, None, None)
    if isinstance(item, Dealt):
        return (item.line, street, item.player, "dealt", None, None, None, None, None,
                " | ".join([" ".join(g) for g in item.groups]), None)
    if isinstance(item, Post):
        return (item.line, street, item.player, "post " + item.kind, item.amount, None, item.all_in, None, None,
                None, None)
    if isinstance(item, Discard):
        return (item.line, street, item.player, "discard", item.count, None, None, None, item.took,
                _join(item.cards), None)
    if isinstance(item, StandPat):
        return (item.line, street, item.player, "stand pat", None, None, None, item.timed_out, item.took, None,
                None)
    if isinstance(item, Show):
        return (item.line, street, item.player, "show", None, None, None, None, None, _join(item.cards),
                item.description)
    if isinstance(item, Collect):
        return (item.line, street, item.player, "collect", item.amount, None, None, None, None, None, item.pot)
    if isinstance(item, Uncalled):
        return (item.line, street, item.player, "uncalled returned", item.amount, None, None, None, None, None,
                None)
    if isinstance(item, Muck):
        return (item.line, street, item.player, "muck", None, None, None, None, None, None, None)
    if isinstance(item, Parole):
        return (item.line, street, item.player, "parole " + item.kind, None, None, None, None, item.took, None,
                None)
    if isinstance(item, NoPlay):
        return (item.line, street, item.player, item.kind, None, None, None, None, None, None, None)
    if isinstance(item, DeckLine):
        return (item.line, street, None, "deck", None, None, None, None, None, _join(item.cards), None)
    if isinstance(item, Reshuffle):
        return (item.line, street, None, "reshuffle", None, None, None, None, None, _join(item.cards), None)
    if isinstance(item, Score):
        return (item.line, street, item.player, "score", item.points, None, None, None, None, None, None)
    if isinstance(item, Event):
        return (item.line, street, item.player, "event", None, None, None, None, None, None,
                item.kind + ": " + item.text if item.text else item.kind)
    return None  # Marker, SummaryTotal: they shape the hand row and the street column instead


class RowBuilder:
    """Turns the ``Audited`` items of one file into the rows of every table (``rows[table]``)."""

    def __init__(self, sha256: str, file: str) -> None:
        self.sha = sha256
        self.file = file
        self.rows: dict[str, list[Row]] = {name: [] for name in TABLES}
        self.hands = 0
        self.parse_errors = 0
        self.findings = 0
        self.skipped_hands = 0

    def take(self) -> dict[str, list[Row]]:
        """The rows built since the last call (the builder starts again with empty lists)."""
        rows = self.rows
        self.rows = {name: [] for name in TABLES}
        return rows

    def take_columns(self, widths: dict[str, int]) -> dict[str, list[list[Any]]]:
        """The rows built since the last call, as columns (``widths``: the number of columns of each table)."""
        out: dict[str, list[list[Any]]] = {}
        for name, rows in self.take().items():
            out[name] = [[row[i] for row in rows] for i in range(widths[name])]
        return out

    def add(self, audited: Audited) -> None:
        """Add one item of ``audit_file``'s output."""
        result = audited.result
        key: str | None = None
        if result is not None:
            key = self._hand(result, audited)
        elif audited.failure is not None:
            f = audited.failure
            key = hand_key(self.sha, f.first_line)
            self.rows["parse_errors"].append(
                (key, self.sha, f.hand_id, self.file, audited.session, audited.profile, f.line, f.column,
                 f.first_line, f.end_line, f.message))
            self.parse_errors += 1
        for finding in audited.findings:
            fkey = key
            if fkey is None and finding.rule in _NO_HAND_ROW:
                fkey = hand_key(self.sha, finding.line)
                if audited.failure is None:
                    self._unreplayed(finding, fkey, audited)
            self._finding(finding, fkey)

    def _unreplayed(self, finding: Finding, key: str, audited: Audited) -> None:
        """A hand that was read but not replayed: an unsupported game, or one the engine could not follow."""
        if finding.rule == "UNSUPPORTED_GAME":
            self.skipped_hands += 1
            return
        self.rows["parse_errors"].append(
            (key, self.sha, finding.hand, self.file, audited.session, audited.profile, finding.line, None,
             finding.line, None, finding.message))
        self.parse_errors += 1

    def _finding(self, f: Finding, key: str | None) -> None:
        self.rows["findings"].append(
            (key, self.sha, f.hand, self.findings, self.file, f.session, f.rule, f.severity, f.player, f.street,
             f.line, f.message, f.expected, f.actual))
        self.findings += 1

    def _hand(self, result: HandResult, audited: Audited) -> str:
        hand: Hand = result.hand
        sha = self.sha
        key = hand_key(sha, hand.line)
        hid = hand.hand_id
        game = hand.game
        rows = self.rows
        rows["hands"].append(
            (key, sha, self.file, hand.line, hand.end_line, hid, audited.session, result.profile, hand.dialect,
             game.name if game else "5 Card Draw", game.betting if game else None,
             (game.currency or None) if game else None, hand.table, parse_started_at(hand.started_at),
             hand.started_at or None, hand.button, len(hand.seats), len(result.dealt_in), result.pot_total,
             result.rake, hand.carried, result.redeal))
        self.hands += 1
        dealt = set(result.dealt_in)
        seats = rows["seats"]
        end_stacks = result.end_stacks
        contributions = result.contributions
        should_receive = result.should_receive
        received = result.received
        for s in hand.seats:
            p = s.player
            seats.append((key, sha, hid, s.seat, p, s.line, s.sitting_out, p in dealt, s.chips,
                          end_stacks.get(p), contributions.get(p, 0), should_receive.get(p, 0),
                          received.get(p, 0)))
        actions = rows["actions"]
        street = "pre"
        seq = 0
        for item in hand.body:
            if isinstance(item, Marker):
                street = item.street
                continue
            if isinstance(item, SummaryTotal):
                continue
            row = action_row(item, street)
            if row is not None:
                actions.append((key, sha, hid, seq) + row)
                seq += 1
        pots = rows["pots"]
        awards = rows["awards"]
        i = 0
        for pot in result.pots:
            eligible: list[str] = list(pot["eligible"])
            pots.append((key, sha, hid, i, pot["name"], pot["amount"], eligible, list(pot["winners"])))
            should: dict[str, int] = pot["awards"]
            got: dict[str, int] = pot["collected"]
            order = [p for p in eligible if p in should or p in got]
            order += sorted([p for p in set(should) | set(got) if p not in order])
            for p in order:
                awards.append((key, sha, hid, i, pot["name"], p, should.get(p, 0), got.get(p, 0)))
            i += 1
        return key
