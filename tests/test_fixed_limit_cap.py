"""The fixed-limit cap on a site stays after folds (RULES.md, "Site logs": "none heads-up" means the round began
with two players; a round that began with three or more stays capped when folds leave two), in every site dialect
that plays fixed limit: PokerStars (`fixtures/site/RAISE_CAP-*-heads-up-*-fl`, judged in test_site_audit.py), Boss
Media, Full Tilt and OnGame (`fixtures/cap/`, judged here through the real CLI); the dispute page's "what was
legal" at the cap; and the simulator (a second implementation from RULES.md) playing the same cap.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.explain import HandExplanation, explain_file
from audit.explain.phrases import legal_words
from audit.simulate import Simulator
from casejudge import CheckedTogether, describe, run_check, simulated_sessions

ROOT = Path(__file__).resolve().parent.parent
CAP = ROOT / "fixtures" / "cap"
SITE = ROOT / "fixtures" / "site"
CASES = sorted(p for p in CAP.iterdir() if p.suffix in (".txt", ".xml"))
CHECKED = CheckedTogether(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_cap_fixture(case: Path) -> None:
    expect, found = CHECKED.check_case(case)
    if not expect.get("clean"):
        bad = {(f["rule"], f["msg_id"]) for f in found if f["severity"] in ("violation", "error")}
        assert bad == {(w["rule"], w["msg_id"]) for w in expect["must_include"]}, describe(found)


def test_every_fixed_limit_site_has_a_hit_and_a_near_miss() -> None:
    names = {p.name for p in CASES}
    for site, suffix in (("boss", "xml"), ("fulltilt", "txt"), ("ongame", "txt")):
        assert {f"{site}-folded-to-two-hit.{suffix}", f"{site}-folded-to-two-miss.{suffix}"} <= names
    for case in ("RAISE_CAP-hit-heads-up-before-cap-fl", "RAISE_CAP-miss-heads-up-at-cap-fl"):
        assert (SITE / f"{case}.txt").is_file() and (SITE / f"{case}.expect.json").is_file()


def only_hand(path: Path) -> HandExplanation:
    [h] = [i for i in explain_file(str(path)) if isinstance(i, HandExplanation)]
    return h


@pytest.mark.parametrize("case, line", [
    (SITE / "RAISE_CAP-hit-heads-up-before-cap-fl.txt", 37),  # Hero's fifth bet, two left of four
    (CAP / "boss-folded-to-two-hit.xml", 36),  # Hero's fifth bet, two left of three
    (CAP / "fulltilt-folded-to-two-hit.txt", 36),  # Player3's fifth bet, two left of four
    (CAP / "ongame-folded-to-two-hit.txt", 24),  # Hero's fifth bet (the big blind the first), two left of four
])
def test_explain_says_raising_is_closed_at_the_cap_after_folds(case: Path, line: int) -> None:
    """Once the fourth bet is in, the fifth bet's step says raising was closed, in both languages, and not
    "raising open"; the fifth bet carries the finding."""
    h = only_hand(case)
    [before] = [s for s in h.steps if s.line == line]
    assert before.legal is not None and before.legal.capped and not before.legal.may_raise
    assert legal_words(before, "en").endswith("raising closed (the cap of bets is reached)")
    assert "raising open" not in legal_words(before, "en")
    assert legal_words(before, "es").endswith("no se puede subir (se llegó al tope de apuestas)")
    assert [f.rule for f in before.findings] == ["RAISE_CAP"]


def test_the_simulator_plays_the_cap_as_the_engine_judges_it(tmp_path: Path) -> None:
    """Forty seeded stripped32 sessions in fixed limit with the site's cap (`raise-cap = 4-not-heads-up`), played
    by the simulator from RULES.md: rounds that began with three or more capped with two left, rounds that began
    heads-up raised past four bets, and the CLI finds every session clean."""
    sim = Simulator("stripped32", 12, [("betting", "fixed-limit"), ("raise-cap", "4-not-heads-up")])
    text, stats = simulated_sessions(sim, 40)
    path = tmp_path / "cap.txt"
    path.write_text(text, encoding="utf-8")
    found = run_check(path, None)
    bad = [f for f in found if f["severity"] in ("violation", "error")]
    assert not bad, describe(bad)
    assert stats["capped_after_folds"] >= 3 and stats["past_cap_heads_up"] >= 1, stats
