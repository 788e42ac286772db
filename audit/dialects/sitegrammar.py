"""The site dialects' grammars (``grammar/<name>.lark``) built by Lark, for ``common.TableParser`` to play their
LALR tables. Imported when a site's log is first read: checking house logs never imports Lark."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lark import Lark
from lark.common import LexerConf
from lark.lexer import Lexer, LexerState, Token

from audit.resources import data_dir


class _NoLexer(Lexer):
    """Lark wants a lexer to build the tables; the site dialects cut their lines themselves."""

    def __init__(self, conf: LexerConf) -> None:
        self.conf = conf

    def lex(self, state: LexerState, parser_state: Any) -> Iterator[Token]:  # pragma: no cover - never called
        raise NotImplementedError


def build_grammar(name: str, start: str, strict: bool = False) -> Lark:
    """``grammar/<name>.lark`` as Lark's LALR tables, started at ``start`` (``strict``: a shift/reduce conflict
    is an error)."""
    return Lark.open(str(data_dir("grammar") / f"{name}.lark"), parser="lalr", lexer=_NoLexer, start=start,
                     maybe_placeholders=False, strict=strict)
