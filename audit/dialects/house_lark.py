"""Lark's side of the house format: Lark builds the grammar (``grammar/house.lark``) and its LALR tables, which
``grammar_tables`` turns into the plain lists ``audit.dialects.house_parser.LineParser`` plays (stored beside the
grammar in ``house.tables.json``, so that a check neither imports Lark nor builds the grammar); and Lark's own
parser, with the house builders (``audit.dialects.house_build``) as its callbacks, which the tests hold the fast
parser to. Nothing of the fast parser imports this module, but its start when the stored tables are stale.

``python -m audit.dialects.house_lark`` (``make tables``) writes the stored tables again, after the grammar
changed (until then, the fast parser has Lark build them at its start: the same parse, slower to start).
"""

from __future__ import annotations

import json
import re
import sys
from functools import lru_cache
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.common import LexerConf
from lark.lexer import Lexer, LexerState

from audit.dialects.house_build import R_HAND, R_PREAMBLE, R_SESSION_END, reduce_rule, token_value
from audit.dialects.house_lines import TERMINAL_CODE, check_groups, classify
from audit.dialects.house_tables import TABLES, TABLES_FORMAT, grammar_file
from audit.resources import data_dir

__all__ = ["HouseBuilder", "LineLexer", "grammar_tables", "house_parser", "write_tables"]


class HouseBuilder(Transformer[Token, Any]):
    """Lark's callbacks for the house grammar: the builders the fast loop calls (``house_build``), for its terminals
    (one callback each, made below from ``TERMINAL_CODE``) and its rules."""

    numbers: list[int]  # the file line of each line of the block being parsed

    def __init__(self) -> None:
        super().__init__(visit_tokens=True)
        self.numbers = []

    def _line(self, tok: Token) -> int:
        return self.numbers[tok.line - 1]  # type: ignore[operator]

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

    def hand(self, c: list[Any]) -> object:
        return reduce_rule(R_HAND, c, "")

    def preamble(self, c: list[Any]) -> object:
        return reduce_rule(R_PREAMBLE, c, "")

    def session_end(self, c: list[Any]) -> object:
        return reduce_rule(R_SESSION_END, c, "")


def _terminal_callback(code: int) -> Callable[[HouseBuilder, Any], object]:
    """The callback of the terminal numbered ``code``: its line's model object, as the fast loop builds it."""
    def build(self: HouseBuilder, tok: Any) -> object:
        return token_value(code, tok.m, self._line(tok))
    return build


for _name, _code in TERMINAL_CODE.items():
    if _name != "$END":
        setattr(HouseBuilder, _name, _terminal_callback(_code))


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
        check_groups(self.patterns)

    def lex(self, state: LexerState, parser_state: Any) -> Iterator[Token]:
        text = state.text.text
        patterns = self.patterns
        pos = 0
        line_no = 0
        end = len(text)
        while pos < end:
            line_no += 1
            kind, line, m, pos = classify(text, pos, end, line_no, patterns)
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
