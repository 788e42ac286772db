"""The explain verdict and the findings are one account (issue 38): over every fixture, every shared case and a
few hundred simulated hands with one defect each (tests/test_simulate.py's mutations),

1. every party the verdict says is owed or owes chips (``audit.explain.settle``) is named by a finding that moved
   chips: no debt without its reason;
2. every finding that moved chips has its line in the verdict (a party it names is owed or owes chips), and a
   finding of a rule about chips whose chips cancel out (a bet not returned that the same player collected with
   the pot) is said under "nothing to pay back, but rules were broken", not as a reason chips moved;
3. where a hand's only chip finding says how many chips one player is owed (a tied share taken, a pot or a share
   won and not paid, a bet not returned, an odd chip), the verdict owes him exactly that many.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.explain import HandExplanation, explain_blocks, explain_file
from audit.explain.records import CARRY_RULES, CHIP_RULES
from audit.explain.render.text import hand_text
from audit.explain.settle import POT, finding_parties
from audit.profile import load_profile
from audit.read import read_text_blocks
from conftest import FIXTURES, SHARED, at_least, needs_shared
from test_simulate import MUTATIONS, session

MUTATED_PER_DEFECT = 10
OWED: dict[str, tuple[str, int]] = {
    # msg_id → (the parameter naming the player owed, or "" for the finding's player; the sign of his balance)
    "finding.POT_WINNER.tie_taken": ("owed", 1),
    "finding.POT_WINNER.won_nothing": ("", 1),
    "finding.UNCALLED_BET.not_returned": ("", 1),
}
AMOUNT = {"finding.POT_WINNER.tie_taken": "taken_chips", "finding.POT_WINNER.won_nothing": "won_amount",
          "finding.UNCALLED_BET.not_returned": "due_amount"}


def files(root: Path) -> list[Path]:
    """The logs below ``root``, less those of sites audit does not read (``fixtures/unread``: explain refuses
    them in one line, by design)."""
    return sorted(p for p in root.rglob("*") if p.suffix in (".txt", ".xml") and p.is_file()
                  and p.parent.name != "unread")


def profile_of(case: Path) -> str | None:
    expect = case.with_suffix(".expect.json")
    if not expect.is_file():
        return None
    data = json.loads(expect.read_text(encoding="utf-8"))
    return data.get("profile") if isinstance(data, dict) else None


def hands_of(case: Path) -> list[HandExplanation]:
    name = profile_of(case)
    return [h for h in explain_file(str(case), load_profile(name) if name else None)
            if isinstance(h, HandExplanation) and h.settlement is not None]


def mutated_hands() -> Iterator[tuple[str, HandExplanation]]:
    home = load_profile("home-open")
    for name, (_, mutate) in MUTATIONS.items():
        done = 0
        for seed in range(1, 400):
            rng = random.Random(seed * 7919 + zlib.crc32(name.encode()))
            mutation = mutate(session(seed), rng)
            if mutation is None:
                continue
            blocks, b = mutation
            text = "\n\n".join("\n".join(block) for block in blocks[:b + 1]) + "\n"
            last = [h for h in explain_blocks(read_text_blocks(text), home) if isinstance(h, HandExplanation)][-1]
            if last.settlement is not None:
                yield f"{name} (seed {seed})", last
            done += 1
            if done == MUTATED_PER_DEFECT:
                break


def wrong_in_account(h: HandExplanation) -> list[str]:
    """What breaks the account in one explained hand (empty: none)."""
    assert h.settlement is not None
    balances = h.settlement.balances
    pots = [{"name": p.name, "awards": p.awards, "collected": p.collected} for p in h.pots]
    moving = [r.finding for r in h.reasons if r.changes_chips and r.finding.rule not in CARRY_RULES]
    wrong: list[str] = []
    named: set[str] = set()
    for f in moving:
        parties = finding_parties(f, pots)
        named |= parties
        if not any(balances.get(p) for p in parties):
            wrong.append(f"{f.msg_id} ({f.player}) moved chips but has no line in the verdict {balances}")
    for party, chips in balances.items():
        if chips and party not in named:
            wrong.append(f"the verdict says {party} {chips:+} with no finding naming {party}: "
                         f"{[f.msg_id for f in moving]}")
    chip_findings = [f for f in h.findings if f.rule in CHIP_RULES and f.rule not in CARRY_RULES]
    if not balances:
        wrong += [f"{f.msg_id} is given as moving chips, but nothing is owed" for f in moving]
        if chip_findings and "nothing to pay back, but" not in hand_text(h, "en").lower():
            wrong.append("chip findings that cancel out are not said under 'nothing to pay back, but'")
    if len(chip_findings) == 1 and chip_findings[0].msg_id in OWED:
        f = chip_findings[0]
        params = dict(f.params)
        key, sign = OWED[f.msg_id]
        player = str(params[key]) if key else f.player
        want = sign * int(params[AMOUNT[f.msg_id]])
        if player is None or h.settlement.difference.get(player, 0) != want:
            wrong.append(f"{f.msg_id} says {player} is owed {want}; the verdict: {h.settlement.difference}")
    return wrong


def test_every_fixture_is_one_account() -> None:
    wrong = [f"{case.relative_to(FIXTURES)} hand {h.hand}: {w}" for case in at_least(300, files(FIXTURES))
             for h in hands_of(case) for w in wrong_in_account(h)]
    assert not wrong, "\n".join(wrong[:10])


@needs_shared
def test_every_shared_case_is_one_account() -> None:
    cases = files(SHARED / "cases")
    assert len(cases) >= 60
    wrong = [f"{case.name} hand {h.hand}: {w}" for case in cases for h in hands_of(case) for w in wrong_in_account(h)]
    assert not wrong, "\n".join(wrong[:10])


def test_simulated_hands_with_one_defect_are_one_account() -> None:
    seen = 0
    wrong: list[str] = []
    moved = 0
    for where, h in mutated_hands():
        seen += 1
        moved += bool(h.settlement and h.settlement.balances)
        wrong += [f"{where}: {w}" for w in wrong_in_account(h)]
    assert seen >= 200 and moved >= 40, (seen, moved)
    assert not wrong, "\n".join(wrong[:10])


@pytest.mark.parametrize("case, owed", [
    ("ties/house-three-way-taken-by-one.txt", {"Ana": 6, "Beto": 5, "Carla": -11}),
    ("ties/pokerstars-taken-whole.txt", {"Hero": 26, "Player3": -26}),
    ("ties/house-side-pot-taken-by-main-winner.txt", {"Ana": 26, "Beto": 26, "Carla": -52}),
])
def test_a_tied_pot_taken_whole_is_owed_back_in_the_verdict(case: str, owed: dict[str, int]) -> None:
    """The issue's dispute: the verdict's debts are the tied shares, and POT_WINNER is the reason given."""
    [h] = hands_of(FIXTURES / case)
    assert h.settlement is not None
    assert {p: d for p, d in h.settlement.difference.items() if d} == owed
    assert POT not in h.settlement.balances
    assert {r.finding.rule for r in h.reasons if r.changes_chips} == {"POT_WINNER"}
