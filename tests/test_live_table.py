"""The live table's core (audit.live): simulated sessions of every profile entered event by event, and each kind
of broken rule flagged with its rule id the moment it is entered."""

from __future__ import annotations

from typing import Any

import pytest

from audit import audit_text
from audit.engine.streets import replay
from audit.live import EntryError, Table, TableConfig, TableError
from audit.model import Action, Hand
from audit.profile import load_profile
from audit.simulate import simulate_sessions
from livehelp import session_plan

PROFILES = [
    ("home-open", {}),
    ("qdan", {}),  # seed 1 has redeals
    ("qdan", {"mode": "points"}),
    ("qdan", {"joker": "wild", "openers": "jacks"}),
    ("stripped32", {}),  # seed 3 has an accepted parole, seed 5 declined ones
    ("stripped32", {"parole": "no", "betting": "fixed-limit", "raise-cap": "4"}),
    ("stripped32", {"parole": "no", "betting": "pot-limit"}),
]


def play_session(profile_name: str, options: dict[str, str], seed: int) -> tuple[Table, Any]:
    prof = load_profile(profile_name).with_options(list(options.items()))
    text = simulate_sessions(profile_name, 1, seed, list(options.items()))
    plan = session_plan(text, prof, options)
    table = Table(TableConfig.from_request(plan.table, "sim", "2026/12/03 21:00:00"))
    for hand in plan.hands:
        for planned in hand:
            state = table.state()
            assert state["to_act"] == planned.to_act, (planned.entry, table.log()[-600:])
            assert state["allowed"] == planned.allowed, (planned.entry, table.log()[-600:])
            found = table.apply(planned.entry)
            assert [f for f in found if f.severity != "warning"] == [], (planned.entry, found, table.log()[-800:])
    return table, (text, plan)


@pytest.mark.parametrize("profile,options", PROFILES, ids=lambda v: v if isinstance(v, str) else "-".join(v.values()))
def test_simulated_sessions_entered_event_by_event(profile: str, options: dict[str, str]) -> None:
    for seed in (3, 5) if profile == "stripped32" and not options else (1, 2):
        table, (text, plan) = play_session(profile, options, seed)
        # the session is over when the simulator's is (an open-ended one deals a hand nobody plays: the host closes)
        if load_profile(profile).session_hands is not None:
            assert table.hand is None
        assert table.hand is None or len(table.entries) == table.hand.first_entry
        for finished in table.hands:
            assert [f.rule for f in finished.findings if f.severity != "warning"] == [], finished.text
        verdict = table.close()
        assert verdict["violations"] == 0 and verdict["errors"] == 0, verdict["findings"][:3]
        assert [(s["place"], s["player"], s["chips"]) for s in verdict["standings"]] == plan.standings
        # the table's log audits as the simulator's does, hand for hand
        ours = [a.result for a in audit_text(table.log()) if a.result is not None]
        theirs = [a.result for a in audit_text(text) if a.result is not None]
        assert [r.end_stacks for r in ours] == [r.end_stacks for r in theirs]
        assert [r.hand.button for r in ours] == [r.hand.button for r in theirs]


def test_allowed_matches_the_steps_explain_records() -> None:
    """Before each betting action, ``allowed`` says what the engine recorded as legal for ``explain``."""
    prof = load_profile("stripped32").with_options([("parole", "no")])
    text = simulate_sessions("stripped32", 1, 5, [("parole", "no")])
    table, _ = play_session("stripped32", {"parole": "no"}, 5)
    del table
    plan = session_plan(text, prof, {"parole": "no"})
    hands = [h for h in (a.hand for a in audit_text(text)) if type(h) is Hand]
    compared = 0
    for hand, planned in zip(hands, plan.hands):
        steps = replay(hand._replace(shows_all_cards=False), prof, None, True).steps or []
        legal = [s.legal for s in steps if type(s.item) is Action and s.legal is not None]
        mine = [p.allowed for p in planned if p.entry["action"] in ("fold", "check", "call", "bet", "raise")]
        for want, got in zip(legal, mine):
            assert got["to_call"] == want.to_call
            assert got["max_to"] == want.max_raise_to
            assert got["min_to"] == min(want.min_raise_to, want.max_raise_to)
            assert got["may_raise"] == want.may_raise
            compared += 1
    assert compared > 20


SEATS3 = [{"seat": 1, "player": "Ana", "chips": 100}, {"seat": 2, "player": "Beto", "chips": 100},
          {"seat": 3, "player": "Carla", "chips": 100}]


def open_table(profile: str = "home-open", options: dict[str, str] | None = None,
               seats: list[dict[str, Any]] | None = None, button: int = 3, small_blind: int = 1) -> Table:
    body = {"name": "Casa", "profile": profile, "options": options or {}, "seats": seats or SEATS3,
            "button": button, "small_blind": small_blind}
    return Table(TableConfig.from_request(body, "t", "2026/12/03 21:00:00"))


def enter(table: Table, *entries: tuple[Any, ...]) -> list[str]:
    """Entries as (player, action[, to or count or cards]); the rule ids the last one made."""
    rules: list[str] = []
    for e in entries:
        entry: dict[str, Any] = {"player": e[0], "action": e[1]}
        if len(e) > 2:
            key = {"bet": "to", "raise": "to", "draw": "count", "show": "cards"}[e[1]]
            entry[key] = e[2]
        rules = [f.rule for f in table.apply(entry)]
    return rules


def test_an_under_raise_is_flagged_at_once() -> None:
    t = open_table()
    assert enter(t, ("Ana", "bet", 6)) == []
    assert t.state()["allowed"]["min_to"] == 12
    assert enter(t, ("Beto", "raise", 8)) == ["RAISE_BELOW_MIN"]


def test_a_raise_not_reopened_after_a_short_all_in_is_flagged() -> None:
    seats = [{"seat": 1, "player": "Ana", "chips": 100}, {"seat": 2, "player": "Beto", "chips": 15},
             {"seat": 3, "player": "Carla", "chips": 100}]
    t = open_table(seats=seats)
    enter(t, ("Ana", "bet", 10), ("Beto", "raise", 14), ("Carla", "call"))
    state = t.state()
    assert state["to_act"] == "Ana" and state["allowed"]["may_raise"] is False
    assert "raise" not in state["allowed"]["actions"]
    assert enter(t, ("Ana", "raise", 30)) == ["RAISE_NOT_REOPENED"]


def test_a_bet_over_the_pot_is_flagged() -> None:
    t = open_table(options={"betting": "pot-limit"})
    assert t.state()["allowed"]["max_to"] == 3
    assert enter(t, ("Ana", "bet", 5)) == ["BET_OVER_POT"]


def test_a_fourth_raise_in_a_capped_round_is_flagged() -> None:
    t = open_table("stripped32", {"betting": "fixed-limit", "raise-cap": "4", "parole": "no"})
    # three players: small 1 (Ana), big 2 (Beto); the big blind is the first bet, Carla acts first
    assert t.state()["to_act"] == "Carla"
    enter(t, ("Carla", "raise", 4), ("Ana", "raise", 6), ("Beto", "raise", 8))
    state = t.state()
    assert state["to_act"] == "Carla" and "raise" not in state["allowed"]["actions"]
    assert enter(t, ("Carla", "raise", 10)) == ["RAISE_CAP"]


def test_a_draw_over_the_limit_is_flagged() -> None:
    t = open_table(options={"draw-limit": "3"})
    enter(t, ("Ana", "check"), ("Beto", "check"), ("Carla", "check"))
    assert t.state()["allowed"]["draw_max"] == 3
    assert enter(t, ("Ana", "draw", 4)) == ["DRAW_LIMIT"]


def test_a_hand_of_three_to_a_split_pot_is_settled_by_the_profile() -> None:
    t = open_table()
    enter(t, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "draw", 2), ("Beto", "stand-pat"),
          ("Carla", "draw", 1), ("Ana", "check"), ("Beto", "check"), ("Carla", "check"))
    state = t.state()
    assert state["street"] == "showdown" and state["to_act"] == "Ana"
    assert state["pots"] == [{"name": "pot", "amount": 15, "eligible": ["Ana", "Beto", "Carla"]}]
    enter(t, ("Ana", "show", "Kc Kd 7s 7h 2c"), ("Beto", "show", "Ks Kh 7c 7d 2d"), ("Carla", "muck"))
    last = t.state()["last_hand"]
    # 15 split two ways: the odd chip to the first winner left of the button (seat 3): Ana
    assert last["pots"][0]["awards"] == {"Ana": 8, "Beto": 7}
    assert t.state()["button"] == 1 and t.state()["hand"] == "2"
    assert t.hands[0].findings == []
    assert "Ana collected 8 from pot\nBeto collected 7 from pot" in t.log()


def test_a_wrong_odd_chip_claimed_is_flagged_at_once_and_can_be_taken_back() -> None:
    t = open_table()
    enter(t, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "draw", 2), ("Beto", "stand-pat"),
          ("Carla", "draw", 1), ("Ana", "check"), ("Beto", "check"), ("Carla", "check"),
          ("Ana", "show", "Kc Kd 7s 7h 2c"), ("Beto", "show", "Ks Kh 7c 7d 2d"), ("Carla", "muck"))
    assert t.state()["may_collect"] and t.final_hands() == []
    # the host says Beto took the odd chip: 8 of 15, Ana 7
    t.apply({"player": "Beto", "action": "collect", "to": 8})
    found = t.apply({"player": "Ana", "action": "collect", "to": 7})
    assert [f.rule for f in found] == ["ODD_CHIP"]
    assert "Beto collected 8 from pot\nAna collected 7 from pot" in t.log()
    assert t.state()["stacks"]["Beto"] == 8 + 100 - 5 - 1  # the next hand's stacks (after its ante) follow the claims
    t.undo()
    t.undo()
    assert t.hands[-1].findings == [] and "Ana collected 8 from pot" in t.log()
    enter(t, ("Ana", "check"))
    assert [f.number for f in t.final_hands()] == [1]
    with pytest.raises(EntryError):  # the next hand has begun: hand 1 is stored as it is
        t.apply({"player": "Ana", "action": "collect", "to": 7})


def test_undo_takes_back_the_last_entry_of_the_hand() -> None:
    t = open_table()
    enter(t, ("Ana", "bet", 6), ("Beto", "raise", 8))
    assert t.state()["findings"][0]["rule"] == "RAISE_BELOW_MIN"
    t.undo()
    state = t.state()
    assert state["to_act"] == "Beto" and state["findings"] == [] and len(t.entries) == 1
    t.undo()
    with pytest.raises(TableError):
        t.undo()


def test_entries_that_cannot_be_understood_are_refused() -> None:
    t = open_table()
    for entry in ({"player": "Zoe", "action": "fold"}, {"player": "Ana", "action": "dance"},
                  {"player": "Ana", "action": "bet"}, {"player": "Ana", "action": "bet", "to": "x"},
                  {"player": "Ana", "action": "draw", "count": 7},
                  {"player": "Ana", "action": "show", "cards": "As Kd"},
                  {"player": "Ana", "action": "show", "cards": ["As", "Kd", "Qh", "Jc", "1x"]}, ["Ana"]):
        with pytest.raises(EntryError):
            t.apply(entry)  # type: ignore[arg-type]
    assert t.entries == []


def test_a_table_that_cannot_be_opened() -> None:
    for body in ({"name": "", "seats": SEATS3}, {"name": "x", "seats": SEATS3[:1]},
                 {"name": "x", "seats": [{"seat": 1, "player": "A", "chips": 0}] + SEATS3[1:]},
                 {"name": "x", "profile": "nope", "seats": SEATS3},
                 {"name": "x", "seats": SEATS3, "options": {"draw-limit": "nine"}},
                 {"name": "x", "seats": SEATS3 + [{"seat": 3, "player": "Dario", "chips": 5}]},
                 {"name": "x", "seats": [{"seat": 1, "player": "A B", "chips": 5}] + SEATS3[1:]}):
        with pytest.raises(TableError):
            TableConfig.from_request(body, "t", "2026/12/03 21:00:00")


def test_a_redeal_carries_the_pot_and_keeps_the_button() -> None:
    t = open_table("qdan", seats=[{"seat": 1, "player": "Ana", "chips": 2000},
                                  {"seat": 2, "player": "Beto", "chips": 2000}], button=2)
    enter(t, ("Ana", "check"), ("Beto", "check"))
    assert t.hands[0].redeal and t.state()["button"] == 2
    assert "*** REDEAL ***" in t.log() and "Pot carried over: 20" in t.log()


def test_a_hand_nobody_can_bet_in_goes_on_to_the_draw_by_itself() -> None:
    # hand 1 leaves Beto 1 chip: in hand 2 his ante puts him all-in, and nobody has a bet to make
    t = open_table(seats=SEATS3[:2], button=2)
    enter(t, ("Ana", "bet", 98), ("Beto", "call"), ("Ana", "stand-pat"), ("Beto", "stand-pat"), ("Ana", "check"),
          ("Beto", "check"), ("Ana", "show", "As Ah Kd Kh 2c"), ("Beto", "show", "Qc Qd 3s 3c 2d"))
    state = t.state()
    assert state["hand"] == "2" and state["stacks"] == {"Ana": 198, "Beto": 0}
    assert state["street"] == "draw" and state["to_act"] in ("Ana", "Beto")
    assert state["allowed"]["actions"] == ["draw", "stand-pat"]
    assert t.log().endswith("Beto: posts the ante 1 and is all-in\n*** DEALING HANDS ***\n"
                            "*** FIRST BETTING ROUND ***\n*** DRAW ***\n")
    enter(t, (state["to_act"], "stand-pat"))
    enter(t, (t.state()["to_act"], "stand-pat"))
    assert t.state()["street"] == "showdown"
    enter(t, (t.state()["to_act"], "show", "Kc Kd 7s 7h 2c"))
    enter(t, (t.state()["to_act"], "show", "Ks Kh 7c 7d 3d"))
    assert [f.findings for f in t.hands] == [[], []], t.log()
    assert [a.findings for a in audit_text(t.log())] == [[], []]


def test_a_claim_of_the_main_pot_leaves_the_side_pots_as_paid() -> None:
    t = open_table(seats=[{"seat": 1, "player": "Ana", "chips": 20}, {"seat": 2, "player": "Beto", "chips": 50},
                          {"seat": 3, "player": "Carla", "chips": 100}])
    enter(t, ("Ana", "bet", 19), ("Beto", "raise", 49), ("Carla", "call"), ("Ana", "draw", 1), ("Beto", "draw", 2),
          ("Carla", "draw", 3), ("Ana", "show", "As Ac Kh Ks 2d"), ("Beto", "show", "Qs Qc Jh 3s 4d"),
          ("Carla", "show", "Qh Qd Jc 3c 4h"))
    paid = [line for line in t.hands[-1].text.splitlines() if "collected" in line]
    assert paid == ["Ana collected 60 from main pot", "Beto collected 30 from side pot-1",
                    "Carla collected 30 from side pot-1"]
    assert t.apply({"player": "Ana", "action": "collect", "to": 60}) == []  # the main pot, as the table paid it
    assert [line for line in t.hands[-1].text.splitlines() if "collected" in line] == paid
    assert t.hand is not None and sum(t.hand.stacks.values()) == 170  # no chip lost to the claim
    found = t.apply({"player": "Beto", "action": "collect", "to": 1})  # a wrong one is judged, the side pot kept
    assert {"POT_WINNER", "CHIPS_NOT_CONSERVED"} <= {f.rule for f in found}
    assert [line for line in t.hands[-1].text.splitlines() if "collected" in line] == [
        "Ana collected 60 from main pot", "Beto collected 1 from main pot", "Beto collected 30 from side pot-1",
        "Carla collected 30 from side pot-1"]


def test_taking_back_the_next_hands_first_entry_does_not_reopen_a_stored_hand() -> None:
    t = open_table()
    enter(t, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "draw", 2), ("Beto", "stand-pat"),
          ("Carla", "draw", 1), ("Ana", "check"), ("Beto", "check"), ("Carla", "check"),
          ("Ana", "show", "Kc Kd 7s 7h 2c"), ("Beto", "show", "Ks Kh 7c 7d 2d"), ("Carla", "muck"))
    assert t.state()["may_collect"]
    enter(t, ("Beto", "check"))  # hand 2's first entry: hand 1 is stored as it is
    stored = t.upload_text(t.final_hands()[0])
    t.undo()
    assert len(t.entries) == 12 and t.state()["hand"] == "2" and t.state()["to_act"] == "Beto"
    assert not t.state()["may_collect"] and [f.number for f in t.final_hands()] == [1]
    with pytest.raises(EntryError):
        t.apply({"player": "Beto", "action": "collect", "to": 8})
    assert t.upload_text(t.final_hands()[0]) == stored
    # a restart rebuilds the table from its entries and what was stored
    again = Table.replay(t.config, t.entries, sealed=t.sealed)
    assert not again.state()["may_collect"] and again.log() == t.log()
    assert Table.replay(t.config, t.entries).state()["may_collect"]  # (without it, the claims would reopen)


def test_the_amounts_offered_under_a_bet_unit_are_whole_units() -> None:
    from audit.serve.routers.table_pages import table_view

    seats = [{"seat": 1, "player": "Ana", "chips": 2000}, {"seat": 2, "player": "Beto", "chips": 2000},
             {"seat": 3, "player": "Carla", "chips": 2000}]
    t = open_table("qdan", seats=seats)
    offered: list[int] = []
    for before in ([], [("Ana", "bet", 20)], [("Ana", "bet", 20), ("Beto", "raise", 60)]):
        t = open_table("qdan", seats=seats)
        enter(t, *before)
        state = t.state()
        assert state["allowed"]["bet_unit"] == 20
        for value, _, _ in table_view(state, "en")["amounts"]:
            verb, amount = value.split(":")
            again = Table.replay(t.config, t.entries)
            found = again.apply({"player": state["to_act"], "action": verb, "to": int(amount)})
            assert [f.rule for f in found] == [], (before, value)
            offered.append(int(amount))
    assert len(offered) >= 9  # the minimum, the pot and all-in at each point at least


def test_the_last_hand_left_when_the_others_muck_takes_the_pot_without_showing() -> None:
    t = open_table()
    enter(t, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "draw", 2), ("Beto", "stand-pat"),
          ("Carla", "draw", 1), ("Ana", "check"), ("Beto", "check"), ("Carla", "check"), ("Ana", "muck"))
    assert t.state()["to_act"] == "Beto" and t.hand is not None  # two hands left: one still has to show or muck
    enter(t, ("Beto", "muck"))
    assert t.hands[-1].text.endswith("Beto: mucks hand\nCarla collected 15 from pot\n*** SUMMARY ***\n"
                                     "Total pot 15 | Rake 0\n")
    assert t.hands[-1].findings == [] and t.state()["stacks"] == {"Ana": 94, "Beto": 94, "Carla": 109}
    assert [a.findings for a in audit_text(t.log())][0] == []


def test_a_qdan_hand_nobody_can_bet_in_is_played_on_not_redealt() -> None:
    seats = [{"seat": 1, "player": "Ana", "chips": 2000}, {"seat": 2, "player": "Beto", "chips": 10}]
    t = open_table("qdan", seats=seats, button=2, options={"starting-chips": "any"})
    assert t.state()["street"] == "draw" and "*** REDEAL ***" not in t.log()
    enter(t, ("Ana", "stand-pat"), ("Beto", "stand-pat"), ("Ana", "show", "As Ah Kd Kh 2c"),
          ("Beto", "show", "Qc Qd 3s 3c 2d"))
    assert t.hands[0].findings == [] and t.balances == {"Ana": 2010, "Beto": 0}


@pytest.mark.parametrize("name", ["Session", "Profile", "Option", "Cards", "Seat", "Table", "Hand", "Total",
                                  "Uncalled", "Pot", "Deck", "Dealt", "Dealer", "PokerStars", "FullTiltPoker",
                                  "1", "12", "0", "007", "¹", "²", "٣", "٣٣"])
def test_a_name_that_would_read_as_another_line_is_refused(name: str) -> None:
    """Each of these, led a line the table writes (``Session: posts the ante 1``, ``12: folds``, ``Total collected
    4 from pot``), read back as a preamble, a standings line, or a hand's fixed line: the table could not read
    its own log."""
    seats = [{"seat": 1, "player": name, "chips": 50}, {"seat": 2, "player": "Zed", "chips": 50}]
    with pytest.raises(TableError, match="would read as another line"):
        TableConfig.from_request({"name": "Casa", "seats": seats, "button": 1}, "s", "2026/12/03 21:00:00")


@pytest.mark.parametrize("profile,options", [("home-open", {}), ("qdan", {}), ("qdan", {"mode": "points"}),
                                             ("stripped32", {})])
@pytest.mark.parametrize("name", ["Totals", "Seat1", "pot", "scores", "x1", "1x", "-1", "O'Neil", "Маша"])
def test_names_near_those_words_play_a_session_that_audits_as_its_log(profile: str, options: dict[str, str],
                                                                      name: str) -> None:
    seats = [{"seat": 1, "player": name, "chips": 3 if options else 30}, {"seat": 2, "player": "Zed",
                                                                          "chips": 3 if options else 30}]
    table = Table(TableConfig.from_request({"name": "Casa", "profile": profile, "options": options, "seats": seats,
                                            "button": 1}, "s", "2026/12/03 21:00:00"))
    for i in range(60):
        state = table.state()
        if state["to_act"] is None:
            break
        act = state["allowed"]["actions"][i % len(state["allowed"]["actions"])]
        table.apply({"player": state["to_act"], "action": act, "to": state["allowed"]["min_to"], "count": 1,
                     "cards": ["As", "Kd", "Qh", "9c", "7s"] if i % 2 else ["2s", "2d", "5h", "9d", "Js"]})
    while table.hand is not None and table.entries[table.hand.first_entry:]:
        table.undo()  # (the hand in play, unfinished, taken back: the table closes)
    table.close()
    assert any(f.text.count(name) > 1 for f in table.hands)
    assert table.verdict()["findings"] == [f.as_dict() for a in audit_text(table.log(), name=table.file)
                                           for f in a.findings]
    assert [f.findings for f in table.hands] == [a.findings for a in audit_text(table.log(), name=table.file)
                                                 if a.result is not None]


@pytest.mark.parametrize("seed", range(6))
def test_each_hand_is_judged_as_in_the_whole_log_and_undo_is_a_replay(seed: int) -> None:
    """The table reads only the hand in play and keeps what the hands played out told the audit: every hand's
    findings (line numbers, session rules) are those of the whole log's audit, and an undo leaves the table a
    replay of the entries left would make."""
    import random

    rng = random.Random(seed)
    profile = ("home-open", "qdan", "stripped32")[seed % 3]
    seats = [{"seat": i + 1, "player": p, "chips": rng.randint(15, 40)} for i, p in enumerate(("Ana", "Beto", "Carla"))]
    table = Table(TableConfig.from_request({"name": "Casa", "profile": profile, "seats": seats, "button": 3}, "s",
                                           "2026/12/03 21:00:00"))
    for step in range(200):
        state = table.state()
        if state["may_collect"] and rng.random() < 0.2:  # a claim, right or wrong (judged at once)
            try:
                table.apply({"player": rng.choice(["Ana", "Beto"]), "action": "collect", "to": rng.randint(1, 20)})
            except EntryError:  # (a player who did not play the hand)
                continue
        elif state["to_act"] is None:
            break
        elif rng.random() < 0.1:
            try:
                table.undo()
            except TableError:
                continue
            again = Table.replay(table.config, table.entries, sealed=table.sealed)
            assert (table.state(), table.log()) == (again.state(), again.log()), step
        else:  # mostly what is allowed, sometimes out of turn or under the minimum
            who = state["to_act"] if rng.random() < 0.9 else rng.choice(["Ana", "Beto", "Carla"])
            actions = state["allowed"]["actions"]
            act = rng.choice(actions)
            to = rng.choice([state["allowed"]["min_to"], state["allowed"]["max_to"], 1]) or 1
            try:
                table.apply({"player": who, "action": act, "to": to, "count": rng.randint(0, 3),
                             "cards": rng.sample([r + s for r in "23456789TJQKA" for s in "cdhs"], 5)})
            except EntryError:
                continue
    whole = [a.findings for a in audit_text(table.log(), name=table.file) if a.result is not None]
    assert [f.findings for f in table.hands] == whole
    assert any(f.line > 40 for fs in whole for f in fs) or len(table.hands) < 3
