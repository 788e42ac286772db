"""Property-based fuzzing of the reader and the engine: whatever a log holds, the audit ends in findings or in a
clear ``AuditError`` — never another exception, never a hang, never memory that grows with the file.

Seeds are the legal sessions of ``shared/cases/generated/clean-*.txt``. Examples are bounded so that the whole
file runs in well under a minute; ``bench/fuzz.py`` is the long run of the same idea.
"""

from __future__ import annotations

import codecs
import gc
import importlib.util
import io
import itertools
import json
import random
import re
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import audit.read as read_module
from audit.cli import main
from audit.errors import AuditError
from audit.findings import Finding
from audit.dialects.common import MAX_NUMBER_DIGITS
from audit.dialects.dispatch import parse_block
from audit.model import OptionLine, Preamble, ProfileLine, SessionLine
from audit.pipeline import audit_blocks, audit_file
from audit.profile import Profile, load_profile
from audit.read import MAX_BLOCK_LINES, RawBlock, iter_lines, read_blocks, read_text_blocks, split_blocks
from audit.rules import SEVERITY_RANK, Rule
from casejudge import CheckedTogether, cases_in, expectation, judge

from conftest import needs_shared

SHARED = Path(__file__).resolve().parents[2] / "shared"
SEED_FILES = sorted((SHARED / "cases" / "generated").glob("clean-*.txt"))
SEEDS = [f.read_text(encoding="utf-8") for f in SEED_FILES]
SEED_LINES = [s.split("\n") for s in SEEDS]
ALL_LINES = sorted({line for lines in SEED_LINES for line in lines})
RULE_IDS = {r.value for r in Rule}
PROFILES = {name: load_profile(name) for name in ("home-open", "qdan", "stripped32")}
HOME = PROFILES["home-open"]

ENGINE_STOPPED = "the replay stopped at an unexpected situation"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fuzz"

FUZZ = settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.data_too_large])


@needs_shared
def test_there_are_seeds() -> None:
    assert len(SEEDS) >= 5, f"no clean-*.txt seed logs under {SHARED / 'cases' / 'generated'}"


# ---- the oracle -------------------------------------------------------------------------------------------

def check_finding(f: Finding) -> None:
    """A finding a user can read: a known rule, a severity, a line, and JSON that serialises."""
    assert f.rule in RULE_IDS, f
    assert f.severity in SEVERITY_RANK, f
    assert isinstance(f.line, int) and f.line >= 0, f
    assert isinstance(f.message, str) and f.message, f
    # the pipeline turns an exception inside the replay into a finding (so the other hands are audited): a bug
    assert ENGINE_STOPPED not in f.message, f
    json.dumps(f.as_dict(), ensure_ascii=False)


def audit_all(blocks: Iterator[RawBlock], profile: Profile = HOME) -> list[Finding]:
    """Every finding of the blocks; an ``AuditError`` (a clear 'cannot run') is an allowed end, anything else
    fails the test with its traceback."""
    out: list[Finding] = []
    try:
        for audited in audit_blocks(blocks, profile):
            for f in audited.findings:
                check_finding(f)
                out.append(f)
    except AuditError as exc:
        assert str(exc), "an AuditError must say why"
    return out


def audit_text(text: str, profile: Profile = HOME) -> list[Finding]:
    return audit_all(read_text_blocks(text, "<fuzz>"), profile)


def audit_bytes(data: bytes, profile: Profile = HOME) -> list[Finding]:
    try:
        blocks = list(split_blocks(iter_lines(io.BytesIO(data), "<fuzz>"), "<fuzz>"))
    except AuditError as exc:
        assert "<fuzz>" in str(exc), "a reading error names the file"
        return []
    return audit_all(iter(blocks), profile)


# ---- random bytes and random text ---------------------------------------------------------------------------

BOMS = st.sampled_from([b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE])


@FUZZ
@given(BOMS, st.binary(max_size=3000))
def test_random_bytes(bom: bytes, data: bytes) -> None:
    audit_bytes(bom + data)


@needs_shared
@FUZZ
@given(st.integers(0, len(SEEDS) - 1), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)),
                                                max_size=8),
       st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
def test_valid_log_with_flipped_bytes(seed: int, flips: list[tuple[int, int]], codec: str) -> None:
    data = bytearray(SEEDS[seed].encode(codec))
    for pos, value in flips:
        data[pos % len(data)] = value
    audit_bytes(bytes(data))


@FUZZ
@given(st.text(max_size=2000))
def test_random_text(text: str) -> None:
    audit_text(text)


@needs_shared
@FUZZ
@given(st.lists(st.sampled_from(ALL_LINES) | st.text(max_size=80), max_size=120),
       st.sampled_from(sorted(PROFILES)))
def test_random_lines_of_real_logs(lines: list[str], profile: str) -> None:
    audit_text("\n".join(lines), PROFILES[profile])


# ---- mutations of valid logs ----------------------------------------------------------------------------------

EDIT = st.tuples(st.sampled_from(["delete", "duplicate", "swap", "move", "repeat", "truncate", "delete-run"]),
                 st.integers(0, 10 ** 6), st.integers(0, 10 ** 6))


def edit_lines(lines: list[str], edits: list[tuple[str, int, int]]) -> list[str]:
    lines = list(lines)
    for op, a, b in edits:
        if not lines:
            break
        i, j = a % len(lines), b % len(lines)
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(j, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "move":
            lines.insert(j, lines.pop(i))
        elif op == "repeat":  # deeply repeated lines, past the block limit now and then
            lines[i:i] = [lines[i]] * (b % (MAX_BLOCK_LINES + 200))
        elif op == "truncate":  # the log cut off, in the middle of a line
            lines = lines[:i] + [lines[i][: b % (len(lines[i]) + 1)]]
        else:
            del lines[i:i + 1 + b % 40]
    return lines


@needs_shared
@FUZZ
@given(st.integers(0, len(SEEDS) - 1), st.lists(EDIT, min_size=1, max_size=6), st.sampled_from(sorted(PROFILES)))
def test_line_deletions_duplications_swaps(seed: int, edits: list[tuple[str, int, int]], profile: str) -> None:
    audit_text("\n".join(edit_lines(SEED_LINES[seed], edits)), PROFILES[profile])


HUGE = st.sampled_from(["0", "1", "10" + "0" * 29, str(2 ** 63), str(2 ** 64 + 1), "9" * MAX_NUMBER_DIGITS,
                        "9" * (MAX_NUMBER_DIGITS + 1), "9" * 4301, "007", "٣"])
NAME = st.sampled_from(["Ana", "Beto", "José", "O'Neil", "a.b-c_d", "東京", "N" * 100_000, "Hand", "Dealer",
                        "Seat", "Total", "x"])
_NUM = re.compile(r"\d+")
_NAME_AT_START = re.compile(r"^(?:Dealt to |Seat \d+: |Uncalled bet \(\d+\) returned to )?([^\s:]+)")


@needs_shared
@FUZZ
@given(st.integers(0, len(SEEDS) - 1), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 50), HUGE),
                                                min_size=1, max_size=5))
def test_absurd_numbers(seed: int, changes: list[tuple[int, int, str]]) -> None:
    """10^30 chips, seats and counts; 100 digits (the most read), 101 and 4,301 (refused as PARSE_ERROR)."""
    lines = list(SEED_LINES[seed])
    for at, which, number in changes:
        i = at % len(lines)
        nums = list(_NUM.finditer(lines[i]))
        if nums:
            m = nums[which % len(nums)]
            lines[i] = lines[i][:m.start()] + number + lines[i][m.end():]
    audit_text("\n".join(lines))


@needs_shared
@settings(FUZZ, max_examples=60)
@given(st.integers(0, len(SEEDS) - 1), st.lists(st.tuples(st.integers(0, 10 ** 6), NAME), min_size=1,
                                                max_size=3))
def test_names_swapped_and_huge(seed: int, changes: list[tuple[int, str]]) -> None:
    """Players renamed everywhere (100 KB names, names that look like keywords), or on one line only."""
    text = SEEDS[seed]
    lines = text.split("\n")
    for at, name in changes:
        line = lines[at % len(lines)]
        m = _NAME_AT_START.match(line)
        if m is None or m.group(1) in ("Hand", "Table", "***", "Total", "Session:", "Profile:", "Option:", "#"):
            continue
        if at % 2:
            text = text.replace(m.group(1), name)
        else:
            text = text.replace(line, line.replace(m.group(1), name, 1), 1)
    audit_text(text)


# ---- hands built line by line from the format's own vocabulary -------------------------------------------------

PLAYERS = ["Ana", "Beto", "Carla", "Dario", "Eva"]
P = st.sampled_from(PLAYERS)
N = st.integers(0, 120) | st.sampled_from([10 ** 30, 2 ** 64, 99999])
CARD = st.sampled_from([r + s for r in "23456789TJQKA" for s in "cdhs"] + ["Jk", "10h", "Xx", "1s"])
POSTS = st.sampled_from(["the ante", "small blind", "big blind", "over blind", "live blind", "dead blind"])
EVENTS = st.sampled_from(["is disconnected", "is connected", "is played by the house", "sits out",
                          "waits for the over blind"])
CARDS = st.lists(CARD, max_size=7).map(lambda cs: "[" + " ".join(cs) + "]")


@st.composite
def body_line(draw: st.DrawFn) -> str:
    p, n, m = draw(P), draw(N), draw(N)
    kind = draw(st.integers(0, 21))
    tail = draw(st.sampled_from(["", " and is all-in", " (timed out)", " (took 3s)", " (took 99999.5s)"]))
    return [
        f"{p}: posts {draw(POSTS)} {n}{tail}",
        f"{p}: folds{tail}", f"{p}: checks{tail}", f"{p}: calls {n}{tail}", f"{p}: bets {n}{tail}",
        f"{p}: raises {n} to {m}{tail}",
        "*** " + draw(st.sampled_from(["DEALING HANDS", "FIRST BETTING ROUND", "DRAW", "SECOND BETTING ROUND",
                                       "SHOW DOWN", "SUMMARY", "REDEAL"])) + " ***",
        f"Deck: {draw(st.lists(CARD, max_size=60).map(lambda cs: '[' + ' '.join(cs) + ']'))}",
        f"Dealt to {p} {draw(CARDS)}", f"Dealt to {p} {draw(CARDS)} {draw(CARDS)}",
        f"{p}: discards {n} card{'s' if n != 1 else ''} {draw(CARDS)}{tail}", f"{p}: stands pat{tail}",
        f"Dealer: reshuffles {draw(CARDS)}",
        f"{p}: shows {draw(CARDS)}" + draw(st.sampled_from(["", " (a pair of Aces)", " (high card Ace)"])),
        f"{p}: mucks hand",
        f"{p} collected {n} from " + draw(st.sampled_from(["pot", "main pot", "side pot-1", "side pot-2",
                                                          "pot (parole)"])),
        f"Uncalled bet ({n}) returned to {p}",
        f"{p}: {draw(st.sampled_from(['offers', 'accepts', 'declines']))} parole",
        f"{p} scores {n} point{'s' if n != 1 else ''}", f"Total pot {n} | Rake {m}",
        f"{p}: {draw(EVENTS)}",
        f"{p} said, \"gg\"",
    ][kind]


@st.composite
def hand_text(draw: st.DrawFn, hand_id: int) -> str:
    seats = draw(st.lists(st.tuples(st.integers(1, 12), P, N, st.booleans()), min_size=1, max_size=7))
    points = draw(st.booleans()) and draw(st.booleans())
    lines = [f"Hand #{hand_id} - 2026/11/28 21:{hand_id % 60:02d}:00",
             f"Table 'Casa' Seat #{draw(st.integers(0, 12))} is the button"]
    for seat, player, chips, out in seats:
        lines.append(f"Seat {seat}: {player} ({chips} {'points' if points else 'in chips'})"
                     + (" is sitting out" if out and draw(st.booleans()) else ""))
    if draw(st.booleans()) and draw(st.booleans()):
        lines.append(f"Pot carried over: {draw(N)}")
    lines.extend(draw(st.lists(body_line(), max_size=40)))
    return "\n".join(lines)


PREAMBLE = st.lists(st.sampled_from(
    ["Profile: qdan", "Profile: stripped32", "Profile: home-open", "Option: all-check = redeal",
     "Option: openers = jacks", "Option: draw-limit = 3+ace", "Option: mode = points", "Option: parole = yes",
     "Option: betting = fixed-limit", "Option: blinds = three", "Option: joker = wild", "Option: raise-cap = 0",
     "Option: min-bet = 0", "Option: bet-unit = 0", "Option: ante = 0", "Option: session-hands = 0",
     "Option: starting-chips = any", "Option: reshuffle = stub-first", "Option: players = 2-1000",
     "Option: time-limit = 0", "Option: second-round-starts = opener", "Option: show-first-no-bet = first-to-act"]),
    max_size=4)


@settings(FUZZ, max_examples=60)
@given(st.booleans(), PREAMBLE, st.integers(1, 4).flatmap(
    lambda k: st.tuples(*[hand_text(i + 1) for i in range(k)])), st.booleans())
def test_hands_built_from_the_format(session: bool, preamble: list[str], hands: tuple[str, ...],
                                     ended: bool) -> None:
    parts = []
    if session or preamble:
        parts.append("\n".join((["Session: fuzz"] if session else []) + preamble))
    parts.extend(hands)
    if ended:
        parts.append("*** SESSION END ***\n1: Ana (100)\n2: Beto (0)")
    audit_text("\n\n".join(parts))


# ---- the reader: chunk boundaries, line ends, agreement of the file and text paths -----------------------------

@settings(deadline=None, max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("ab\r\n é€😀#\t\x85\x0c\u2028")), max_size=80),
       st.integers(1, 9), st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le"]), st.integers(0, 40))
def test_reader_lines_do_not_depend_on_chunk_boundaries(text: str, chunk: int, codec: str, shift: int) -> None:
    """Lines (LF, CRLF or CR ends; nothing else ends a line) come out the same whatever the chunk size."""
    text = "x" * (2030 + shift) + "\r" + text  # so that the 4 KB sniffing read ends inside the interesting part
    if codec == "utf-16-le":
        text = "\ufeff" + text  # with its BOM (without one, it is refused)
    want = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if want[-1] == "":
        want.pop()
    old = read_module._CHUNK_BYTES
    read_module._CHUNK_BYTES = chunk
    try:
        got = list(iter_lines(io.BytesIO(text.encode(codec)), "x"))
    finally:
        read_module._CHUNK_BYTES = old
    assert got == want


@needs_shared
@settings(deadline=None, max_examples=40)
@given(st.integers(0, len(SEEDS) - 1), st.lists(EDIT, max_size=4), st.sampled_from(["\n", "\r\n", "\r"]),
       st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
def test_file_and_text_paths_agree(seed: int, edits: list[tuple[str, int, int]], newline: str, codec: str) -> None:
    lines = edit_lines(SEED_LINES[seed], edits)
    assume(all(len(x) < 9000 for x in lines))
    text = "\n".join(lines)
    from_text = audit_all(read_text_blocks(text, "f"))
    from_file = audit_all(split_blocks(iter_lines(io.BytesIO(text.replace("\n", newline).encode(codec)), "f"), "f"))
    assert from_file == from_text


# ---- scale: many seats, huge names, repeated lines ----------------------------------------------------------------

def first_hand() -> str:
    return SEEDS[0].split("\n\n")[1]


def timed_audit(text: str, limit: float) -> list[Finding]:
    start = time.monotonic()
    findings = audit_text(text)
    took = time.monotonic() - start
    assert took < limit, f"took {took:.1f} s"
    return findings


@needs_shared
def test_ten_thousand_seats() -> None:
    seats = "\n".join(f"Seat {i}: P{i} (100 in chips)" for i in range(1, 10_001))
    hand = first_hand().replace("Seat 1: Carla (100 in chips)", seats)
    findings = timed_audit(hand, 20)
    assert [f.rule for f in findings] == ["PARSE_ERROR"]  # longer than MAX_BLOCK_LINES
    assert f"{MAX_BLOCK_LINES:,} lines" in findings[0].message


@needs_shared
def test_seat_ten_thousand_and_a_table_as_big_as_a_hand_may_be() -> None:
    hand = first_hand().replace("Seat 3:", "Seat 10000:").replace("Seat #1", "Seat #10000")
    timed_audit(hand, 20)
    seats = "\n".join(f"Seat {i}: P{i} (100 in chips)" for i in range(4, 1_800))
    big = first_hand().replace("Seat 3: Tere (100 in chips)", "Seat 3: Tere (100 in chips)\n" + seats)
    rules = {f.rule for f in timed_audit(big, 30)}
    assert "PARSE_ERROR" not in rules and rules


@needs_shared
def test_hundred_kilobyte_names() -> None:
    name = "N" * 100_000
    findings = timed_audit(first_hand().replace("Tere", name), 20)
    assert all(f.rule != "PARSE_ERROR" for f in findings)
    timed_audit(first_hand().replace("Tere: bets 2", f"{name}: bets 2"), 20)  # an unknown player


@needs_shared
@pytest.mark.parametrize("line", ["Tere: bets 2", "*** DRAW ***", "Dealt to Tere [Th 3c 2c 2s Qh]",
                                  "Carla collected 16 from pot", "Tere said, \"hi\"", "# comment", "garbage"])
def test_deeply_repeated_lines(line: str) -> None:
    hand = first_hand()
    for times in (MAX_BLOCK_LINES - 40, 20 * MAX_BLOCK_LINES):
        timed_audit(hand.replace("*** DRAW ***", "*** DRAW ***\n" + "\n".join([line] * times), 1), 30)


@needs_shared
def test_many_sessions_and_session_ends() -> None:
    hand = first_hand()
    text = "\n\n".join(f"Session: s{i}\n\n{hand}\n\n*** SESSION END ***\n1: Carla (108)" for i in range(300))
    timed_audit(text, 30)


# ---- streaming: one hand at a time -------------------------------------------------------------------------------

def endless_blocks() -> Iterator[RawBlock]:
    hand = first_hand()
    for i in itertools.count():
        yield from read_text_blocks(hand.replace("#4501", f"#{i}"), "endless")


@needs_shared
def test_audit_is_lazy_over_an_endless_file() -> None:
    """Results come out while blocks are still coming in: nothing waits for the end of the file."""
    out = list(itertools.islice(audit_blocks(endless_blocks(), HOME), 50))
    assert len(out) == 50


@needs_shared
def test_reader_is_lazy_over_an_endless_stream() -> None:
    class Endless(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, b: memoryview) -> int:  # type: ignore[override]
            chunk = (first_hand() + "\n\n").encode()
            n = min(len(b), len(chunk))
            b[:n] = chunk[:n]
            return n

    blocks = split_blocks(iter_lines(io.BufferedReader(Endless()), "endless"), "endless")
    assert len(list(itertools.islice(blocks, 20))) == 20


@pytest.mark.slow
@needs_shared
def test_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    """Auditing a file hand after hand retains nothing per hand: the memory in use after hand 1,000 is what it
    was after hand 400 (measured after a collection, so that free lists and garbage do not count)."""
    path = tmp_path / "many.txt"
    path.write_text("\n\n".join(SEEDS[0].replace("Session: ", f"Session: {i}-") for i in range(520)),
                    encoding="utf-8")
    used: dict[int, int] = {}
    try:
        for i, audited in enumerate(audit_file(str(path), HOME), start=1):
            del audited
            if i == 200:  # caches (parser, profiles, rankings) warm by now
                gc.collect()
                tracemalloc.start()
            elif i in (400, 1000):
                gc.collect()
                used[i] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(used) == 2
    assert used[1000] - used[400] < 50_000, used  # under 85 bytes a hand: one leaked object a hand fails


@pytest.mark.slow
@needs_shared
def test_read_blocks_of_a_file_holds_one_block(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("\n\n".join([first_hand()] * 2000), encoding="utf-8")
    gc.collect()
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_blocks(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 2000
    assert peak < 2_000_000, peak  # the file is ~1.6 MB; the reader holds a 64 KB chunk and one block


# ---- through the command ---------------------------------------------------------------------------------------

@needs_shared
@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(SEEDS) - 1), st.lists(EDIT, max_size=5), st.binary(max_size=40),
       st.sampled_from(["text", "json"]))
def test_cli_exit_status_on_mangled_files(tmp_path: Path, seed: int, edits: list[tuple[str, int, int]],
                                          junk: bytes, fmt: str) -> None:
    data = "\n".join(edit_lines(SEED_LINES[seed], edits)).encode() + junk
    path = tmp_path / "mangled.txt"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["check", str(path), "--format", fmt])
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code == 2:
        assert str(path) in result.stderr
    elif fmt == "json":
        for line in result.stdout.splitlines():
            assert json.loads(line)["rule"] in RULE_IDS


# ---- inputs the long fuzz run (bench/fuzz.py) found ---------------------------------------------------------

FUZZ_CASES = cases_in(FIXTURES, at_least=3)
FUZZ_CHECKED = CheckedTogether(FUZZ_CASES)


def test_there_are_fuzz_fixtures() -> None:
    assert len(FUZZ_CASES) >= 3


@pytest.mark.parametrize("case", FUZZ_CASES, ids=[c.stem for c in FUZZ_CASES])
def test_fuzz_finds_end_in_findings(case: Path) -> None:
    """Each input the long run found, through the CLI: its expected findings, and no replay stopped on it."""
    expect = expectation(case)
    found = FUZZ_CHECKED.run_check(case, expect.get("profile"))
    wrong = judge(expect, found)
    assert not wrong, wrong
    stopped = [f["message"] for f in found if ENGINE_STOPPED in f["message"]]
    assert not stopped, stopped


# ---- the long run's own machinery (bench/fuzz.py) ------------------------------------------------------------

BENCH_FUZZ = Path(__file__).resolve().parents[1] / "bench" / "fuzz.py"


def load_bench_fuzz() -> Any:
    spec = importlib.util.spec_from_file_location("bench_fuzz", BENCH_FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_shared
def test_a_forced_run_names_its_profile_and_options_in_every_preamble() -> None:
    fuzz = load_bench_fuzz()
    own = Preamble(1, (SessionLine(1, "s"), ProfileLine(2, "qdan"), OptionLine(3, "joker", "wild")))
    got = fuzz.forced(own, "stripped32", (("openers", "jacks"), ("deck", "52")))
    assert got == Preamble(1, (SessionLine(1, "s"), ProfileLine(2, "stripped32"), OptionLine(3, "joker", "wild"),
                               OptionLine(1, "openers", "jacks"), OptionLine(1, "deck", "52")))
    hand = next(b for b in (parse_block(raw) for raw in read_text_blocks(SEEDS[0])) if type(b) is not Preamble)
    assert fuzz.forced(hand, "stripped32", (("openers", "jacks"),)) is hand


def test_the_option_cycles_give_every_profile_every_value() -> None:
    fuzz = load_bench_fuzz()
    cycles = fuzz.OptionCycles(random.Random(1))
    values = fuzz.option_values()
    assert ("openers", "jacks") in values and ("deck", "32") in values and ("players", "2-6") in values
    for profile in fuzz.PROFILES:
        for _ in range(len(values)):
            drawn = cycles.draw(profile)
            assert 1 <= len(drawn) <= 3 and len({name for name, _ in drawn}) == len(drawn)
    assert min(cycles.met.values()) >= 1, "a turn of each cycle meets every value"


@needs_shared
def test_an_engine_stop_is_caught_and_re_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run counts a hand the pipeline turned into a 'please report it' PARSE_ERROR as an engine stop."""
    fuzz = load_bench_fuzz()
    real = fuzz.audit_parsed

    def stopping(block: Any, raw: Any, ctx: Any) -> Any:
        audited = real(block, raw, ctx)
        if audited is not None and audited.hand is not None:
            audited.findings.append(Finding("PARSE_ERROR", "error", "<fuzz>", audited.hand.hand_id, None, None,
                                            audited.hand.line, None, None, f"... {ENGINE_STOPPED} (ValueError) ..."))
        return audited

    monkeypatch.setattr(fuzz, "audit_parsed", stopping)
    with pytest.raises(fuzz.EngineStopped):
        fuzz.check_input(SEEDS[0], [("home-open", (), False)])


@needs_shared  # bench/fuzz.py starts from the shared cases' clean sessions
@pytest.mark.parametrize("mode", [[], ["--ingest"]])
def test_the_long_run_runs_and_prints_its_figures(tmp_path: Path, mode: list[str]) -> None:
    run = subprocess.run([sys.executable, str(BENCH_FUZZ), "40", "-j", "1", "--seed", "1", "--out",
                          str(tmp_path), *mode], capture_output=True, text=True, timeout=300)
    summary = [line for line in run.stdout.splitlines() if line.startswith("fuzz ")]
    assert len(summary) == 1, run.stdout + run.stderr
    for words in ("40 inputs in", "inputs/s", "CPU s", "crashes", "engine stops", "slow inputs", "peak worker RSS"):
        assert words in summary[0], summary[0]
    assert ("rows + DuckDB" in summary[0]) == bool(mode)
    assert run.returncode in (0, 1), run.stderr
