"""Five decisions of RULES.md pinned through the real CLI (`audit check FILE --format json --fail-on never`), each
by a hit and its near miss in `fixtures/decisions/` (issue 32):

1. Nobody may open (`qdan`, `openers = jacks`): when no player dealt in holds openers the hand is redealt,
   whatever `second-round-starts` says; when someone held openers and everyone checked, the `all-check` row
   decides (a redeal only with `second-round-starts = opener`; under `left-of-button` play goes on to the draw).
   A redeal missing or not called for is `REDEAL`; an opening without openers is `OPENERS` alone; with a dealt
   hand unknown and no known openers, an all-checked round under `left-of-button` is not judged. (`openers-*`)
2. Nothing to decide against all-in players: heads-up against a big blind posted short all-in, the small blind
   who has put in more has no action; his excess comes back uncalled, with no `ROUND_INCOMPLETE`. (`all-in-*`)
3. The button on a redeal stays on its seat even when that seat's player left (all-in on the ante, his chips in
   the carried pot); moving it is `BUTTON_MOVE`. (`redeal-button-*`)
4. In `points` mode the points on a seat line are its stack: a wrong carry is `STACK_CONTINUITY`. (`points-*`)
5. "Everyone checked" (RULES.md, decided 2026-12-03): a first round nobody could act in (the forced bets left at
   most one player able to bet) is not one everyone checked: the hand plays on to the draw, and a redeal there is
   `REDEAL`; with `openers = jacks` a hand where nobody was dealt openers is still redealt, and playing it on is
   `REDEAL`. (`nobody-to-act-*`)

A hit's expectation names exactly the findings it must give: every violation or error found is one of its
`must_include` (hand and rule), and a `msg_id`, where given, says which reason. A near miss is clean and, at any
severity, free of the rules it lists in `must_not_include`.

And the simulator (`audit.simulate`, the second implementation of the rules) plays both settings of
`second-round-starts` with `openers = jacks` the same way: its sessions audit clean through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audit.simulate import Simulator
from casejudge import CheckedTogether, describe, run_check, simulated_sessions
from conftest import SHARED, at_least, needs_shared

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "fixtures" / "decisions"
CASES = at_least(21, sorted(DECISIONS.glob("*.txt")))
CHECKED = CheckedTogether(CASES)
BAD = ("violation", "error")


def expectation(case: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(case.with_suffix(".expect.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_decision_fixture(case: Path) -> None:
    expect, found = CHECKED.check_case(case)
    if expect.get("clean"):
        return
    wanted = {(w["hand"], w["rule"]) for w in expect["must_include"]}
    bad = {(str(f["hand"]), f["rule"]) for f in found if f["severity"] in BAD}
    assert bad == wanted, f"{case.name}: exactly {sorted(wanted)} wanted\nfindings:\n{describe(found)}"
    for w in expect["must_include"]:
        if "msg_id" in w:
            ids = {f["msg_id"] for f in found if str(f["hand"]) == w["hand"] and f["rule"] == w["rule"]}
            assert ids == {w["msg_id"]}, f"{case.name}: {ids}"


def test_every_decision_has_a_hit_and_a_near_miss() -> None:
    """Point 1 under both `second-round-starts` values (nobody could open; someone could and all checked), and
    points 2-5: each a hit and a clean near miss."""
    clean = {p.stem for p in CASES if expectation(p).get("clean")}
    hits = {p.stem for p in CASES if not expectation(p).get("clean")}
    for variant in ("lob", "opener"):
        assert {f"openers-nobody-{variant}-redeal", f"openers-held-{variant}-redeal" if variant == "opener"
                else f"openers-held-{variant}-draw"} <= clean
        assert {f"openers-nobody-{variant}-draw", f"openers-held-{variant}-draw" if variant == "opener"
                else f"openers-held-{variant}-redeal"} <= hits
    for prefix in ("all-in-", "redeal-button-", "points-", "nobody-to-act-"):
        assert any(s.startswith(prefix) for s in clean) and any(s.startswith(prefix) for s in hits), prefix


# RULES.md's "Everyone checked" decision, sentence by sentence, and the fixtures that hold the engine to each
EVERYONE_CHECKED = {
    "at least one player could act in the first round and every one who acted checked":
        ("qdan-all-check-redeal-not-allowed", "qdan-all-check-proceed"),
    "A first round in which nobody could act (all but one all-in on the forced bets) is not an all-check round":
        ("nobody-to-act-redeal", "nobody-to-act-draw"),
    "With `openers = jacks` a hand where no player was dealt openers is still redealt":
        ("nobody-to-act-no-openers-draw", "nobody-to-act-no-openers-redeal"),
}


@needs_shared
def test_everyone_checked_is_pinned_to_rules_md() -> None:
    """Each sentence of the decision is in RULES.md as the fixtures read it, and has a hit (a `REDEAL`) and a
    clean near miss; the hits and misses themselves are judged through the CLI above or in test_profiles.py."""
    rules = " ".join((SHARED / "spec" / "RULES.md").read_text(encoding="utf-8").split())
    start = rules.index("**Everyone checked** (decided 2026-12-03)")
    decision = rules[start:rules.index("- **", start + 10)]
    for sentence, (hit, miss) in EVERYONE_CHECKED.items():
        assert sentence in decision, sentence
        for name, clean in ((hit, False), (miss, True)):
            folder = DECISIONS if (DECISIONS / f"{name}.txt").is_file() else ROOT / "fixtures" / "profiles"
            expect = expectation(folder / f"{name}.txt")
            assert bool(expect.get("clean")) is clean, name
            if not clean:
                assert {w["rule"] for w in expect["must_include"]} == {"REDEAL"}, name
            else:
                found = run_check(folder / f"{name}.txt", expect.get("profile"))
                assert not [f for f in found if f["rule"] == "REDEAL"], describe(found)


@pytest.mark.parametrize("start", ["opener", "left-of-button"])
def test_simulated_jacks_sessions_audit_clean(start: str, tmp_path: Path) -> None:
    """Thirty seeded qdan sessions with `openers = jacks` under each `second-round-starts`: clean through the
    CLI, with hands redealt because nobody could open and, under `left-of-button` only, hands where someone
    held openers, everyone checked and play went on to the draw."""
    sim = Simulator("qdan", 32, [("openers", "jacks"), ("second-round-starts", start)])
    text, stats = simulated_sessions(sim, 30)
    path = tmp_path / f"jacks-{start}.txt"
    path.write_text(text, encoding="utf-8")
    found = run_check(path, None)
    bad = [f for f in found if f["severity"] in BAD]
    assert not bad, f"{len(bad)} findings on legal simulated play:\n{describe(bad)}"
    assert stats["redeal_no_openers"] >= 20, stats
    if start == "left-of-button":
        assert stats["openers_held_all_checked"] >= 5, stats
        assert stats["redeal"] == stats["redeal_no_openers"], stats
    else:
        assert stats["openers_held_all_checked"] == 0, stats
        assert stats["redeal"] > stats["redeal_no_openers"], stats
