"""The rows ``audit ingest`` stores for one file: hands, seats, actions, pots, awards, findings, parse errors and
hands of other games.

Plain tuples in the column order of ``audit.store.schema.SCHEMA``; ``audit.store.ingest`` turns them into Arrow
batches. This module is compiled with the rest of the hot path (``audit/_native.py``): a worker spends about as
long building rows as replaying, in plain Python.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from audit.findings import Finding
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, Parole, Post, Reshuffle, Score,
    Show, StandPat, SummaryTotal, Uncalled,
)
from audit.pipeline import Audited
from audit.engine.result import HandResult
from audit.store.schema import STREET_CODES, hand_key

Row = tuple[Any, ...]
TABLES = ("hands", "seats", "actions", "pots", "awards", "findings", "parse_errors", "unsupported_hands")
_NO_HAND_ROW = ("PARSE_ERROR", "UNSUPPORTED_GAME")
_POT_RULES = ("POT_WINNER", "POT_AMOUNT", "ODD_CHIP")
_STARTED = re.compile(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})\D{1,3}(\d{1,2}):(\d{2})(?::(\d{2}))?")

# The time zones site logs name, read as the place's local time (daylight saving included: PokerStars writes
# "ET" all year), or as a fixed offset where the name says which half of the year it is (EDT, CEST).
_ZONES: dict[str, str] = {
    "ET": "America/New_York", "CT": "America/Chicago", "MT": "America/Denver", "PT": "America/Los_Angeles",
    "AKT": "America/Anchorage", "HT": "Pacific/Honolulu", "AT": "America/Halifax", "NT": "America/St_Johns",
    "BRT": "America/Sao_Paulo", "ART": "America/Argentina/Buenos_Aires", "WET": "Europe/Lisbon",
    "CET": "Europe/Paris", "EET": "Europe/Helsinki", "MSK": "Europe/Moscow", "IST": "Asia/Kolkata",
    "CCT": "Asia/Shanghai", "JST": "Asia/Tokyo", "KST": "Asia/Seoul", "AWST": "Australia/Perth",
    "ACST": "Australia/Adelaide", "AET": "Australia/Sydney", "NZT": "Pacific/Auckland",
}
_OFFSETS: dict[str, int] = {  # minutes east of UTC
    "UTC": 0, "GMT": 0, "Z": 0, "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360,
    "PST": -480, "PDT": -420, "BST": 60, "WEST": 60, "CEST": 120, "EEST": 180,
}
_OFFSET = re.compile(r"^(?:GMT|UTC)([+-])(\d{1,2}):?(\d{2})?$")
_ZONE_CACHE: dict[str, dt.tzinfo | None] = {}


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


def time_zone(name: str) -> dt.tzinfo | None:
    """The time zone a log names (``ET``, ``CET``, ``GMT+0100``); ``None`` for a name audit does not know (or when
    the machine has no time zone database)."""
    if name in _ZONE_CACHE:
        return _ZONE_CACHE[name]
    zone: dt.tzinfo | None = None
    if name in _OFFSETS:
        zone = dt.timezone(dt.timedelta(minutes=_OFFSETS[name]))
    elif name in _ZONES:
        try:
            import zoneinfo
            zone = zoneinfo.ZoneInfo(_ZONES[name])
        except Exception:  # no time zone database on this machine
            zone = None
    else:
        m = _OFFSET.match(name)
        if m is not None:
            minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
            if minutes < 24 * 60:
                zone = dt.timezone(dt.timedelta(minutes=minutes if m.group(1) == "+" else -minutes))
    if len(_ZONE_CACHE) < 256:
        _ZONE_CACHE[name] = zone
    return zone


def as_utc(started: dt.datetime | None, zone_name: str) -> dt.datetime | None:
    """``started`` (a log's wall-clock time) as an instant in UTC, when its zone is known."""
    if started is None or not zone_name:
        return None
    zone = time_zone(zone_name)
    if zone is None:
        return None
    return started.replace(tzinfo=zone).astimezone(dt.timezone.utc)


def _join(cards: tuple[str, ...] | None) -> str | None:
    return None if cards is None else " ".join(cards)


def action_row(item: object, street: str, pot_of_line: dict[int, int] | None = None) -> Row | None:
    """(line, street, player, kind, amount, to_amount, all_in, timed_out, took, cards, detail, card_list,
    pot_index) of a body item. ``card_list`` is left empty: the Arrow batch makes it from ``cards``
    (``audit.store.ingest``), far faster than a Python list per line; ``pot_of_line`` gives a collect line's
    pot."""
    if isinstance(item, Action):
        return (item.line, street, item.player, item.kind, item.amount, item.to, item.all_in, item.timed_out,
                item.took, None, None, None, None)
    if isinstance(item, Dealt):
        return (item.line, street, item.player, "dealt", None, None, None, None, None,
                " | ".join([" ".join(g) for g in item.groups]), None, None, None)
    if isinstance(item, Post):
        return (item.line, street, item.player, "post " + item.kind, item.amount, None, item.all_in, None, None,
                None, None, None, None)
    if isinstance(item, Discard):
        return (item.line, street, item.player, "discard", item.count, None, None, None, item.took,
                _join(item.cards), None, None, None)
    if isinstance(item, StandPat):
        return (item.line, street, item.player, "stand pat", None, None, None, item.timed_out, item.took, None,
                None, None, None)
    if isinstance(item, Show):
        return (item.line, street, item.player, "show", None, None, None, None, None, _join(item.cards),
                item.description, None, None)
    if isinstance(item, Collect):
        return (item.line, street, item.player, "collect", item.amount, None, None, None, None, None, item.pot, None,
                pot_of_line.get(item.line) if pot_of_line is not None else None)
    if isinstance(item, Uncalled):
        return (item.line, street, item.player, "uncalled returned", item.amount, None, None, None, None, None,
                None, None, None)
    if isinstance(item, Muck):
        return (item.line, street, item.player, "muck", None, None, None, None, None, None, None, None, None)
    if isinstance(item, Parole):
        return (item.line, street, item.player, "parole " + item.kind, None, None, None, None, item.took, None,
                None, None, None)
    if isinstance(item, NoPlay):
        return (item.line, street, item.player, item.kind, None, None, None, None, None, None, None, None, None)
    if isinstance(item, DeckLine):
        return (item.line, street, None, "deck", None, None, None, None, None, _join(item.cards), None, None,
                None)
    if isinstance(item, Reshuffle):
        return (item.line, street, None, "reshuffle", None, None, None, None, None, _join(item.cards), None, None,
                None)
    if isinstance(item, Score):
        return (item.line, street, item.player, "score", item.points, None, None, None, None, None, None, None,
                None)
    if isinstance(item, Event):
        return (item.line, street, item.player, "event", None, None, None, None, None, None,
                item.kind + ": " + item.text if item.text else item.kind, None, None)
    return None  # Marker, SummaryTotal: they shape the hand row and the street column instead


def pot_named(f: Finding) -> str | None:
    """The name of the pot a finding is about (``main``, ``side-1``, ``pot``): the engine's ``the_pot``
    parameter of a pot's finding (``POT_WINNER``, ``POT_AMOUNT``, ``ODD_CHIP``)."""
    if f.rule not in _POT_RULES:
        return None
    for key, value in f.params:
        if key == "the_pot":
            return str(value)
    return None


def _unit(hand: Hand) -> str:
    game = hand.game
    return game.currency if game is not None and game.currency else "chips"


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
        self._pots: dict[str, int] = {}  # the current hand's pots: name -> pot_index
        self._session_profile: dict[str, str] = {}  # session -> the profile of its last hand

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
        profile = audited.profile
        if profile is not None and audited.session is not None:
            if self._session_profile.get(audited.session) != profile:
                self._session_profile[audited.session] = profile
        elif profile is None and audited.session is not None:
            profile = self._session_profile.get(audited.session)  # the session's end: its standings
        if self._pots:
            self._pots = {}
        if result is not None:
            key = self._hand(result, audited)
        elif audited.failure is not None:
            f = audited.failure
            key = hand_key(self.sha, f.first_line)
            block = audited.block
            started = parse_started_at(block.lines[0]) if block is not None and block.lines else None
            self.rows["parse_errors"].append(
                (key, self.sha, f.hand_id, self.file, audited.session, audited.profile, f.line, f.column,
                 f.first_line, f.end_line, f.message, started))
            self.parse_errors += 1
        for finding in audited.findings:
            fkey = key
            if fkey is None and finding.rule in _NO_HAND_ROW:
                fkey = hand_key(self.sha, finding.line)
                if audited.failure is None:
                    self._unreplayed(finding, fkey, audited)
            self._finding(finding, fkey, profile)

    def _unreplayed(self, finding: Finding, key: str, audited: Audited) -> None:
        """A hand that was read but not replayed: an unsupported game, or one the engine could not follow."""
        hand = audited.hand
        if finding.rule == "UNSUPPORTED_GAME":
            self.skipped_hands += 1
            if hand is not None:
                game = hand.game
                started = parse_started_at(hand.started_at)
                zone = game.time_zone if game is not None else ""
                self.rows["unsupported_hands"].append(
                    (key, self.sha, hand.hand_id, self.file, hand.line, hand.end_line, audited.session,
                     audited.profile, hand.dialect, game.name if game else None, game.betting if game else None,
                     (game.currency or None) if game else None, _unit(hand), hand.table, started,
                     hand.started_at or None, zone or None, as_utc(started, zone)))
            return
        started_at = parse_started_at(hand.started_at) if hand is not None else None
        self.rows["parse_errors"].append(
            (key, self.sha, finding.hand, self.file, audited.session, audited.profile, finding.line, None,
             finding.line, None, finding.message, started_at))
        self.parse_errors += 1

    def _finding(self, f: Finding, key: str | None, profile: str | None) -> None:
        street = f.street
        code = STREET_CODES.get(street, street) if street is not None else None
        pot_index: int | None = None
        if self._pots:
            name = pot_named(f)
            if name is not None:
                pot_index = self._pots.get(name)
        self.rows["findings"].append(
            (key, self.sha, f.hand, self.findings, self.file, f.session, f.rule, f.severity, f.player, f.street,
             f.line, f.message, f.expected, f.actual, profile, code, pot_index, f.msg_id,
             json.dumps(dict(f.params), ensure_ascii=False) if f.msg_id is not None else None))
        self.findings += 1

    def _hand(self, result: HandResult, audited: Audited) -> str:
        hand: Hand = result.hand
        sha = self.sha
        key = hand_key(sha, hand.line)
        hid = hand.hand_id
        game = hand.game
        rows = self.rows
        started = parse_started_at(hand.started_at)
        zone = game.time_zone if game is not None else ""
        rows["hands"].append(
            (key, sha, self.file, hand.line, hand.end_line, hid, audited.session, result.profile, hand.dialect,
             game.name if game else "5 Card Draw", game.betting if game else None,
             (game.currency or None) if game else None, hand.table, started,
             hand.started_at or None, hand.button, len(hand.seats), len(result.dealt_in), result.pot_total,
             result.rake, hand.carried, result.redeal, _unit(hand), zone or None, as_utc(started, zone)))
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
        pots = rows["pots"]
        awards = rows["awards"]
        pot_of_line: dict[int, int] = {}  # a collect line -> the pot it collected from
        i = 0
        for pot in result.pots:
            eligible: list[str] = list(pot["eligible"])
            name: str = pot["name"]
            self._pots[name] = i
            pots.append((key, sha, hid, i, name, pot["amount"], eligible, list(pot["winners"])))
            should: dict[str, int] = pot["awards"]
            got: dict[str, int] = pot["collected"]
            order = [p for p in eligible if p in should or p in got]
            order += sorted([p for p in set(should) | set(got) if p not in order])
            for p in order:
                awards.append((key, sha, hid, i, name, p, should.get(p, 0), got.get(p, 0)))
            lines: dict[str, int] | None = pot.get("lines")
            if lines is not None:
                for at in lines.values():
                    pot_of_line[at] = i
            i += 1
        actions = rows["actions"]
        street = "pre"
        seq = 0
        for item in hand.body:
            if isinstance(item, Marker):
                street = item.street
                continue
            if isinstance(item, SummaryTotal):
                continue
            row = action_row(item, street, pot_of_line)
            if row is not None:
                actions.append((key, sha, hid, seq) + row)
                seq += 1
        return key
