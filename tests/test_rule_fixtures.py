"""The rule fixtures: every `fixtures/rules/*.txt` and `fixtures/tda/*.txt` beside its `.expect.json`, run through
the real CLI (`audit check FILE --format json --fail-on never [--profile P]`) and judged as
`shared/tools/run_cases.py` judges a case:

- `{"clean": true}`: no finding of severity violation or error;
- `{"clean": false, "must_include": [{"hand", "rule", ["player"]}], "must_not_include": [rule, ...]}`: every wanted
  finding is there (same hand, rule and, when given, player) and no finding of a banned rule.

One addition, stricter than run_cases.py and only where it cannot contradict it: a clean case may also carry
`must_not_include`, and those rules must not appear at any severity. A near miss (`<RULE>-miss`) uses it to say
that its own rule, a warning included, is not raised.

`fixtures/rules/` holds, for each rule of the home-open profile, a hit (`<RULE>-hit`) and the closest legal
situation (`<RULE>-miss`), and for some rules further ways to break them or come close (`<RULE>-hit-<variant>`,
`<RULE>-miss-<variant>`); `fixtures/tda/` holds the seed 000 worked example, the TDA 2024 examples on minimum
raises (Rule 43) and re-opening the betting (Rule 47-A), and the fixed-limit boundary of Rule 47-B in pairs (an
all-in of exactly half a bet, raising or opening, counts as a full one: it re-opens and counts toward the cap;
one chip under half does neither).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casejudge import CheckedTogether
from conftest import at_least

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "fixtures" / "rules"
TDA_DIR = ROOT / "fixtures" / "tda"
CASES = at_least(110, sorted(p for d in (RULES_DIR, TDA_DIR) for p in d.glob("*.txt")))
CHECKED = CheckedTogether([p for p in CASES if p.with_suffix(".expect.json").exists()])

# The rule ids of shared/spec/RULES.md that apply to the home-open profile.
HOME_OPEN_RULES = [
    "PARSE_ERROR", "UNKNOWN_PLAYER", "SEAT_COUNT", "BUTTON_MOVE", "STACK_CONTINUITY", "BUSTED_PLAYER",
    "SESSION_LENGTH", "STANDINGS", "ANTE_WRONG", "BLIND_WRONG", "CARD_DUPLICATE", "CARD_NOT_IN_DECK", "DEAL_COUNT",
    "DEAL_ORDER", "ACTION_OUT_OF_TURN", "ACTION_NOT_ALLOWED", "CALL_AMOUNT", "BET_BELOW_MIN", "RAISE_BELOW_MIN",
    "RAISE_NOT_REOPENED", "BET_OVER_STACK", "ALL_IN_FLAG", "AMOUNT_NOTATION", "ROUND_INCOMPLETE", "DRAW_COUNT",
    "DRAW_ORDER", "RESHUFFLE", "STUB_CARD", "SHOW_ORDER", "SHOWN_CARDS", "HAND_DESCRIPTION", "POT_WINNER",
    "POT_AMOUNT", "ODD_CHIP", "UNCALLED_BET", "CHIPS_NOT_CONSERVED", "RAKE", "SUMMARY_TOTAL", "BET_UNIT",
    "DRAW_LIMIT", "TIME_LIMIT",
]
# home-open's bet unit is 1: every whole amount is a multiple, so BET_UNIT can only have a near miss.
MISS_ONLY = {"BET_UNIT"}


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture(case: Path) -> None:
    expect_path = case.with_suffix(".expect.json")
    assert expect_path.exists(), f"{case.name} has no {expect_path.name}"
    CHECKED.check_case(case)


def test_every_fixture_has_an_expectation() -> None:
    expects = sorted(p for d in (RULES_DIR, TDA_DIR) for p in d.glob("*.expect.json"))
    orphans = [p.name for p in expects if not p.with_name(p.name.replace(".expect.json", ".txt")).exists()]
    missing = [p.name for p in CASES if not p.with_suffix(".expect.json").exists()]
    assert not orphans and not missing, f"expectations without a hand: {orphans}; hands without one: {missing}"


def test_every_home_open_rule_has_a_hit_and_a_near_miss() -> None:
    names = {p.stem for p in RULES_DIR.glob("*.txt")}
    lacking = []
    for rule in HOME_OPEN_RULES:
        if rule not in MISS_ONLY and f"{rule}-hit" not in names:
            lacking.append(f"{rule}-hit")
        if f"{rule}-miss" not in names:
            lacking.append(f"{rule}-miss")
    assert not lacking, f"missing fixtures: {lacking}"


def test_hits_and_misses_are_about_their_rule() -> None:
    """`<RULE>-hit[-variant]` wants its rule found; `<RULE>-miss[-variant]` bans it."""
    wrong = []
    for case in at_least(100, sorted(RULES_DIR.glob("*.txt"))):
        rule, _, rest = case.stem.partition("-")
        kind = rest.split("-", 1)[0]
        expect = json.loads(case.with_suffix(".expect.json").read_text(encoding="utf-8"))
        if kind == "hit":
            if expect.get("clean") or rule not in {w["rule"] for w in expect.get("must_include", [])}:
                wrong.append(case.name)
        elif kind == "miss":
            if rule not in expect.get("must_not_include", []):
                wrong.append(case.name)
        else:
            wrong.append(case.name)
        if rule not in HOME_OPEN_RULES:
            wrong.append(case.name)
    assert not wrong, f"fixtures whose expectation does not match their name: {wrong}"
