"""The house parser's sliced readers against its patterns on lines mutated at random (a fixed seed, a bounded
count): whatever line ``quick_line`` accepts, its terminal and value (types included) are what the line's
pattern and builder give. The mutations (a character inserted, deleted or replaced, one to three times) aim at
the readers' edges: spaces and tabs, brackets, non-ASCII digits and letters, a carriage return."""

from __future__ import annotations

import random
from pathlib import Path

import re

from audit.dialects import house_build, house_lines, house_parser, house_quick
from audit.dialects.common import LineError, NumberTooLarge
from conftest import at_least

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fixtures" / "demo"
ALPHABET = " \t[]()#:-./'0123456789²٣xAsKdT10\u00a0美\r"


def _lines() -> list[str]:
    lines: list[str] = []
    for path in at_least(1, sorted(CORPUS.glob("*.txt"))) + at_least(3, sorted((ROOT / "fixtures" / "house").glob("*.txt"))):
        lines.extend(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return lines


def _mutate(rng: random.Random, line: str) -> str:
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(line))
        what = rng.random()
        if what < 0.35:
            line = line[:at] + rng.choice(ALPHABET) + line[at:]
        elif what < 0.7 and line:
            line = line[:at] + line[at + 1:]
        elif line:
            line = line[:at] + rng.choice(ALPHABET) + line[at + 1:]
    return line


def _by_pattern(text: str, patterns: list[re.Pattern[str]]) -> tuple[int, object] | None:
    code, m = house_lines.fast_line(text, 0, len(text) - 1, patterns)
    if code < 0:
        try:
            name, _, m, _ = house_lines.classify(text, 0, len(text), 1, {n: patterns[house_lines.TERMINAL_CODE[n]]
                                                                  for n in house_lines.TERMINAL_CODE if n != "$END"})
        except LineError:
            return None
        code = house_lines.TERMINAL_CODE[name]
    assert m is not None
    try:
        return code, house_build.token_value(code, m, 17)
    except NumberTooLarge:
        return None


def test_mutated_lines_read_by_slicing_are_what_their_patterns_read() -> None:
    rng = random.Random(20261202)
    patterns = house_parser.house_line_parser().patterns
    names: dict[str, str] = {}
    lines = _lines()
    read = 0
    for _ in range(30_000):
        line = _mutate(rng, rng.choice(lines))
        if "\n" in line:
            continue
        text = line + "\n"
        kind, value = house_quick.quick_line(line, 17, names)
        if kind < 0:
            continue
        expected = _by_pattern(text, patterns)
        assert expected is not None, line
        assert (kind, value) == expected, line
        assert [type(v) for v in value] == [type(v) for v in expected[1]], line  # type: ignore[attr-defined]
        read += 1
    assert read > 1_000
