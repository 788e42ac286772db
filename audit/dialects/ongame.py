"""OnGame: a block whose first line is ``***** History for hand R5-…`` → a ``Hand`` (``dialect="ongame"``, with a
``Game``), or a ``ParseFailure`` with line, column and caret.

``grammar/ongame.lark`` has one terminal per kind of line; ``common.LineKinds`` cuts the lines and
``common.SiteParser`` plays the grammar's tables, calling this module's builder for each line (one builder per
hand). OnGame writes less than the model needs; the builder adds it from what the log does say, and writes no
judgement of its own (the engine judges):

* ``---`` lines are not kept (one real log has none around the draw: the draw is told by its lines, as in
  PokerStars logs); ``Dealing pocket cards`` is the deal marker;
* ``raises $3 to $5``: the chips put in, then the total; the model's raise is the increment over the bet faced,
  worked out from the round's earlier lines (``common.RoundBets``; a first amount that does not fit the total
  shows as the engine's ``AMOUNT_NOTATION``);
* at a table whose two blinds are the same size ($1/$1) OnGame calls both posts "big blind": the first blind
  posted in the hand is the small blind;
* ``changed 2 cards``: a discard (``changed 0 cards``: stands pat). ``New hand for Hero: […]`` gives the hero's
  whole hand after the draw: the hero's discard gets the cards that left the hand, and the line is the hero's
  draw (one group of cards, as some sites print it). Some logs have no ``changed`` line for the hero: then the
  new hand is the only sign of his draw, and the discard is written at its line (the hand unchanged: he stood
  pat);
* no uncalled-bet line: the summary's pots are after the return. When the chips put in exceed the pots, the
  difference went back to the player whose bet in the last round nobody matched (an ``Uncalled`` at the
  ``Summary:`` line);
* no show down: the summary's seat lines list the hands shown. When two or more players were still in, each
  listed hand is a ``Show`` (written in the order the rules ask for, since the log does not tell it: the last
  round's last bettor first, else its first player to act, then clockwise) and each player still in whose hand
  is not listed and who won nothing mucked. When a pot went to a player still in whose hand is not listed, the
  log leaves the show down out: no ``Show`` is written (nothing can be judged), only the mucks;
* ``Main pot: $0.22 won by x Diabolo666 ($0.21)`` (``Side pot 1: …``; several winners separated by commas) are
  ``Collect`` lines; with ``Rake taken: $0.01`` they make the ``SummaryTotal`` (pots added up, the rake);
* the summary's seat lines are kept as ``Event(kind="summary")``.
"""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

from lark import Lark

from audit.dialects.common import (
    CURRENCY_OF_SIGN, LineError, LineKinds, Misplaced, RoundBets, SiteParser, amount_of, cards_inside, failure,
    to_amount,
)
from audit.dialects.contract import LineCallback, RuleCallback
from audit.model import (
    Action, Collect, Dealt, Discard, Event, Game, Hand, Item, Marker, Muck, ParseFailure, Post, Seat, Show,
    StandPat, SummaryTotal, Uncalled,
)
from audit.read import RawBlock

__all__ = ["ongame_grammar", "parse_hand"]

SUPPORTED_GAME: Final = "5 Card Draw"

_GAMES: Final = {"FIVE_CARD_DRAW": SUPPORTED_GAME}
_BETTING: Final = {"LIMIT": "fixed-limit", "POT_LIMIT": "pot-limit", "NO_LIMIT": "no-limit"}
_POST_KIND: Final = {"small blind": "small", "big blind": "big", "dead blind": "dead", "ante": "ante"}
_VERBS: Final = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet"}
_MONTHS: Final = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), start=1)}
_WINNER: Final = re.compile(r"(?P<name>[^\n]+?) \((?P<amount>[$€£]?[\d.,]+)\)(?:, |$)")


class _Pot(NamedTuple):
    line: int
    name: str  # "main", "side-1", …
    amount: int
    winners: tuple[tuple[str, int, int], ...]  # (player, amount, column of the name)


class _Result(NamedTuple):
    line: int
    player: str
    cards: tuple[str, ...] | None
    text: str


class _Summary(NamedTuple):
    line: int
    pots: list[_Pot]
    rake: tuple[int, int] | None  # (line, amount)
    results: list[_Result]


def _cards(text: str) -> tuple[str, ...]:
    return cards_inside(text[1:-1].replace(",", " "))


class _Builder:
    """Builds one hand's model objects as its lines are shifted. State of this hand only: cents or chips, the
    bets of the round, the lines of the hero's draw."""

    def __init__(self) -> None:
        self.cents = True
        self.round = RoundBets()
        self.drawing = False
        self.equal_blinds = False
        self.zone = ""  # the time zone of the 'Start hand' line
        self.new_hand_lines: set[int] = set()

    # ---- the header ----
    def header(self, m: re.Match[str], line: int) -> tuple[int, str]:
        return line, m.group("id")

    def start(self, m: re.Match[str], line: int) -> str:
        self.zone = m.group("zone")
        month = _MONTHS.get(m.group("month"), 0)
        return f"{m.group('year')}/{month:02d}/{int(m.group('day')):02d} {m.group('time')}"

    def table(self, m: re.Match[str], line: int) -> tuple[str, Game]:
        small = m.group("small")
        sign = small[0] if small[0] in CURRENCY_OF_SIGN else ""
        self.cents = bool(sign)
        game = Game(_GAMES.get(m.group("game"), m.group("game")), _BETTING[m.group("betting")],
                    amount_of(m, "small", self.cents, line), amount_of(m, "big", self.cents, line),
                    CURRENCY_OF_SIGN.get(sign, ""), self.zone)
        self.equal_blinds = game.small == game.big and game.betting != "fixed-limit"
        return m.group("table"), game

    def tagged(self, m: re.Match[str], line: int) -> tuple[str, str]:
        """``User:``, ``Button:``, ``Players in round:``: the first group's name and value."""
        name = next(iter(m.groupdict()))
        return name, m.group(name)

    def seat(self, m: re.Match[str], line: int) -> Seat:
        return Seat(line, int(m.group("seat")), m.group("name"), amount_of(m, "amount", self.cents, line))

    # ---- the play ----
    def post(self, m: re.Match[str], line: int) -> Post:
        kind = _POST_KIND[m.group("kind")]
        if kind == "big" and self.equal_blinds and not self.round.put_in:
            kind = "small"  # both blinds the same size ($1/$1): OnGame calls both "big blind"
        amount = amount_of(m, "amount", self.cents, line)
        self.round.post(m.group("name"), amount, kind in ("small", "big"))
        return Post(line, m.group("name"), kind, amount, m.group("all_in") is not None)

    def nothing(self, m: re.Match[str], line: int) -> None:
        return None

    def dealing(self, m: re.Match[str], line: int) -> Marker:
        return Marker(line, "deal")

    def dealt(self, m: re.Match[str], line: int) -> Dealt:
        return Dealt(line, m.group("name"), (_cards(m.group("cards")),))

    def act(self, m: re.Match[str], line: int) -> Action:
        name = m.group("name")
        all_in = m.group("all_in") is not None
        plain = m.group("plain")
        if plain is not None:
            self.round.act(name, _VERBS[plain])
            return Action(line, name, _VERBS[plain], 0, 0, all_in)
        verb = m.group("verb")
        if verb is not None:
            amount = amount_of(m, "amount", self.cents, line)
            kind = _VERBS[verb]
            self.round.act(name, kind, amount)
            return Action(line, name, kind, amount, amount if kind == "bet" else 0, all_in)
        to = amount_of(m, "to", self.cents, line)
        increment = self.round.raise_to(name, to, amount_of(m, "added", self.cents, line))
        return Action(line, name, "raise", increment, to, all_in)

    def changed(self, m: re.Match[str], line: int) -> Discard | StandPat:
        if not self.drawing:
            self.drawing = True
            self.round.new_round()
        count = int(m.group("count"))
        if count == 0:
            return StandPat(line, m.group("name"))
        return Discard(line, m.group("name"), count, None)

    def new_hand(self, m: re.Match[str], line: int) -> Dealt:
        self.new_hand_lines.add(line)
        return Dealt(line, m.group("name"), (_cards(m.group("cards")),))

    def event(self, m: re.Match[str], line: int) -> Event:
        what = m.group("what")
        return Event(line, m.group("name"), "sits-out" if what != "sits in" else "returns", what)

    def other(self, m: re.Match[str], line: int) -> Event:
        return Event(line, "", "other", m.group().rstrip())

    # ---- the summary ----
    def line_number(self, m: re.Match[str], line: int) -> int:
        return line

    def pot(self, m: re.Match[str], line: int) -> _Pot:
        side = m.group("side")
        winners: list[tuple[str, int, int]] = []
        text = m.group("winners")
        offset = m.start("winners") - m.start()
        at = 0
        for w in _WINNER.finditer(text):
            if w.start() != at:
                break
            amount = to_amount(w.group("amount"), self.cents)
            if amount is None:
                raise LineError(line, offset + w.start("amount") + 1, f"{w.group('amount')!r} is not an amount")
            winners.append((w.group("name"), amount, offset + w.start() + 1))
            at = w.end()
        if at != len(text):
            raise LineError(line, offset + at + 1, "cannot read the pot's winners from here on "
                                                   "('won by <player> ($1.25), <player> ($1.25)')")
        return _Pot(line, "main" if side is None else "side-" + side, amount_of(m, "amount", self.cents, line),
                    tuple(winners))

    def rake(self, m: re.Match[str], line: int) -> tuple[int, int]:
        return line, amount_of(m, "rake", self.cents, line)

    def result(self, m: re.Match[str], line: int) -> _Result:
        cards = m.group("cards")
        return _Result(line, m.group("name"), _cards(cards) if cards else None, m.group().rstrip())

    def summary(self, c: list[Any]) -> _Summary:
        rake = next((x for x in c[2:] if isinstance(x, tuple)), None)
        results = next((x for x in c[2:] if isinstance(x, list)), [])
        return _Summary(c[0], c[1], rake, results)

    # ---- the hand ----
    def hand(self, c: list[Any]) -> Hand:
        (line, hand_id), started, (table, game) = c[0], c[1], c[2]
        tags: dict[str, str] = {}
        seats: list[Seat] = []
        body: list[Item] = []
        summary: _Summary | None = None
        for part in c[3:]:
            if isinstance(part, _Summary):
                summary = part
            elif isinstance(part, tuple):
                tags[part[0]] = part[1]
            elif part and type(part[0]) is Seat and not seats:
                seats = part
            else:
                body = [item for item in part if item is not None]
        items = self._hero_draw(body)
        if summary is not None:
            items.extend(self._settlement(summary, seats, int(tags["button"])))
        return Hand("", line, 0, hand_id, started, table, int(tags["button"]), tuple(seats), tuple(items),
                    dialect="ongame", game=game)

    def _hero_draw(self, body: list[Item]) -> list[Item]:
        """The hero's discard gets the cards that left his hand (``New hand for`` gives the hand after it)."""
        out: list[Item] = []
        held: dict[str, tuple[str, ...]] = {}
        pending: dict[str, int] = {}
        for item in body:
            if type(item) is Dealt:
                new = item.groups[0]
                at = pending.pop(item.player, None)
                old = held.get(item.player)
                held[item.player] = new
                if item.line in self.new_hand_lines and old is not None:
                    gone = tuple([card for card in old if card not in new])
                    if at is not None:
                        discard = out[at]
                        assert type(discard) is Discard
                        out[at] = discard._replace(cards=gone)
                    elif gone:  # no "changed" line of his: the new hand is the only sign of his draw
                        out.append(Discard(item.line, item.player, len(gone), gone))
                    else:
                        out.append(StandPat(item.line, item.player))
                        continue
            elif type(item) is Discard and item.player in held:
                pending[item.player] = len(out)
            out.append(item)
        return out

    def _settlement(self, summary: _Summary, seats: list[Seat], button: int) -> list[Item]:
        """The model's lines for the summary: the uncalled bet's return, the show down, the pots, the total."""
        out: list[Item] = [Marker(summary.line, "summary")]
        pot_total = sum(p.amount for p in summary.pots)
        returned = sum(self.round.put_in.values()) - pot_total
        top = self.round.uncalled()
        if returned > 0 and top is not None:
            out.append(Uncalled(summary.line, top[0], returned))
        ring = sorted(seats, key=lambda s: s.seat)
        live = [s.player for s in ring if not s.sitting_out and s.player not in self.round.folded]
        if len(live) >= 2:
            listed = {r.player: r for r in summary.results if r.cards is not None}
            line_of = {r.player: r.line for r in summary.results}
            won = {w[0] for p in summary.pots for w in p.winners}
            hidden_winner = any(p in won and p not in listed for p in live)
            lead = self.round.last_aggressor or self.round.first_actor
            names = [s.player for s in ring]
            if lead in names:
                first = names.index(lead)
            else:
                first = next((i for i, s in enumerate(ring) if s.seat > button), 0)
            for p in names[first:] + names[:first]:
                if p not in live:
                    continue
                if p in listed and not hidden_winner:
                    cards = listed[p].cards
                    assert cards is not None
                    out.append(Show(listed[p].line, p, cards, None))
                elif p not in listed and p not in won:
                    out.append(Muck(line_of.get(p, summary.line), p))
        for pot in summary.pots:
            for player, amount, _ in pot.winners:
                out.append(Collect(pot.line, player, amount, pot.name))
        if summary.pots:
            rake_line, rake = summary.rake if summary.rake is not None else (summary.pots[-1].line, 0)
            out.append(SummaryTotal(rake_line, pot_total, rake))
        for r in summary.results:
            out.append(Event(r.line, r.player, "summary", r.text))
        return out


_ON_LINE: Final[dict[str, LineCallback[_Builder]]] = {
    "HEADER": _Builder.header, "START": _Builder.start, "TABLE": _Builder.table, "USER": _Builder.tagged,
    "BUTTON": _Builder.tagged, "PLAYERS": _Builder.tagged, "SEAT": _Builder.seat, "POST": _Builder.post,
    "DELIMITER": _Builder.nothing, "DEALING": _Builder.dealing, "DEALT": _Builder.dealt, "ACT": _Builder.act,
    "CHANGED": _Builder.changed, "NEW_HAND": _Builder.new_hand, "EVENT": _Builder.event, "OTHER": _Builder.other,
    "SUMMARY": _Builder.line_number, "POT": _Builder.pot, "RAKE": _Builder.rake, "RESULT": _Builder.result,
    "END": _Builder.nothing,
}
_ON_RULE: Final[dict[str, RuleCallback[_Builder]]] = {"hand": _Builder.hand, "summary": _Builder.summary}


def _game_of(kind: str, m: re.Match[str]) -> str | None:
    return _GAMES.get(m.group("game"), m.group("game")) if kind == "TABLE" else None


_LINE_KINDS: Final = LineKinds(
    "OnGame",
    first_word={"*****": ("HEADER", "END"), "Start": ("START",), "Table:": ("TABLE",), "User:": ("USER",),
                "Button:": ("BUTTON",), "Players": ("PLAYERS",), "Seat": ("SEAT",), "---": ("DELIMITER",),
                "Dealing": ("DEALING", "DEALT"), "New": ("NEW_HAND",), "Summary:": ("SUMMARY",),
                "Main": ("POT",), "Side": ("POT",), "Rake": ("RAKE",)},
    in_summary={"Seat": ("RESULT",)},
    verbs={"posts": ("POST",), "folds": ("ACT",), "checks": ("ACT",), "calls": ("ACT",), "bets": ("ACT",),
           "raises": ("ACT",), "changed": ("CHANGED",), "sits": ("EVENT",), "is": ("EVENT",)},
    describe={"HEADER": "the header line", "START": "the 'Start hand' line", "TABLE": "the table line",
              "USER": "the 'User' line", "BUTTON": "the 'Button' line", "PLAYERS": "the 'Players in round' line",
              "SEAT": "a seat line", "DEALT": "a 'Dealing to' line", "NEW_HAND": "a 'New hand for' line",
              "POT": "a pot line", "RAKE": "the 'Rake taken' line", "RESULT": "a summary seat line",
              "END": "the 'End of hand' line"},
    opens_summary=frozenset(["SUMMARY"]), game_of=_game_of, supported=SUPPORTED_GAME,
)

_HEAD: Final = ("HEADER", "START", "TABLE", "USER", "BUTTON", "PLAYERS")


def _out_of_place(block: RawBlock, exc: Misplaced) -> ParseFailure:
    if exc.kind == "$END":
        return failure(block, len(block.lines), len(block.lines[-1]) + 1,
                       "the hand ends too early: its header, table, button or seat lines are missing")
    missing = [k for k in _HEAD if k in exc.expected]
    if missing and exc.kind not in exc.expected:
        what = (f"{_LINE_KINDS.describe.get(exc.kind, 'this line')} cannot stand here: "
                f"{_LINE_KINDS.describe[missing[0]]} is expected")
    else:
        what = f"{_LINE_KINDS.describe.get(exc.kind, 'this line')} cannot stand here"
    return failure(block, exc.line, 1, what)


_SITE: Final = SiteParser("ongame", _Builder, _ON_LINE, _ON_RULE, _LINE_KINDS.tokens, _out_of_place)


def ongame_grammar(strict: bool = False) -> Lark:
    """The grammar's LALR tables (built once per process; ``strict=True``: conflicts are errors)."""
    return _SITE.grammar(strict)


def parse_hand(block: RawBlock) -> Hand | ParseFailure:
    """An OnGame block → ``Hand(dialect="ongame")`` or a ``ParseFailure``; never raises on any text."""
    return _SITE.parse(block)
