"""The house format's parser: ``LineParser`` plays the grammar's LALR tables (``audit.dialects.house_tables``,
as Lark built them) over a block, one line per token, calling the builders (``audit.dialects.house_build``);
a usual hand is built in one pass without the tables' stack (``LineParser.read_hand``). Each line is read from
the parser's memory of the lines it has read, by slicing its usual shape (``audit.dialects.house_quick``), or by
its terminal's pattern, in that order (Lark's own parser, ``audit.dialects.house_lark``, gives the same result:
the tests hold the two to each other).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final, cast

from audit.dialects.common import PLAYER_ITEMS, LineError, NumberTooLarge, new_model, with_player
from audit.dialects.house_build import RULE_KINDS, R_LIST, reduce_rule, token_value
from audit.dialects.house_lines import (
    T_ACT, T_CARRIED, T_COLLECTED, T_DEALT, T_DECK, T_DISCARDS, T_END, T_EVENT, T_HAND_LINE, T_MARKER, T_MUCKS,
    T_NOPLAY, T_PAROLE, T_POST, T_RESHUFFLES, T_SAID, T_SCORES, T_SEAT_LINE, T_SHOWS, T_STANDS_PAT, T_TABLE_LINE,
    T_TOTAL, T_UNCALLED, TERMINAL_CODE, TERMINALS, check_groups, classify, fast_codes,
)
from audit.dialects.house_quick import (
    MEMO_KINDS, MEMO_SIZE, REMEMBERED, Seen, own_name, quick_dealt, quick_line, reads_grammar, remember,
)
from audit.dialects.house_tables import stored_tables
from audit.model import Hand, Item, Seat, Standing

__all__ = ["LineParser", "Misplaced", "Split", "house_line_parser"]


class Split(Exception):
    """A block's line holding a newline (lines not cut by the reader): the block is read from its text."""


class Misplaced(Exception):
    """A readable line where the grammar allows no such line (``kind``: its terminal, or ``$END``)."""

    def __init__(self, line: int, kind: str) -> None:
        super().__init__(kind)
        self.line = line
        self.kind = kind


_IN_BODY: Final = [code in (T_POST, T_NOPLAY, T_MARKER, T_DECK, T_DEALT, T_ACT, T_PAROLE, T_DISCARDS, T_STANDS_PAT,
                            T_RESHUFFLES, T_SHOWS, T_MUCKS, T_COLLECTED, T_UNCALLED, T_EVENT, T_SAID, T_SCORES,
                            T_TOTAL) for code in range(len(TERMINALS))]
"""The terminals a hand's body takes (``body`` in the grammar), by terminal number."""
_NEVER: Final = re.compile(r"(?!)")
"""The pattern of a terminal the grammar lacks: it never matches."""


class LineParser:
    """Runs Lark's LALR tables for the house grammar over a block, one line per token.

    Lark builds the grammar, the lexer's terminals and the LALR(1) tables; this loop only plays them, as Lark's
    own parser does, without its per-token costs (a ``Token`` object, rule objects hashed on every reduction,
    a Python call per callback): terminals and rules are numbers, the tables flat lists of ints, and the
    terminal callbacks and the list rules are calls the compiler sees. A usual hand is not even played through
    the tables: ``read_hand`` builds it in one pass when its lines stand where the grammar puts them.
    """

    def __init__(self, tables: dict[str, Any]) -> None:
        """``tables``: the grammar's terminals and LALR tables as ``audit.dialects.house_lark.grammar_tables``
        gives them (plain lists and strings)."""
        terminals: list[list[str]] = tables["terminals"]
        unknown = [name for name, _ in terminals if name not in TERMINAL_CODE]
        if unknown:
            raise ValueError(f"the fast parser does not know the terminals {unknown}")
        # the terminals' patterns, compiled when first needed (most logs need few of them: the usual lines are read
        # by ``quick_line``); a terminal the grammar lacks never matches
        # Gain: the parser's set-up 1.6 ms of CPU against 4.7 ms (plain Python): bench/parse.py --without lazy-patterns
        self.sources: dict[str, str] = {name: pattern for name, pattern in terminals}
        self.compiled: list[re.Pattern[str] | None] = [None] * len(TERMINALS)
        nonterminals: list[str] = tables["nonterminals"]
        rules: list[list[int]] = tables["rules"]  # [nonterminal it makes, symbols it takes]
        self.rule_size: list[int] = [size for _, size in rules]
        self.rule_origin: list[int] = [origin for origin, _ in rules]
        self.rule_kind: list[int] = [RULE_KINDS[nonterminals[origin]] for origin, _ in rules]
        self.nt = nt = len(TERMINALS)
        self.nn = nn = len(nonterminals)
        count: int = tables["states"]
        # actions[state * nt + terminal]: 0 none (the line cannot stand here), s + 1 shift to state s,
        # -(r + 1) reduce by rule r; gotos[state * nn + nonterminal]: the state after a reduction
        self.actions: list[int] = [0] * (count * nt)
        self.gotos: list[int] = [-1] * (count * nn)
        for state, name, action in tables["actions"]:
            self.actions[state * nt + TERMINAL_CODE[name]] = action
        for state, nonterminal, target in tables["gotos"]:
            self.gotos[state * nn + nonterminal] = target
        self.start_states: dict[str, int] = dict(tables["start_states"])
        self.end_states: dict[str, int] = dict(tables["end_states"])
        # the lines read before (a line's text without its newline → what was read), the names checked (each
        # name → the string first read for it, or "" when it is not a plain name), the other names' strings
        # (``own_name``), and whether the grammar's patterns are the ones ``quick_line`` reads the usual shapes of
        self.memo: dict[str, Seen] = {}
        self.names: dict[str, str] = {}
        self.others: dict[str, str] = {}
        self.quick: bool = reads_grammar(self.sources)

    def forget_if_full(self) -> None:
        """Between blocks: the names and the lines remembered forgotten together once the names fill
        ``MEMO_SIZE`` (a remembered line holds the parser's string for its player: forgetting only the names would
        give a player's later lines another string than his remembered ones)."""
        if len(self.names) >= MEMO_SIZE or len(self.others) >= MEMO_SIZE:
            self.names.clear()
            self.others.clear()
            self.memo.clear()

    def own_names(self, kind: int, value: object) -> object:
        """The value of a line of terminal ``kind`` read by its pattern, its player's name the string the
        parser holds for it (``own_name``): every line of a player and his seat then hold one string, however
        each was read."""
        if kind == T_SEAT_LINE:
            seat, points = cast(tuple[Seat, bool], value)
            name = own_name(seat.player, self.names, self.others)
            if name is seat.player:
                return value
            return new_model(Seat, (seat.line, seat.seat, name, seat.chips, seat.sitting_out)), points
        if type(value) in PLAYER_ITEMS:
            item = cast(Item, value)
            player = cast(tuple[Any, ...], item)[1]
            name = own_name(player, self.names, self.others)
            return item if name is player else with_player(item, name)
        if type(value) is Standing:
            standing = value
            name = own_name(standing.player, self.names, self.others)
            return standing if name is standing.player else standing._replace(player=name)
        return value

    def pattern(self, code: int) -> re.Pattern[str]:
        """The pattern of terminal ``code``, compiled on first use (``ValueError`` if its groups are not the ones its
        builder reads: a grammar edit)."""
        found = self.compiled[code]
        if found is None:
            source = self.sources.get(TERMINALS[code])
            if source is None:
                found = _NEVER
            else:
                found = re.compile(source)
                check_groups({TERMINALS[code]: found})
            self.compiled[code] = found
        return found

    @property
    def patterns(self) -> list[re.Pattern[str]]:
        """Every terminal's pattern by number (``$END``'s and those the grammar lacks never match)."""
        return [self.pattern(code) for code in range(len(TERMINALS))]

    @property
    def patterns_by_name(self) -> dict[str, re.Pattern[str]]:
        """The grammar's terminals' patterns by name."""
        return {name: self.pattern(TERMINAL_CODE[name]) for name in self.sources}

    def match_line(self, text: str, nl: int) -> tuple[int, re.Match[str] | None]:
        """``fast_line(text, 0, nl, self.patterns)``, compiling only the patterns it tries."""
        found, named = fast_codes(text, 0, nl)
        for code in found:
            m = self.pattern(code).fullmatch(text, 0, nl + 1)
            if m is not None:
                return code, m
        if named >= 0:
            m = self.pattern(named).fullmatch(text, 0, nl + 1)
            if m is not None:
                return named, m
        return -1, None

    def line_by_pattern(self, key: str, line: int) -> tuple[int, object]:
        """The terminal and value of the line ``key`` (followed by a newline) read by its pattern, when
        ``match_line`` tells its terminal and its numbers are not too large; else ``(-1, None)``."""
        if "\n" in key:
            return -1, None
        text = key + "\n"
        kind, m = self.match_line(text, len(key))
        if kind < 0 or m is None:
            return -1, None
        try:
            return kind, token_value(kind, m, line)
        except NumberTooLarge:
            return -1, None

    def read_hand(self, lines: list[str], numbers: list[int], file: str) -> Hand | None:
        """The ``Hand`` of a block's lines (each followed by a newline; ``numbers``: their file lines) when every
        line reads (by ``quick_line``, from memory or by its pattern) and stands where the grammar puts it,
        ``HAND_LINE TABLE_LINE SEAT_LINE+ CARRIED? body*``: the value ``parse_lines``'s loop over the tables gives
        such a block, without its stack and reductions. Else ``None``, and the loop reads the block and says what
        is wrong. A line is remembered as the loop remembers it: once it is read and stands where it may.
        """
        total = len(lines)
        if total < 3 or len(numbers) < total or not self.quick:
            return None
        # (the line numbers as the reader boxed them go into the model tuples as they are, not made again)
        boxed = cast(list[object], numbers)
        memo = self.memo
        names = self.names
        hand_line = 0
        hand_id = ""
        started = ""
        table = ""
        button = 0
        seats: list[Seat] = []
        points = False
        carried = 0
        carried_line = 0
        body: list[object] = []
        place = 0  # what the line may be: 0 the hand line, 1 the table line, 2 a seat, 3 a seat or what follows
        # them, 4 a body line
        for i in range(total):
            key = lines[i]
            line = boxed[i]
            fresh = False
            if key and key[0] == "D" and key.startswith("Dealt to "):  # (never remembered: their cards hardly repeat)
                kind, value = quick_dealt(key, len(key), line, names)
            else:
                seen = memo.get(key)
                if seen is not None:
                    kind = seen.kind
                    value = seen.value(line)
                else:
                    kind, value = quick_line(key, line, names)
                    fresh = True
            if kind < 0:
                kind, value = self.line_by_pattern(key, numbers[i])
                if kind < 0:
                    return None
                value = self.own_names(kind, value)
            if place == 4:
                if not _IN_BODY[kind]:
                    return None
                body.append(value)
            elif place == 3:
                if kind == T_SEAT_LINE:
                    row = cast(tuple[Seat, bool], value)
                    seats.append(row[0])
                    if row[1]:
                        points = True
                elif kind == T_CARRIED:
                    carried_line, carried = cast(tuple[int, int], value)
                    place = 4
                elif _IN_BODY[kind]:
                    body.append(value)
                    place = 4
                else:
                    return None
            elif place == 0:
                if kind != T_HAND_LINE:
                    return None
                hand_line, hand_id, started = cast(tuple[int, str, str], value)
                place = 1
            elif place == 1:
                if kind != T_TABLE_LINE:
                    return None
                table, button = cast(tuple[str, int], value)
                place = 2
            else:
                if kind != T_SEAT_LINE:
                    return None
                row = cast(tuple[Seat, bool], value)
                seats.append(row[0])
                if row[1]:
                    points = True
                place = 3
            if fresh and REMEMBERED[kind]:
                if len(memo) >= MEMO_SIZE:
                    memo.clear()
                memo[key] = remember(kind, value)
        if place < 3:
            return None
        # (the hand ends at its last line, whichever it is: a body line, the pot carried over or a seat)
        return new_model(Hand, (file, hand_line, numbers[total - 1], hand_id, started, table, button, tuple(seats),
                           tuple(body), carried, carried_line, points, "house", None, True))

    def parse(self, text: str, start: str, numbers: list[int], file: str) -> object:
        """The model object for ``text`` (lines each ending in a newline; ``numbers``: their file lines);
        raises ``LineError`` for an unreadable line and ``Misplaced`` for a line out of place. A last line
        without its newline reads as no line does."""
        lines = text.split("\n")
        ended = lines[-1] == ""  # (the text ends with a newline, or is empty)
        if ended:
            lines.pop()
        return self.parse_lines(lines, ended, start, numbers, file)

    def parse_lines(self, lines: list[str], ended: bool, start: str, numbers: list[int], file: str) -> object:
        """``parse`` of the text whose lines (without their newlines) are ``lines``, each followed by a newline
        (``ended``) or all but the last. Raises ``Split`` for a line holding a newline (the lines are not a
        text's: ``parse`` reads the text they make)."""
        self.forget_if_full()
        # Gain: without it, 20,000 hands parse in 14% more CPU (plain Python): bench/parse.py --without one-pass
        if start == "hand" and ended:
            hand = self.read_hand(lines, numbers, file)
            if hand is not None:
                return hand
        actions = self.actions
        gotos = self.gotos
        rule_size = self.rule_size
        rule_kind = self.rule_kind
        rule_origin = self.rule_origin
        nt = self.nt
        nn = self.nn
        memo = self.memo
        names = self.names
        quick = self.quick
        end_state = self.end_states[start]
        stack: list[int] = [self.start_states[start]]
        values: list[object] = []
        line_no = 0
        total = len(lines)
        whole = total if ended else total - 1  # the lines followed by a newline
        # (a line past ``numbers`` has no number: read by its pattern, it fails as it always did)
        known = min(whole, len(numbers))
        m: re.Match[str] | None = None
        key = ""
        fresh = False  # the line was not remembered
        ready: object = None  # the line's value when it was made before the line is shifted (remembered, quick)
        while True:
            if line_no < total:
                key = lines[line_no]
                line_no += 1
                seen = memo.get(key) if line_no <= known else None
                fresh = seen is None
                if seen is not None:
                    kind = seen.kind
                    ready = seen.value(numbers[line_no - 1])
                else:
                    kind = -1
                    if quick and line_no <= known:
                        kind, ready = quick_line(key, numbers[line_no - 1], names)
                    if kind < 0:
                        ready = None
                        if line_no <= whole:
                            if "\n" in key:
                                raise Split()
                            text = key + "\n"
                        else:
                            text = key
                        kind, m = self.match_line(text, len(key))
                        if kind < 0:
                            name, _, m, _ = classify(text, 0, len(text), line_no, self.patterns_by_name)
                            kind = TERMINAL_CODE[name]
            else:
                kind = T_END
                ready = None
            while True:
                action = actions[stack[-1] * nt + kind]
                if action > 0:
                    stack.append(action - 1)
                    if ready is not None:
                        value = ready
                    else:
                        assert m is not None
                        try:
                            value = self.own_names(kind, token_value(kind, m, numbers[line_no - 1]))
                        except NumberTooLarge as big:
                            raise LineError(line_no, _column_of(m, big.digits), big.what()) from None
                    values.append(value)
                    if fresh and kind in MEMO_KINDS:
                        if len(memo) >= MEMO_SIZE:
                            memo.clear()
                        memo[key] = remember(kind, value)
                    break
                if action == 0:
                    raise Misplaced(line_no, TERMINALS[kind])
                rule = -action - 1
                size = rule_size[rule]
                what = rule_kind[rule]
                if what == R_LIST and size == 2:  # x: x ITEM
                    item = values.pop()
                    cast(list[object], values[-1]).append(item)
                    stack.pop()
                    stack.pop()
                elif what == R_LIST and size == 1:  # x: ITEM
                    values[-1] = [values[-1]]
                    stack.pop()
                else:
                    if size:
                        children = values[-size:]
                        del stack[-size:]
                        del values[-size:]
                    else:
                        children = []
                    values.append(reduce_rule(what, children, file))
                stack.append(gotos[stack[-1] * nn + rule_origin[rule]])
                if kind == T_END and stack[-1] == end_state:
                    return values[-1]


@lru_cache(maxsize=None)
def house_line_parser() -> LineParser:
    """The fast driver over the house grammar's tables (built once per process): the stored tables, or Lark's
    when they were stored for another text of the grammar."""
    # Gain: set-up 1.5 ms of CPU, 58 ms if Lark builds the tables (plain Python): bench/parse.py --without stored-tables
    tables = stored_tables()
    if tables is None:
        from audit.dialects.house_lark import grammar_tables, house_parser
        tables = grammar_tables(house_parser())
    return LineParser(tables)


def _column_of(m: re.Match[str], digits: str) -> int:
    """The column (1-based) of the number ``digits`` in the line ``m`` matched (1 if it is not one group)."""
    for i in range(1, (m.lastindex or 0) + 1):
        if m.group(i) == digits:
            return m.start(i) - m.start() + 1
    return 1


