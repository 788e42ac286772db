"""A live table: its session's log in the house format v1.1 (``Cards: shown``), written one entry at a time.

Each entry the host makes (a bet, a call, a draw, a show ...) becomes one line of the hand in play
(``audit.live.actions``); the table then follows the hand with the engine (``audit.engine.streets.start`` /
``follow``, the code that judges any log) and offers what the engine says is legal now
(``audit.engine.legal.legal_now``). The table writes what nobody has to tap (``audit.live.lines``): the seats and
stacks, the forced bets, the street markers when a round or the draw is complete, and at the end of a hand the
uncalled bets, the pots and who collects what (as the engine's settlement says, odd chips by the profile's rule);
then the button moves (``audit.engine.session.next_button``) and the stacks carry to the next hand.

An entry that breaks a rule is written all the same: its findings are the engine's, at once, and so are the
session's about the seats of a hand as it is dealt (a stack other than the profile's starting chips). Only an
entry that cannot be understood (an unknown player or action, a bet without an amount, a card that is no card)
is refused with ``EntryError``. The table is the entries: ``Table.replay(config, entries)`` rebuilds it, which
is how a restart works; undo goes back to the table as it was before the hand in play's first entry (kept then)
and makes the hand's other entries again.

An entry costs the same in the first hand as in the thousandth: the hands played are fixed once played out, so
the table keeps what the audit of the whole log knows after them (the line the next hand starts at, the
session's state, ``audit.pipeline.FileContext``) and reads and judges only the hand in play, with the file line
numbers and the session findings the whole log's audit gives it. The engine's state of the hand in play is kept
between entries: an entry reads the hand once more and follows only its new lines (``PYTHONPATH=.
.venv/bin/python bench/live.py --repeat 40``: the 10th entry and its state 0.08 ms, the 1,000th 0.10 ms, the
hand read once and one line followed, where the hand was read and replayed four times, 43 to 75 lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from audit.dialects.dispatch import parse_block
from audit.engine.deal import checks_not_made
from audit.engine.legal import Legal, legal_now
from audit.engine.result import HandResult
from audit.engine.session import next_button
from audit.engine.settle import finish, redeal_due
from audit.engine.showdown import best_hands, check_what_shown_proves
from audit.engine.state import (
    HandState, all_in_players, folded_players, in_front, is_all_in, is_folded, next_to_draw, pots_in_progress, stacks,
    table_now,
)
from audit.engine.streets import follow, start
from audit.findings import Finding
from audit.live.actions import BY_NAME, ENTRY_FIELDS
from audit.live.config import MAX_CHIPS, TableConfig
from audit.live.errors import EntryError, TableError, UnreadableLine
from audit.live.lines import forced_bet_lines, head_lines, payout_lines
from audit.model import Hand
from audit.pipeline import Audited, FileContext, audit_parsed, audit_text
from audit.profile import load_profile
from audit.read import read_text_blocks

MAX_ENTRIES: Final = 5000
"""A session's entries at most (a crafted client cannot grow a table without end)."""


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
class _Followed:
    """The engine's state of a hand in play after its first ``lines`` lines (``parsed``: the hand as read)."""

    hand: _HandInPlay
    lines: int
    state: HandState
    parsed: Hand


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
    unclaimed: list[Finding] | None = None  # with claims: the findings of the hand as the table paid it

    @property
    def claims_complete(self) -> bool:
        """Whether the host's claims add up to the pot they stand for (the pot, or the main pot): until they
        do, a split claimed one share at a time is not judged."""
        pots = self.result.pots
        return not self.claims or sum(c for _, c in self.claims) >= (int(pots[0]["amount"]) if pots else 0)

    def judged(self) -> list[Finding]:
        """The findings to say now: the claims' once they are complete, the table's own payout's before."""
        return self.findings if self.claims_complete or self.unclaimed is None else self.unclaimed


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
        self._engine: _Followed | None = None  # the engine's state of the hand in play, as far as followed
        self.last_found: list[Finding] = []  # what the last entry made (its warnings: undo takes back that entry)
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
        head = head_lines(h.number, h.started_at, self.config.name, h.button, h.stacks, h.seat_of, h.carried,
                          self.profile.points_mode)
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
        h = _HandInPlay(number, button, stacks, seat_of, carried, when,
                        forced_bet_lines(prof, stacks, seat_of, button, self.config.small_blind), first_entry)
        self.hand = h
        if prof.points_mode:  # no forced bets, no betting: the deal, then the draw
            return
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
        """The engine's state after the last line of the hand in play (file line numbers of the whole log): the
        hand read once more, and only its lines not yet followed followed (the state is kept between entries;
        the table only ever adds lines to the hand in play)."""
        h = self.hand
        assert h is not None
        kept = self._engine
        if kept is not None and kept.hand is h and kept.lines == len(h.lines):
            return kept.state, kept.parsed
        blocks = list(read_text_blocks(self._hand_text(h), self.file, self._next_line()))
        parsed = parse_block(blocks[-1])
        if type(parsed) is not Hand:  # the table writes only lines it can read (``reads_as_a_name``)
            raise UnreadableLine(f"the table wrote a line it cannot read: {parsed}")
        hand = parsed._replace(shows_all_cards=False)
        if kept is not None and kept.hand is h and kept.lines < len(h.lines):
            st, done = kept.state, len(kept.parsed.body)
            st.hand = hand
        else:
            st, done = start(hand, self.profile, self.config.session), 0
        for item in hand.body[done:]:
            follow(st, item)
        self._engine = _Followed(h, len(h.lines), st, hand)
        return st, hand

    def seat_findings(self) -> list[Finding]:
        """The session's findings on the hand in play's seats (``STACK_CONTINUITY``), said as it is dealt."""
        session = self._context.session
        if session is None or self.hand is None:
            return []
        _, hand = self.engine_state()
        return session.stack_findings(hand)

    # ------------------------------------------------------------------ entries
    def apply(self, entry: dict[str, Any]) -> list[Finding]:
        """One entry: its line written, the hand carried on as far as nobody has to tap; the findings it made
        (those of its line and of the lines the table wrote after it). ``EntryError`` when it cannot be
        understood, ``TableError`` when the table takes no entry (closed, or the session is over)."""
        found = self._apply(entry)
        self._keep_checkpoint()
        self.last_found = found
        return found

    def _apply(self, entry: dict[str, Any]) -> list[Finding]:
        if self.closed:
            raise TableError("refusal.closed")
        if len(self.entries) >= MAX_ENTRIES:
            raise TableError("refusal.too_many")
        if not isinstance(entry, dict):
            raise EntryError("refusal.entry_object")
        action = entry.get("action")
        player = entry.get("player")
        kind = BY_NAME.get(action) if isinstance(action, str) else None
        if kind is None:
            raise EntryError("refusal.action", actions=", ".join(BY_NAME))
        clean: dict[str, Any] = {k: entry[k] for k in ENTRY_FIELDS if k in entry}
        if kind.write is None:
            return self._claim(player, entry, clean)
        if self.hand is None:
            raise TableError("refusal.session_over")
        if not isinstance(player, str) or player not in self.hand.stacks:
            raise EntryError("refusal.player_in_hand")
        st, _ = self.engine_state()
        line = kind.write(st, player, entry)
        h = self.hand
        before = self.findings_of_entry(h.number)
        h.lines.append(line)
        self.entries.append(clean)
        held: list[Finding] = []
        if self.claims_open:  # the claims of the hand just played are closed: judged as they stand
            self.claims_open = False
            claimed = self.hands[-1]
            self.seal(claimed.number)
            held = new_findings(claimed.judged(), claimed.findings)
        when = str(entry.get("at") or h.started_at)
        self._advance(when)
        return held + new_findings(before, self.findings_of_entry(h.number))

    def _claim(self, player: object, entry: dict[str, Any], clean: dict[str, Any]) -> list[Finding]:
        """``collect``: the host says ``player`` took ``to`` chips of the hand just played out. The table's own
        payout of that hand gives way to the host's claims, judged at once (``ODD_CHIP``, ``POT_WINNER`` ...);
        the next hand is dealt again from the stacks the claims leave."""
        if not self.claims_open or not self.hands or self.hands[-1].redeal or self.profile.points_mode:
            raise EntryError("refusal.collect_when")
        last = self.hands[-1]
        assert last.before_settling is not None
        if not isinstance(player, str) or player not in last.before_settling.stacks:
            raise EntryError("refusal.player_in_last_hand")
        to = entry.get("to")
        if type(to) is not int or not 0 < to < MAX_CHIPS:
            raise EntryError("refusal.collect_to")
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
        claimed = self.hands[-1]
        claimed.unclaimed = last.unclaimed if last.claims else last.findings
        return new_findings(last.judged(), claimed.judged())

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
            return self.seat_findings() + st.findings
        return []

    def _advance(self, when: str) -> None:
        """Write what follows without a tap: street markers, a redeal, the settlement (then the next hand)."""
        for _ in range(8):
            h = self.hand
            assert h is not None
            st, _ = self.engine_state()
            if st.won_by_fold is not None or st.parole.state == "accepted":
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
                if legal_now(st).to_act is not None:  # (nobody left to show: settled, challenged or not)
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
            shown = [p for p in st.order if p in st.shown and not is_folded(st, p) and p not in st.mucked]
            h.lines += [f"{p} scores 1 point" for p in best_hands(st, shown)]
            st = self.engine_state()[0]
        result = finish(st)
        self._engine = None  # (the settlement changed the state followed)
        if not result.redeal and not st.points_mode:
            h.lines += payout_lines(st, result, claims)
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

    def may_undo(self) -> bool:
        """Whether undo has an entry to take back: one of the hand in play, or a claim of the hand just played."""
        return not self.closed and len(self.entries) > self._undo_from()

    def undo(self) -> None:
        """Take back the last entry of the hand in play, or the last ``collect`` claim of the hand just played
        out (a hand stored stays as stored)."""
        if self.closed:
            raise TableError("refusal.closed")
        first = self._undo_from()
        if len(self.entries) <= first:
            raise TableError("refusal.nothing_to_undo")
        sealed, kept, again = self.sealed, self._checkpoint, self.entries[first:-1]
        if kept is not None and len(kept["entries"]) == first:
            self.__dict__.update(_copy_state(kept))  # the table before the hand's first entry, as it was
            self._checkpoint = kept
            for entry in again:
                self.apply(entry)
            self.seal(sealed)
        else:
            rebuilt = Table.replay(self.config, self.entries[:-1], sealed=sealed)  # (no checkpoint: from the start)
            self.__dict__.update(rebuilt.__dict__)

    def close(self) -> dict[str, Any]:
        """End the session: the standings written and the session's rules judged; the session's verdict."""
        in_play = self.entries[self.hand.first_entry:] if self.hand is not None else []
        if any(e.get("action") != "collect" for e in in_play) and not self.closed:
            raise TableError("refusal.hand_in_play")
        balances = dict(self.balances)
        ranked = sorted(balances.items(), key=lambda kv: (-kv[1], self.config.seat_of(kv[0])))
        standings: list[tuple[int, str, int]] = []
        for i, (p, c) in enumerate(ranked):
            place = standings[-1][0] if i and c == ranked[i - 1][1] else i + 1
            standings.append((place, p, c))
        self.standings = standings
        self.closed = True
        return self.verdict()

    def verdict(self) -> dict[str, Any]:
        """The session as audited: its hands, findings by severity, the standings, and who owes whom to put
        right what the log paid wrong (the dispute page's settlement, ``audit.explain.settle``)."""
        from audit.explain import SessionExplanation, explain_text

        findings: list[Finding] = []
        hands = 0
        for a in audit_text(self.log(), name=self.file):
            findings.extend(a.findings)
            if a.result is not None:
                hands += 1
        owes = [t.as_dict() for x in explain_text(self.log(), name=self.file) if isinstance(x, SessionExplanation)
                for t in x.transfers]
        counts = {s: sum(1 for f in findings if f.severity == s) for s in ("violation", "warning", "error")}
        return {"session": self.config.session, "hands": hands, "violations": counts["violation"],
                "warnings": counts["warning"], "errors": counts["error"],
                "verdict": "clean" if not counts["violation"] and not counts["error"] else "violations",
                "standings": [{"place": pl, "player": p, "chips": c} for pl, p, c in self.standings],
                "findings": [f.as_dict() for f in findings], "owes": owes}

    # ------------------------------------------------------------------ the state
    def state(self) -> dict[str, Any]:
        """``{"hand", "street", "to_act", "allowed", "stacks", "bets", "pots", "findings"}`` and more: the button,
        the seats, the hands played, the checks a hand with only the cards shown cannot make."""
        may_undo = self.may_undo()
        base: dict[str, Any] = {"name": self.config.name, "profile": self.config.profile, "closed": self.closed,
                                "hands_played": len(self.hands), "entries": len(self.entries),
                                "may_collect": self.claims_open and not self.closed, "may_undo": may_undo,
                                "entry_findings": [f.as_dict() for f in self.last_found] if may_undo else []}
        last = self.hands[-1] if self.hands else None
        base["last_hand"] = None if last is None else {
            "hand": str(last.number), "redeal": last.redeal,
            "pots": [{"name": str(p["name"]), "amount": p["amount"], "eligible": list(p["eligible"]),
                      "winners": list(p["winners"]), "awards": dict(p["awards"])} for p in last.result.pots],
            "findings": [f.as_dict() for f in last.judged()],
            "claims": [{"player": p, "chips": c} for p, c in last.claims], "claims_complete": last.claims_complete}
        h = self.hand
        if h is None or self.closed:
            base.update({"hand": None, "street": "closed" if self.closed else "over", "to_act": None,
                         "allowed": Legal().allowed(), "stacks": dict(self.balances) if last else {},
                         "bets": {}, "pots": [], "findings": [], "button": None, "unchecked": []})
            if self.closed:
                base["standings"] = [{"place": pl, "player": p, "chips": c} for pl, p, c in self.standings]
            return base
        st, hand = self.engine_state()
        legal = legal_now(st)
        bets, contributions, dead = table_now(st)
        pots = pots_in_progress(contributions, in_front(st, bets), st.order, folded_players(st), all_in_players(st),
                                dead)
        base.update({
            "hand": str(h.number), "street": st.street, "to_act": legal.to_act, "allowed": legal.allowed(),
            "stacks": stacks(st), "bets": dict(st.round.bets) if st.round is not None else {},
            "pots": [{"name": p.name, "amount": p.amount, "eligible": list(p.eligible)} for p in pots],
            "findings": [f.as_dict() for f in self.findings_of_entry(h.number)], "button": h.button,
            "seats": [{"seat": h.seat_of[p], "player": p, "chips": c, "folded": is_folded(st, p),
                       "all_in": is_all_in(st, p)} for p, c in h.stacks.items()],
            # what a hand with only the cards shown cannot judge, and what its shown cards have not proved yet
            "unchecked": list(checks_not_made(hand) + check_what_shown_proves(st)[1]),
        })
        return base


def _copy_context(ctx: FileContext) -> FileContext:
    """``ctx`` apart from itself: feeding a hand to either leaves the other as it was."""
    return FileContext(ctx.default_profile, ctx.profile, ctx.session.copy() if ctx.session is not None else None,
                       None, ctx.shown_only)


def _copy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A table's attributes (``Table.__dict__``) apart from the table: what its entries change is copied (the
    hands played out are never changed, only added or taken off)."""
    out = {k: v for k, v in state.items() if k not in ("_checkpoint", "_engine")}
    out["_engine"] = None
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


