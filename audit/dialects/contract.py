"""The parse contract every dialect follows: the types a newcomer writes a dialect against.

* A dialect's **parse function** (the registry's ``parser``) takes one ``RawBlock`` (the lines the reader cut,
  with their file lines) and returns a ``ParseResult``: the ``Hand``, a ``ParseFailure`` (the line, the column, a
  caret: ``common.failure``), or ``NothingHere`` for a block with nothing to audit (a file's header, an XML
  prologue). It never raises on any text.
* **Which line an error names:** a ``common.LineError`` carries the line's place in its block (1-based), and only
  ``common.failure`` turns that into the file's line (``block.numbers``); model objects carry file lines.
* A site dialect read with a grammar writes a **builder** (``SiteBuilder``): one made for each hand, holding that
  hand's state only (two threads may parse at once); a method per kind of line, called with the line's match
  and its file line (``LineCallback``), and a method per grammar rule, called with its children's values
  (``RuleCallback``); the ``hand`` rule's method returns the ``Hand``. ``common.SiteParser`` does the rest.

Types only: nothing here runs at parse time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar, Union

from audit.model import Hand, NothingHere, ParseFailure
from audit.read import RawBlock

ParseResult = Union[Hand, ParseFailure, NothingHere]
"""What a dialect's parse function returns for one block."""

HandParser = Callable[[RawBlock], ParseResult]
"""A dialect's parse function."""

Token = tuple[str, re.Match[str], int]
"""One line as a site dialect's lexer gives it: its terminal, the match of the terminal's pattern, its place in
the block (1-based)."""

Tokens = Callable[[str, dict[str, re.Pattern[str]]], Iterator[Token]]
"""A site dialect's lexer: the block's text and the grammar's terminal patterns → a token per line."""


class SiteBuilder(Protocol):
    """What every site dialect's builder has: the ``hand`` rule's method. Its other methods are named in the
    dialect's tables of callbacks (``LineCallback`` per terminal, ``RuleCallback`` per rule)."""

    def hand(self, children: list[Any]) -> Hand: ...


B = TypeVar("B", bound=SiteBuilder)
B_contra = TypeVar("B_contra", bound=SiteBuilder, contravariant=True)


class LineCallback(Protocol[B_contra]):
    """A builder's method for a kind of line: (builder, the line's match, its file line) → a value for the
    grammar's rules (a model object, a part of one); a ``LineError`` when the line does not read."""

    def __call__(self, builder: B_contra, m: re.Match[str], line: int, /) -> object: ...


class RuleCallback(Protocol[B_contra]):
    """A builder's method for a grammar rule: (builder, the children's values) → the rule's value."""

    def __call__(self, builder: B_contra, children: list[Any], /) -> object: ...
