"""Property tests of the simulator's qdan and stripped32 play against the audit.

Each profile and option combination: 2,000+ simulated hands audit with no violation and no error (the simulator
is an independent implementation of RULES.md; a finding is a disagreement a person must settle). And a defect of
each rule id the two profiles brought is injected into several simulated hands and must be reported with that
rule id on that hand.
"""

from __future__ import annotations

import random
import re
import zlib
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

import pytest

from audit.cards import make_deck, ranking_for
from audit.findings import Finding
from audit.pipeline import audit_blocks
from audit.profile import load_profile
from audit.read import read_text_blocks
from audit.simulate import Simulator

BAD = ("violation", "error")
HANDS = 2000

Options = tuple[tuple[str, str], ...]

CONFIGS: dict[str, tuple[str, Options]] = {
    "qdan": ("qdan", ()),
    "qdan openers=jacks": ("qdan", (("openers", "jacks"),)),
    "qdan joker=wild": ("qdan", (("joker", "wild"),)),
    "qdan draw-limit=3": ("qdan", (("draw-limit", "3"),)),
    "qdan draw-limit=5": ("qdan", (("draw-limit", "5"),)),
    "qdan second-round-starts=left-of-button": ("qdan", (("second-round-starts", "left-of-button"),)),
    "qdan time-limit=30": ("qdan", (("time-limit", "30"),)),
    "qdan time-limit=60": ("qdan", (("time-limit", "60"),)),
    "qdan mode=points": ("qdan", (("mode", "points"),)),
    "stripped32": ("stripped32", ()),
    "stripped32 betting=pot-limit": ("stripped32", (("betting", "pot-limit"),)),
    "stripped32 betting=fixed-limit": ("stripped32", (("betting", "fixed-limit"),)),
}

# what each corpus must show it played (statistic: at least)
WANTED: dict[str, dict[str, int]] = {
    "qdan": {"redeal": 100, "all_in": 100, "side_pots": 30, "tied_pot_2way": 30, "draw_4": 100, "uncalled": 100},
    "qdan openers=jacks": {"redeal": 300, "showdown": 500},
    "qdan joker=wild": {"redeal": 100, "draw_4": 100},
    "qdan draw-limit=3": {"draw_3": 500},
    "qdan draw-limit=5": {"draw_5": 100, "reshuffle": 5},
    "qdan second-round-starts=left-of-button": {"showdown": 500},
    "qdan time-limit=30": {"timed_out": 50, "timed_out_draw": 20, "redeal": 100},
    "qdan time-limit=60": {"timed_out": 50},
    "qdan mode=points": {"points_showdown": 2000, "points_tie_2way": 30},
    "stripped32": {"blinds_3": 200, "parole_accepted": 50, "parole_declined": 50, "reshuffle": 20,
                   "all_in": 100, "side_pots": 30},
    "stripped32 betting=pot-limit": {"parole_accepted": 50, "all_in": 100, "min_raise": 200},
    "stripped32 betting=fixed-limit": {"capped": 100, "half_bet_all_in": 5, "parole_accepted": 50},
}


def audit_text(text: str, profile: str) -> list[Finding]:
    return [f for a in audit_blocks(read_text_blocks(text), load_profile(profile)) for f in a.findings]


def show(findings: list[Finding], limit: int = 8) -> str:
    return "\n".join(f"  {f.hand} line {f.line} {f.rule} ({f.severity}): {f.message}" for f in findings[:limit])


@lru_cache(maxsize=None)
def corpus(config: str) -> tuple[tuple[str, ...], int, Counter[str]]:
    """Whole sessions of ``config`` until 2,000 hands (redeals not counted): (texts, hands, statistics)."""
    profile, options = CONFIGS[config]
    sim = Simulator(profile, 2026, list(options))
    texts: list[str] = []
    stats: Counter[str] = Counter()
    hands = 0
    index = 0
    while hands < HANDS:
        s = sim.session(index)
        index += 1
        texts.append(s.text)
        stats += s.stats
        hands += s.hands
    return tuple(texts), hands, stats


@pytest.mark.parametrize("config", list(CONFIGS))
def test_two_thousand_hands_audit_clean(config: str) -> None:
    profile, options = CONFIGS[config]
    texts, hands, stats = corpus(config)
    assert hands >= HANDS
    text = "\n".join(texts)
    assert all(f"Option: {k} = {v}" in text for k, v in options)
    findings = audit_text(text, profile)
    bad = [f for f in findings if f.severity in BAD]
    assert not bad, f"{len(bad)} findings on legal simulated {config} play:\n{show(bad)}"
    thin = {k: (stats[k], v) for k, v in WANTED[config].items() if stats[k] < v}
    assert not thin, f"too few of (got, wanted): {thin}"
