"""Fixes from fuzzing: profile names are never paths, odd option values, sessions after an unreadable hand,
capped findings, a hand cut off before its pot was paid, and internal errors that exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit import pipeline
from audit.cli import main
from conftest import SHARED


def check(path: Path, *extra: str) -> tuple[int, list[dict[str, object]], str]:
    result = CliRunner().invoke(main, ["check", str(path), "--format", "json", *extra])
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, rows, result.output


@pytest.mark.parametrize("name", ["../../pyproject", "x" * 300, "home-open/../qdan"])
def test_profile_name_is_never_a_path(tmp_path: Path, name: str) -> None:
    log = tmp_path / "log.txt"
    log.write_text(f"Profile: {name}\n\n", encoding="utf-8")
    code, _, output = check(log)
    assert code == 2 and "unknown profile" in output and "Traceback" not in output


@pytest.mark.parametrize("option", ["ante = ²", "players = range", "players = ²-6", "ante = 1234567890123"])
def test_odd_option_values_are_refused_with_the_line(tmp_path: Path, option: str) -> None:
    log = tmp_path / "log.txt"
    log.write_text(f"Profile: qdan\nOption: {option}\n\n", encoding="utf-8")
    code, _, output = check(log)
    assert code == 2 and f"{log}:2: option" in output and "cannot be" in output


def test_session_goes_on_after_an_unreadable_hand(tmp_path: Path) -> None:
    text = (SHARED / "cases" / "generated" / "clean-001.txt").read_text(encoding="utf-8")
    cut = text[:text.index("*** DRAW ***")] + "*** DR" + text[text.index("\n\nHand #4502"):]
    log = tmp_path / "cut.txt"
    log.write_text(cut, encoding="utf-8")
    code, rows, _ = check(log)
    assert code == 1
    assert [(r["hand"], r["rule"]) for r in rows] == [("4501", "PARSE_ERROR")]


def test_hand_cut_off_before_the_pot_was_paid(tmp_path: Path) -> None:
    text = (SHARED / "cases" / "edge" / "odd-chip-three-way.txt").read_text(encoding="utf-8")
    log = tmp_path / "cut.txt"
    log.write_text(text[:text.index("Carla collected")], encoding="utf-8")
    _, rows, _ = check(log)
    pot = [r for r in rows if r["rule"] == "POT_AMOUNT"]
    assert len(pot) == 1 and "is the log cut off?" in str(pot[0]["message"])


def test_findings_of_one_rule_are_capped_per_hand(tmp_path: Path) -> None:
    seats = "".join(f"Seat {i}: P{i} (100 in chips)\n" for i in range(1, 31))
    log = tmp_path / "big.txt"
    log.write_text("Hand #1 - 2026/11/28 21:00:00\nTable 'T' Seat #1 is the button\n" + seats
                   + "*** DEALING HANDS ***\n", encoding="utf-8")
    _, rows, _ = check(log)
    antes = [r for r in rows if r["rule"] == "ANTE_WRONG"]
    assert len(antes) == pipeline.MAX_FINDINGS_PER_RULE + 1
    assert "and 10 more ANTE_WRONG findings" in str(antes[-1]["message"])


def test_internal_error_exits_2_not_1(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr("audit.check.check_paths", broken)
    result = CliRunner().invoke(main, ["check", str(SHARED / "cases" / "edge")])
    assert result.exit_code == 2
    assert "internal error" in result.output and "RuntimeError: boom" in result.output
