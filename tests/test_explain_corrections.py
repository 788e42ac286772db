"""A session's verdict is what each player should hold at the end against what they hold (issue 27, point 1):
a stack change between hands that exactly reverses an earlier wrong payment is the table's correction, netted
by the verdict; a stack change that corrects nothing stays a finding that moves chips. Through the installed
command (a subprocess), its JSON and its page, in English and Spanish."""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import AUDIT, FIXTURES

CORRECTED = FIXTURES / "demo" / "home-session-odd-chip-dispute.txt"
UNCORRECTED = FIXTURES / "demo" / "home-session-odd-chip-uncorrected.txt"


def explain(path: Path, *args: str) -> str:
    done = subprocess.run([AUDIT, "explain", str(path), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def objects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in explain(path, "--format", "json").splitlines() if line.strip()]


def page_text(path: Path, lang: str) -> str:
    page = explain(path, "--format", "html", "--lang", lang)
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def over_corrected(tmp: Path) -> Path:
    """The corrected session, but the table moved two chips instead of one: it reverses nothing."""
    text = CORRECTED.read_text(encoding="utf-8")
    head, tail = text.split("Hand #387709", 1)
    tail = tail.replace("Seat 1: Маша (103 in chips)", "Seat 1: Маша (102 in chips)", 1) \
        .replace("Seat 5: O'Neil (91 in chips)", "Seat 5: O'Neil (92 in chips)", 1)
    out = tmp / "over-corrected.txt"
    out.write_text(head + "Hand #387709" + tail, encoding="utf-8")
    return out


def test_the_corrected_session_owes_nothing_and_says_the_table_corrected_it() -> None:
    items = objects(CORRECTED)
    [session] = [o for o in items if o["kind"] == "session"]
    assert session["corrections"] == [] and session["difference"] == {}
    assert session["verdict"]["settled"] and session["verdict"]["sentences"] == []
    assert session["verdict"]["corrected_at_table"] == ["387708"]
    assert session["table_corrections"] == [{"hand": "387709", "corrects": ["387708"],
                                             "chips": {"Маша": -1, "O'Neil": 1}}]
    by_rule = {(r["hand"], r["rule"], r["player"]): r for r in session["reasons"]}
    odd = by_rule[("387708", "ODD_CHIP", "Маша")]
    assert odd["changes_chips"] and odd["corrected_before"] == "387709" and odd["table_correction"] is None
    for player in ("Маша", "O'Neil"):
        stack = by_rule[("387709", "STACK_CONTINUITY", player)]
        assert (stack["changes_chips"], stack["table_correction"], stack["follows_from"]) == (False, "387708", None)
    hands = {o["hand"]: o for o in items if o["kind"] == "hand"}
    # the hand that paid wrong still says what it got wrong, and that the table put it right
    assert hands["387708"]["corrections"] == [{"from": "Маша", "to": "O'Neil", "chips": 1}]
    assert hands["387708"]["corrected_before"] == "387709"
    # the hand whose stacks are the correction owes nothing and broke no rule that needs paying back
    assert hands["387709"]["table_corrects"] == ["387708"]
    assert hands["387709"]["verdict"] == {"settled": True, "rules_broken": False, "sentences": [],
                                          "corrected_at_table": []}

    text = explain(CORRECTED)
    session_text = text.split("\n\n", 1)[0]
    assert "owes" not in session_text
    assert "Hand #387708 was corrected at the table before hand #387709." in session_text
    assert "Corrected at the table before hand #387709" in session_text
    assert session_text.count("The table's correction of hand #387708") == 2
    hand_387709 = text.split("Hand #387709 ·", 1)[1].split("Step by step", 1)[0]
    assert "Nothing to correct" in hand_387709 and "the rules were broken" not in hand_387709
    es = explain(CORRECTED, "--lang", "es").split("\n\n", 1)[0]
    assert "debe" not in es
    assert "La mano #387708 se corrigió en la mesa antes de la mano #387709." in es
    assert es.count("La corrección de la mesa de la mano #387708") == 2

    for lang, owes, corrected in (("en", "owes O'Neil", "corrected at the table before hand #387709"),
                                  ("es", "debe 1 ficha a O'Neil", "se corrigió en la mesa antes de la mano #387709")):
        page = page_text(CORRECTED, lang)
        session_part = page.split("#387704", 1)[0]
        assert owes not in session_part and corrected in session_part, lang


def test_the_uncorrected_twin_still_owes_the_chip() -> None:
    items = objects(UNCORRECTED)
    [session] = [o for o in items if o["kind"] == "session"]
    assert session["corrections"] == [{"from": "Маша", "to": "O'Neil", "chips": 1}]
    assert session["verdict"]["sentences"] == ["Маша owes O'Neil 1 chip."]
    assert session["verdict"]["corrected_at_table"] == [] and session["table_corrections"] == []
    assert [(r["rule"], r["corrected_before"]) for r in session["reasons"]] == [("ODD_CHIP", None)]
    assert "Маша owes O'Neil 1 chip." in explain(UNCORRECTED).split("\n\n", 1)[0]
    assert "Маша debe 1 ficha a O'Neil." in explain(UNCORRECTED, "--lang", "es").split("\n\n", 1)[0]
    for lang, owes in (("en", "Маша owes O'Neil 1 chip."), ("es", "Маша debe 1 ficha a O'Neil.")):
        page = page_text(UNCORRECTED, lang)
        assert owes in page.split("#387704", 1)[0] and "387709" not in page.split("#387704", 1)[0], lang


def test_a_stack_change_that_corrects_nothing_stays_a_finding_that_moves_chips(tmp_path: Path) -> None:
    items = objects(over_corrected(tmp_path))
    [session] = [o for o in items if o["kind"] == "session"]
    assert session["corrections"] == [{"from": "Маша", "to": "O'Neil", "chips": 1}]
    assert session["table_corrections"] == []
    stacks = [r for r in session["reasons"] if r["rule"] == "STACK_CONTINUITY" and r["hand"] == "387709"]
    assert [(r["player"], r["changes_chips"], r["follows_from"], r["table_correction"]) for r in stacks] == [
        ("Маша", True, "387708", None), ("O'Neil", True, "387708", None)]
    text = explain(over_corrected(tmp_path))
    assert "This follows from hand #387708, where O'Neil's chips were paid wrong." in text
    assert "corrected at the table" not in text.lower()


@pytest.mark.parametrize("hand,want", [("387708", "387709"), ("387709", None)])
def test_one_hand_asked_for_knows_it_was_corrected(hand: str, want: str | None) -> None:
    [h] = [json.loads(line) for line in explain(CORRECTED, "--hand", hand, "--format", "json").splitlines()]
    assert h["hand"] == hand and h["corrected_before"] == want
