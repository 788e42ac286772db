"""The house format (shared/spec/FORMAT.md): a block of lines → a model object, or a ``ParseFailure`` with line,
column and caret. Also reads the file-level blocks: the preamble (``Session:`` / ``Profile:`` / ``Option:`` /
``Cards:``) and the session end.

The reader is split by what each part does: ``house_lines`` (the kinds of line and the words in them),
``house_build`` (a matched line → its model object), ``house_quick`` (the usual lines read by slicing, and the
lines remembered), ``house_parser`` (the loop over the grammar's tables), ``house_tables`` (those tables as
stored beside the grammar) and ``house_lark`` (Lark, which builds the tables and whose own parser the tests hold
the fast one to). This module turns what the parser raises into the failure a host reads.
"""

from __future__ import annotations

from typing import Final, cast

from audit.dialects.common import LONG_NUMBER, LineError, NumberTooLarge, failure, long_number_failure, too_long_failure
from audit.dialects.house_parser import Misplaced, Split, house_line_parser
from audit.model import Block, ParseFailure
from audit.read import RawBlock

__all__ = ["house_line_parser", "parse_house_block"]


_START: Final = {"house": "hand", "preamble": "preamble", "session_end": "session_end"}


def parse_house_block(block: RawBlock) -> Block:
    """A house-format block → ``Hand`` / ``Preamble`` / ``SessionEnd``, or a ``ParseFailure``; never raises."""
    if block.kind == "preamble":  # numbers the builder does not read: option values
        long_number = LONG_NUMBER.search(block.text())
        if long_number is not None:
            return long_number_failure(block, long_number)
    start = _START.get(block.kind)
    if start is None:
        return failure(block, 1, 1, "this is not the start of a hand (a hand begins with a 'Hand #' line)")
    if block.too_long:
        return too_long_failure(block)
    parser = house_line_parser()
    try:
        # the block's lines as the reader cut them (its text, ``block.text()``, read line by line: the same
        # lines, unless a block made otherwise has none or one holding a newline)
        try:
            if not block.lines:
                raise Split()
            result = parser.parse_lines(block.lines, True, start, block.numbers, block.file)
        except Split:
            result = parser.parse(block.text(), start, block.numbers, block.file)
    except LineError as exc:
        return failure(block, exc.line, exc.column, exc.what)
    except Misplaced as misplaced:
        return _misplaced(block, misplaced)
    except NumberTooLarge as big:  # pragma: no cover - the parse loop turns it into a LineError with its line
        return failure(block, 1, 1, big.what())
    return cast(Block, result)


_LINE_NAMES = {
    "HAND_LINE": "a 'Hand #' line", "TABLE_LINE": "the table line", "SEAT_LINE": "a seat line",
    "CARRIED": "the carried pot line", "MARKER": "this street line", "DECK": "the deck line",
    "SESSION": "a 'Session:' line", "PROFILE": "a 'Profile:' line", "OPTION": "an 'Option:' line", "CARDS": "a 'Cards:' line",
    "SESSION_END": "the session end line", "STANDING": "a standings line",
}


def _misplaced(block: RawBlock, exc: Misplaced) -> ParseFailure:
    if exc.kind == "$END":
        last = len(block.lines)
        return failure(block, last, len(block.lines[-1]) + 1 if block.lines else 1,
                       "the hand ends too early: its header, table or seat lines are missing")
    return failure(block, exc.line, 1, f"{_LINE_NAMES.get(exc.kind, 'this line')} cannot stand here")
