"""Tied pots are split (RULES.md, decided 2026-12-03), through the real CLI (`audit check FILE --format json
--fail-on never`), over `fixtures/ties/`: every player holding a best hand among a pot's eligible players is owed
his share; one paid less than that beyond the odd chips, nothing included, is `POT_WINNER` against the player who
took it (`finding.POT_WINNER.tie_taken`, naming both and the chips), and a share off by odd chips only stays
`ODD_CHIP`. Main pots and side pots, two-way and three-way ties, in the house format, under `Cards: shown` and in
the PokerStars, Full Tilt, OnGame and Boss Media dialects.

A hit's expectation names exactly the findings it must give: every violation or error found is one of its
`must_include`, and where it gives `msg_id`, `owed` and `chips` the finding says that reason, that player and
that many chips (cents in a currency hand). A near miss is clean and free of the rules it bans, at any severity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from casejudge import CheckedTogether, describe, expectation

ROOT = Path(__file__).resolve().parent.parent
TIES = ROOT / "fixtures" / "ties"
CASES = sorted(p for p in TIES.iterdir() if p.suffix in (".txt", ".xml"))
CHECKED = CheckedTogether(CASES)
BAD = ("violation", "error")


def said(want: dict[str, Any], f: dict[str, Any]) -> bool:
    """Whether finding ``f`` is the one ``want`` describes (hand, rule, player, and reason, player owed and chips
    where given)."""
    params = f.get("params") or {}
    return (str(f["hand"]) == want["hand"] and f["rule"] == want["rule"]
            and ("player" not in want or f["player"] == want["player"])
            and ("msg_id" not in want or f["msg_id"] == want["msg_id"])
            and ("owed" not in want or params.get("owed") == want["owed"])
            and ("chips" not in want or params.get("taken_chips") == want["chips"]))


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_tie_fixture(case: Path) -> None:
    expect, found = CHECKED.check_case(case)
    if expect.get("clean"):
        return
    bad = [f for f in found if f["severity"] in BAD]
    unmatched = [w for w in expect["must_include"] if not any(said(w, f) for f in bad)]
    unwanted = [f for f in bad if not any(said(w, f) for w in expect["must_include"])]
    assert not unmatched and not unwanted, \
        f"{case.name}: not found {unmatched}; not wanted:\n{describe(unwanted)}"


def test_ties_are_covered_where_the_decision_says() -> None:
    """A hit and a clean near miss in the house format, under `Cards: shown` and in every site dialect;
    a three-way tie taken by one; a side pot's tie taken by one of the tied and by the main pot's winner."""
    hits = {p.stem for p in CASES if not expectation(p).get("clean")}
    misses = {p.stem for p in CASES if expectation(p).get("clean")}
    for prefix in ("house", "shown", "pokerstars", "fulltilt", "ongame", "boss"):
        assert f"{prefix}-taken-whole" in hits and f"{prefix}-split" in misses, prefix
    assert {"house-three-way-taken-by-one", "house-side-pot-taken-by-one-tied",
            "house-side-pot-taken-by-main-winner", "house-taken-in-part", "house-odd-chip-only"} <= hits
    assert {"house-three-way-split", "house-side-pot-split"} <= misses
    headers = {"pokerstars": "PokerStars Game #", "fulltilt": "Full Tilt Poker Game #",
               "ongame": "***** History for hand", "boss": "<HISTORY ID=", "shown": "Cards: shown"}
    for case in CASES:
        prefix = case.stem.split("-", 1)[0]
        if prefix in headers:
            assert headers[prefix] in case.read_text(encoding="utf-8"), case.name
