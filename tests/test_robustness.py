"""Fixes from fuzzing: profile names are never paths, odd option values, sessions after an unreadable hand,
capped findings, a hand cut off before its pot was paid, and internal errors that exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from audit import pipeline
from audit.cards import JOKER
from audit.cli import main
from audit.explain import explain_result, render_text
from audit.read import read_text_blocks
from conftest import SHARED, needs_shared
from handshapes import PROFILE_VARIANTS, outside_hands

ENGINE_STOPPED = "the replay stopped at an unexpected situation"


def check(path: Path, *extra: str) -> tuple[int, list[dict[str, object]], str]:
    result = CliRunner().invoke(main, ["check", str(path), "--format", "json", *extra])
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, rows, result.output


@pytest.mark.parametrize("name", ["../../pyproject", "x" * 300, "home-open/../qdan"])
def test_profile_name_is_never_a_path(tmp_path: Path, name: str) -> None:
    log = tmp_path / "log.txt"
    log.write_text(f"Profile: {name}\n\n", encoding="utf-8")
    code, _, output = check(log)
    assert code == 2 and "unknown profile" in output and "Traceback" not in output


@pytest.mark.parametrize("option", ["ante = ²", "players = range", "players = ²-6", "ante = 1234567890123"])
def test_odd_option_values_are_refused_with_the_line(tmp_path: Path, option: str) -> None:
    log = tmp_path / "log.txt"
    log.write_text(f"Profile: qdan\nOption: {option}\n\n", encoding="utf-8")
    code, _, output = check(log)
    assert code == 2 and f"{log}:2: option" in output and "cannot be" in output


@needs_shared
def test_session_goes_on_after_an_unreadable_hand(tmp_path: Path) -> None:
    text = (SHARED / "cases" / "generated" / "clean-001.txt").read_text(encoding="utf-8")
    cut = text[:text.index("*** DRAW ***")] + "*** DR" + text[text.index("\n\nHand #4502"):]
    log = tmp_path / "cut.txt"
    log.write_text(cut, encoding="utf-8")
    code, rows, _ = check(log)
    assert code == 1
    assert [(r["hand"], r["rule"]) for r in rows] == [("4501", "PARSE_ERROR")]


@needs_shared
def test_hand_cut_off_before_the_pot_was_paid(tmp_path: Path) -> None:
    text = (SHARED / "cases" / "edge" / "odd-chip-three-way.txt").read_text(encoding="utf-8")
    log = tmp_path / "cut.txt"
    log.write_text(text[:text.index("Carla collected")], encoding="utf-8")
    _, rows, _ = check(log)
    pot = [r for r in rows if r["rule"] == "POT_AMOUNT"]
    assert len(pot) == 1 and "is the log cut off?" in str(pot[0]["message"])


def test_findings_of_one_rule_are_capped_per_hand(tmp_path: Path) -> None:
    seats = "".join(f"Seat {i}: P{i} (100 in chips)\n" for i in range(1, 31))
    log = tmp_path / "big.txt"
    log.write_text("Hand #1 - 2026/11/28 21:00:00\nTable 'T' Seat #1 is the button\n" + seats
                   + "*** DEALING HANDS ***\n", encoding="utf-8")
    _, rows, _ = check(log)
    antes = [r for r in rows if r["rule"] == "ANTE_WRONG"]
    assert len(antes) == pipeline.MAX_FINDINGS_PER_RULE + 1
    assert "and 10 more ANTE_WRONG findings" in str(antes[-1]["message"])


@needs_shared
def test_internal_error_exits_2_not_1(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr("audit.check.check_paths", broken)
    result = CliRunner().invoke(main, ["check", str(SHARED / "cases" / "edge")])
    assert result.exit_code == 2
    assert "internal error" in result.output and "RuntimeError: boom" in result.output


OUTSIDE_HAND = """Hand #{n} - 2026/01/01 20:00:00
Table 'Mesa' Seat #2 is the button
Seat 1: Ana (100 in chips)
Seat 2: Beto (100 in chips)
Ana: posts the ante 1
Beto: posts the ante 1
*** DEALING HANDS ***
Dealt to Ana [{a}]
Dealt to Beto [{b}]
*** FIRST BETTING ROUND ***
{first_round}
*** DRAW ***
Ana: stands pat
Beto: stands pat
*** SECOND BETTING ROUND ***
Ana: checks
Beto: checks
*** SHOW DOWN ***
Ana: shows [{a}] ({a_said})
Beto: shows [{b}] ({b_said})
{paid}
*** SUMMARY ***
Total pot 6 | Rake 0
"""


@pytest.mark.parametrize("mode", ["chips", "points"])
@pytest.mark.parametrize("variant", sorted(PROFILE_VARIANTS))
def test_a_hand_with_a_card_outside_the_deck_is_judged_without_stopping(variant: str, mode: str) -> None:
    """Every shape of hand holding a card the deck does not have, under every profile's ranking, through every
    place that ranks a hand -- openers (``openers = jacks``, opened by the player with the stranger card or by
    the other), the stated description, the showdown, points -- and through the explanation: the card is the
    finding, the hand wins nothing, nothing stops."""
    profile = PROFILE_VARIANTS[variant]
    ranking = profile.hand_ranking()
    profile = profile.with_options([("openers", "jacks"), ("blinds", "none"), ("ante", "1"), ("mode", mode),
                                    ("parole", "no"), ("players", "2-10"), ("min-bet", "2"), ("bet-unit", "1")])
    hands = []
    for n, (shape, ana) in enumerate(outside_hands(ranking, turns=1), start=1):
        beto = [c for c in ranking.deck if c not in ana and c != JOKER][-5:]
        paid = "Ana scores 1 point" if mode == "points" else "Ana collected 6 from pot"
        first_round = "Ana: bets 2\nBeto: calls 2" if n % 2 else "Ana: checks\nBeto: bets 2\nAna: calls 2"
        hands.append(OUTSIDE_HAND.format(n=n, a=" ".join(ana), b=" ".join(beto), a_said=f"a {shape}",
                                         b_said=ranking.describe(beto), paid=paid, first_round=first_round))
    if not hands:
        assert len(ranking.deck) == 53  # a joker deck of 52 holds every card
        return
    findings: dict[str, set[str]] = {}
    for audited in pipeline.audit_blocks(read_text_blocks("\n".join(hands), "outside.txt"), profile, steps=True):
        assert audited.result is not None, [f.message for f in audited.findings]
        for f in audited.findings:
            assert ENGINE_STOPPED not in f.message, f.message
            if f.player == "Ana" or f.rule in ("POT_WINNER", "POINTS"):
                findings.setdefault(str(f.hand), set()).add(f.rule)
        list(render_text([explain_result(audited.result, profile)]))
    wanted = {"CARD_NOT_IN_DECK", "POINTS" if mode == "points" else "POT_WINNER"}
    assert len(findings) == len(hands) and all(wanted <= rules for rules in findings.values()), findings
    assert not any("OPENERS" in rules or "HAND_DESCRIPTION" in rules for rules in findings.values())
