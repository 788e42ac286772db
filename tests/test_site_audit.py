"""Real online logs (shared/real-hands: PokerStars and every other site in the registry) audited under the site profile, through the
CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from audit.dialects import registry
from casejudge import cases_in, check_case, expectation
from conftest import AUDIT, ROOT, SHARED, needs_shared


def _findings(folder: str) -> list[dict[str, object]]:
    run = subprocess.run([AUDIT, "check", str(SHARED / "real-hands" / folder), "--format", "json",
                          "--fail-on", "never"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


@needs_shared
def test_all_real_five_card_draw_hands_audit_clean() -> None:
    found = _findings("pokerstars")
    assert [f for f in found if f["severity"] in ("violation", "error")] == []


@needs_shared
def test_every_other_game_hand_is_unsupported_and_named() -> None:
    found = _findings("other-games")
    assert {f["rule"] for f in found} == {"UNSUPPORTED_GAME"}
    assert len(found) == 6
    messages = " ".join(str(f["message"]) for f in found)
    for game in ("Badugi", "Triple Draw 2-7 Lowball", "Single Draw 2-7 Lowball"):
        assert game in messages


@needs_shared
def test_text_summary_counts_unsupported_hands() -> None:
    run = subprocess.run([AUDIT, "check", str(SHARED / "real-hands" / "other-games")], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1
    assert "6 hands checked in 3 files: 0 violations, 0 warnings, 6 errors" in run.stdout


# every site dialect but PokerStars (above, whose real logs hold hands of other games too): the folder of its real
# logs is its module's name
OTHER_SITES = [d.module.rsplit(".", 1)[1] for d in registry.DIALECTS if d.profile == "site" and d.name != "site"]


@needs_shared
@pytest.mark.parametrize("folder", OTHER_SITES)
def test_the_other_sites_hands_audit_clean_under_the_site_profile(folder: str) -> None:
    assert _findings(folder) == []  # no finding at any severity (tests/test_dialects.py has the rest)


# ---- RULES.md "Site logs": real hands with one change each (fixtures/site), judged through the CLI --------------
SITE_FIXTURES = ROOT / "fixtures" / "site"
SITE_CASES = cases_in(SITE_FIXTURES)
# each decision of RULES.md's "Site logs" paragraph: its rule, and the betting structures its fixtures must cover
SITE_RULES = {"BLIND_WRONG": ("nl", "pl", "fl"), "CARD_DUPLICATE": ("nl", "pl", "fl"), "RAISE_CAP": ("fl",),
              "STUB_CARD": ("nl", "pl", "fl")}
# the name's structure suffix, as a PokerStars header spells the game
STRUCTURE_HEADERS = {"nl": "5 Card Draw No Limit", "pl": "5 Card Draw Pot Limit", "fl": "5 Card Draw Limit"}


@pytest.mark.parametrize("case", SITE_CASES, ids=lambda p: p.stem)
def test_site_fixture(case: Path) -> None:
    check_case(case)


def test_every_site_decision_has_hits_and_near_misses() -> None:
    """``<RULE>-hit-…`` wants its rule found, ``<RULE>-miss-…`` bans it; every structure the decision covers has
    both a hit and a near miss (``…-nl``, ``…-pl``, ``…-fl``)."""
    wrong, lacking = [], []
    for rule, structures in SITE_RULES.items():
        hits = [c for c in SITE_CASES if c.stem.startswith(f"{rule}-hit-")]
        misses = [c for c in SITE_CASES if c.stem.startswith(f"{rule}-miss-")]
        for case in hits:
            if rule not in {w["rule"] for w in expectation(case).get("must_include", [])}:
                wrong.append(case.name)
        for case in misses:
            expect = expectation(case)
            if not expect.get("clean") or rule not in expect.get("must_not_include", []):
                wrong.append(case.name)
        for case in hits + misses:
            structure = case.stem.rsplit("-", 1)[1]
            header = STRUCTURE_HEADERS.get(structure)
            if header is None or header not in case.read_text(encoding="utf-8"):
                wrong.append(f"{case.name} (not a {structure} hand)")
        for kind, cases in (("hit", hits), ("miss", misses)):
            lacking += [f"{rule}-{kind}-…-{s}" for s in structures
                        if not any(c.stem.endswith(f"-{s}") for c in cases)]
    assert not wrong and not lacking, f"wrong expectations: {wrong}; missing: {lacking}"


@needs_shared
def test_site_fixtures_are_real_hands() -> None:
    """Every rule fixture names the real hand it was built from, and that hand is there with the same id."""
    for case in SITE_CASES:
        if not case.stem.split("-")[0].isupper():
            continue  # the synthetic and other-game fixtures
        first = case.read_text(encoding="utf-8").splitlines()[0]
        source, _, hand = first.removeprefix("# Built from shared/").rstrip(".").partition(", hand ")
        real = (SHARED / source).read_text(encoding="utf-8-sig")
        hand_id = hand or real.split("#", 1)[1].split(":", 1)[0]
        assert f"#{hand_id}:" in real and f"#{hand_id}:" in case.read_text(encoding="utf-8"), case.name
