"""What the dispute page says was allowed at a step (issue 27, point 5), pinned with exact numbers per betting
structure: to call, min and max raise-to, whether raising was open, the draw limit. Each value below was worked out
by hand from RULES.md (the hands' comments say how); the hands are clean (no finding), so the values are the
rules', not a mistake's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from audit.pipeline import audit_text
from audit.explain import HandExplanation, explain_file, explain_text
from audit.explain.phrases import legal_words

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

# stripped32, pot limit, three players (blinds 1 and 2, the min bet 2). Max raise-to = the bet + the pot after
# the call: Carla 2 + (3 + 2) = 7; Ana 7 + (10 + 6) = 23; Beto 7 + (16 + 5) = 28; Carla and Ana 28 + (42 + 21)
# = 91; in the second round 0 + 63 = 63, then Ana's call of 10 caps at her 72 chips (10 + 73 would be 83).
POT_LIMIT = """Profile: stripped32
Option: betting = pot-limit

Hand #PL1 - 2026/11/29 21:00:00
Table 'Treinta y dos' Seat #3 is the button
Seat 1: Ana (100 in chips)
Seat 2: Beto (100 in chips)
Seat 3: Carla (100 in chips)
Ana: posts small blind 1
Beto: posts big blind 2
*** DEALING HANDS ***
Dealt to Ana [Ah Ad 7c 8d 9s]
Dealt to Beto [Kh Kd Ks 7h 8h]
Dealt to Carla [Qc Qd Jc Js Tc]
*** FIRST BETTING ROUND ***
Carla: raises 5 to 7
Ana: calls 6
Beto: raises 21 to 28
Carla: folds
Ana: calls 21
*** DRAW ***
Ana: stands pat
Beto: stands pat
*** SECOND BETTING ROUND ***
Ana: checks
Beto: bets 10
Ana: calls 10
*** SHOW DOWN ***
Beto: shows [Kh Kd Ks 7h 8h] (three of a kind, Kings)
Ana: shows [Ah Ad 7c 8d 9s] (a pair of Aces)
Beto collected 83 from pot
*** SUMMARY ***
Total pot 83 | Rake 0
"""

# stripped32, fixed limit, three players: the first round's bet is 2 (the big blind is its first bet), the
# second's 4. Ana's all-in from 4 to 5 is a quarter of a bet: not a full raise, so Beto completes to the last full
# level (4) plus one bet, 8 (not 5 + 4 = 9), and Carla, who bet 4, faces a full raise and may raise again (to 12).
FIXED_LIMIT = """Profile: stripped32
Option: betting = fixed-limit

Hand #FL1 - 2026/11/29 21:10:00
Table 'Treinta y dos' Seat #3 is the button
Seat 1: Ana (7 in chips)
Seat 2: Beto (100 in chips)
Seat 3: Carla (100 in chips)
Ana: posts small blind 1
Beto: posts big blind 2
*** DEALING HANDS ***
Dealt to Ana [Ah Ad 7c 8d 9s]
Dealt to Beto [Kh Kd Ks 7h 8h]
Dealt to Carla [Qc Qd Jc Js Tc]
*** FIRST BETTING ROUND ***
Carla: calls 2
Ana: calls 1
Beto: checks
*** DRAW ***
Ana: stands pat
Beto: stands pat
Carla: discards 1 card [Tc]
Dealt to Carla [Qc Qd Jc Js] [Qh]
*** SECOND BETTING ROUND ***
Carla: bets 4
Ana: raises 1 to 5 and is all-in
Beto: raises 3 to 8
Carla: calls 4
*** SHOW DOWN ***
Beto: shows [Kh Kd Ks 7h 8h] (three of a kind, Kings)
Carla: shows [Qc Qd Jc Js Qh] (a full house, Queens full of Jacks)
Ana: shows [Ah Ad 7c 8d 9s] (a pair of Aces)
Carla collected 21 from main pot
Carla collected 6 from side pot-1
*** SUMMARY ***
Total pot 27 | Rake 0
"""

Legal = tuple[int, int, int, bool]


def allowed(h: HandExplanation) -> dict[int, Legal]:
    return {s.line: (s.legal.to_call, s.legal.min_raise_to, s.legal.max_raise_to, s.legal.may_raise)
            for s in h.steps if s.legal is not None}


def draws(h: HandExplanation) -> dict[int, tuple[int | None, int | None]]:
    return {s.line: (s.draw.limit, s.draw.limit_keeping_ace) for s in h.steps if s.draw is not None}


def only_hand(items: list[Any]) -> HandExplanation:
    [h] = [i for i in items if isinstance(i, HandExplanation)]
    return h


@pytest.mark.parametrize("text", [POT_LIMIT, FIXED_LIMIT], ids=["pot-limit", "fixed-limit"])
def test_the_hands_are_clean(text: str) -> None:
    assert [f.rule for a in audit_text(text) for f in a.findings] == []


def test_no_limit_and_a_short_all_in_that_does_not_reopen() -> None:
    """reopen-dispute: antes 1, min bet 2; Ana bets 4, Beto (6 left) and Carla (7 left) go all-in short: the
    increment stays 4 and Ana, who has acted, faces only 3 more: she may call or fold."""
    h = only_hand(list(explain_file(str(FIXTURES / "demo" / "reopen-dispute.txt"))))
    assert allowed(h) == {
        20: (0, 2, 99, True),    # Ana opens: the min bet 2, her 99 chips
        21: (4, 8, 6, True),     # Beto: 4 + 4, but he has only 6
        22: (6, 10, 7, True),    # Carla: 6 + 4 (a short all-in leaves the increment at 4), she has 7
        23: (7, 11, 99, True),   # Dario has not acted: 7 + 4
        24: (3, 11, 99, False),  # Ana faces 3 more than her 4, less than the full 4: not re-opened
        25: (4, 15, 99, True),   # Dario faces Ana's full raise of 4: 11 + 4
        36: (0, 2, 88, True), 37: (0, 2, 88, True),
    }
    assert set(draws(h).values()) == {(5, None)}  # home-open: any five
    [at_24] = [s for s in h.steps if s.line == 24]
    assert legal_words(at_24, "en") == ("to call 3 · min raise-to 11 · max raise-to 99 · "
                                         "raising closed (the betting was not reopened)")


def test_pot_limit() -> None:
    h = only_hand(list(explain_text(POT_LIMIT)))
    assert allowed(h) == {16: (2, 4, 7, True), 17: (6, 12, 23, True), 18: (5, 12, 28, True),
                          19: (21, 49, 91, True), 20: (21, 49, 91, True),
                          25: (0, 2, 63, True), 26: (0, 2, 63, True), 27: (10, 20, 72, True)}
    assert set(draws(h).values()) == {(4, None)}  # stripped32: four


def test_fixed_limit_without_the_cap_and_a_short_all_in() -> None:
    h = only_hand(list(explain_text(FIXED_LIMIT)))
    assert allowed(h) == {16: (2, 4, 4, True), 17: (1, 4, 4, True), 18: (0, 4, 4, True),
                          25: (0, 4, 4, True),
                          26: (4, 8, 5, True),   # Ana has only 5: all-in short
                          27: (5, 8, 8, True),   # Beto completes: the last full level 4 + one bet
                          28: (4, 12, 12, True)}
    [at_27] = [s for s in h.steps if s.line == 27]
    assert legal_words(at_27, "en") == "to call 5 · min raise-to 8 · max raise-to 8 · raising open"


def test_fixed_limit_with_the_cap() -> None:
    """stripped32 fixed limit, four players (blinds 1, 2 and the over blind 4, the bet 4 then 8): the over blind
    is the first of the cap's four bets; after 16 nobody may raise."""
    h = only_hand(list(explain_file(str(FIXTURES / "profiles" / "stripped32-fixed-limit-four.txt"))))
    legal = allowed(h)
    assert legal[26] == (4, 12, 12, True) and legal[27] == (4, 16, 16, True)  # the third and the fourth bet
    assert legal[28] == (8, 20, 20, False) and legal[29] == (4, 20, 20, False)  # capped
    assert legal[38] == (0, 8, 8, True) and legal[41] == (8, 24, 24, True)  # the second round: 8 a bet
    [at_28] = [s for s in h.steps if s.line == 28]
    assert legal_words(at_28, "en").endswith("raising closed (the cap of bets is reached)")
    assert legal_words(at_28, "es").endswith("no se puede subir (se llegó al tope de apuestas)")
    assert h.steps[[s.line for s in h.steps].index(28)].as_dict()["legal"]["capped"] is True


def test_fixed_limit_heads_up_has_no_cap_on_a_site() -> None:
    """A PokerStars $30/$60 limit hand heads-up: no cap, Hero's fifth bet to $300 is open to him."""
    h = only_hand(list(explain_file(str(FIXTURES / "site" / "RAISE_CAP-miss-heads-up-fl.txt"))))
    legal = allowed(h)
    assert legal[18] == (0, 6000, 6000, True)
    assert legal[21] == (6000, 24000, 24000, True) and legal[22] == (6000, 30000, 30000, True)
    assert legal[23] == (6000, 36000, 36000, True)


def test_the_draw_limit_keeping_an_ace() -> None:
    h = only_hand(list(explain_file(str(FIXTURES / "profiles" / "qdan-draw-ace.txt"))))
    assert set(draws(h).values()) == {(3, 4)}
    [ana] = [s for s in h.steps if s.line == 22]
    assert ana.draw is not None and ana.draw.may_discard == ("As", "4d", "5c", "7h", "9s")
    assert legal_words(ana, "en") == "may discard up to 3 (4 keeping an ace) of As 4d 5c 7h 9s"
    assert legal_words(ana, "es") == ("puede descartar hasta 3 (4 si guarda un as) de as de picas, cuatro de "
                                      "diamantes, cinco de tréboles, siete de corazones, nueve de picas")
