"""The fast loop's shortcuts give what the plain ways give: its line classifier what ``classify`` decides, its
results what Lark's own parser builds, also on lines that only just fit (or just miss) a terminal."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit.dialects import common, house, house_lines, house_parser, house_tables, house_lark
from audit.model import Hand, ParseFailure, Preamble, SessionEnd
from audit.read import RawBlock, read_blocks, read_text_blocks
from audit.resources import data_dir
from conftest import at_least, FIXTURES, SHARED, needs_shared

HEADER = ["Hand #7 - 2026/11/28 21:04:00", "Table 'Casa' Seat #1 is the button", "Seat 1: Ana (100 in chips)",
          "Seat 2: Beto (100 in chips)"]

# Lines near the edges of the first-word classification: names that are keywords or digits, doubled spaces,
# tabs and other whitespace between the first words, cards with '10', brackets inside brackets.
TRICKY = [
    "Session: folds", "Profile: checks", "Option: a = b", "Deck: folds", "Deck: [As Kd]", "Deck:[As Kd]",
    "Dealer: folds", "Dealer: reshuffles [As 10d]", "Hand: folds", "Seat: bets 2", "Dealt collected 10 from pot",
    "Total said, \"hi\"", "Uncalled scores 2 points", "12: folds", "1: Ana (100)", "²: folds", "1²: folds",
    ":: folds", ": folds", "Ana:  folds", "Ana:\tfolds", "Ana\t: folds", "\x0cAna: folds", "Ana: folds\x0b",
    "Ana  collected 10 from pot", "Ana collected  10 from pot", "Ana\tcollected 10 from pot",
    "Ana\u00a0collected 10 from pot", "Ana: raises 2  to 4", "Ana: bets 0010", "Ana: calls 3 and is all-in (took 2s)",
    "Ana: discards 1 card", "Ana: discards 2 cards [As [Kd] (took 1.5s)", "Dealt to Ana [As [Kd] [Qs]",
    "Dealt to Ana [As 10d]  [10s]", "Dealt to  Ana [As]", "Ana said, \"hi there\"", "Ana scores 1 point",
    "Ana: is played by the house", "Ana: stands pat (timed out) (took 3.5s)", "Ana: shows [As 10d] (two (pair))",
    "Ana: mucks hand", "Ana: offers parole", "Ana: accepts parole (took 1s)", "Ana collected 5 from side pot-2",
    "Ana collected 5 from pot (parole)", "Ana collected 5 from main pot", "Ana: posts big blind 2 and is all-in",
    "Ana: waits for the over blind", "Ana: sits out", "Ana:", "Ana", "***", "*** DRAW ***", "*** SESSION END ***",
    "*** DRAW", "Pot carried over: 5", "Pot carried over:5", "Total pot 5 | Rake 0", "Uncalled bet (5) returned to Ana",
    "Seat 3:  Cleo (5 points) is sitting out", "Table 'x' Seat #1 is the button", "Hand #8 - 2026/11/28 21:05",
    "Ana: folds (timed out)", "Ana: bets", "Ana: checks 2", "", "#", "Ana: folds extra",
]


def _lines() -> list[str]:
    lines = list(TRICKY)
    for path in at_least(3, sorted((FIXTURES / "house").glob("*.txt"))):
        for block in read_blocks(path):
            lines.extend(block.lines)
    return lines


@pytest.mark.parametrize("line", _lines())
def test_fast_classifier_agrees_with_classify(line: str) -> None:
    parser = house_parser.house_line_parser()
    text = line + "\n"
    code, m = house_lines.fast_line(text, 0, len(line), parser.patterns)
    try:
        name, _, slow, _ = house_lines.classify(text, 0, len(text), 1, parser.patterns_by_name)
    except common.LineError:
        assert code == -1
        return
    if code >= 0:  # the shortcut may pass a line on to classify, never decide it otherwise
        assert house_lines.TERMINALS[code] == name
        assert m is not None and m.span() == slow.span() and m.groups() == slow.groups()


@pytest.mark.parametrize("line", TRICKY)
def test_tricky_line_in_a_hand_parses_as_larks_parser_does(line: str) -> None:
    block = next(iter(read_text_blocks("\n".join(HEADER + ["Ana: posts the ante 1", line]) + "\n", "t.txt")))
    fast = house.parse_house_block(block)
    lark = house_lark.house_parser()
    house_lark._HOUSE_BUILDER.numbers = block.numbers
    try:
        slow = lark.parse(block.text(), start="hand")
    except Exception:
        assert isinstance(fast, ParseFailure)
        return
    assert isinstance(fast, Hand) and fast == slow._replace(file="t.txt")
    assert [type(i) for i in fast.body] == [type(i) for i in slow.body]


def test_preamble_and_session_end_agree_with_larks_parser() -> None:
    lark = house_lark.house_parser()
    for text, start, kind in [("Session: s\nProfile: p\nOption: a = b\nSession: folds\n", "preamble", Preamble),
                              ("*** SESSION END ***\n1: Ana (150)\n2: Beto (50)\n", "session_end", SessionEnd),
                              ("*** SESSION END ***\n", "session_end", SessionEnd)]:
        block = next(iter(read_text_blocks(text)))
        fast = house.parse_house_block(block)
        house_lark._HOUSE_BUILDER.numbers = block.numbers
        assert type(fast) is kind and fast == lark.parse(block.text(), start=start)


@needs_shared
def test_every_shared_case_agrees_with_larks_parser_all_kinds() -> None:
    lark = house_lark.house_parser()
    starts = {"house": "hand", "preamble": "preamble", "session_end": "session_end"}
    seen = set()
    for path in sorted(SHARED.glob("cases/*/*.txt")):
        for block in read_blocks(path):
            if block.kind not in starts or block.too_long:
                continue
            fast = house.parse_house_block(block)
            if isinstance(fast, ParseFailure):
                continue
            house_lark._HOUSE_BUILDER.numbers = block.numbers
            slow = lark.parse(block.text(), start=starts[block.kind])
            assert fast == (slow._replace(file=block.file) if isinstance(slow, Hand) else slow)
            seen.add(block.kind)
    assert seen == set(starts)


def test_a_grammar_whose_groups_moved_is_refused() -> None:
    moved = {"UNCALLED": re.compile(r"Uncalled bet \((?P<name>\w+)\) returned to +(?P<n>\d+) *\n")}
    with pytest.raises(ValueError, match="UNCALLED"):
        house_lines.check_groups(moved)
    house_lines.check_groups({"UNCALLED": re.compile(r"Uncalled bet \((?P<n>\d+)\) returned to +(?P<name>\w+) *\n")})


def test_a_block_of_no_lines_is_a_failure() -> None:
    assert isinstance(house.parse_house_block(RawBlock("f", "house")), ParseFailure)


def test_the_stored_tables_are_the_grammars_as_it_is() -> None:
    """``grammar/house.tables.json`` was built from ``grammar/house.lark`` as it is now: else every check would
    start by having Lark build the tables (run ``make tables`` after changing the grammar)."""
    assert house_tables.stored_tables() is not None, "the grammar changed since its tables were stored: run `make tables`"


@needs_shared
def test_the_stored_tables_parse_every_block_as_larks_tables_do() -> None:
    """The parser on the stored tables and the parser on the tables Lark builds now give the same result for
    every block of the fixtures and the shared cases, failures (line, column, message) included."""
    stored = house_tables.stored_tables()
    assert stored is not None
    fresh = house_lark.grammar_tables(house_lark.house_parser())
    parsers = [house_parser.LineParser(stored), house_parser.LineParser(fresh)]
    starts = {"house": "hand", "preamble": "preamble", "session_end": "session_end"}
    compared = 0
    for path in sorted(SHARED.glob("cases/*/*.txt")) + sorted(FIXTURES.glob("*/*.txt")):
        for block in read_blocks(path):
            if block.kind not in starts or block.too_long:
                continue
            results = []
            for parser in parsers:
                try:
                    results.append(parser.parse(block.text(), starts[block.kind], block.numbers, block.file))
                except (common.LineError, house_parser.Misplaced) as exc:
                    results.append((type(exc).__name__, exc.args, vars(exc)))
            assert results[0] == results[1], (path, block.numbers[0])
            compared += 1
    assert compared > 1000


def test_tables_stored_for_another_grammar_are_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A grammar edited since its tables were stored: the tables are ignored, Lark builds them from the grammar
    as it is, and the parse is right."""
    folder = tmp_path / "grammar"
    shutil.copytree(data_dir("grammar"), folder)
    grammar = folder / "house.lark"
    grammar.write_text(grammar.read_text(encoding="utf-8") + "\n// edited\n", encoding="utf-8")
    monkeypatch.setattr(house_tables, "data_dir", lambda name: folder)
    monkeypatch.setattr(house_lark, "data_dir", lambda name: folder)
    assert house_tables.stored_tables() is None
    house_parser.house_line_parser.cache_clear()
    try:
        block = next(iter(read_text_blocks("\n".join(HEADER + ["Ana: posts the ante 1"]) + "\n", "t.txt")))
        hand = house.parse_house_block(block)
        assert isinstance(hand, Hand) and [s.player for s in hand.seats] == ["Ana", "Beto"]
        assert house_lark.write_tables(folder) == folder / house_tables.TABLES
        stored = house_tables.stored_tables()
        assert stored is not None and "// edited" in stored["grammar"]
    finally:
        house_parser.house_line_parser.cache_clear()


@needs_shared
def test_a_check_neither_imports_lark_nor_builds_the_grammar() -> None:
    code = ("import sys\nfrom audit.cli import main\n"
            "try:\n    main(['check', sys.argv[1], '--jobs', '1'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m == 'lark' or m.startswith('lark.')))")
    run = subprocess.run([sys.executable, "-c", code, str(SHARED / "cases" / "edge" / "odd-chip-three-way.txt")],
                         capture_output=True, text=True)
    assert "1 hand checked" in run.stdout, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]"
