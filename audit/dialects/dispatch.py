"""A block of lines → its model object, by the dialect the reader recognised from its first line."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Final, cast

from audit.dialects import house
from audit.dialects.common import LONG_NUMBER, failure, long_number_failure, number_too_large, seats_own_strings
from audit.dialects.registry import dialect
from audit.model import Block, Hand, ParseFailure
from audit.read import RawBlock

HandParser = Callable[[RawBlock], Block]
"""A dialect's parse function (``contract.HandParser``; the house format's also reads the preamble and the
session's end)."""

_PARSERS: Final[dict[str, HandParser]] = {}


def hand_parser(name: str) -> HandParser | None:
    """The parse function of dialect ``name`` (imported on first use: a dialect's grammar loads only when one of
    its hands is met)."""
    found = _PARSERS.get(name)
    if found is not None:
        return found
    d = dialect(name)
    if d is None:
        return None
    module, _, function = d.parser.partition(":")
    found = cast(HandParser, getattr(importlib.import_module(module), function))
    _PARSERS[name] = found
    return found


def parse_block(block: RawBlock) -> Block:
    """A block of lines → ``Hand`` / ``Preamble`` / ``SessionEnd``, a ``ParseFailure``, or ``NothingHere`` (a
    file's prologue); never raises."""
    kind = block.kind
    if kind == "house" or kind == "preamble" or kind == "session_end":
        return house.parse_house_block(block)
    parse = hand_parser(kind)
    if parse is None:
        return failure(block, 1, 1, "this is not the start of a hand (a hand begins with a 'Hand #' line, or "
                                    "with the first line of a site's hand history)")
    long_number = LONG_NUMBER.search(block.text())
    if long_number is not None:  # numbers the site builders read as text: amounts, seats
        return long_number_failure(block, long_number)
    result = parse(block)
    if type(result) is Hand:
        too_large = number_too_large(result)  # the house parser refuses those as it reads them
        if too_large is not None:
            line, what = too_large
            index = block.numbers.index(line) + 1 if line in block.numbers else 1
            return failure(block, index, 1, what)
        d = dialect(kind)
        assert d is not None
        # (the house reader gives its lines the seats' strings as it reads them; a site's builders, here)
        return result._replace(body=seats_own_strings(result.seats, result.body), dialect=d.name,
                               shows_all_cards=d.shows_all_cards)
    return result
