"""A live table: its session's log in the house format v1.1 (``Cards: shown``), written one entry at a time.

Each entry the host makes (a bet, a call, a draw, a show ...) becomes one line of the hand in play; the table
then replays the hand with the engine (``audit.engine.streets.start`` / ``follow``, the code that judges any
log) and asks the engine's queries what is legal now. The table writes what nobody has to tap: the seats and
stacks, the forced bets, the street markers when a round or the draw is complete, and at the end of a hand the
uncalled bets, the pots and who collects what (as the engine's settlement says, odd chips by the profile's
rule); then the button moves (``audit.engine.session.next_button``) and the stacks carry to the next hand.

An entry that breaks a rule is written all the same: its findings are the engine's, at once. Only an entry that
cannot be understood (an unknown player or action, a bet without an amount, a card that is no card) is
refused with ``EntryError``. The table is the entries: ``Table.replay(config, entries)`` rebuilds it, which is
how a restart works; undo goes back to the table as it was before the hand in play's first entry (kept then)
and makes the hand's other entries again.

An entry costs the same in the first hand as in the thousandth: the hands played are fixed once played out, so
the table keeps what the audit of the whole log knows after them (the line the next hand starts at, the
session's state, ``audit.pipeline.FileContext``) and reads and judges only the hand in play, with the file line
numbers and the session findings the whole log's audit gives it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from audit.engine.betting import raise_capped
from audit.engine.deal import checks_not_made
from audit.engine.result import HandResult
from audit.engine.session import next_button
from audit.engine.settle import finish, redeal_due
from audit.engine.parole import may_offer_parole, next_parole_answer
from audit.engine.showdown import best_hands, first_to_show
from audit.engine.state import (
    HandState, draw_limit, expected_actor, max_raise_to, next_to_draw, dead_money,
)
from audit.engine.streets import follow, start
from audit.engine.table import blind_seats, ring_from_button
from audit.errors import ProfileError
from audit.findings import Finding
from audit.model import Hand
from audit.pipeline import Audited, FileContext, audit_parsed, audit_text
from audit.pots import build_pots, odd_chip_order
from audit.profile import Profile, load_profile
from audit.dialects.dispatch import parse_block
from audit.dialects.house_lines import is_player_name
from audit.read import block_kind, read_text_blocks

ACTIONS: Final = ("fold", "check", "call", "bet", "raise", "draw", "stand-pat", "show", "muck", "collect",
                  "offer-parole", "accept-parole", "decline-parole")
"""What the host may enter (INTERFACE.md, "The live table"; ``collect``: the host's own claim of who took what,
right after a hand ends)."""

NAME: Final = re.compile(r"^[\w\-.']+$")
CARD: Final = re.compile(r"^(?:([2-9TJQKA]|10)([cdhs])|Jk)$")
MAX_CHIPS: Final = 10 ** 9
MAX_ENTRIES: Final = 5000
"""A session's entries at most (a crafted client cannot grow a table without end)."""


class TableError(ValueError):
    """A table that cannot be opened as asked, or a request the table's state does not allow (closed)."""


class EntryError(ValueError):
    """An entry that cannot be understood: an unknown player or action, a missing or impossible amount."""


class UnreadableLine(TableError):
    """The table wrote a line its own reader takes for another (a player's name that ``from_request`` should
    have refused): the entry is not made, and the table held in memory is to be rebuilt from what was stored."""


def reads_as_a_name(player: str) -> bool:
    """Whether every line the table writes led by ``player`` (``player: folds``, ``player collected 2 from pot``,
    ``player scores 1 point``) reads back as that player's line: not a preamble keyword (``Session:``,
    ``Profile:``, ``Option:``, ``Cards:``), not a hand's or a site's first word (``Hand``, ``Table``, ``Seat``,
    ``Total``, ``Uncalled``, ``PokerStars`` ...), not a standings line's place (any word of digits)."""
    return (is_player_name(player) and block_kind(f"{player}: folds") == "unknown"
            and block_kind(f"{player} collected 1 from pot") == "unknown")


@dataclass(frozen=True)
class TableConfig:
    """What the host said when opening the table."""

    name: str
    profile: str
    options: tuple[tuple[str, str], ...]
    seats: tuple[tuple[int, str, int], ...]  # (seat, player, chips), in seat order
    button: int
    session: str
    opened_at: str  # "YYYY/MM/DD HH:MM:SS"
    small_blind: int = 1  # three blinds: the small one (big = 2 ×, over = 4 ×)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "profile": self.profile, "options": dict(self.options),
                "seats": [{"seat": s, "player": p, "chips": c} for s, p, c in self.seats],
                "button": self.button, "session": self.session, "opened_at": self.opened_at,
                "small_blind": self.small_blind}

    @classmethod
    def from_request(cls, body: object, session: str, opened_at: str) -> TableConfig:
        """The table a request asks for (``{"name", "profile", "options", "seats", "button"}``, and
        ``small_blind`` for three blinds); ``TableError`` saying what is wrong."""
        if not isinstance(body, dict):
            raise TableError("the table must be a JSON object")
        name = body.get("name", "")
        if not isinstance(name, str) or not name.strip() or len(name) > 60 or not name.isprintable():
            raise TableError("name: one line of up to 60 printable characters")
        profile_name = body.get("profile", "home-open")
        if not isinstance(profile_name, str):
            raise TableError("profile: a profile's name")
        options = body.get("options") or {}
        if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, (str, int))
                                                    for k, v in options.items()):
            raise TableError("options: an object of parameter names and values")
        opts = tuple((k, str(v)) for k, v in options.items())
        seats_in = body.get("seats")
        if not isinstance(seats_in, list) or not 2 <= len(seats_in) <= 10:
            raise TableError("seats: a list of 2 to 10 seats")
        seats: list[tuple[int, str, int]] = []
        for s in seats_in:
            if not isinstance(s, dict):
                raise TableError("each seat: {\"seat\", \"player\", \"chips\"}")
            seat, player, chips = s.get("seat"), s.get("player"), s.get("chips")
            if type(seat) is not int or not 1 <= seat <= 10:
                raise TableError("seat: a number from 1 to 10")
            if not isinstance(player, str) or not NAME.match(player) or len(player) > 40:
                raise TableError("player: one word of letters, digits, _ - . '")
            if not reads_as_a_name(player):
                raise TableError(f"player: {player!r} would read as another line of the log (a word such as "
                                 "Seat, Session or Total, or a number): choose another name")
            if type(chips) is not int or not 0 <= chips < MAX_CHIPS:
                raise TableError("chips: a whole number of chips above 0 (of points, in points mode)")
            seats.append((seat, player, chips))
        seats.sort()
        if len({s[0] for s in seats}) != len(seats) or len({s[1] for s in seats}) != len(seats):
            raise TableError("seats: each seat and each player once")
        button = body.get("button", seats[-1][0])
        if type(button) is not int or not 1 <= button <= 10:
            raise TableError("button: a seat number from 1 to 10")
        small = body.get("small_blind", 1)
        if type(small) is not int or not 0 < small < MAX_CHIPS:
            raise TableError("small_blind: a whole number of chips above 0")
        config = cls(name.strip(), profile_name, opts, tuple(seats), button, session, opened_at, small)
        if not config.load_profile().points_mode and any(chips == 0 for _, _, chips in seats):
            raise TableError("chips: a whole number of chips above 0")
        return config

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableConfig:
        return cls(data["name"], data["profile"], tuple((k, v) for k, v in data["options"].items()),
                   tuple((s["seat"], s["player"], s["chips"]) for s in data["seats"]), data["button"],
                   data["session"], data["opened_at"], data.get("small_blind", 1))

    def load_profile(self) -> Profile:
        try:
            prof = load_profile(self.profile).with_options(list(self.options))
        except ProfileError as exc:
            raise TableError(str(exc)) from None
        return prof


@dataclass
class _HandInPlay:
    number: int
    button: int
    stacks: dict[str, int]  # seat order
    seat_of: dict[str, int]
    carried: int
    started_at: str
    lines: list[str]  # the body: forced bets, markers, the entries' lines, the settlement
    first_entry: int  # the index in ``Table.entries`` of this hand's first entry


@dataclass
class FinishedHand:
    """A hand played out: its text (a hand block), its findings (session rules included), its result."""

    number: int
    text: str
    findings: list[Finding]
    result: HandResult
    entries: int  # how many entries it took
    redeal: bool
    before_settling: _HandInPlay | None = None  # the hand as it was when the table settled it
    claims: tuple[tuple[str, int], ...] = ()  # the host's ``collect`` entries, in order
    claims_from: int = -1  # the index of the first of them in ``Table.entries``
    end_line: int = 0  # the log's line count through this hand (the next hand starts two lines on)
    context_before: FileContext | None = None  # what the audit of the log knew before this hand (kept, not fed)


class Table:
    """A live table's session (see the module's docstring)."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.profile = config.load_profile()
        self.entries: list[dict[str, Any]] = []
        self.hands: list[FinishedHand] = []
        self.closed = False
        self.claims_open = False  # the last hand played out takes the host's ``collect`` claims
        self.sealed = 0  # the hands numbered up to this one take no claims any more (stored as they are)
        self.balances = {p: c for _, p, c in config.seats}  # chips (points) after the last hand played out
        self.standings: list[tuple[int, str, int]] = []
        self.file = f"table-{config.session}.txt"
        stacks = {p: c for _, p, c in config.seats}
        self.hand: _HandInPlay | None = None
        self._preamble_lines = self.preamble().count("\n")
        self._context = self._audit_context()  # the audit's state after the preamble and the hands played
        self._checkpoint: dict[str, Any] | None = None  # the table before the entries undo may take back
        self._deal(1, config.button, stacks, 0, config.opened_at, 0)
        self._keep_checkpoint()

    # ------------------------------------------------------------------ building
    @classmethod
    def replay(cls, config: TableConfig, entries: list[dict[str, Any]], closed: bool = False,
               sealed: int = 0) -> Table:
        """The table after ``entries`` (and closed, when it was): how undo and a restart rebuild it. ``sealed``:
        the hands numbered up to it were stored with the claims they had (an entry of the next hand closed
        them, even if that entry was taken back since)."""
        table = cls(config)
        for entry in entries:
            table.apply(entry)
        table.seal(sealed)
        if closed:
            table.close()
        return table

    def seal(self, number: int) -> None:
        """The hands numbered up to ``number`` take no more claims."""
        if number > self.sealed:
            self.sealed = number
        if self.claims_open and self.hands and self.hands[-1].number <= self.sealed:
            self.claims_open = False

    def preamble(self) -> str:
        lines = [f"Session: {self.config.session}", f"Profile: {self.config.profile}"]
        lines += [f"Option: {k} = {v}" for k, v in self.config.options]
        lines.append("Cards: shown")
        return "\n".join(lines) + "\n"

    def upload_text(self, finished: FinishedHand) -> str:
        """A finished hand as the club's upload: the profile, its options and ``Cards: shown``, then the hand."""
        lines = [f"# Live table {self.config.session}, hand {finished.number}", f"Profile: {self.config.profile}"]
        lines += [f"Option: {k} = {v}" for k, v in self.config.options]
        lines.append("Cards: shown")
        return "\n".join(lines) + "\n\n" + finished.text

    def _hand_text(self, h: _HandInPlay) -> str:
        head = [f"Hand #{h.number} - {h.started_at}",
                f"Table '{self.config.name}' Seat #{h.button} is the button"]
        if self.profile.points_mode:
            head += [f"Seat {h.seat_of[p]}: {p} ({c} point{'' if c == 1 else 's'})" for p, c in h.stacks.items()]
        else:
            head += [f"Seat {h.seat_of[p]}: {p} ({c} in chips)" for p, c in h.stacks.items()]
        if h.carried:
            head.append(f"Pot carried over: {h.carried}")
        return "\n".join(head + h.lines) + "\n"

    def log(self) -> str:
        """The house-format text so far: the preamble, the hands played, the hand in play, the standings."""
        parts = [self.preamble()] + [f.text for f in self.hands]
        if self.hand is not None and not self.closed:
            parts.append(self._hand_text(self.hand))
        if self.closed:
            parts.append("\n".join(["*** SESSION END ***"] + [f"{pl}: {p} ({c})" for pl, p, c in self.standings])
                         + "\n")
        return "\n".join(parts)

    def _deal(self, number: int, button: int, stacks: dict[str, int], carried: int, when: str,
              first_entry: int) -> None:
        """A new hand: seats, the forced bets posted by the table, the deal and the first round's marker."""
        seat_of = {p: s for s, p, _ in self.config.seats}
        prof = self.profile
        stacks = {p: c for p, c in sorted(stacks.items(), key=lambda kv: seat_of[kv[0]]) if c > 0 or prof.points_mode}
        h = _HandInPlay(number, button, stacks, seat_of, carried, when, [], first_entry)
        self.hand = h
        if prof.points_mode:  # no forced bets, no betting: the deal, then the draw
            h.lines += ["*** DEALING HANDS ***", "*** DRAW ***"]
            return
        left = dict(stacks)
        if prof.ante:
            for p in stacks:
                amount = min(prof.ante, left[p])
                left[p] -= amount
                h.lines.append(f"{p}: posts the ante {amount}" + (" and is all-in" if left[p] == 0 else ""))
        if prof.blinds == "three":
            ring = ring_from_button(list(stacks), seat_of, button)
            levels = {"small": self.config.small_blind, "big": 2 * self.config.small_blind,
                      "over": 4 * self.config.small_blind}
            for kind, who in blind_seats(ring).items():
                amount = min(levels[kind], left[who])
                if amount <= 0:
                    continue
                left[who] -= amount
                h.lines.append(f"{who}: posts {kind} blind {amount}" + (" and is all-in" if left[who] == 0 else ""))
        h.lines += ["*** DEALING HANDS ***", "*** FIRST BETTING ROUND ***"]
        self.hand = h
        self._advance(when)  # nobody may be able to act: all but one all-in with the forced bets

    # ------------------------------------------------------------------ the engine on the hand in play
    def _audit_context(self) -> FileContext:
        """What ``audit_text`` knows of the log after its preamble (the profile, its options, the session)."""
        default = load_profile("home-open")  # (audit_text's default: the preamble names the profile)
        ctx = FileContext(default, default, None, None)
        for block in read_text_blocks(self.preamble(), self.file):
            audit_parsed(parse_block(block), block, ctx)
        return ctx

    def _next_line(self) -> int:
        """The file line number of the hand in play's first line (after the preamble, the hands played and the
        blank line before it, as ``log`` writes them)."""
        return (self.hands[-1].end_line if self.hands else self._preamble_lines) + 2

    def engine_state(self) -> tuple[HandState, Hand]:
        """The engine's state after the last line of the hand in play (file line numbers of the whole log)."""
        assert self.hand is not None
        blocks = list(read_text_blocks(self._hand_text(self.hand), self.file, self._next_line()))
        parsed = parse_block(blocks[-1])
        if type(parsed) is not Hand:  # the table writes only lines it can read (``reads_as_a_name``)
            raise UnreadableLine(f"the table wrote a line it cannot read: {parsed}")
        hand = parsed._replace(shows_all_cards=False)
        st = start(hand, self.profile, self.config.session)
        for item in hand.body:
            follow(st, item)
        return st, hand

    # ------------------------------------------------------------------ entries
    def apply(self, entry: dict[str, Any]) -> list[Finding]:
        """One entry: its line written, the hand carried on as far as nobody has to tap; the findings it made
        (those of its line and of the lines the table wrote after it). ``EntryError`` when it cannot be
        understood, ``TableError`` when the table takes no entry (closed, or the session is over)."""
        found = self._apply(entry)
        self._keep_checkpoint()
        return found

    def _apply(self, entry: dict[str, Any]) -> list[Finding]:
        if self.closed:
            raise TableError("the table is closed")
        if len(self.entries) >= MAX_ENTRIES:
            raise TableError("this session has too many entries")
        if not isinstance(entry, dict):
            raise EntryError("an entry is a JSON object")
        action = entry.get("action")
        player = entry.get("player")
        if action not in ACTIONS:
            raise EntryError(f"action: one of {', '.join(ACTIONS)}")
        clean: dict[str, Any] = {k: entry[k] for k in ("player", "action", "to", "count", "cards", "at") if k in entry}
        if action == "collect":
            return self._claim(player, entry, clean)
        if self.hand is None:
            raise TableError("the session is over: close the table")
        if not isinstance(player, str) or player not in self.hand.stacks:
            raise EntryError("player: one of the players dealt in this hand")
        st, _ = self.engine_state()
        line = self._line(st, player, str(action), entry)
        h = self.hand
        before = list(st.findings)
        h.lines.append(line)
        self.entries.append(clean)
        if self.claims_open:
            self.claims_open = False
            self.seal(self.hands[-1].number)
        when = str(entry.get("at") or h.started_at)
        self._advance(when)
        return new_findings(before, self.findings_of_entry(h.number))

    def _claim(self, player: object, entry: dict[str, Any], clean: dict[str, Any]) -> list[Finding]:
        """``collect``: the host says ``player`` took ``to`` chips of the hand just played out. The table's own
        payout of that hand gives way to the host's claims, judged at once (``ODD_CHIP``, ``POT_WINNER`` ...);
        the next hand is dealt again from the stacks the claims leave."""
        if not self.claims_open or not self.hands or self.hands[-1].redeal or self.profile.points_mode:
            raise EntryError("collect: only right after a hand is played out, before the next hand's first entry")
        last = self.hands[-1]
        assert last.before_settling is not None
        if not isinstance(player, str) or player not in last.before_settling.stacks:
            raise EntryError("player: one of the players dealt in the hand just played")
        to = entry.get("to")
        if type(to) is not int or not 0 < to < MAX_CHIPS:
            raise EntryError("to: the chips the player collected, a whole number above 0")
        self.hands.pop()
        assert last.context_before is not None
        self._context = _copy_context(last.context_before)  # (a copy: the hand kept may be undone back to)
        claims_from = last.claims_from if last.claims else len(self.entries)
        self.entries.append(clean)
        h = last.before_settling
        self.hand = _HandInPlay(h.number, h.button, dict(h.stacks), h.seat_of, h.carried, h.started_at,
                                list(h.lines), h.first_entry)
        self._settle(self.engine_state()[0], str(entry.get("at") or h.started_at),
                     last.claims + ((player, to),), claims_from)
        return new_findings(last.findings, self.hands[-1].findings)

    def final_hands(self) -> list[FinishedHand]:
        """The hands played out that no claim can change any more (the ones to store as uploads)."""
        return self.hands[:-1] if self.claims_open and not self.closed else list(self.hands)

    def findings_of_entry(self, number: int) -> list[Finding]:
        """The findings of hand ``number`` (finished, or in play) so far."""
        for f in self.hands:
            if f.number == number:
                return f.findings
        if self.hand is not None and self.hand.number == number:
            st, _ = self.engine_state()
            return list(st.findings)
        return []

    def _line(self, st: HandState, p: str, action: str, entry: dict[str, Any]) -> str:
        """The log line of an entry (judged by the engine once written)."""
        rnd = st.round
        stack = st.stack.get(p, 0)
        if action == "fold":
            return f"{p}: folds"
        if action == "check":
            return f"{p}: checks"
        if action == "call":
            owed = rnd.to_call(p) if rnd is not None else 0
            amount = min(owed, stack) if stack > 0 else owed
            return f"{p}: calls {amount}" + (" and is all-in" if 0 < amount == stack else "")
        if action in ("bet", "raise"):
            to = entry.get("to")
            if type(to) is not int or not 0 < to < MAX_CHIPS:
                raise EntryError("to: the player's total this round after the bet or raise, a whole number above 0")
            mine = rnd.bets.get(p, 0) if rnd is not None else 0
            if to <= mine:
                raise EntryError(f"to: more than the {mine} {p} has already put in this round")
            all_in = " and is all-in" if to - mine == stack else ""
            if action == "bet":
                return f"{p}: bets {to - mine}{all_in}"
            current = rnd.current if rnd is not None else 0
            return f"{p}: raises {max(0, to - current)} to {to}{all_in}"
        if action == "draw":
            count = entry.get("count")
            if type(count) is not int or not 0 <= count <= 5:
                raise EntryError("count: how many cards the player throws, 0 to 5")
            if count == 0:
                return f"{p}: stands pat"
            return f"{p}: discards {count} card{'s' if count > 1 else ''}"
        if action == "stand-pat":
            return f"{p}: stands pat"
        if action.endswith("-parole"):
            return f"{p}: {action[:-7]}s parole"
        if action == "show":
            return f"{p}: shows [{' '.join(read_cards(entry.get('cards')))}]"
        return f"{p}: mucks hand"

    def _advance(self, when: str) -> None:
        """Write what follows without a tap: street markers, a redeal, the settlement (then the next hand)."""
        for _ in range(8):
            h = self.hand
            assert h is not None
            st, _ = self.engine_state()
            if st.won_by_fold is not None or st.parole_state == "accepted":
                self._settle(st, when)
                return
            street = st.street
            if street in ("first", "second"):
                rnd = st.round
                if rnd is not None and rnd.pending:
                    return
                if street == "first" and redeal_due(st):
                    h.lines.append("*** REDEAL ***")
                    self._settle(self.engine_state()[0], when)
                    return
                h.lines.append("*** DRAW ***" if street == "first" else "*** SHOW DOWN ***")
            elif street == "draw":
                if next_to_draw(st) is not None:
                    return
                h.lines.append("*** SHOW DOWN ***" if st.points_mode else "*** SECOND BETTING ROUND ***")
            elif street == "showdown":
                live = [p for p in st.order if p not in st.folded]
                waiting = [p for p in live if p not in st.shown and p not in st.mucked]
                # the last one left when every other hand was mucked wins without showing (nobody to beat)
                if waiting and not (len(waiting) == 1 and not any(p in st.shown for p in live)):
                    return
                self._settle(st, when)
                return
            else:
                return

    def _settle(self, st: HandState, when: str, claims: tuple[tuple[str, int], ...] = (),
                claims_from: int = -1) -> None:
        """The end of the hand: uncalled bets back, each pot to its winners (the engine's settlement, or the
        host's ``claims``), the hand audited with the session; the next hand dealt (button moved, stacks
        carried)."""
        h = self.hand
        assert h is not None
        snapshot = _HandInPlay(h.number, h.button, dict(h.stacks), h.seat_of, h.carried, h.started_at,
                               list(h.lines), h.first_entry)
        if st.points_mode:  # a point to each best hand shown, as the engine ranks them
            shown = [p for p in st.order if p in st.shown and p not in st.folded and p not in st.mucked]
            h.lines += [f"{p} scores 1 point" for p in best_hands(st, shown)]
            st = self.engine_state()[0]
        result = finish(st)
        if not result.redeal and not st.points_mode:
            for p, amount in st.returned_due.items():
                if amount > 0:
                    h.lines.append(f"Uncalled bet ({amount}) returned to {p}")
            where = "pot" if len(result.pots) <= 1 else "main pot"
            # every other hand mucked at the show down and none shown: the last one takes what she is in for
            live = [p for p in st.order if p not in st.folded and p not in st.mucked]
            unchallenged = live[0] if st.street == "showdown" and len(live) == 1 and not st.shown else None
            for p, amount in claims:
                h.lines.append(f"{p} collected {amount} from {where}")
            split = {p: sum(pot["awards"].get(p, 0) for pot in result.pots) for p in st.order}
            for p in odd_chip_order(st.order, st.button_index) if st.parole_state == "accepted" and not claims else []:
                if split[p]:
                    h.lines.append(f"{p} collected {split[p]} from pot (parole)")
            for pot in result.pots if st.parole_state != "accepted" and not (claims and len(result.pots) <= 1) else []:
                name = str(pot["name"])
                if claims and name == "main":
                    continue  # the host's claims stand for the main pot (README: "Who collected what")
                where = "pot" if name == "pot" else "main pot" if name == "main" else "side pot-" + name[5:]
                awards = dict(pot["awards"])
                if not awards and unchallenged is not None and unchallenged in pot["eligible"]:
                    awards = {unchallenged: int(pot["amount"])}
                for p in st.order:
                    amount = awards.get(p, 0)
                    if amount:
                        h.lines.append(f"{p} collected {amount} from {where}")
            h.lines += ["*** SUMMARY ***", f"Total pot {result.pot_total} | Rake 0"]
        text = self._hand_text(h)
        first = self._next_line()
        before = _copy_context(self._context)
        # the hand judged as ``audit_text`` judges it in the whole log: after the hands played (``_context``)
        last: Audited | None = None
        for block in read_text_blocks(text, self.file, first):
            audited = audit_parsed(parse_block(block), block, self._context)
            if audited is not None:
                last = audited
        if last is None or last.result is None:
            self._context = before
            raise UnreadableLine(f"the table wrote a hand it cannot read: {last.findings if last else text!r}")
        played = FinishedHand(h.number, text, last.findings, last.result, len(self.entries) - h.first_entry,
                              last.result.redeal, snapshot, claims, claims_from, first + text.count("\n") - 1,
                              before)
        self.hands.append(played)
        self.hand = None
        self.claims_open = not played.redeal and played.number > self.sealed
        counted = sum(1 for f in self.hands if not f.redeal)
        limit = self.profile.session_hands
        if self.profile.points_mode:
            stacks = {p: c + last.result.points.get(p, 0) for p, c in h.stacks.items()}
        else:
            stacks = dict(last.result.end_stacks)
        self.balances.update(stacks)
        players = [p for p, c in stacks.items() if c > 0 or self.profile.points_mode]
        if len(players) < 2 or (limit is not None and counted >= limit and not played.redeal):
            return
        seat_of = {p: s for s, p, _ in self.config.seats}
        button = next_button(h.button, sorted(seat_of[p] for p in players), played.redeal)
        assert button is not None
        carried = last.result.pot_total if played.redeal else 0
        self._deal(h.number + 1, button, stacks, carried, when, claims_from if claims else len(self.entries))

    def _undo_from(self) -> int:
        """The index in ``entries`` of the first entry undo may take back: the hand in play's first, or the first
        ``collect`` claim of the hand just played out (``len(entries)``: none)."""
        h = self.hand
        if h is not None:
            return h.first_entry
        if self.claims_open and self.hands and self.hands[-1].claims:
            return self.hands[-1].claims_from
        return len(self.entries)

    def _keep_checkpoint(self) -> None:
        """Keep the table as it is when undo has nothing to take back: undo starts again from here."""
        if not self.closed and len(self.entries) == self._undo_from():
            self._checkpoint = _copy_state(self.__dict__)

    def undo(self) -> None:
        """Take back the last entry of the hand in play, or the last ``collect`` claim of the hand just played
        out (a hand stored stays as stored)."""
        if self.closed:
            raise TableError("the table is closed")
        first = self._undo_from()
        if len(self.entries) <= first:
            raise TableError("there is no entry to take back in this hand")
        sealed, kept, again = self.sealed, self._checkpoint, self.entries[first:-1]
        if kept is not None and len(kept["entries"]) == first:
            self.__dict__.update(_copy_state(kept))  # the table before the hand's first entry, as it was
            self._checkpoint = kept
            for entry in again:
                self.apply(entry)
            self.seal(sealed)
            return
        rebuilt = Table.replay(self.config, self.entries[:-1], sealed=sealed)  # (no checkpoint: from the start)
        self.__dict__.update(rebuilt.__dict__)

    def close(self) -> dict[str, Any]:
        """End the session: the standings written and the session's rules judged; the session's verdict."""
        in_play = self.entries[self.hand.first_entry:] if self.hand is not None else []
        if any(e.get("action") != "collect" for e in in_play) and not self.closed:
            raise TableError("a hand is in play: finish it, or take back its entries, before closing the table")
        balances = dict(self.balances)
        ranked = sorted(balances.items(), key=lambda kv: (-kv[1], self.config_seat(kv[0])))
        standings: list[tuple[int, str, int]] = []
        for i, (p, c) in enumerate(ranked):
            place = standings[-1][0] if i and c == ranked[i - 1][1] else i + 1
            standings.append((place, p, c))
        self.standings = standings
        self.closed = True
        return self.verdict()

    def config_seat(self, player: str) -> int:
        return next(s for s, p, _ in self.config.seats if p == player)

    def verdict(self) -> dict[str, Any]:
        """The session as audited: its hands, findings by severity, the standings."""
        findings: list[Finding] = []
        hands = 0
        for a in audit_text(self.log(), name=self.file):
            findings.extend(a.findings)
            if a.result is not None:
                hands += 1
        counts = {s: sum(1 for f in findings if f.severity == s) for s in ("violation", "warning", "error")}
        return {"session": self.config.session, "hands": hands, "violations": counts["violation"],
                "warnings": counts["warning"], "errors": counts["error"],
                "verdict": "clean" if not counts["violation"] and not counts["error"] else "violations",
                "standings": [{"place": pl, "player": p, "chips": c} for pl, p, c in self.standings],
                "findings": [f.as_dict() for f in findings]}

    # ------------------------------------------------------------------ the state
    def state(self) -> dict[str, Any]:
        """``{"hand", "street", "to_act", "allowed", "stacks", "bets", "pots", "findings"}`` and more: the button,
        the seats, the hands played, the checks a hand with only the cards shown cannot make."""
        base: dict[str, Any] = {"name": self.config.name, "profile": self.config.profile, "closed": self.closed,
                                "hands_played": len(self.hands), "entries": len(self.entries),
                                "may_collect": self.claims_open and not self.closed}
        last = self.hands[-1] if self.hands else None
        base["last_hand"] = None if last is None else {
            "hand": str(last.number), "redeal": last.redeal,
            "pots": [{"name": str(p["name"]), "amount": p["amount"], "eligible": list(p["eligible"]),
                      "winners": list(p["winners"]), "awards": dict(p["awards"])} for p in last.result.pots],
            "findings": [f.as_dict() for f in last.findings],
            "claims": [{"player": p, "chips": c} for p, c in last.claims]}
        h = self.hand
        if h is None or self.closed:
            base.update({"hand": None, "street": "closed" if self.closed else "over", "to_act": None,
                         "allowed": empty_allowed(), "stacks": dict(self.balances) if last else {},
                         "bets": {}, "pots": [], "findings": [], "button": None, "unchecked": []})
            if self.closed:
                base["standings"] = [{"place": pl, "player": p, "chips": c} for pl, p, c in self.standings]
            return base
        st, hand = self.engine_state()
        to_act, allowed = what_is_allowed(st)
        rnd = st.round
        dead_of, dead = dead_money(st)
        contrib = {p: c - st.returned_log.get(p, 0) - dead_of.get(p, 0) for p, c in st.contrib.items()}
        live = [p for p in st.order if p not in st.folded]
        pots = build_pots(contrib, live, st.order, st.dead + dead)
        base.update({
            "hand": str(h.number), "street": st.street, "to_act": to_act, "allowed": allowed,
            "stacks": dict(st.stack), "bets": dict(rnd.bets) if rnd is not None else {},
            "pots": [{"name": p.name, "amount": p.amount, "eligible": list(p.eligible)} for p in pots],
            "findings": [f.as_dict() for f in st.findings], "button": h.button,
            "seats": [{"seat": h.seat_of[p], "player": p, "chips": c, "folded": p in st.folded,
                       "all_in": p in st.all_in} for p, c in h.stacks.items()],
            "unchecked": list(checks_not_made(hand)),
        })
        return base


def _copy_context(ctx: FileContext) -> FileContext:
    """``ctx`` apart from itself: feeding a hand to either leaves the other as it was."""
    return FileContext(ctx.default_profile, ctx.profile, ctx.session.copy() if ctx.session is not None else None,
                       None, ctx.shown_only)


def _copy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A table's attributes (``Table.__dict__``) apart from the table: what its entries change is copied (the
    hands played out are never changed, only added or taken off)."""
    out = {k: v for k, v in state.items() if k != "_checkpoint"}
    out["entries"] = list(state["entries"])
    out["hands"] = list(state["hands"])
    out["balances"] = dict(state["balances"])
    out["standings"] = list(state["standings"])
    h = state["hand"]
    if h is not None:
        out["hand"] = _HandInPlay(h.number, h.button, dict(h.stacks), h.seat_of, h.carried, h.started_at,
                                  list(h.lines), h.first_entry)
    out["_context"] = _copy_context(state["_context"])
    return out


def new_findings(before: list[Finding], after: list[Finding]) -> list[Finding]:
    """The findings of ``after`` that ``before`` did not have (each counted: a rule broken twice is two)."""
    seen: dict[tuple[Any, ...], int] = {}
    for f in before:
        key = (f.rule, f.line, f.player, f.msg_id, f.params)
        seen[key] = seen.get(key, 0) + 1
    out: list[Finding] = []
    for f in after:
        key = (f.rule, f.line, f.player, f.msg_id, f.params)
        if seen.get(key, 0):
            seen[key] -= 1
        else:
            out.append(f)
    return out


def empty_allowed() -> dict[str, Any]:
    return {"actions": [], "to_call": 0, "min_to": 0, "max_to": 0, "may_raise": False, "draw_max": 0,
            "bet_unit": 1}


def what_is_allowed(st: HandState) -> tuple[str | None, dict[str, Any]]:
    """Whose turn it is and what that player may do, from the engine's queries on the state after the last
    line: the betting round's (to call, min / max raise-to, may raise, the cap), the draw's (next to draw, the
    limit), the show down's (who shows first, then clockwise)."""
    allowed = empty_allowed()
    street = st.street
    if st.won_by_fold is not None:
        return None, allowed
    answering = next_parole_answer(st)
    if answering is not None:
        allowed["actions"] = ["accept-parole", "decline-parole"]
        return answering, allowed
    if street in ("first", "second") and st.round is not None:
        rnd = st.round
        p = expected_actor(st, st.last_actor)
        if p is None:
            return None, allowed
        owed = rnd.to_call(p)
        stack = st.stack.get(p, 0)
        actions = ["fold", "check" if owed == 0 else "call"]
        may = rnd.may_raise(p) and not raise_capped(st, rnd)
        top = max_raise_to(st, p)
        if may and stack > owed:
            actions.append("bet" if rnd.current == 0 else "raise")
        if may_offer_parole(st, p):
            actions.append("offer-parole")
        allowed.update({"actions": actions, "to_call": owed, "min_to": min(rnd.min_raise_to(), top),
                        "max_to": top, "may_raise": may, "bet_unit": max(1, st.profile.bet_unit)})
        return p, allowed
    if street == "draw":
        p = next_to_draw(st)
        if p is None:
            return None, allowed
        allowed.update({"actions": ["draw", "stand-pat"], "draw_max": draw_limit(st, p, None)})
        return p, allowed
    if street == "showdown":
        live = [q for q in st.order if q not in st.folded]
        waiting = [q for q in live if q not in st.shown and q not in st.mucked]
        if not waiting:
            return None, allowed
        first = first_to_show(st, live)
        p = waiting[0]
        if first is not None and first in waiting:
            p = first
        elif st.show_order or st.mucked:
            n = len(st.order)
            last = st.show_order[-1] if st.show_order else first
            at = st.order.index(last) if last in st.order else st.button_index
            for i in range(1, n + 1):
                q = st.order[(at + i) % n]
                if q in waiting:
                    p = q
                    break
        allowed["actions"] = ["show", "muck"]
        return p, allowed
    return None, allowed


def read_cards(value: object) -> list[str]:
    """Five cards from ``["As", "Kd", ...]`` or ``"As Kd ..."`` (``10`` is ``T``); ``EntryError`` otherwise."""
    if isinstance(value, str):
        items: list[object] = list(value.replace(",", " ").split())
    elif isinstance(value, list):
        items = list(value)
    else:
        raise EntryError("cards: the five cards shown, such as [\"As\", \"Kd\", \"Kh\", \"7c\", \"2d\"]")
    cards: list[str] = []
    for c in items:
        m = CARD.match(c) if isinstance(c, str) else None
        if m is None:
            raise EntryError(f"cards: {str(c)[:10]!r} is not a card (a rank 2-9 T J Q K A and a suit c d h s)")
        cards.append("Jk" if c == "Jk" else ("T" if m.group(1) == "10" else m.group(1)) + m.group(2))
    if len(cards) != 5:
        raise EntryError("cards: the five cards shown")
    return cards
