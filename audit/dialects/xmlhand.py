"""What the dialects whose hands are XML share (Boss Media, Merge Network): a builder's base that says where an
element and its attributes are, and the run of the standard library's XML parser (expat) over one block, which
checks the XML and says where it stops."""

from __future__ import annotations

from collections.abc import Callable
from xml.parsers import expat

from audit.dialects.common import LineError, failure
from audit.model import Hand, ParseFailure
from audit.read import RawBlock


class ElementBuilder:
    """The base of a builder fed by expat, element by element: the block's lines, to point at an attribute."""

    def __init__(self, block: RawBlock, text: str) -> None:
        self.block = block
        self.lines = text.split("\n")
        self.done = False  # the hand's element has ended

    def file_line(self, index: int) -> int:
        return self.block.numbers[index - 1] if 0 < index <= len(self.block.numbers) else self.block.first_line

    def unreadable(self, index: int, attr: str, what: str) -> LineError:
        """The error for attribute ``attr`` of the element on line ``index`` (the caret under its value)."""
        line = self.lines[index - 1] if 0 < index <= len(self.lines) else ""
        at = line.find(f' {attr}="')
        return LineError(index, at + len(attr) + 4 if at >= 0 else 1, what)

    def need(self, attrs: dict[str, str], name: str, index: int, tag: str) -> str:
        value = attrs.get(name)
        if value is None:
            raise LineError(index, 1, f"the <{tag}> element has no {name} attribute")
        return value

    def start(self, tag: str, attrs: dict[str, str], index: int) -> None:
        raise NotImplementedError

    def end(self, tag: str) -> None:
        raise NotImplementedError


def read_xml(block: RawBlock, builder: ElementBuilder, text: str, closing: str, finish: Callable[[], Hand],
             root: str = "") -> Hand | ParseFailure:
    """``text`` (the block's) given to ``builder`` through expat, then the hand ``finish`` makes; or where it stopped:
    XML that is not well formed, a line the builder cannot read, a hand that ends before its ``</closing>``.
    ``root``: a tag put around the text, for a block of more than one element (the caret still under the line)."""
    parser = expat.ParserCreate()
    parser.StartElementHandler = lambda tag, attrs: builder.start(tag, attrs, parser.CurrentLineNumber)
    parser.EndElementHandler = builder.end
    last = (len(block.lines), len(block.lines[-1]) + 1 if block.lines else 1)
    try:
        parser.Parse(f"<{root}>{text}</{root}>" if root else text, True)
        if not builder.done:
            raise LineError(*last, f"the hand ends before its </{closing}>")
        return finish()
    except expat.ExpatError as bad:
        what = expat.ErrorString(bad.code) if bad.code is not None else str(bad)
        if root and bad.lineno > len(block.lines):  # at the root's end: the block ended inside an element
            return failure(block, *last, f"the hand ends before its </{closing}> ({what})")
        column = bad.offset + 1 - (len(root) + 2 if root and bad.lineno == 1 else 0)
        return failure(block, bad.lineno, max(1, column), f"this is not well-formed XML ({what})")
    except LineError as unreadable:
        return failure(block, unreadable.line, unreadable.column, unreadable.what)
