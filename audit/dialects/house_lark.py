"""Lark's side of the house format: Lark builds the grammar (``grammar/house.lark``) and its LALR tables, which
``grammar_tables`` turns into the plain lists ``audit.dialects.house.LineParser`` plays (stored beside the grammar
in ``house.tables.json``, so that a check neither imports Lark nor builds the grammar); and Lark's own parser, with
the house builders as its callbacks, which the tests hold the fast parser to.

``python -m audit.dialects.house_lark`` (``make tables``) writes the stored tables again, after the grammar
changed (until then, the fast parser has Lark build them at its start: the same parse, slower to start).
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.common import LexerConf
from lark.lexer import Lexer, LexerState

from audit.dialects.house import (  # the builders: both parsers make the same model objects
    TABLES, TABLES_FORMAT, grammar_file, _b_act, _b_cards, _b_carried, _b_collected, _b_dealt, _b_deck, _b_discards, _b_event,
    _b_hand_line, _b_marker, _b_mucks, _b_noplay, _b_option, _b_parole, _b_post, _b_profile, _b_reshuffles,
    _b_said, _b_scores, _b_seat_line, _b_session, _b_shows, _b_standing, _b_stands_pat, _b_table_line, _b_total,
    _b_uncalled, _build_hand, _check_groups, _classify,
)
from audit.model import (
    Action, CardsLine, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, OptionLine, Parole, Post,
    Preamble, ProfileLine, Reshuffle, Score, Seat, SessionEnd, SessionLine, Show, StandPat, Standing, SummaryTotal,
    Uncalled,
)
from audit.resources import data_dir

__all__ = ["HouseBuilder", "LineLexer", "grammar_tables", "house_parser", "write_tables"]


class _Builder(Transformer[Token, Any]):
    """Shared state: the file line of each line of the block being parsed."""

    numbers: list[int]

    def __init__(self) -> None:
        super().__init__(visit_tokens=True)
        self.numbers = []

    def _line(self, tok: Token) -> int:
        return self.numbers[tok.line - 1]  # type: ignore[operator]



class HouseBuilder(_Builder):
    """Lark's callbacks for the house grammar (its own parser's path: the fast loop calls the builders above)."""

    def hand(self, c: list[Any]) -> Hand:
        return _build_hand(c, "")

    def _list(self, c: list[Any]) -> list[Any]:
        """``x: ITEM | x ITEM``: one Python list grows as the lines are read (no tree node per line)."""
        if len(c) == 1:
            return [c[0]]
        c[0].append(c[1])
        return c[0]  # type: ignore[no-any-return]

    def seats(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def body(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def items(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def standings(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def HAND_LINE(self, tok: Any) -> tuple[int, str, str]:
        return _b_hand_line(tok.m, self._line(tok))

    def TABLE_LINE(self, tok: Any) -> tuple[str, int]:
        return _b_table_line(tok.m, self._line(tok))

    def SEAT_LINE(self, tok: Any) -> tuple[Seat, bool]:
        return _b_seat_line(tok.m, self._line(tok))

    def CARRIED(self, tok: Any) -> tuple[int, int]:
        return _b_carried(tok.m, self._line(tok))

    def POST(self, tok: Any) -> Post:
        return _b_post(tok.m, self._line(tok))

    def NOPLAY(self, tok: Any) -> NoPlay:
        return _b_noplay(tok.m, self._line(tok))

    def MARKER(self, tok: Any) -> Marker:
        return _b_marker(tok.m, self._line(tok))

    def DECK(self, tok: Any) -> DeckLine:
        return _b_deck(tok.m, self._line(tok))

    def DEALT(self, tok: Any) -> Dealt:
        return _b_dealt(tok.m, self._line(tok))

    def ACT(self, tok: Any) -> Action:
        return _b_act(tok.m, self._line(tok))

    def PAROLE(self, tok: Any) -> Parole:
        return _b_parole(tok.m, self._line(tok))

    def DISCARDS(self, tok: Any) -> Discard:
        return _b_discards(tok.m, self._line(tok))

    def STANDS_PAT(self, tok: Any) -> StandPat:
        return _b_stands_pat(tok.m, self._line(tok))

    def RESHUFFLES(self, tok: Any) -> Reshuffle:
        return _b_reshuffles(tok.m, self._line(tok))

    def SHOWS(self, tok: Any) -> Show:
        return _b_shows(tok.m, self._line(tok))

    def MUCKS(self, tok: Any) -> Muck:
        return _b_mucks(tok.m, self._line(tok))

    def COLLECTED(self, tok: Any) -> Collect:
        return _b_collected(tok.m, self._line(tok))

    def UNCALLED(self, tok: Any) -> Uncalled:
        return _b_uncalled(tok.m, self._line(tok))

    def EVENT(self, tok: Any) -> Event:
        return _b_event(tok.m, self._line(tok))

    def SAID(self, tok: Any) -> Event:
        return _b_said(tok.m, self._line(tok))

    def SCORES(self, tok: Any) -> Score:
        return _b_scores(tok.m, self._line(tok))

    def TOTAL(self, tok: Any) -> SummaryTotal:
        return _b_total(tok.m, self._line(tok))

    # preamble and session end
    def preamble(self, c: list[Any]) -> Preamble:
        return Preamble(c[0][0].line, tuple(c[0]))

    def SESSION(self, tok: Any) -> SessionLine:
        return _b_session(tok.m, self._line(tok))

    def PROFILE(self, tok: Any) -> ProfileLine:
        return _b_profile(tok.m, self._line(tok))

    def OPTION(self, tok: Any) -> OptionLine:
        return _b_option(tok.m, self._line(tok))

    def CARDS(self, tok: Any) -> CardsLine:
        return _b_cards(tok.m, self._line(tok))

    def session_end(self, c: list[Any]) -> SessionEnd:
        return SessionEnd(self._line(c[0]), tuple(c[1]) if len(c) > 1 else ())

    def STANDING(self, tok: Any) -> Standing:
        return _b_standing(tok.m, self._line(tok))


_HOUSE_BUILDER = HouseBuilder()


class _MatchToken(Token):
    """Lark's token with the match of its pattern (for the callbacks that read named groups)."""

    m: re.Match[str] | None


class LineLexer(Lexer):
    """One token per line; the terminal's pattern (from the grammar file) must match the whole line."""

    __future_interface__ = 2

    def __init__(self, conf: LexerConf) -> None:
        flags = 0
        self.patterns = {t.name: re.compile(t.pattern.to_regexp(), flags) for t in conf.terminals}
        _check_groups(self.patterns)

    def lex(self, state: LexerState, parser_state: Any) -> Iterator[Token]:
        text = state.text.text
        patterns = self.patterns
        pos = 0
        line_no = 0
        end = len(text)
        while pos < end:
            line_no += 1
            kind, line, m, pos = _classify(text, pos, end, line_no, patterns)
            token = _MatchToken(kind, line, pos - len(line) - 1, line_no, 1)
            token.m = m
            yield token



@lru_cache(maxsize=None)
def house_parser() -> Lark:
    """The house-format LALR parser with its lexer and transformer built in (built once per process)."""
    return Lark.open(str(grammar_file()), parser="lalr", lexer=LineLexer,
                     start=["hand", "preamble", "session_end"], transformer=_HOUSE_BUILDER,
                     maybe_placeholders=False)


def grammar_tables(parser: Lark) -> dict[str, Any]:
    """The terminals and LALR tables of the house grammar as Lark built them, as plain lists and strings (what
    ``LineParser`` takes, and what ``house.tables.json`` stores, with the grammar's text they were built from)."""
    from lark.parsers.lalr_analysis import Shift

    inner = parser.parser.parser.parser
    table = inner.parse_table
    rules: dict[Any, int] = {}
    nonterminals: dict[str, int] = {}
    made: list[list[int]] = []
    for rule in inner.callbacks:
        if isinstance(rule, str):
            continue
        rules[rule] = len(made)
        made.append([nonterminals.setdefault(str(rule.origin.name), len(nonterminals)), len(rule.expansion)])
    actions: list[list[Any]] = []
    gotos: list[list[int]] = []
    for state, moves in sorted(table.states.items()):
        for symbol, (action, arg) in moves.items():
            name = str(symbol)
            if name in nonterminals:
                gotos.append([state, nonterminals[name], arg])
            else:
                actions.append([state, name, arg + 1 if action is Shift else -(rules[arg] + 1)])
    return {
        "format": TABLES_FORMAT,
        "grammar": grammar_file().read_text(encoding="utf-8"),
        "terminals": [[t.name, t.pattern.to_regexp()] for t in parser.lexer_conf.terminals],
        "nonterminals": list(nonterminals),
        "rules": made,
        "states": max(table.states) + 1,
        "actions": actions,
        "gotos": gotos,
        "start_states": dict(table.start_states),
        "end_states": dict(table.end_states),
    }


def write_tables(folder: Path | None = None) -> Path:
    """Store the tables Lark builds from the grammar beside it (or in ``folder``); returns the file."""
    path = (folder or data_dir("grammar")) / TABLES
    text = json.dumps(grammar_tables(house_parser()), separators=(",", ":")) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


if __name__ == "__main__":  # pragma: no cover - make tables
    print(f"wrote {write_tables(Path(sys.argv[1]) if len(sys.argv) > 1 else None)}")
