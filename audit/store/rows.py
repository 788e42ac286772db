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
from typing import Any, Final, cast

from audit.findings import Finding
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, Parole, Post, Reshuffle, Score,
    Show, StandPat, SummaryTotal, Uncalled,
)
from audit.pipeline import Audited
from audit.engine.result import HandResult
from audit.owed import TableCorrections, dues, stack_changes
from audit.store.schema import SCHEMA, STREET_CODES, hand_key

Row = tuple[Any, ...]
TABLES = ("hands", "seats", "actions", "pots", "awards", "findings", "parse_errors", "unsupported_hands")
COLUMNAR = ("hands", "seats", "actions", "pots", "awards")
"""The tables built as columns (every hand adds rows to them); the others are built as rows."""
KEYED = ("seats", "actions", "pots", "awards")
"""Columnar tables whose first three columns (hand_key, file_sha, hand_id) repeat the hand's on each of its rows:
they are kept as runs (``Runs``: each hand's key and id once, with the number of its rows) and the file's hash not
at all, and the Arrow batch repeats them (``take_parts``); the hands table's file_sha and file are the file's."""
_WIDTHS: dict[str, int] = {name: len(SCHEMA[name]) for name in COLUMNAR}
_CARD_LIST = [column[0] for column in SCHEMA["actions"]].index("card_list")  # made by the Arrow batch
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
    if (len(text) == 19 and text[4] == "/" and text[7] == "/" and text[10] == " " and text[13] == ":"
            and text[16] == ":" and (text[0:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16]
                                     + text[17:19]).isdecimal()):
        # the house format's "2026/12/01 22:14:48" (nearly every hand), read without the pattern: the same
        # fields the pattern finds in it (``isdecimal``: the digits ``\d`` matches)
        try:
            return dt.datetime(int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]),
                               int(text[14:16]), int(text[17:19]))
        except ValueError:
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


class Runs:
    """The repeated key columns of one ``KEYED`` table: each hand's key and id once, and where its rows end (the
    rows so far, counted from the last ``take``); a hand without rows in the table has no run."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.hand_ids: list[str] = []
        self.ends: list[int] = []
        self.rows = 0

    def add(self, key: str, hand_id: str, n: int) -> None:
        if n > 0:
            self.rows += n
            self.keys.append(key)
            self.hand_ids.append(hand_id)
            self.ends.append(self.rows)

    def expand(self, values: list[str]) -> list[str]:
        """``values`` (one per run: ``keys`` or ``hand_ids``) repeated once per row."""
        out: list[str] = []
        start = 0
        for value, end in zip(values, self.ends):
            out.extend([value] * (end - start))
            start = end
        return out


def _join(cards: tuple[str, ...] | None) -> str | None:
    return None if cards is None else " ".join(cards)


def action_row(item: object, street: str, pot_of_line: dict[int, int] | None = None) -> Row | None:
    """(line, street, player, kind, amount, to_amount, all_in, timed_out, took, cards, detail, card_list,
    pot_index) of a body item (``None`` for a marker or the summary's total), as ``add_action`` adds it."""
    columns: list[list[Any]] = [[] for _ in range(_WIDTHS["actions"])]
    if not add_action(columns, item, street, pot_of_line):
        return None
    return tuple([col[0] if col else None for col in columns[4:]])


# the body's line types, numbered for ``add_action``'s dispatch (one look-up, not a global per type compared)
_ITEM_KIND: Final[dict[type, int]] = {
    Action: 0, Dealt: 1, Post: 2, Discard: 3, StandPat: 4, Show: 5, Collect: 6, Uncalled: 7, Muck: 8, Parole: 9,
    NoPlay: 10, DeckLine: 11, Reshuffle: 12, Score: 13, Event: 14,
}


def add_action(c: list[list[Any]], item: object, street: str, pot_of_line: dict[int, int] | None = None) -> bool:
    """Appends a body item's line, street, player, kind, amount, to_amount, all_in, timed_out, took, cards,
    detail and pot_index to the ``actions`` columns ``c`` (the key, hash, hand id and sequence columns are the
    caller's, ``card_list`` is left empty: the Arrow batch makes it from ``cards``, far faster than a Python list
    per line); ``False`` (nothing added) for a marker or the summary's total, which shape the hand row and the
    street column instead. ``pot_of_line`` gives a collect line's pot. No tuple per line: the values go straight
    into their columns."""
    kind = _ITEM_KIND.get(type(item), -1)
    if kind == 0:  # Action
        a = cast(Action, item)
        _put(c, a.line, street, a.player, a.kind, a.amount, a.to, a.all_in, a.timed_out, a.took, None, None, None)
    elif kind == 1:  # Dealt
        d = cast(Dealt, item)
        _put(c, d.line, street, d.player, "dealt", None, None, None, None, None,
             " | ".join([" ".join(g) for g in d.groups]), None, None)
    elif kind == 2:  # Post
        p = cast(Post, item)
        _put(c, p.line, street, p.player, "post " + p.kind, p.amount, None, p.all_in, None, None, None, None, None)
    elif kind == 3:  # Discard
        x = cast(Discard, item)
        _put(c, x.line, street, x.player, "discard", x.count, None, None, None, x.took, _join(x.cards), None, None)
    elif kind == 4:  # StandPat
        sp = cast(StandPat, item)
        _put(c, sp.line, street, sp.player, "stand pat", None, None, None, sp.timed_out, sp.took, None, None, None)
    elif kind == 5:  # Show
        sh = cast(Show, item)
        _put(c, sh.line, street, sh.player, "show", None, None, None, None, None, _join(sh.cards), sh.description,
             None)
    elif kind == 6:  # Collect
        co = cast(Collect, item)
        _put(c, co.line, street, co.player, "collect", co.amount, None, None, None, None, None, co.pot,
             pot_of_line.get(co.line) if pot_of_line is not None else None)
    elif kind == 7:  # Uncalled
        u = cast(Uncalled, item)
        _put(c, u.line, street, u.player, "uncalled returned", u.amount, None, None, None, None, None, None, None)
    elif kind == 8:  # Muck
        mu = cast(Muck, item)
        _put(c, mu.line, street, mu.player, "muck", None, None, None, None, None, None, None, None)
    elif kind == 9:  # Parole
        pa = cast(Parole, item)
        _put(c, pa.line, street, pa.player, "parole " + pa.kind, None, None, None, None, pa.took, None, None, None)
    elif kind == 10:  # NoPlay
        n = cast(NoPlay, item)
        _put(c, n.line, street, n.player, n.kind, None, None, None, None, None, None, None, None)
    elif kind == 11:  # DeckLine
        dl = cast(DeckLine, item)
        _put(c, dl.line, street, None, "deck", None, None, None, None, None, _join(dl.cards), None, None)
    elif kind == 12:  # Reshuffle
        r = cast(Reshuffle, item)
        _put(c, r.line, street, None, "reshuffle", None, None, None, None, None, _join(r.cards), None, None)
    elif kind == 13:  # Score
        sc = cast(Score, item)
        _put(c, sc.line, street, sc.player, "score", sc.points, None, None, None, None, None, None, None)
    elif kind == 14:  # Event
        e = cast(Event, item)
        _put(c, e.line, street, e.player, "event", None, None, None, None, None, None,
             e.kind + ": " + e.text if e.text else e.kind, None)
    else:
        return False  # Marker, SummaryTotal
    return True


def _put(c: list[list[Any]], line: int, street: str, player: str | None, kind: str, amount: int | None,
         to: int | None, all_in: bool | None, timed_out: bool | None, took: float | None, cards: str | None,
         detail: str | None, pot_index: int | None) -> None:
    """One line's values into the ``actions`` columns (all but the first four and ``card_list``)."""
    c[4].append(line)
    c[5].append(street)
    c[6].append(player)
    c[7].append(kind)
    c[8].append(amount)
    c[9].append(to)
    c[10].append(all_in)
    c[11].append(timed_out)
    c[12].append(took)
    c[13].append(cards)
    c[14].append(detail)
    c[16].append(pot_index)


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
    """Turns the ``Audited`` items of one file into the rows of every table.

    The tables every hand fills (``COLUMNAR``: hands, seats, actions, pots, awards) are built as columns, one
    list per column (``cols[table]``), with no tuple per row; the others, rare, as rows (``rows[table]``)."""

    def __init__(self, sha256: str, file: str) -> None:
        self.sha = sha256
        self.file = file
        self.rows: dict[str, list[Row]] = {name: [] for name in TABLES if name not in COLUMNAR}
        self.cols: dict[str, list[list[Any]]] = _new_columns()
        self.runs: dict[str, Runs] = _new_runs()
        self.hands = 0
        self.parse_errors = 0
        self.findings = 0
        self.skipped_hands = 0
        self._pots: dict[str, int] = {}  # the current hand's pots: name -> pot_index
        self._session_profile: dict[str, str] = {}  # session -> the profile of its last hand
        self._session: str | None = None  # the session of the hands ``_open`` follows
        self._open: TableCorrections[str] = TableCorrections()  # its hands paid wrong, not yet put right

    def take_parts(self, widths: dict[str, int]) -> tuple[dict[str, list[list[Any]]], dict[str, Runs]]:
        """The rows built since the last call, as columns (``widths``: the number of columns of each table), and
        the runs of the ``KEYED`` tables (the builder starts again empty). The columns the runs and the file give
        are left empty: a ``KEYED`` table's hand_key, file_sha and hand_id, the hands table's file_sha and file
        (``expand_parts`` fills them as Python lists, the Arrow batch without them); ``actions.card_list`` is
        ``None`` throughout (the Arrow batch makes it from ``cards``)."""
        cols = self.cols
        runs = self.runs
        rows = self.rows
        self.cols = _new_columns()
        self.runs = _new_runs()
        self.rows = {name: [] for name in TABLES if name not in COLUMNAR}
        actions = cols["actions"]
        actions[_CARD_LIST] = [None] * len(actions[3])
        out: dict[str, list[list[Any]]] = {}
        for name in TABLES:
            if name in COLUMNAR:
                columns = cols[name]
                if len(columns) != widths[name]:
                    raise ValueError(f"{name}: {len(columns)} columns built, {widths[name]} in the table")
                if name in KEYED and len(columns[3]) != runs[name].rows:
                    raise ValueError(f"{name}: {len(columns[3])} rows built, {runs[name].rows} in the runs")
                out[name] = columns
            else:
                table = rows[name]
                out[name] = [[row[i] for row in table] for i in range(widths[name])]
        return out, runs

    def expand_parts(self, cols: dict[str, list[list[Any]]], runs: dict[str, Runs]) -> None:
        """Fill the columns ``take_parts`` left to the runs and the file, as Python lists (in place)."""
        hands = cols["hands"]
        n = len(hands[0])
        hands[1] = [self.sha] * n
        hands[2] = [self.file] * n
        for name in KEYED:
            columns = cols[name]
            r = runs[name]
            columns[0] = r.expand(r.keys)
            columns[1] = [self.sha] * r.rows
            columns[2] = r.expand(r.hand_ids)

    def take_columns(self, widths: dict[str, int]) -> dict[str, list[list[Any]]]:
        """The rows built since the last call, as columns, every one filled (``take_parts``, expanded)."""
        cols, runs = self.take_parts(widths)
        self.expand_parts(cols, runs)
        return cols

    def take(self) -> dict[str, list[Row]]:
        """The rows built since the last call, as tuples, every table (the builder starts again empty)."""
        cols = self.take_columns({name: len(SCHEMA[name]) for name in TABLES})
        return {name: list(zip(*cols[name])) for name in TABLES}

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
        self._follow_session(audited)
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

    def _follow_session(self, audited: Audited) -> None:
        """Start following a session's wrong payments afresh where ``audit explain`` does: at a hand of another
        session, and at a session's end."""
        if audited.result is None and audited.failure is None and not any(f.hand for f in audited.findings):
            if audited.findings and audited.session is not None and audited.session == self._session:
                self._session = None
                self._open = TableCorrections()
            return
        if audited.session != self._session:
            self._session = audited.session
            self._open = TableCorrections()

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
        cols = self.cols
        started = parse_started_at(hand.started_at)
        zone = game.time_zone if game is not None else ""
        corrects = self._open.corrected_by(stack_changes(result.findings))
        owed = dues(result).difference()  # the verdict's own figures (``audit.explain.settle`` settles the same)
        self._open.paid(hid, owed)
        hands = cols["hands"]
        hands[0].append(key)  # file_sha and file (columns 1 and 2) are the file's: filled when taken
        _add_row(hands, (
            hand.line, hand.end_line, hid, audited.session, result.profile, hand.dialect,
            game.name if game else "5 Card Draw", game.betting if game else None,
            (game.currency or None) if game else None, hand.table, started,
            hand.started_at or None, hand.button, len(hand.seats), len(result.dealt_in), result.pot_total,
            result.rake, hand.carried, result.redeal, _unit(hand), zone or None, as_utc(started, zone),
            corrects or None), 3)
        self.hands += 1
        dealt = set(result.dealt_in)
        end_stacks = result.end_stacks
        contributions = result.contributions
        should_receive = result.should_receive
        received = result.received
        seats = cols["seats"]
        s_seat, s_player, s_line, s_out, s_dealt, s_chips = seats[3], seats[4], seats[5], seats[6], seats[7], seats[8]
        s_end, s_in, s_should, s_got, s_owed = seats[9], seats[10], seats[11], seats[12], seats[13]
        for s in hand.seats:
            p = s.player
            s_seat.append(s.seat)
            s_player.append(p)
            s_line.append(s.line)
            s_out.append(s.sitting_out)
            s_dealt.append(p in dealt)
            s_chips.append(s.chips)
            s_end.append(end_stacks.get(p))
            s_in.append(contributions.get(p, 0))
            s_should.append(should_receive.get(p, 0))
            s_got.append(received.get(p, 0))
            s_owed.append(owed.get(p, 0))
        runs = self.runs
        runs["seats"].add(key, hid, len(hand.seats))
        pots = cols["pots"]
        awards = cols["awards"]
        pot_of_line: dict[int, int] = {}  # a collect line -> the pot it collected from
        i = 0
        award_rows = 0
        for pot in result.pots:
            eligible: list[str] = list(pot["eligible"])
            name: str = pot["name"]
            self._pots[name] = i
            _add_row(pots, (i, name, pot["amount"], eligible, list(pot["winners"])), 3)
            should: dict[str, int] = pot["awards"]
            got: dict[str, int] = pot["collected"]
            order = [p for p in eligible if p in should or p in got]
            order += sorted([p for p in set(should) | set(got) if p not in order])
            for p in order:
                _add_row(awards, (i, name, p, should.get(p, 0), got.get(p, 0)), 3)
            award_rows += len(order)
            lines: dict[str, int] | None = pot.get("lines")
            if lines is not None:
                for at in lines.values():
                    pot_of_line[at] = i
            i += 1
        runs["pots"].add(key, hid, i)
        runs["awards"].add(key, hid, award_rows)
        actions = cols["actions"]
        seq_column = actions[3]
        street = "pre"
        seq = 0
        marker = Marker
        summary = SummaryTotal
        for item in hand.body:
            kind = type(item)
            if kind is marker:
                street = cast(Marker, item).street
                continue
            if kind is summary:
                continue
            if add_action(actions, item, street, pot_of_line):
                seq_column.append(seq)
                seq += 1
        runs["actions"].add(key, hid, seq)
        return key


def _add_row(columns: list[list[Any]], row: Row, start: int = 0) -> None:
    """One row's values into ``columns``, the first into column ``start`` (the columns before it are filled when
    the rows are taken)."""
    for i in range(len(row)):
        columns[start + i].append(row[i])


def _new_columns() -> dict[str, list[list[Any]]]:
    return {name: [[] for _ in range(_WIDTHS[name])] for name in COLUMNAR}


def _new_runs() -> dict[str, Runs]:
    return {name: Runs() for name in KEYED}
