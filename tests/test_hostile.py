"""Hostile files through ``audit check``: every one ends in a clear message and the right exit status.

The decisions (also for the docs):
- an empty file, or one of only blank lines or comments, holds no hands: exit 0 and the summary says 0 hands;
- a binary file, UTF-16 without a byte-order mark, text that is not valid UTF-8, a NUL byte, a line over
  ``MAX_LINE_CHARS``: the file cannot be read — exit 2, and the message names the file (and the line, when known);
- UTF-16 with a byte-order mark, UTF-8 with one, CRLF and CR line ends, a BOM in the middle (files joined with
  ``cat``): read like plain UTF-8;
- a hand cut off in the middle of a line: a ``PARSE_ERROR`` finding for that hand (exit 1), the other hands are
  still checked; a hand cut off at a line end is replayed and its missing awards are findings (exit 1);
- a hand longer than ``MAX_BLOCK_LINES`` lines, or a number of more than ``MAX_NUMBER_DIGITS`` digits: a
  ``PARSE_ERROR`` finding for that hand (exit 1), the rest of the file is still checked;
- a number larger than the database can store (an amount over ``MAX_AMOUNT``, a seat over ``MAX_SEAT``): a
  ``PARSE_ERROR`` of its hand, in ``check`` as in ``ingest``; large numbers below that: ordinary findings.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from audit.cli import main
from audit.dialects.common import MAX_NUMBER_DIGITS
from audit.read import MAX_BLOCK_LINES, MAX_LINE_CHARS

from conftest import needs_shared

SHARED = Path(__file__).resolve().parents[2] / "shared"
CLEAN = SHARED / "cases" / "generated" / "clean-001.txt"
AUDIT = str(Path(sys.executable).with_name("audit"))


def clean_text() -> str:
    return CLEAN.read_text(encoding="utf-8")


def first_hand() -> str:
    """The first hand of the clean session, without the preamble (a hand audited on its own)."""
    return clean_text().split("\n\n")[1].strip("\n") + "\n"


def check(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args])


def json_rows(result: Result) -> list[dict[str, object]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# ---- no hands ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [b"", b"\n\n\n", b"  \r\n\t\r\n\n", b"\xef\xbb\xbf",
                                  b"# only a comment\n\n# and another\n"],
                         ids=["empty", "blank-lines", "blank-crlf-spaces", "only-bom", "only-comments"])
def test_no_hands_is_exit_0_and_says_0_hands(tmp_path: Path, data: bytes) -> None:
    path = write(tmp_path, "none.txt", data)
    result = check(str(path))
    assert result.exit_code == 0, result.output
    assert "0 hands checked in 1 file: 0 violations, 0 warnings, 0 errors" in result.stdout
    as_json = check(str(path), "--format", "json")
    assert as_json.exit_code == 0 and as_json.stdout == ""


# ---- files that cannot be read: exit 2, the file named ------------------------------------------------------

def assert_cannot_read(result: Result, path: Path, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert str(path) in result.stderr, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def test_binary_file_exits_2_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 20)
    assert_cannot_read(check(str(path)), path, "not a text file")


def test_file_of_zero_bytes_is_binary_not_utf16(tmp_path: Path) -> None:
    """A file of NULs (a crash left it so) is not 'UTF-16 without a byte-order mark'."""
    path = write(tmp_path, "zeros.txt", bytes(100_000))
    assert_cannot_read(check(str(path)), path, "not a text file")


def test_random_bytes_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, "noise.txt", os.urandom(50_000))
    result = check(str(path))
    assert_cannot_read(result, path)


@needs_shared
def test_nul_byte_after_the_first_block_names_the_line(tmp_path: Path) -> None:
    text = clean_text()
    lines = text.count("\n")
    path = write(tmp_path, "nul.txt", text.encode() * 3 + b"Ana: folds\x00\n")
    assert_cannot_read(check(str(path)), path, f"{path}:{3 * lines + 1}:", "not a text file")


@needs_shared
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_exits_2(tmp_path: Path, codec: str) -> None:
    path = write(tmp_path, "u16.txt", clean_text().encode(codec))
    assert_cannot_read(check(str(path)), path, "UTF-16", "byte-order mark")


@needs_shared
@pytest.mark.parametrize("bom,codec", [(codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
                                       (codecs.BOM_UTF8, "utf-8")], ids=["utf-16-le", "utf-16-be", "utf-8"])
def test_bom_files_read_like_utf8(tmp_path: Path, bom: bytes, codec: str) -> None:
    text = clean_text()
    plain = write(tmp_path, "plain.txt", text.encode())
    with_bom = write(tmp_path, "bom.txt", bom + text.replace("\n", "\r\n").encode(codec))
    want, got = check(str(plain), "--format", "json"), check(str(with_bom), "--format", "json")
    assert got.exit_code == want.exit_code == 0, got.output
    drop_file = [{k: v for k, v in r.items() if k != "file"} for r in json_rows(got)]
    assert drop_file == [{k: v for k, v in r.items() if k != "file"} for r in json_rows(want)]
    assert "2 hands checked in 1 file" in check(str(with_bom)).stdout


@needs_shared
def test_cr_line_ends_and_a_bom_in_the_middle(tmp_path: Path) -> None:
    text = clean_text()
    joined = codecs.BOM_UTF8 + text.encode() + b"\n" + codecs.BOM_UTF8 + text.replace("Session: home-1-001",
                                                                                      "Session: second").encode()
    path = write(tmp_path, "joined.txt", joined.replace(b"\n", b"\r"))
    result = check(str(path))
    assert result.exit_code == 0, result.output
    assert "4 hands checked in 1 file: 0 violations, 0 warnings, 0 errors" in result.stdout


@needs_shared
def test_latin1_file_exits_2_with_the_line(tmp_path: Path) -> None:
    text = clean_text().replace("Tere", "José")
    line = text.split("\n").index(next(x for x in text.split("\n") if "José" in x)) + 1
    path = write(tmp_path, "latin1.txt", text.encode("latin-1"))
    assert_cannot_read(check(str(path)), path, f"{path}:{line}:", "not valid utf-8")


@needs_shared
def test_line_too_long_exits_2_with_the_line(tmp_path: Path) -> None:
    text = clean_text()
    lines = text.count("\n")
    path = write(tmp_path, "long.txt", (text + "Ana said, \"" + "x" * (MAX_LINE_CHARS + 10) + "\"\n").encode())
    assert_cannot_read(check(str(path)), path, f"{path}:{lines + 1}:", "longer than")


def test_one_huge_line_is_refused_without_reading_it(tmp_path: Path) -> None:
    """40 MB without a line end: refused at once (the reader never holds more than a chunk past the limit)."""
    path = tmp_path / "oneline.txt"
    with open(path, "wb") as f:
        for _ in range(40):
            f.write(b"x" * 1_000_000)
    assert_cannot_read(check(str(path)), path, f"{path}:1:", "longer than")


@needs_shared
def test_a_bad_file_among_good_ones_exits_2(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", clean_text().encode())
    bad = write(tmp_path, "b.txt", b"\x00\x01\x02" * 100)
    assert_cannot_read(check(str(tmp_path)), bad, "not a text file")


def test_missing_file_and_folder_argument(tmp_path: Path) -> None:
    result = check(str(tmp_path / "nope.txt"))
    assert result.exit_code == 2 and "nope.txt: no such file or folder" in result.stderr
    empty_folder = tmp_path / "empty"
    empty_folder.mkdir()
    result = check(str(empty_folder))
    assert result.exit_code == 0 and "0 hands checked in 0 files" in result.stdout


@needs_shared
def test_unreadable_file_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the user may not read. Root reads anything, so the refusal is made by the open() the reader uses."""
    import builtins

    path = write(tmp_path, "secret.txt", clean_text().encode())

    real_open = builtins.open

    def refuse(file: object, *args: object, **kwargs: object) -> object:
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    # builtins, not the reader module's globals: the compiled reader does not look its names up there
    monkeypatch.setattr(builtins, "open", refuse)
    assert_cannot_read(check(str(path)), path, "cannot be read")


def test_read_error_in_the_middle_of_reading_exits_2() -> None:
    """A read that fails after the file opened (a failing disk, a dropped network share): exit 2, no traceback."""
    mem = Path("/proc/self/mem")
    if not mem.exists():
        pytest.skip("needs Linux /proc")
    result = check(str(mem))
    assert_cannot_read(result, mem, "cannot be read")


# ---- truncated and oversized hands: findings, exit 1 ---------------------------------------------------------

@needs_shared
def test_hand_cut_in_the_middle_of_a_line_is_a_parse_error(tmp_path: Path) -> None:
    text = clean_text()
    cut = text.index("Tere: bets 5") + len("Tere: be")
    path = write(tmp_path, "cut.txt", text[:cut].encode())
    result = check(str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    rows = json_rows(result)
    assert [(r["hand"], r["rule"], r["severity"]) for r in rows] == [("4501", "PARSE_ERROR", "error")]
    assert rows[0]["line"] == text[:cut].count("\n") + 1
    assert "Tere: be" in str(rows[0]["message"])
    text_out = check(str(path))
    assert text_out.exit_code == 1 and "1 hand checked in 1 file: 0 violations, 0 warnings, 1 error" in text_out.stdout


@needs_shared
def test_cut_hand_in_the_middle_of_a_file_does_not_stop_the_others(tmp_path: Path) -> None:
    hands = clean_text().split("\n\n")
    broken = hands[1][: hands[1].index("*** DRAW ***") + 6]  # "*** DR"
    # without the session preamble: in a session the next hand's stacks cannot be checked against an unread hand
    path = write(tmp_path, "mid.txt", "\n\n".join([broken, hands[2]]).encode())
    result = check(str(path), "--format", "json")
    assert result.exit_code == 1
    rows = json_rows(result)
    assert [(r["hand"], r["rule"]) for r in rows] == [("4501", "PARSE_ERROR")]
    assert "2 hands checked" in check(str(path)).stdout


@needs_shared
def test_hand_cut_at_a_line_end_is_still_reported(tmp_path: Path) -> None:
    text = clean_text()
    cut = text.index("*** SHOW DOWN ***")
    path = write(tmp_path, "cut.txt", text[:cut].encode())
    result = check(str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    assert {r["hand"] for r in json_rows(result)} == {"4501"}


@needs_shared
def test_hand_longer_than_the_limit_is_a_parse_error_and_the_next_hand_is_read(tmp_path: Path) -> None:
    hand = first_hand()
    chat = "Tere said, \"hi\"\n" * (MAX_BLOCK_LINES + 50)
    long_hand = hand.replace("*** DRAW ***\n", "*** DRAW ***\n" + chat)
    second = hand.replace("Hand #4501", "Hand #4600")
    path = write(tmp_path, "long.txt", (long_hand + "\n" + second).encode())
    result = check(str(path), "--format", "json")
    assert result.exit_code == 1
    rows = json_rows(result)
    assert [(r["hand"], r["rule"]) for r in rows] == [("4501", "PARSE_ERROR")]
    assert f"{MAX_BLOCK_LINES:,} lines" in str(rows[0]["message"])
    assert "2 hands checked" in check(str(path)).stdout


@needs_shared
@pytest.mark.parametrize("digits", [MAX_NUMBER_DIGITS + 1, 5000, 100_000])
def test_number_with_too_many_digits_is_a_parse_error(tmp_path: Path, digits: int) -> None:
    hand = first_hand().replace("Tere: bets 5", "Tere: bets " + "9" * digits)
    path = write(tmp_path, "digits.txt", hand.encode())
    result = check(str(path), "--format", "json")
    if digits + 12 > MAX_LINE_CHARS:
        assert_cannot_read(result, path, "longer than")
        return
    assert result.exit_code == 1, result.output
    rows = json_rows(result)
    assert [(r["hand"], r["rule"]) for r in rows] == [("4501", "PARSE_ERROR")]
    assert "digits" in str(rows[0]["message"])


ABSURD = [
    ("(100 in chips)", "({n} in chips)"), ("bets 5", "bets {n}"), ("collected 16", "collected {n}"),
    ("Seat 3:", "Seat {n}:"), ("Seat #1", "Seat #{n}"), ("discards 3 cards", "discards {n} cards"),
]
ABSURD_IDS = ["stack", "bet", "collected", "seat", "button", "discards"]


@needs_shared
@pytest.mark.parametrize("old,new", ABSURD, ids=ABSURD_IDS)
def test_large_numbers_the_store_holds_are_findings_not_crashes(tmp_path: Path, old: str, new: str) -> None:
    """Up to MAX_AMOUNT (a seat: MAX_SEAT) a number is read and judged like any other."""
    from audit.dialects.common import MAX_AMOUNT, MAX_SEAT

    hand = first_hand()
    assert old in hand
    n = MAX_SEAT if "Seat" in old else MAX_AMOUNT
    path = write(tmp_path, "absurd.txt", hand.replace(old, new.format(n=n)).encode())
    result = check(str(path), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    for row in json_rows(result):
        assert row["rule"] != "PARSE_ERROR", row


@needs_shared
@pytest.mark.parametrize("n", [10**15, 2**63, 10**30])
@pytest.mark.parametrize("old,new", ABSURD, ids=ABSURD_IDS)
def test_numbers_beyond_the_store_are_a_parse_error_of_their_hand(tmp_path: Path, old: str, new: str, n: int) -> None:
    """Beyond what the database can hold: a PARSE_ERROR naming the line, the next hand still checked."""
    hand = first_hand()
    line = hand.split("\n").index(next(x for x in hand.split("\n") if old in x)) + 1
    second = hand.replace("Hand #4501", "Hand #4600")
    path = write(tmp_path, "absurd.txt", (hand.replace(old, new.format(n=n)) + "\n" + second).encode())
    result = check(str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    rows = json_rows(result)
    assert [(r["hand"], r["rule"], r["line"]) for r in rows] == [("4501", "PARSE_ERROR", line)]
    assert "cannot be stored" in str(rows[0]["message"]) or "larger than the audit can store" in str(rows[0]["message"])
    assert "2 hands checked" in check(str(path)).stdout


@needs_shared
def test_absurd_time_is_read_and_json_stays_finite(tmp_path: Path) -> None:
    hand = first_hand()
    for took in ("1000000000000000000000000000000.5", "9" * MAX_NUMBER_DIGITS):
        path = write(tmp_path, "took.txt", hand.replace("Tere: bets 5", f"Tere: bets 5 (took {took}s)").encode())
        result = check(str(path), "--format", "json")
        assert result.exit_code in (0, 1), result.output
        assert all(r["rule"] != "PARSE_ERROR" for r in json_rows(result))
    path = write(tmp_path, "took.txt", hand.replace("Tere: bets 5", f"Tere: bets 5 (took 1{'0' * 400}s)").encode())
    result = check(str(path), "--format", "json")
    assert [r["rule"] for r in json_rows(result)] == ["PARSE_ERROR"]


@needs_shared
def test_huge_player_name_and_many_seats(tmp_path: Path) -> None:
    """A 9,000-character name and 1,500 seat lines: read, replayed, reported."""
    hand = first_hand().replace("Tere", "T" * 9_000)
    seats = "".join(f"Seat {i}: P{i} (100 in chips)\n" for i in range(4, 1504))
    many = first_hand().replace("Hand #4501", "Hand #4502").replace("Seat 3: Tere (100 in chips)\n",
                                                                    "Seat 3: Tere (100 in chips)\n" + seats)
    path = write(tmp_path, "names.txt", (hand + "\n" + many).encode())
    result = check(str(path), "--format", "json")
    assert result.exit_code == 1, result.output
    assert {r["hand"] for r in json_rows(result)} == {"4502"}


# ---- standard input and the real command -------------------------------------------------------------------

@needs_shared
def test_stdin_binary_and_stdin_utf16_with_bom() -> None:
    binary = subprocess.run([AUDIT, "check", "-"], input=b"\x00\xff" * 1000, capture_output=True, timeout=60)
    assert binary.returncode == 2
    assert b"<stdin>" in binary.stderr and b"Traceback" not in binary.stderr
    utf16 = subprocess.run([AUDIT, "check", "-"], input=clean_text().encode("utf-16"), capture_output=True,
                           timeout=60)
    assert utf16.returncode == 0, utf16.stderr
    assert b"2 hands checked in 1 file" in utf16.stdout


@needs_shared
def test_real_command_on_a_truncated_and_a_binary_file(tmp_path: Path) -> None:
    text = clean_text()
    cut = write(tmp_path, "cut.txt", text[: text.index("Tere: bets 5") + 8].encode())
    run = subprocess.run([AUDIT, "check", str(cut)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "PARSE_ERROR" in run.stdout and run.stderr == ""
    binary = write(tmp_path, "bin.txt", bytes(range(256)) * 64)
    run = subprocess.run([AUDIT, "check", str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and f"audit: {binary}: this is not a text file" in run.stderr
    assert "Traceback" not in run.stderr
