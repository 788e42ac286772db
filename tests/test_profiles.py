"""The profile fixtures (qdan, stripped32): every parameter and option, legal and violated, through the CLI.

Each ``fixtures/profiles/<case>.txt`` has a ``<case>.expect.json`` in the shared cases' format:
``{"profile": ..., "clean": true}`` (no finding of severity violation or error), or
``{"clean": false, "must_include": [{"hand", "rule", "player"?}], "must_not_include": [rule, ...]}``.
The judgement is the one of ``shared/tools/run_cases.py``: ``audit check FILE --format json`` in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from casejudge import CheckedTogether, judge, run_check

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "profiles"
AUDIT = Path(sys.executable).with_name("audit")
# missed blinds across the hands of a session live in session/: the session tracker judges them
CASES = sorted(p for p in list(FIXTURES.glob("*.txt")) + list((FIXTURES / "session").glob("*.txt"))
               if p.with_suffix(".expect.json").exists())
CHECKED = CheckedTogether(CASES)


def test_there_are_fixtures() -> None:
    assert AUDIT.exists(), f"no audit executable beside {sys.executable}"
    assert len(CASES) >= 150


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_profile_case(case: Path) -> None:
    expect = json.loads(case.with_suffix(".expect.json").read_text(encoding="utf-8"))
    wrong = judge(expect, CHECKED.run_check(case, expect.get("profile")))
    assert not wrong, wrong


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_violating_cases_name_a_rule(case: Path) -> None:
    """Every violating fixture says which rule it breaks, and every clean one names its profile."""
    expect = json.loads(case.with_suffix(".expect.json").read_text(encoding="utf-8"))
    assert expect.get("profile")
    if not expect.get("clean"):
        assert expect.get("must_include"), "a violating fixture must name the finding it expects"


# ---- the profiles as data ------------------------------------------------------------------------------------
def test_qdan_parameters() -> None:
    from audit.profile import load_profile

    q = load_profile("qdan")
    assert (q.min_players, q.max_players, q.deck_size, q.joker) == (2, 6, 52, False)
    assert (q.starting_chips, q.ante, q.min_bet_value, q.bet_unit) == (2000, 10, 20, 20)
    assert (q.draw_limit, q.draw_limit_ace, q.openers_jacks) == (3, True, False)
    assert (q.second_round_starts, q.all_check_redeal, q.session_hands) == ("opener", True, 10)
    assert (q.time_limit, q.points_mode, q.parole, q.blinds) == (None, False, False, "none")
    opts = q.with_options([("draw-limit", "5"), ("joker", "wild"), ("openers", "jacks"), ("time-limit", "30"),
                           ("mode", "points"), ("second-round-starts", "left-of-button")])
    assert (opts.draw_limit, opts.draw_limit_ace, opts.joker, opts.openers_jacks) == (5, False, True, True)
    assert (opts.time_limit, opts.points_mode, opts.all_check_redeal) == (30, True, False)


def test_stripped32_parameters() -> None:
    from audit.profile import load_profile

    s = load_profile("stripped32")
    assert (s.min_players, s.max_players, s.deck_size, s.ante, s.blinds) == (2, 5, 32, 0, "three")
    assert (s.betting, s.min_bet_rule, s.draw_limit, s.draw_limit_ace) == ("no-limit", "blinds", 4, False)
    assert (s.first_round_starts, s.second_round_starts) == ("left-of-last-blind", "left-of-last-blind")
    assert (s.reshuffle, s.ranking, s.suit_tiebreak, s.parole) == ("stub-first", "stripped", True, True)
    assert (s.raise_cap, s.raise_cap_heads_up, s.raise_time_limit, s.missed_blinds) == (4, True, 10, "seed-004")
    assert s.with_options([("betting", "pot-limit")]).betting == "pot-limit"
    assert s.with_options([("betting", "fixed-limit")]).betting == "fixed-limit"


@pytest.mark.parametrize("line, words", [("Option: draw-limit = 6", "cannot be '6'"),
                                         ("Option: colour = blue", "unknown option 'colour'"),
                                         ("Option: time-limit = soon", "cannot be 'soon'")])
def test_a_bad_option_is_an_error_naming_its_line(tmp_path: Path, line: str, words: str) -> None:
    case = tmp_path / "bad.txt"
    case.write_text(f"Profile: qdan\n{line}\n", encoding="utf-8")
    run = subprocess.run([str(AUDIT), "check", str(case)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert f"{case}:2:" in run.stderr and words in run.stderr


@pytest.mark.parametrize("case, messages", [
    ("stripped32-parole-answer-without-offer", ["Ana declined a parole nobody offered.",
                                                "Carla declined a parole nobody offered."]),
    ("stripped32-parole-answer-after-all", ["Ana accepted the parole after everyone had answered it."]),
    ("stripped32-parole-answer-twice", ["Ana answered the parole twice; each player answers once."]),
    ("stripped32-parole-missing-answer", ["Carla did not answer the parole; every player still in answers it, in "
                                          "turn, even after someone has accepted."]),
    ("stripped32-raise-time-slow-bet", ["Dario bet after 12s; betting and raising are allowed only within 10s "
                                        "(after that only check, call or fold)."]),
])
def test_parole_and_raise_clock_messages(case: str, messages: list[str]) -> None:
    """The words a host reads (an answer is 'declined', not 'declineed'; a bet is not called a raise)."""
    found = run_check(FIXTURES / f"{case}.txt", None)
    assert [f["message"] for f in found if f["rule"] in ("PAROLE", "TIME_LIMIT")] == messages
