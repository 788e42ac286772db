"""The reader's shortcuts give what the plain ways give: the block openers told by their first character, the
carriage returns and NULs searched in the bytes, a line begun in one chunk finished in the next."""

from __future__ import annotations

import io
import itertools

import pytest

from audit import read as read_module
from audit.dialects import registry
from audit.errors import InputError
from audit.read import RawBlock, _starts_block, iter_lines

# every dialect's first lines, then the first lines of the blocks that follow a file's header (Merge's <game>)
_HAND_PREFIXES = tuple(p for d in registry.DIALECTS for p in d.openers) + tuple(
    p for d in registry.DIALECTS for p in d.follows)


def _starts_block_plainly(line: str, current: str) -> bool:
    """``_starts_block`` as it was written before it looked the prefixes up by their first character."""
    if line.startswith(_HAND_PREFIXES) or line.startswith("*** SESSION END ***"):
        return True
    return current != "preamble" and (line.startswith("Session:") or line.startswith("Profile:"))


def test_the_hand_openers_are_the_registrys() -> None:
    assert tuple(prefix for prefix, _ in read_module._HAND_OPENERS) == _HAND_PREFIXES
    assert _HAND_PREFIXES[:8] == ("Hand #", "PokerStars ", "Full Tilt Poker ", "FullTiltPoker ",
                                  "***** History for hand ", "<HISTORY ", "<?xml ", "<ROOT>")


def test_block_openers_by_first_character_are_the_prefixes() -> None:
    starts = [prefix for prefix in _HAND_PREFIXES] + ["*** SESSION END ***", "Session:", "Profile:"]
    lines = []
    for prefix in starts:
        lines += [prefix, prefix + " x", prefix[:-1], prefix[:-1] + "?", prefix[1:], prefix.lower()]
    lines += ["Paz: calls 2", "Pot carried over: 5", "Hand", "H", "*", "***", "*** DRAW ***", "*** SESSION END",
              "Sara: folds", "Seat 1: Ana (10 in chips)", "Full Tilt", "FullTilt", "<", "<HISTORY", "P美: folds",
              "Session", "Profile", "美咲: folds", "\u00c9lodie: folds", "#", "SESSION:"]
    assert len(lines) > 60
    for line, current in itertools.product(lines, ["house", "preamble", "site", "session_end", "unknown"]):
        if line[0] in read_module._OPENER_CHARS:
            assert _starts_block(line, current) == _starts_block_plainly(line, current), (line, current)
        else:
            assert not _starts_block_plainly(line, current)


@pytest.mark.parametrize("codec", ["utf-8", "utf-8-sig", "utf-16"])
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64, 1 << 16])
def test_a_nul_stops_the_reading_at_its_line_whatever_the_chunks(codec: str, chunk: int) -> None:
    """Every whole line before the NUL's is given, then the error names the NUL's line; the lines before it may end
    in CR, LF or CRLF and hold characters of several bytes."""
    head = ["x" * 5000, "Ana: folds\r", "美咲: calls 2", "é\r\n", "last"]
    for at in range(0, 12):
        text = "\n".join(head) + "\n" + "ab\rcd"[:at % 6] + "\x00" + "rest\nmore\n"
        before = text[:text.index("\x00")].replace("\r\n", "\n").replace("\r", "\n").split("\n")
        old = read_module._CHUNK_BYTES
        read_module._CHUNK_BYTES = chunk
        got: list[str] = []
        try:
            with pytest.raises(InputError, match=f"^x:{len(before)}: this is not a text file"):
                for line in iter_lines(io.BytesIO(text.encode(codec)), "x"):
                    got.append(line)
        finally:
            read_module._CHUNK_BYTES = old
        assert got == before[:-1], (at, chunk)


def test_a_block_made_with_its_defaults_has_lists_of_its_own() -> None:
    one, two = RawBlock("f", "house"), RawBlock("f", "house")
    assert one == two and one.lines == [] and one.numbers == [] and one.too_long is False
    one.lines.append("x")
    assert two.lines == [] and one != two
    three = RawBlock("f", "house", ["a"], [1], True)
    assert (three.lines, three.numbers, three.too_long, three.first_line, three.end_line) == (["a"], [1], True, 1, 1)
    assert RawBlock(file="f", kind="k", lines=["a"], numbers=[2]) == RawBlock("f", "k", ["a"], [2], False)
    assert repr(three) == "RawBlock(file='f', kind='house', lines=['a'], numbers=[1], too_long=True)"
