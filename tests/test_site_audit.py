"""Real online logs (shared/real-hands: PokerStars and every other site in the registry) audited under the site profile, through the
CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from audit.dialects import registry
from casejudge import CheckedTogether, cases_in, expectation
from conftest import AUDIT, ROOT, SHARED, at_least, needs_shared


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


UNREAD = at_least(5, sorted((ROOT / "fixtures" / "unread").glob("*.txt")))
UNREAD_CHECKED = CheckedTogether(UNREAD)


@pytest.mark.parametrize("case", UNREAD, ids=lambda p: p.stem)
def test_a_site_audit_does_not_read_is_named_once_per_file(case: Path) -> None:
    """The first lines of PartyPoker's, Winamax's, iPoker's and 888poker's hand histories (as fpdb's readers know
    them) are one ``UNSUPPORTED_SITE`` finding naming the site, never a ``PARSE_ERROR``; a read site's XML behind
    the same declaration as iPoker's is not one."""
    expect, found = UNREAD_CHECKED.check_case(case)
    if not expect.get("clean"):
        site = {"partypoker": "PartyPoker", "winamax": "Winamax", "ipoker": "iPoker", "888poker": "888poker"}
        (only,) = found
        assert only["message"].startswith(f"This is a hand history of {site[case.stem.split('-')[1]]}, which "
                                          "audit does not read yet")
        explain = subprocess.run([AUDIT, "explain", str(case)], capture_output=True, text=True, timeout=120)
        assert (explain.returncode, explain.stdout, explain.stderr) == (2, "", f"audit: {case}: {only['message']}\n")


@needs_shared
def test_a_glob_of_non_logs_says_each_in_one_line_and_a_badugi_folder_passes(tmp_path: Path) -> None:
    """README.md and SOURCES.tsv beside a log, as ``audit check real-hands/*`` gives them: one line each, no
    PARSE_ERROR, the log audited; a folder of one Badugi game says its hands were not checked and fails nothing."""
    real = SHARED / "real-hands"
    log = real / "pokerstars" / "5-Carddraw-FL-USD-0.10-0.20-201106.sidepot.txt"
    paths = [str(real / "README.md"), str(real / "SOURCES.tsv"), str(log)]
    said = [f"audit: note: {p}: not a hand history (no line of it opens a hand); left out" for p in paths[:2]]
    for jobs in ("1", "2"):
        run = subprocess.run([AUDIT, "check", *paths, "--format", "json", "--jobs", jobs], capture_output=True,
                             text=True, timeout=120)
        assert (run.returncode, run.stdout, run.stderr.splitlines()) == (0, "", said)
    db = tmp_path / "a.duckdb"
    ingest = subprocess.run([AUDIT, "ingest", *paths, "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert ingest.returncode == 0 and ingest.stderr.splitlines() == said, ingest.stderr
    assert "1 file ingested (2 not hand histories): 1 hand" in ingest.stdout
    badugi = tmp_path / "badugi"
    badugi.mkdir()
    (badugi / "b.txt").write_bytes((real / "other-games" / "Badugi-USD-0.25-0.50-201009.txt").read_bytes())
    check = subprocess.run([AUDIT, "check", str(badugi)], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and check.stdout.count("UNSUPPORTED_GAME     This hand is Badugi") == 4, check.stdout
    stored = subprocess.run([AUDIT, "ingest", str(badugi), "--db", str(db)], capture_output=True, text=True,
                            timeout=120)
    assert stored.returncode == 0 and "(4 hands of another game)" in stored.stdout, stored.stdout


@needs_shared
def test_text_summary_counts_unsupported_hands() -> None:
    run = subprocess.run([AUDIT, "check", str(SHARED / "real-hands" / "other-games")], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout  # hands not checked are said, and fail nothing
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
SITE_CASES = cases_in(SITE_FIXTURES, at_least=30)
SITE_CHECKED = CheckedTogether(SITE_CASES)
# each decision of RULES.md's "Site logs" paragraph: its rule, and the betting structures its fixtures must cover
SITE_RULES = {"BLIND_WRONG": ("nl", "pl", "fl"), "CARD_DUPLICATE": ("nl", "pl", "fl"), "RAISE_CAP": ("fl",),
              "STUB_CARD": ("nl", "pl", "fl")}
# the name's structure suffix, as a PokerStars header spells the game
STRUCTURE_HEADERS = {"nl": "5 Card Draw No Limit", "pl": "5 Card Draw Pot Limit", "fl": "5 Card Draw Limit"}


@pytest.mark.parametrize("case", SITE_CASES, ids=lambda p: p.stem)
def test_site_fixture(case: Path) -> None:
    SITE_CHECKED.check_case(case)


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
