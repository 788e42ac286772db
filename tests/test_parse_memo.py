"""The house parser's shortcuts give what reading every line by its pattern gives: the lines it remembers (rebuilt
with their own line number), and the usual deal, discard and show lines it reads by slicing."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path
from typing import Any

import pytest

from audit.dialects import (
    common, dispatch, house, house_build, house_lark, house_lines, house_parser, house_quick, house_tables,
)
from audit import model
from audit.read import RawBlock, read_blocks, read_text_blocks
from conftest import at_least, FIXTURES, SHARED, needs_shared

STARTS = {"house": "hand", "preamble": "preamble", "session_end": "session_end"}
HEADER = ["Hand #7 - 2026/11/28 21:04:00", "Table 'Casa' Seat #1 is the button", "Seat 1: Ana (100 in chips)",
          "Seat 2: Beto (100 in chips)"]


class _Forgetful(dict[str, Any]):
    """A memo that never keeps anything: every line is read by its pattern."""

    def __setitem__(self, key: str, value: Any) -> None:
        pass


def _plain_parser() -> house_parser.LineParser:
    """A parser that reads every line by its pattern and builder (no memo, no slicing)."""
    tables = house_tables.stored_tables()
    assert tables is not None
    parser = house_parser.LineParser(tables)
    parser.quick = False
    parser.memo = _Forgetful()
    return parser


def _fresh_parser() -> house_parser.LineParser:
    tables = house_tables.stored_tables()
    assert tables is not None
    parser = house_parser.LineParser(tables)
    assert parser.quick, "the grammar's deal, discard and show patterns are no longer the ones read by slicing"
    return parser


def _outcome(parser: house_parser.LineParser, block: RawBlock, text: bool = False) -> object:
    """The block's value, or the error the parse raised (its kind, line, column and words): read from its lines
    as ``parse_house_block`` does, or from its text (``text``)."""
    try:
        if text:
            return parser.parse(block.text(), STARTS[block.kind], block.numbers, block.file)
        return parser.parse_lines(block.lines, True, STARTS[block.kind], block.numbers, block.file)
    except (common.LineError, house_parser.Misplaced) as exc:
        return type(exc).__name__, exc.args, vars(exc)


def _types(value: object) -> object:
    """The types inside a value (equality of tuples does not compare them)."""
    if isinstance(value, tuple):
        return type(value), tuple(_types(v) for v in value)
    return type(value)


def _blocks(paths: list[Path]) -> list[RawBlock]:
    return [block for path in paths for block in read_blocks(path)
            if block.kind in STARTS and not block.too_long]


def _moved(block: RawBlock, by: int) -> RawBlock:
    """The same lines at other file line numbers."""
    return RawBlock(block.file, block.kind, list(block.lines), [n + by for n in block.numbers], block.too_long)


def _compare(blocks: list[RawBlock]) -> int:
    """Each block read three ways: every line of its text by its pattern; its lines by a parser that starts cold;
    by one warmed up with the same lines read before in another order at other line numbers. All the same, value for value and type for
    type (the line numbers included), failures alike. Returns how many lines the warm parser had remembered
    before it read their block."""
    plain, warm = _plain_parser(), _fresh_parser()
    for block in reversed(blocks):
        _outcome(warm, _moved(block, 1000))
    remembered = 0
    for block in blocks:
        expected = _outcome(plain, block, text=True)
        cold = _outcome(_fresh_parser(), block)
        remembered += sum(1 for line in block.lines if line in warm.memo)
        warmed = _outcome(warm, block)
        where = (block.file, block.first_line)
        assert cold == expected, where
        assert warmed == expected, where
        assert _types(cold) == _types(expected) == _types(warmed), where
    return remembered


def test_fixtures_read_the_same_with_a_cold_and_a_warm_memo() -> None:
    blocks = _blocks(sorted((FIXTURES / "house").glob("*.txt")) + sorted((FIXTURES / "live").glob("*.txt")))
    assert len(blocks) > 20
    assert _compare(blocks) > 100


@needs_shared
def test_shared_cases_read_the_same_with_a_cold_and_a_warm_memo() -> None:
    blocks = _blocks(sorted(SHARED.glob("cases/*/*.txt")))
    assert len(blocks) > 300
    assert _compare(blocks) > 500


def test_a_remembered_line_takes_its_own_line_number() -> None:
    parser = _fresh_parser()
    lines = HEADER + ["Ana: posts the ante 1", "Beto: posts the ante 1", "*** DEALING HANDS ***", "Ana: checks",
                      "Beto: checks", "Ana: checks", "*** DRAW ***", "Ana: stands pat", "Beto: stands pat",
                      "Ana: checks", "Beto: checks", "Ana collected 2 from pot", "Total pot 2 | Rake 0"]
    first = next(iter(read_text_blocks("\n".join(lines) + "\n", "t.txt")))
    second = _moved(first, 40)
    one, two = _outcome(parser, first), _outcome(parser, second)
    assert isinstance(one, model.Hand) and isinstance(two, model.Hand)
    assert "Ana: checks" in parser.memo and "Total pot 2 | Rake 0" in parser.memo
    # (the lines whose amounts seldom repeat are read afresh each time)
    assert "Seat 1: Ana (100 in chips)" not in parser.memo and "Ana collected 2 from pot" not in parser.memo
    assert [item.line for item in one.body] == list(range(5, 18))
    assert [item.line for item in two.body] == list(range(45, 58))
    assert [seat.line for seat in two.seats] == [43, 44]
    assert two.body[3] == model.Action(48, "Ana", "check") and two.body[5] == model.Action(50, "Ana", "check")
    assert one.table == two.table == "Casa" and one.points_mode is two.points_mode is False
    assert two == _outcome(_plain_parser(), second, text=True)


@pytest.mark.parametrize("line, column", [
    ("Ana: bets 9999999999999999", 11),  # too large to store
    ("Ana: raises 2 to 1" + "0" * 101, 18),  # too long to read
    ("Seat 3: Cleo (10000000000000000 in chips)", 15),
    ("Seat 9999999999: Cleo (10 in chips)", 6),
    ("Ana collected 9999999999999999 from pot", 15),
])
def test_a_line_that_fails_is_never_remembered(line: str, column: int) -> None:
    parser = _fresh_parser()
    seat = line.startswith("Seat")
    lines = HEADER + ([line, "Ana: posts the ante 1"] if seat else ["Ana: posts the ante 1", line])
    block = next(iter(read_text_blocks("\n".join(lines) + "\n", "t.txt")))
    first = _outcome(parser, block)
    assert first == _outcome(_plain_parser(), block, text=True)
    assert isinstance(first, tuple) and first[0] == "LineError"
    assert (first[2]["line"], first[2]["column"]) == (5 if seat else 6, column)
    assert line not in parser.memo
    assert HEADER[1] in parser.memo  # (the lines before it were read, and remembered)
    assert _outcome(parser, block) == first
    assert line not in parser.memo


def test_a_block_whose_line_holds_a_newline_reads_as_its_text() -> None:
    """Blocks cut by the reader never hold a newline in a line; one made otherwise reads as its text does
    (two lines there), not as one line."""
    lines = HEADER + ["Ana: posts the ante 1\nBeto: posts the ante 1", "Ana: checks"]
    block = RawBlock("t.txt", "house", lines, [1, 2, 3, 4, 5, 6, 7])
    parser = house_parser.house_line_parser()
    with pytest.raises(house_parser.Split):
        parser.parse_lines(block.lines, True, "hand", block.numbers, block.file)
    hand = house.parse_house_block(block)
    assert isinstance(hand, model.Hand)
    assert hand == _outcome(_plain_parser(), block, text=True)._replace(file="t.txt")  # type: ignore[attr-defined]
    assert [(item.line, item.player) for item in hand.body] == [(5, "Ana"), (6, "Beto"), (7, "Ana")]
    assert "Ana: posts the ante 1\nBeto: posts the ante 1" not in parser.memo


def test_a_text_whose_last_line_has_no_newline_fails_there() -> None:
    parser = _fresh_parser()
    text = "\n".join(HEADER + ["Ana: posts the ante 1", "Ana: folds"])
    _outcome(parser, next(iter(read_text_blocks(text + "\n"))))  # (the lines are remembered)
    for reader in (parser, _plain_parser()):
        with pytest.raises(common.LineError) as failed:
            reader.parse(text, "hand", [1, 2, 3, 4, 5, 6], "t.txt")
        assert failed.value.line == 6
    assert isinstance(reader.parse(text + "\n", "hand", [1, 2, 3, 4, 5, 6], "t.txt"), model.Hand)


def test_a_misplaced_line_is_not_remembered_and_fails_again() -> None:
    parser = _fresh_parser()
    block = next(iter(read_text_blocks("\n".join([HEADER[0], "Ana: folds"] + HEADER[1:]) + "\n", "t.txt")))
    first = _outcome(parser, block)
    assert isinstance(first, tuple) and first[0] == "Misplaced"
    assert "Ana: folds" not in parser.memo
    assert _outcome(parser, block) == first == _outcome(_plain_parser(), block, text=True)


def test_the_memo_stays_bounded_and_right_past_its_size() -> None:
    parser, plain = _fresh_parser(), _plain_parser()
    size = house_quick.MEMO_SIZE
    per_block = 500
    blocks = []
    for b in range(size * 5 // 4 // per_block + 1):
        body = [f"P{b}_{i}: bets {i}" for i in range(per_block)] + [f"Dealt to Q{b}_{i} [As]" for i in range(per_block)]
        seats = [f"Seat {i + 1}: P{b}_{i} (100 in chips)" for i in range(per_block)]
        text = "\n".join(HEADER[:2] + seats + body) + "\n"
        blocks.append(next(iter(read_text_blocks(text, "t.txt"))))
    biggest = 0
    for block in blocks + blocks[::-1]:
        assert _outcome(parser, block) == _outcome(plain, block, text=True)
        biggest = max(biggest, len(parser.memo))
        # (the names are forgotten between blocks only: a block adds at most one name a line)
        assert len(parser.memo) <= size and len(parser.names) <= size + len(block.lines)
    assert biggest > size // 2  # (it did remember)
    assert len(blocks) * per_block * 2 > size


# ---- the lines read by slicing -------------------------------------------------------------------------------

_NAMES = ["Ana", "美咲", "a.b-c'd", "_x", "Session", "Profile", "Option", "Deck", "Dealer", "Cards", "Hand", "Seat",
          "Table", "Dealt", "Total", "Pot", "Uncalled", "12", "1²", "٣", "Ana:", "", "A na", "Ana]", "Ana[", "(Ana)"]
_DEALT = ["Dealt to {n} [As Kd 5c 4s 2d]", "Dealt to {n} [As 10d] [Qs]", "Dealt to {n} [Qc 8d] [9d 3h Ts]",
          "Dealt to {n}  [As]", "Dealt to  {n} [As]", "Dealt to {n}[As]", "Dealt to {n} [As]  [Kd]", "Dealt to {n} [As]x",
          "Dealt to {n} [As [Kd] [Qs]", "Dealt to {n} [As]]", "Dealt to {n} [As] [Kd] [Qs]", "Dealt to {n} []",
          "Dealt to {n} [] []", "Dealt to {n} [As] ", "Dealt to {n} [As] [Kd", "Dealt to {n} [As", "Dealt to {n} [As]\r",
          "Dealt to {n} [A\rs]", "Dealt to {n} [As] [Kd]]", "Dealt to {n} [As][Kd]", "Dealt to {n}", "Dealt to {n} [",
          "Dealt to {n} [As\nKd]", "Dealt to {n} [As] [K\nd]", "Dealt to {n} [As]\n[Kd]"]
_SHOWS = ["{n}: shows [As Kd 5c 4s 2d]", "{n}: shows [As 10d] (a pair (of) tens)", "{n}: shows [As] ()",
          "{n}: shows [As] (", "{n}: shows [As] )", "{n}: shows [As]  (x)", "{n}: shows [As] (x) ", "{n}: shows [As] (x)y",
          "{n}: shows [As]x", "{n}: shows  [As]", "{n}: shows [As", "{n}: shows []", "{n}: shows [As] (x))",
          "{n}: shows [As] ((x)", "{n}: shows [As] [Kd]", "{n}:  shows [As]", "{n} : shows [As]", "{n}: shows [As]] (x)",
          "{n}: shows [As] (\tx)", "{n}: shows [As] x)", "{n}: shows [A\ns]", "{n}: shows [As] (x\ny)"]
_DISCARDS = ["{n}: discards 3 cards [As Kd Qs]", "{n}: discards 1 card [As]", "{n}: discards 0 cards",
             "{n}: discards 2 card", "{n}: discards 1 cards", "{n}: discards 3 cardss", "{n}: discards ٣ cards",
             "{n}: discards 1234567890123456 cards", "{n}: discards 123456789012345 cards",
             "{n}: discards 3 cards [As] (took 1s)", "{n}: discards 3 cards  [As]", "{n}: discards 3 cards [As]]",
             "{n}: discards 3 cards [As] [Kd]", "{n}: discards  3 cards", "{n}: discards 3cards",
             "{n}: discards 3 cards []", "{n}: discards 3 cards [As", "{n}: discards 3 cards [As] ",
             "{n}: discards 007 cards [As 10c]", "{n}: discards 3 cards[As]", "{n}: discards 3 card [As]",
             "{n}: discards 3", "{n}: discards  cards", "{n}: discards -1 cards", "{n}: discards 1 card [A\ns]"]

_SEAT = ["Seat 1: {n} (100 in chips)", "Seat 1: {n} (100 in chips) is sitting out", "Seat 10: {n} (5 points)",
         "Seat 2: {n} (1 point)", "Seat 2: {n} (1 points) is sitting out ", "Seat 2:  {n} (1 in chips)",
         "Seat 2: {n}  (1 in chips)", "Seat 2: {n} (1  in chips)", "Seat 2: {n} (1 in chips)x", "Seat 2: {n} (1 in chip)",
         "Seat ٢: {n} (1 in chips)", "Seat 2: {n} (١ in chips)", "Seat 1234567890: {n} (1 in chips)",
         "Seat 123456789: {n} (1 in chips)", "Seat 2: {n} (1234567890123456 in chips)",
         "Seat 2: {n} (123456789012345 in chips)", "Seat 2: {n} (1 in chips) is sitting",
         "Seat 2: {n} (1 in chips) is sitting out out", "Seat 2: {n} ((1 in chips)", "Seat 2: {n} (1 in chips))",
         "Seat : {n} (1 in chips)", "Seat 2:{n} (1 in chips)", "Seat 2: {n} ()", "Seat 2: {n} (x in chips)",
         "Seat 02: {n} (007 in chips)", "Seat  2: {n} (1 in chips)", "Seat 2 : {n} (1 in chips)"]
_ACT = ["{n}: folds", "{n}: checks", "{n}: calls 2", "{n}: bets 10", "{n}: raises 2 to 4", "{n}: calls 2 and is all-in",
        "{n}: folds and is all-in", "{n}: raises 2 to 4 and is all-in", "{n}: raises 2  to 4", "{n}: raises 2 to 4 ",
        "{n}: calls", "{n}: calls ", "{n}: calls  2", "{n}: calls 2x", "{n}: calls ²", "{n}: calls ٢",
        "{n}: bets 1234567890123456", "{n}: bets 123456789012345", "{n}: raises to 4", "{n}: raises 2 to",
        "{n}: raises 2 to 4 to 6", "{n}: checks 2", "{n}: folds (timed out)", "{n}: calls 2 (took 3s)",
        "{n}: calls 2 and is all-in and is all-in", "{n}: and is all-in", "{n}: raises  and is all-in",
        "{n}: folds  and is all-in", "{n}: Calls 2", "{n}: raises 0010 to 0020", "{n}:  folds", "{n} : folds",
        "{n}: posts the ante 1", "{n}: stands pat", "{n}: mucks hand"]
_COLLECTED = ["{n} collected 10 from pot", "{n} collected 10 from main pot", "{n} collected 10 from pot (parole)",
              "{n} collected 10 from side pot-2", "{n} collected 10 from side pot-", "{n} collected 10 from side pot-x",
              "{n} collected 10 from side pot-٢", "{n} collected 10 from side pot-2-3", "{n} collected 10 from  pot",
              "{n} collected  10 from pot", "{n}  collected 10 from pot", "{n} collected 10 from pot ",
              "{n} collected 10 from the pot", "{n} collected from pot", "{n} collected 1234567890123456 from pot",
              "{n}: collected 10 from pot", "{n} collected 10 from pot (parole", "{n} collected 10 from sidepot-2",
              "{n} said, \"collected 10 from pot\"", "{n} scores 2 points"]
_HAND = ["Hand #{n} - 2026/11/28 21:04:00", "Hand #{n} - 2026/11/28 21:04", "Hand #{n} - 2026/1/28 21:04:00",
         "Hand #{n}  - 2026/11/28 21:04:00", "Hand #{n} -  2026/11/28 21:04:00", "Hand #{n} - 2026/11/28  21:04:00",
         "Hand #{n} - 2026/11/28 21:04:00 ", "Hand #{n} - 2026-11-28 21:04:00", "Hand #{n} - 202\uff16/11/28 21:04:00",
         "Hand #{n} - 2026/11/28 21:04:0x", "Hand #{n} - 2026/11/28 21:04:00:00", "Hand #{n}-x - 2026/11/28 21:04:00",
         "Hand #{n} - x - 2026/11/28 21:04:00", "Hand #{n}\xa0x - 2026/11/28 21:04:00", "Hand # - 2026/11/28 21:04:00",
         "Hand #{n}", "Hand #{n} - 2026/11/28 21:04:00\x0b", "Hand #{n}\x0b - 2026/11/28 21:04:00",
         "Hand #{n} - 2026x11/28 21:04:00", "Hand #{n} - 2026/11x28 21:04:00", "Hand #{n} - 2026/11/28\t21:04:00",
         "Hand #{n} - 2026/11/28T21:04:00", "Hand #{n} - 2026/11/28 21x04:00", "Hand #{n} - 2026/11/28 21:04x00",
         "Hand #{n} - 20261/1/28 21:04:00", "Hand #{n} - 2026/11/2821:04:00 ", "Hand #{n} - 2026/11/28 021:4:00"]


_POST = ["{n}: posts the ante 1", "{n}: posts small blind 1", "{n}: posts big blind 2 and is all-in",
         "{n}: posts over blind 4", "{n}: posts live blind 2", "{n}: posts dead blind 1", "{n}: posts the ante",
         "{n}: posts the  ante 1", "{n}: posts the ante  1", "{n}: posts the ante 1 ", "{n}: posts the ante x",
         "{n}: posts the blind 1", "{n}: posts big blind 1234567890123456", "{n}: posts big blind 123456789012345",
         "{n}: posts big blind 2 and is all-in ", "{n}: posts big blind ٢", "{n}: posts big blind 2 and is",
         "{n}: posts  the ante 1", "{n}: posts", "{n}: posts the", "{n}: posts the ante 1 and is all-in and is all-in"]
_STANDS = ["{n}: stands pat", "{n}: stands pat (timed out)", "{n}: stands pat (took 3s)",
           "{n}: stands pat (timed out) (took 3.5s)", "{n}: stands pat (took 3.5s) (timed out)", "{n}: stands pat ",
           "{n}: stands pats", "{n}: stands  pat", "{n}: stands pat (took s)", "{n}: stands pat (took 3.s)",
           "{n}: stands pat (took .5s)", "{n}: stands pat (took 3.5.5s)", "{n}: stands pat (took ٣s)",
           "{n}: stands pat (took 1234567890123456s)", "{n}: stands pat (took 3s) ", "{n}: stands pat(took 3s)",
           "{n}: stands pat  (took 3s)", "{n}: stands pat (timed out)(took 3s)", "{n}: mucks hand", "{n}: mucks hand ",
           "{n}: mucks", "{n}: mucks hands", "{n}: mucks  hand"]
_TIMED = ["{n}: folds (took 25.5s)", "{n}: checks (timed out)", "{n}: calls 2 and is all-in (timed out) (took 4s)",
          "{n}: bets 2 (took 5s)", "{n}: raises 2 to 4 (took 0s)", "{n}: folds (took 5s) (took 3s)",
          "{n}: folds (timed out) (timed out)", "{n}: folds (took 5s) and is all-in", "{n}: folds (took 5 s)",
          "{n}: calls 2 (took 1.25s)", "{n}: calls 2 (took 001.50s)", "{n}: folds (took)", "{n}: folds (took 5s",
          "{n}: discards 3 cards [As Kd Qs] (took 8.5s)", "{n}: discards 0 cards (took 2s)",
          "{n}: discards 1 card (took 2s)", "{n}: discards 3 cards [As Kd Qs] (took 8.5s) ",
          "{n}: discards 3 cards [As Kd Qs](took 8.5s)", "{n}: discards 3 cards [As (took 8.5s)",
          "{n}: discards 3 cards (took 8.5s) [As Kd Qs]"]
_FIXED = ["Table 'El Rincón' Seat #2 is the button", "Table '' Seat #2 is the button", "Table 'a' b' Seat #2 is the button",
          "Table 'a' Seat #1 is the button' Seat #2 is the button", "Table 'a' Seat #2 is the button ",
          "Table 'a'  Seat #2 is the button", "Table 'a' Seat # is the button", "Table 'a' Seat #٢ is the button",
          "Table 'a' Seat #1234567890 is the button", "Table 'a' Seat #123456789 is the button", "Table 'a Seat #2 is the button",
          "Table a' Seat #2 is the button", "Table 'a' Seat #2 is the buttons", "Table 'a\tb' Seat #2 is the button",
          "Total pot 10 | Rake 0", "Total pot 10 | Rake 0 ", "Total pot 10 |  Rake 0", "Total pot  10 | Rake 0",
          "Total pot 10 | Rake", "Total pot | Rake 0", "Total pot 1234567890123456 | Rake 0", "Total pot ١٠ | Rake 0",
          "Total pot 10 | Rake 0 | Rake 1", "Uncalled bet (132) returned to {n}", "Uncalled bet (132) returned to  {n}",
          "Uncalled bet (132) returned to {n} ", "Uncalled bet () returned to {n}", "Uncalled bet (1x) returned to {n}",
          "Uncalled bet (1234567890123456) returned to {n}", "Uncalled bet (5) returned to",
          "Uncalled bet (5) returned to ", "{n} said, \"hi there\"", "{n} said, \"\"", "{n} said, \"a\" b\"",
          "{n} said, \"hi\" ", "{n} said, \"hi", "{n}  said, \"hi\"", "{n} said,\"hi\"", "{n} said, \"",
          "*** DEALING HANDS ***", "*** DRAW ***", "*** REDEAL ***", "*** SUMMARY *** ", "*** SESSION END ***",
          "***  DRAW ***", "*** draw ***", "Deck: [As Kd Qs Jk]", "Deck: []", "Deck: [As 10d]", "Deck: [As  Kd]",
          "Deck: [As Kd] ", "Deck:  [As]", "Deck: [As]]", "Deck: [As [Kd]", "Deck: [as kd 1s 10 Xx ♠A]",
          "Dealer: reshuffles [As Kd]", "Dealer: reshuffles []", "Dealer: reshuffles [As] ", "Dealer: reshuffles  [As]",
          "Dealer:  reshuffles [As]", "Dealer: reshuffles [As]x", "Dealt to {n} [Jk As 10d Td T]",
          "Dealt to {n} [As Kd 5c 4s 2d ]", "Dealt to {n} [ As]", "Dealt to {n} [As\tKd]", "Dealt to {n} [AsKd]",
          "Dealt to {n} [A]", "Dealt to {n} [As K]", "Dealt to {n} [Ås]", "Dealt to {n} [1s 10]",
          "Dealt to {n} [As Kd 5c 4s] [3h]", "Dealt to {n} [As Kd 5c 4s 3h 2d]", "Dealt to {n} [As Kd 5c 4s 3h 2d Jk]",
          "Session: {n}", "Session:  a b ", "Session: ", "Session:", "Session:x", "Profile: home-open",
          "Profile: {n}", "Profile:", "Option: a = b", "Option: a", "Option: =", "Option: a=b=c ", "Cards: shown",
          "Cards: all", "Cards:  all", "Cards: shown ", "Cards: none", "*** SESSION END ***", "*** SESSION END *** ",
          "1: {n} (150)", "12: {n} (0)", "1:  {n} (5)", "1: {n}  (5)", "1: {n} (5) ", "٣: {n} (5)", "1: {n} (٣)",
          "1234567890123456: {n} (5)", "123456789012345: {n} (1)", "1: {n} ()", "1: (5)", "1 : {n} (5)", "1: {n} (5))",
          "1: {n} ((5)", "1a: {n} (5)", "1: {n}"]


def _variants() -> list[str]:
    forms = _DEALT + _SHOWS + _DISCARDS + _SEAT + _ACT + _COLLECTED + _HAND + _POST + _STANDS + _TIMED + _FIXED
    lines = [form.format(n=name) for form, name in itertools.product(forms, _NAMES)]
    for path in at_least(3, sorted((FIXTURES / "house").glob("*.txt"))):
        for block in read_blocks(path):
            lines.extend(block.lines)
    return lines


def test_lines_read_by_slicing_are_what_their_patterns_read() -> None:
    """Every line ``quick_line`` reads gets the terminal ``fast_line`` gives it and the value its builder makes;
    and it does read the usual shapes (else this would test nothing)."""
    patterns = house_parser.house_line_parser().patterns
    names: dict[str, str] = {}
    read = 0
    for line in _variants():
        kind, value = house_quick.quick_line(line, 17, names)
        if kind >= 0:
            code, m = house_lines.fast_line(line + "\n", 0, len(line), patterns)
            assert code == kind, line
            assert m is not None
            built = house_build.token_value(code, m, 17)
            assert value == built and _types(value) == _types(built), line
            read += 1
    for usual in ["Dealt to Ana [As Kd 5c 4s 2d]", "Dealt to 美咲 [Qc 8d] [9d 3h Ts]", "Ana: shows [As] (x)",
                  "Ana: shows [As 10d]", "Ana: discards 3 cards [As Kd Qs]", "Ana: discards 0 cards",
                  "Ana: discards 1 card [As]", "Hand #181165 - 2026/10/21 19:15:00", "Seat 1: 美咲 (100 in chips)",
                  "Seat 3: Ana (7 points) is sitting out", "Ana: folds", "Ana: checks", "Ana: calls 2", "Ana: bets 2",
                  "Ana: raises 2 to 4 and is all-in", "Ana collected 10 from pot", "Ana collected 3 from side pot-1",
                  "Ana: posts the ante 1", "Ana: posts big blind 2 and is all-in", "Ana: stands pat",
                  "Ana: stands pat (timed out) (took 3.5s)", "Ana: mucks hand", "Ana: folds (took 25.5s)",
                  "Ana: calls 2 and is all-in (timed out) (took 4s)", "Ana: discards 3 cards [As Kd Qs] (took 8.5s)",
                  "Table 'El Rincón' Seat #2 is the button", "Total pot 10 | Rake 0", "*** DRAW ***",
                  "Uncalled bet (132) returned to 美咲", "Uncalled bet (1) returned to 12", "Ana said, \"a\" b\"",
                  "Deck: [As Kd Qs Jk]", "Dealer: reshuffles [As 10d]", "Session: home-open-1-000",
                  "Profile: home-open", "Option: ante = 1", "Cards: shown", "*** SESSION END ***", "1: Ana (150)",
                  "12: 美咲 (0)"]:
        assert house_quick.quick_line(usual, 1, names)[0] >= 0, usual
    for special in ["Session: shows [As]", "12: discards 1 card [As]", "1²: shows [As]", "Dealt to 12 [As]",
                    "Option: folds", "Hand collected 1 from pot", "12: folds", "Seat 1: 12 (1 in chips)"]:
        kind, value = house_quick.quick_line(special, 1, names)  # (a line led by a keyword is never a player's line)
        if kind >= 0:
            code, m = house_lines.fast_line(special + "\n", 0, len(special), patterns)
            assert m is not None and code == kind and value == house_build.token_value(code, m, 1), special
            assert house_lines.TERMINALS[kind] in ("DEALT", "SEAT_LINE", "SESSION", "OPTION"), special
    assert read > 200


def test_a_grammar_whose_patterns_changed_is_not_read_by_slicing() -> None:
    tables = house_tables.stored_tables()
    assert tables is not None
    edited = dict(tables)
    edited["terminals"] = [[name, pattern.replace("shows +", "shows  *") if name == "SHOWS" else pattern]
                           for name, pattern in tables["terminals"]]
    assert not house_parser.LineParser(edited).quick
    assert house_parser.LineParser(tables).quick


def _lines_by_kind() -> dict[str, list[str]]:
    """Every line of the house-format fixtures (all groups), by the kind its pattern gives it."""
    patterns = house_parser.house_line_parser().patterns_by_name
    found: dict[str, list[str]] = {}
    for block in _blocks(sorted(FIXTURES.glob("*/*.txt"))):
        for line in block.lines:
            try:
                name, _, _, _ = house_lines.classify(line + "\n", 0, len(line) + 1, 1, patterns)
            except common.LineError:
                continue
            found.setdefault(name, []).append(line)
    return found


def _kinds_without_a_reader(sources: dict[str, str], lines: dict[str, list[str]],
                            pattern_only: frozenset[str] = house_quick.PATTERN_ONLY) -> list[str]:
    """The kinds of line the parser knows that a grammar of these patterns leaves without a reader: a kind the
    grammar lacks (no pattern), or a kind that is neither read by slicing (in ``QUICK_PATTERNS``, and some line
    of the fixtures of that kind is read so) nor left to its pattern (``PATTERN_ONLY``)."""
    problems = []
    for code, name in enumerate(house_lines.TERMINALS[:-1]):  # (the last is the end of the block, no line)
        if name not in sources:
            problems.append(f"{name}: no pattern in the grammar")
            continue
        for line in lines.get(name, [])[:1]:
            m = re.compile(sources[name]).fullmatch(line + "\n")
            assert m is not None, line
            try:
                house_build.token_value(code, m, 1)
            except ValueError:
                problems.append(f"{name}: no builder")
        if name in house_quick.QUICK_PATTERNS:
            if not any(house_quick.quick_line(line, 1, {})[0] == code for line in lines.get(name, [])):
                problems.append(f"{name}: no line of the fixtures is read by slicing")
        elif name not in pattern_only:
            problems.append(f"{name}: neither read by slicing nor left to its pattern")
        elif not lines.get(name):
            problems.append(f"{name}: no line of the fixtures")
    return problems


def test_the_shipped_grammar_keeps_the_fast_path_on_and_every_kind_of_line_has_a_reader() -> None:
    """The parser every check uses reads the usual lines by slicing (a grammar edit that left its pattern copy,
    ``house_quick.QUICK_PATTERNS``, behind would silently turn that off), and every kind of line the parser knows
    is read by slicing or by its pattern. Near misses: a grammar without a kind, a kind declared nowhere, and a
    grammar with a kind the quick readers do not know."""
    parser = house_parser.house_line_parser()
    assert house_tables.stored_tables() is not None, "run `make tables`: the stored tables are not the grammar's"
    assert parser.quick, "the grammar's patterns are not house_quick.QUICK_PATTERNS: update them and the readers"
    lines = _lines_by_kind()
    assert _kinds_without_a_reader(parser.sources, lines) == []
    assert sum(map(len, lines.values())) > 5000
    without_event = {name: pattern for name, pattern in parser.sources.items() if name != "EVENT"}
    assert _kinds_without_a_reader(without_event, lines) == ["EVENT: no pattern in the grammar"]
    assert _kinds_without_a_reader(parser.sources, lines, house_quick.PATTERN_ONLY - {"SCORES"}) == [
        "SCORES: neither read by slicing nor left to its pattern"]
    assert house_quick.reads_grammar(parser.sources)
    assert not house_quick.reads_grammar({**parser.sources, "BOUNTY": "(?P<name>[\\w\\-.']+): wins a bounty\n"})


_PLAYED = ["Ana: posts the ante 1", "Beto: posts the ante 1", "*** DEALING HANDS ***", "Dealt to Ana [As Kd 5c 4s 2d]",
           "Dealt to Beto [Qc 8d 5s 4s 2d]", "*** FIRST BETTING ROUND ***", "Ana: bets 2", "Beto: is disconnected",
           "Beto: calls 2", "Cleo: folds", "*** DRAW ***", "Ana: discards 1 card [2d]", "Dealt to Ana [As Kd 5c 4s] [3h]",
           "Beto: stands pat", "*** SECOND BETTING ROUND ***", "Ana: checks", "Beto scores 1 point", "Beto: checks",
           "*** SHOW DOWN ***", "Ana: shows [As Kd 5c 4s 3h] (high card Ace)",
           "Beto: shows [Qc 8d 5s 4s 2d] (high card Queen)", "Ana collected 4 from pot", "*** SUMMARY ***",
           "Total pot 4 | Rake 0"]
"""A hand whose lines are read every way: by slicing, from memory, by their pattern (``is disconnected``,
``scores``), and one whose player has no seat (``Cleo``)."""


def _hold_the_seats_strings(hand: object) -> int:
    """Asserts that every line of the hand whose player has a seat holds that seat's very string, and that a line
    whose player has none keeps its name; returns how many lines name a player."""
    assert isinstance(hand, model.Hand), hand
    own = {seat.player: seat.player for seat in hand.seats}
    named = 0
    for item in hand.body:
        name = getattr(item, "player", None)
        if name is None:
            continue
        named += 1
        if name in own:
            assert name is own[name], item
        else:
            assert name == "Cleo", item
    return named


@pytest.mark.parametrize("seats", [
    HEADER[2:],
    ["Seat 1: Ana (100 in chips)", "Seat 2:  Beto (100 in chips)"],  # (a seat read by its pattern, not sliced)
])
def test_every_line_of_a_player_holds_his_seats_string(seats: list[str]) -> None:
    """However a line is read (sliced, remembered, by its pattern, through the tables' loop or by Lark's own
    parser), its player is the string of his seat, which the engine's look-ups then compare by identity; a name
    no seat has stays as it is written."""
    text = "\n".join(HEADER[:2] + seats + _PLAYED) + "\n"
    parser = _fresh_parser()
    for _ in range(2):  # cold, then every repeated line from memory
        hand = _outcome(parser, next(iter(read_text_blocks(text, "t.txt"))))
        assert _hold_the_seats_strings(hand) == 17
    tables = _fresh_parser()
    tables.quick = False  # (no hand read in one pass: every one through the tables, the lines by their pattern)
    assert _hold_the_seats_strings(_outcome(tables, next(iter(read_text_blocks(text, "t.txt"))))) == 17
    lark = house_lark.house_parser()
    block = next(iter(read_text_blocks(text, "t.txt")))
    house_lark._HOUSE_BUILDER.numbers = block.numbers
    assert _hold_the_seats_strings(lark.parse(block.text(), start="hand")) == 17


def test_a_name_the_slicing_never_reads_holds_its_seats_string_too() -> None:
    """``Seat`` leads a kind of line, so a line led by it is never read by slicing: its seat and its lines are read
    by their patterns, and hold one string all the same."""
    text = "\n".join(HEADER + ["Seat 3: Seat (100 in chips)", "Seat: posts the ante 1", "Ana: posts the ante 1",
                               "Seat: folds"]) + "\n"
    parser = _fresh_parser()
    for _ in range(2):
        hand = _outcome(parser, next(iter(read_text_blocks(text, "t.txt"))))
        assert isinstance(hand, model.Hand) and [item.player for item in hand.body] == ["Seat", "Ana", "Seat"]
        assert hand.body[0].player is hand.body[2].player is hand.seats[2].player


def test_the_names_are_forgotten_only_with_the_lines_that_hold_them() -> None:
    """Past ``MEMO_SIZE`` names the parser forgets its names and its remembered lines together, between blocks: a
    player's remembered lines never hold another string than the one his seat is read with."""
    parser = _fresh_parser()
    text = "\n".join(HEADER + _PLAYED) + "\n"
    _outcome(parser, next(iter(read_text_blocks(text, "t.txt"))))
    parser.names.update({f"P{i}": f"P{i}" for i in range(house_quick.MEMO_SIZE)})
    assert "Ana: bets 2" in parser.memo
    hand = _outcome(parser, next(iter(read_text_blocks(text, "t.txt"))))
    assert _hold_the_seats_strings(hand) == 17
    assert len(parser.names) < 10 and "P1" not in parser.names


def test_a_site_hands_lines_hold_their_seats_strings() -> None:
    blocks = [block for path in sorted((FIXTURES / "site").glob("*.txt"))[:40] for block in read_blocks(path)]
    hands = [hand for hand in map(dispatch.parse_block, blocks) if isinstance(hand, model.Hand)]
    assert len(hands) > 20
    for hand in hands:
        own = {seat.player: seat.player for seat in hand.seats}
        for item in hand.body:
            name = getattr(item, "player", None)
            if name in own:
                assert name is own[name], item


# ---- the hand read without the tables' loop ------------------------------------------------------------------

def _altered(rng: random.Random, block: RawBlock) -> RawBlock:
    """The block with one to three of its lines dropped, doubled, swapped or altered (a character inserted, deleted
    or replaced), at its own line numbers (and further ones for lines added)."""
    lines = list(block.lines)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(lines))
        what = rng.random()
        if what < 0.25 and len(lines) > 1:
            del lines[at]
        elif what < 0.5:
            lines.insert(at, lines[rng.randrange(len(lines))])
        elif what < 0.75:
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        else:
            line = lines[at]
            spot = rng.randint(0, len(line))
            lines[at] = line[:spot] + rng.choice(" \t[]():-.#0123456789²xAsT美") + line[spot + rng.randint(0, 1):]
    lines = [line for line in lines if line and "\n" not in line] or ["x"]
    numbers = block.numbers[:len(lines)] + list(range(9000, 9000 + len(lines) - len(block.numbers)))
    return RawBlock(block.file, block.kind, lines, numbers)


def _read_without_the_loop(blocks: list[RawBlock], altered_each: int, seed: int) -> None:
    rng = random.Random(seed)
    fresh = _fresh_parser()
    read = sum(1 for block in blocks if fresh.read_hand(block.lines, block.numbers, block.file) is not None)
    assert read > len(blocks) // 2  # (it does read the usual hands itself)
    altered = [_altered(rng, block) for block in blocks for _ in range(altered_each)]
    assert _compare(blocks + altered) > 1000
    failures = sum(1 for block in altered if isinstance(_outcome(_plain_parser(), block, text=True), tuple))
    assert failures > len(altered) // 4  # (the alterations do reach the failures)


def test_hands_read_without_the_tables_loop_are_what_the_loop_reads() -> None:
    """``read_hand`` (the usual hand, its lines where the grammar puts them) against the tables' loop reading every
    line by its pattern, on the fixtures' hands and on those hands with lines dropped, doubled, swapped or
    altered: the same value or the same failure, warm or cold."""
    blocks = [block for block in _blocks(sorted((FIXTURES / "house").glob("*.txt"))
                                         + sorted((FIXTURES / "demo").glob("*.txt"))) if block.kind == "house"]
    assert len(blocks) > 20
    _read_without_the_loop(blocks, 30, 31)


@needs_shared
def test_shared_hands_read_without_the_tables_loop_are_what_the_loop_reads() -> None:
    blocks = [block for block in _blocks(sorted(SHARED.glob("cases/*/*.txt"))) if block.kind == "house"]
    assert len(blocks) > 300
    _read_without_the_loop(blocks, 3, 32)


def test_patterns_are_compiled_when_first_needed() -> None:
    """A usual hand needs no pattern; an odd line compiles the patterns it is tried against, whose groups are
    checked then (a grammar whose groups moved is refused at its first such line)."""
    tables = house_tables.stored_tables()
    assert tables is not None
    parser = house_parser.LineParser(tables)
    lines = HEADER + ["Ana: posts the ante 1", "Beto: posts the ante 1", "*** DEALING HANDS ***",
                      "Dealt to Ana [As Kd 5c 4s 2d]", "Ana: folds", "Beto collected 2 from pot"]
    block = next(iter(read_text_blocks("\n".join(lines) + "\n", "t.txt")))
    assert isinstance(_outcome(parser, block), model.Hand)
    assert parser.compiled == [None] * len(house_lines.TERMINALS)
    odd = next(iter(read_text_blocks("\n".join(lines + ["Ana: is connected"]) + "\n", "t.txt")))
    hand = _outcome(parser, odd)
    assert isinstance(hand, model.Hand) and hand == _outcome(_plain_parser(), odd, text=True)
    assert [code for code, pattern in enumerate(parser.compiled) if pattern is not None] == [
        house_lines.TERMINAL_CODE["EVENT"]]
    moved = dict(tables)
    moved["terminals"] = [[name, pattern.replace("(?P<n>\\d+)\\) returned to +(?P<name>[\\w\\-.']+)",
                                                 "(?P<name>\\d+)\\) returned to +(?P<n>[\\w\\-.']+)")]
                          for name, pattern in tables["terminals"]]
    assert moved["terminals"] != tables["terminals"]
    with pytest.raises(ValueError, match="UNCALLED"):
        house_parser.LineParser(moved).pattern(house_lines.TERMINAL_CODE["UNCALLED"])
