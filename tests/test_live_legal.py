"""Issue 39: the live table on the engine. What the table offers is ``legal_now``'s answer and the engine judges by
the same queries (the qdan minimum after an all-in off the unit, through the real ``audit check`` too); the pots
it draws are the engine's pots in progress (no side pot without an all-in); warnings come at the entry (a seat's
stack at the opening, a show out of turn); undo is offered for its own entry only; a split claimed in two
entries is judged once the claims are complete; an entry follows the hand in play once, not four times."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from audit.engine.legal import legal_now
from audit.live import Table, TableConfig, TableError
from conftest import AUDIT


def open_table(profile: str, chips: tuple[int, ...], button: int = 3) -> Table:
    names = ("Ana", "Beto", "Carla", "Dario")
    seats = [{"seat": i + 1, "player": names[i], "chips": c} for i, c in enumerate(chips)]
    return Table(TableConfig.from_request({"name": "Casa", "profile": profile, "seats": seats, "button": button},
                                          "t", "2026/12/03 21:00:00"))


def enter(table: Table, *entries: tuple[Any, ...]) -> list[str]:
    """Entries as (player, action[, to or count or cards]); the rule ids the last one made."""
    rules: list[str] = []
    for e in entries:
        entry: dict[str, Any] = {"player": e[0], "action": e[1]}
        if len(e) > 2:
            entry[{"bet": "to", "raise": "to", "draw": "count", "show": "cards", "collect": "to"}[e[1]]] = e[2]
        rules = [f.rule for f in table.apply(entry)]
    return rules


# ------------------------------------------------------------------ the qdan minimum (RULES.md, "Bet units")
def qdan_after_the_all_in() -> Table:
    """qdan (ante 10, unit 20): Ana bets 40, Beto raises all-in to 90 (an increment of 50, off the unit)."""
    t = open_table("qdan", (2000, 100, 2000))
    assert enter(t, ("Ana", "bet", 40), ("Beto", "raise", 90)) == []
    return t


def test_the_minimum_offered_after_an_all_in_off_the_unit_is_150_and_clean() -> None:
    t = qdan_after_the_all_in()
    state = t.state()
    assert state["to_act"] == "Carla" and state["allowed"]["min_to"] == 150  # 90 + 50 up to a unit: 60
    assert enter(t, ("Carla", "raise", state["allowed"]["min_to"])) == []


def test_a_raise_to_140_after_it_is_below_the_unit_and_the_minimum() -> None:
    t = qdan_after_the_all_in()
    assert sorted(enter(t, ("Carla", "raise", 140))) == ["BET_UNIT", "RAISE_BELOW_MIN"]


QDAN_HAND = """Profile: qdan

Hand #Q1 - 2026/12/03 21:00:00
Table 'Q' Seat #3 is the button
Seat 1: Ana (2000 in chips)
Seat 2: Beto (2000 in chips)
Seat 3: Carla (2000 in chips)
Ana: posts the ante 10
Beto: posts the ante 10
Carla: posts the ante 10
*** DEALING HANDS ***
Dealt to Ana [2c 2d 7h 9s Kd]
Dealt to Beto [Ah Jh 6h 3h 9c]
Dealt to Carla [5s 6s 7d 8c Qc]
*** FIRST BETTING ROUND ***
Ana: bets 40
Beto: raises 50 to 90
Carla: raises {over} to {to}
"""


@pytest.mark.parametrize("to,rules", [(150, []), (140, ["BET_UNIT", "RAISE_BELOW_MIN"])])
def test_audit_check_judges_the_raise_after_a_raise_off_the_unit_as_the_table_offers_it(
        tmp_path: Path, to: int, rules: list[str]) -> None:
    """Beto's raise of 50 was full (at least 40), not all-in: BET_UNIT for him; then the next full raise is 60."""
    log = tmp_path / "qdan.txt"
    log.write_text(QDAN_HAND.format(over=to - 90, to=to), encoding="utf-8")
    done = subprocess.run([AUDIT, "check", str(log), "--format", "json", "--fail-on", "never"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    carla = sorted(f["rule"] for f in found if f["player"] == "Carla" and f["street"] == "first betting round")
    assert carla == rules
    assert [f["rule"] for f in found if f["player"] == "Beto"] == ["BET_UNIT"]


# ------------------------------------------------------------------ pots in progress
def test_unequal_bets_with_nobody_all_in_make_one_pot_and_bets() -> None:
    """Bet 2, raise to 8, raise to 10, everyone 40 or more: one pot (the antes and the chips called), Carla's 2
    nobody called yet in front of her."""
    t = open_table("home-open", (100, 100, 100, 40), button=4)
    enter(t, ("Ana", "bet", 2), ("Beto", "raise", 8), ("Carla", "raise", 10))
    state = t.state()
    assert state["pots"] == [{"name": "pot", "amount": 22, "eligible": ["Ana", "Beto", "Carla", "Dario"]}]
    assert state["bets"] == {"Ana": 2, "Beto": 8, "Carla": 10}


def test_an_all_in_makes_the_side_pot() -> None:
    t = open_table("home-open", (100, 100, 100, 40), button=4)
    enter(t, ("Ana", "bet", 2), ("Beto", "raise", 8), ("Carla", "raise", 10), ("Dario", "raise", 39),
          ("Ana", "call"), ("Beto", "call"), ("Carla", "call"))
    pots = [(p["name"], p["amount"], p["eligible"]) for p in t.state()["pots"]]
    assert pots == [("pot", 160, ["Ana", "Beto", "Carla", "Dario"])]  # all in for the same: one pot
    t = open_table("home-open", (100, 100, 100, 30), button=4)
    enter(t, ("Ana", "bet", 2), ("Beto", "raise", 8), ("Carla", "raise", 40), ("Dario", "call"))
    pots = [(p["name"], p["amount"], p["eligible"]) for p in t.state()["pots"]]
    # Dario all-in for 29 (30 with his ante), called by Carla's 40: the 11 above it nobody called is in front of her
    assert pots == [("pot", 3 + 9 + 30 + 30, ["Ana", "Beto", "Carla", "Dario"])]
    enter(t, ("Ana", "call"))
    pots = [(p["name"], p["amount"], p["eligible"]) for p in t.state()["pots"]]
    # the main pot to Dario's level; above it a side pot he cannot win (Beto, still to act, may yet call into it)
    assert pots == [("main", 30 + 9 + 30 + 30, ["Ana", "Beto", "Carla", "Dario"]),
                    ("side-1", 2 * 11, ["Ana", "Beto", "Carla"])]
    enter(t, ("Beto", "fold"))
    pots = [(p["name"], p["amount"], p["eligible"]) for p in t.state()["pots"]]
    assert pots == [("main", 99, ["Ana", "Carla", "Dario"]), ("side-1", 22, ["Ana", "Carla"])]


# ------------------------------------------------------------------ warnings at once
def test_a_seat_opened_off_the_starting_stack_is_said_when_the_table_opens() -> None:
    t = open_table("home-open", (100, 100, 40))
    found = [(f["rule"], f["player"]) for f in t.state()["findings"]]
    assert found == [("STACK_CONTINUITY", "Carla")]
    assert enter(t, ("Ana", "check")) == []  # said once, not again at the next entry
    assert enter(t, ("Beto", "bet", 4), ("Carla", "fold"), ("Ana", "fold")) == []  # nor when the hand ends
    assert [f["rule"] for f in t.state()["last_hand"]["findings"]] == ["STACK_CONTINUITY"]  # the hand keeps it
    assert open_table("home-open", (100, 100, 100)).state()["findings"] == []


def showdown_of_three() -> Table:
    t = open_table("home-open", (100, 100, 100))
    enter(t, ("Ana", "check"), ("Beto", "check"), ("Carla", "check"), ("Ana", "stand-pat"), ("Beto", "stand-pat"),
          ("Carla", "stand-pat"), ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"))
    assert t.state()["to_act"] == "Ana"  # she bet last: she shows first
    return t


def test_a_show_out_of_turn_is_said_at_the_entry_that_proves_it() -> None:
    t = showdown_of_three()
    assert enter(t, ("Beto", "show", "Ks Kh 7c 7d 2d")) == []  # (he may table early: judged once Ana shows)
    assert enter(t, ("Ana", "show", "Kc Kd 7s 7h 3c")) == ["SHOW_ORDER"]
    assert t.hand is not None and t.hand.number == 1  # the hand is not over: Carla still to show or muck


def test_a_show_in_turn_says_nothing() -> None:
    t = showdown_of_three()
    assert enter(t, ("Ana", "show", "Kc Kd 7s 7h 3c"), ("Beto", "show", "Ks Kh 7c 7d 2d")) == []


def test_undo_is_offered_for_the_entry_that_broke_the_rule_only() -> None:
    t = open_table("home-open", (100, 100, 100))
    assert enter(t, ("Ana", "bet", 4), ("Beto", "raise", 5)) == ["RAISE_BELOW_MIN"]
    state = t.state()
    assert state["may_undo"] and [f["rule"] for f in state["entry_findings"]] == ["RAISE_BELOW_MIN"]
    enter(t, ("Carla", "call"))
    state = t.state()
    assert state["entry_findings"] == [] and [f["rule"] for f in state["findings"]] == ["RAISE_BELOW_MIN"]
    t.undo()  # takes back Carla's call, not Beto's raise
    assert t.entries[-1]["player"] == "Beto" and [f["rule"] for f in t.state()["entry_findings"]] == ["RAISE_BELOW_MIN"]


def test_at_the_next_hand_undo_is_not_offered_and_refused_in_the_pages_language() -> None:
    t = open_table("home-open", (100, 100, 100))
    enter(t, ("Ana", "bet", 4), ("Beto", "fold"), ("Carla", "fold"))
    state = t.state()
    assert state["hand"] == "2" and not state["may_undo"] and state["entry_findings"] == []
    with pytest.raises(TableError) as refused:
        t.undo()
    assert refused.value.words("es") == "No hay ninguna anotación que deshacer en esta mano."


def test_a_split_claimed_in_two_entries_is_judged_when_the_claims_are_complete() -> None:
    t = open_table("home-open", (100, 100, 100))
    enter(t, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "stand-pat"), ("Beto", "stand-pat"),
          ("Carla", "stand-pat"), ("Ana", "check"), ("Beto", "check"), ("Carla", "check"),
          ("Ana", "show", "Kc Kd 7s 7h 2c"), ("Beto", "show", "Ks Kh 7c 7d 2d"), ("Carla", "muck"))
    assert enter(t, ("Beto", "collect", 7)) == []  # half a split: nothing to judge yet
    assert [f["rule"] for f in t.state()["last_hand"]["findings"]] == []
    assert enter(t, ("Ana", "collect", 8)) == []  # 15 split, the odd chip to Ana: as it should be
    t2 = open_table("home-open", (100, 100, 100))
    for e in t.entries[:-2]:
        t2.apply(e)
    enter(t2, ("Beto", "collect", 8))
    assert sorted(enter(t2, ("Ana", "collect", 7))) == ["ODD_CHIP"]  # complete, and the odd chip went wrong


def test_the_tables_allowed_is_legal_now() -> None:
    t = open_table("stripped32", (100, 100, 100))
    st, _ = t.engine_state()
    assert t.state()["allowed"] == legal_now(st).allowed() and t.state()["to_act"] == legal_now(st).to_act


def test_an_entry_reads_the_hand_once_and_follows_only_its_new_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import audit.live.table as table_module

    t = open_table("home-open", (100, 100, 100))
    enter(t, ("Ana", "bet", 4))
    t.state()
    parses: list[int] = []
    real = table_module.parse_block
    monkeypatch.setattr(table_module, "parse_block", lambda block: parses.append(1) or real(block))
    follows: list[object] = []
    real_follow = table_module.follow
    monkeypatch.setattr(table_module, "follow", lambda st, item: follows.append(item) or real_follow(st, item))
    enter(t, ("Beto", "call"))
    t.state()
    assert len(parses) == 1 and len(follows) == 1  # (today's table read and replayed the hand four times)


SIZE_RULES = {"BET_UNIT", "RAISE_BELOW_MIN", "BET_BELOW_MIN", "BET_OVER_POT", "BET_FIXED_SIZE", "RAISE_CAP",
              "RAISE_NOT_REOPENED", "ACTION_NOT_ALLOWED", "ACTION_OUT_OF_TURN"}


@pytest.mark.parametrize("profile,options", [
    ("qdan", {}), ("home-open", {}), ("stripped32", {"parole": "no", "betting": "pot-limit"}),
    ("stripped32", {"parole": "no", "betting": "fixed-limit", "raise-cap": "4"}),
], ids=["qdan", "home-open", "pot-limit", "fixed-limit"])
def test_every_amount_the_table_offers_is_clean(profile: str, options: dict[str, str]) -> None:
    """At every bet or raise of simulated sessions: the minimum, half the pot, the pot and the all-in the table
    offers, each entered for the player to act (then taken back), break no betting rule."""
    from audit.profile import load_profile
    from audit.simulate import simulate_sessions
    from livehelp import session_plan

    prof = load_profile(profile).with_options(list(options.items()))
    offered = 0
    for seed in (1, 2):
        plan = session_plan(simulate_sessions(profile, 1, seed, list(options.items())), prof, options)
        table = Table(TableConfig.from_request(plan.table, "sim", "2026/12/03 21:00:00"))
        for hand in plan.hands:
            for planned in hand:
                state = table.state()
                allowed = state["allowed"]
                verb = next((a for a in ("bet", "raise") if a in allowed["actions"]), None)
                amounts = {allowed[k] for k in ("min_to", "half_pot_to", "pot_to", "all_in_to")} - {None}
                for to in sorted(amounts) if verb else ():
                    found = table.apply({"player": state["to_act"], "action": verb, "to": to})
                    assert not {f.rule for f in found} & SIZE_RULES, (verb, to, allowed, found)
                    table.undo()
                    offered += 1
                table.apply(planned.entry)
    assert offered > 30
