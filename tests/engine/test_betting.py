"""Betting: what acting at all allows (ACTION_NOT_ALLOWED, in one place), the turn, calls, bets, raises and their
sizes, judged directly on the state of a hand; and what applying an action does to the round."""

from __future__ import annotations

from audit.engine.allowed import action_not_allowed, may_act
from audit.engine.betting import (
    apply_raise, check_bet, check_call, check_raise, check_size, check_turn,
)
from audit.engine.state import HandState
from audit.model import Action

from enginehands import deal3, house, item_at, profile_of, rules, state_before

OPEN = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 4\nBeto: raises 8 to 12\nCarla: calls 12\n"
             "Ana: folds\n")


def act(text: str, fragment: str, profile_name: str = "home-open", *options: tuple[str, str]) \
        -> tuple[HandState, Action]:
    st = state_before(text, fragment, profile_of(profile_name, *options))
    item = item_at(text, fragment)
    assert isinstance(item, Action)
    return st, item


def judge_allowed(text: str, fragment: str, *options: tuple[str, str]) -> list[str | None]:
    st, a = act(text, fragment, "home-open", *options)
    return [m for _, _, m in rules(action_not_allowed(st, a, st.round))]


def test_acting_is_allowed_in_turn_with_the_right_kind_of_action() -> None:
    for fragment in ("Ana: bets 4", "Beto: raises", "Carla: calls", "Ana: folds"):
        st, a = act(OPEN, fragment)
        assert st.round is not None and action_not_allowed(st, a, st.round) is None, fragment
        assert may_act(st, a, st.round) and check_turn(st, a, st.round) is None


def test_every_variant_of_an_action_not_allowed() -> None:
    base = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 4\n{line}\n")
    cases = {
        "Beto: checks": "check_facing_bet",
        "Beto: bets 6": "bet_standing",
    }
    for line, variant in cases.items():
        assert judge_allowed(base.format(line=line), line) == [f"finding.ACTION_NOT_ALLOWED.{variant}"], line
    assert judge_allowed(base.format(line="Beto: bets 2"), "Beto: bets 2") == [
        "finding.ACTION_NOT_ALLOWED.bet_standing", "finding.ACTION_NOT_ALLOWED.raise_not_above"]
    nothing = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: calls 2\nBeto: raises 4 to 4\n")
    assert judge_allowed(nothing, "Ana: calls") == ["finding.ACTION_NOT_ALLOWED.call_nothing"]
    assert judge_allowed(nothing, "Beto: raises") == ["finding.ACTION_NOT_ALLOWED.raise_nothing"]
    folded = OPEN + "Ana: calls 8\n"
    st, a = act(folded, "Ana: calls 8")
    assert rules(action_not_allowed(st, a, st.round)) == [
        ("ACTION_NOT_ALLOWED", "Ana", "finding.ACTION_NOT_ALLOWED.after_fold")]
    assert st.round is not None and not may_act(st, a, st.round)
    done = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: checks\nBeto: checks\nCarla: checks\nAna: bets 2\n")
    assert judge_allowed(done, "Ana: bets 2") == ["finding.ACTION_NOT_ALLOWED.round_complete"]
    st = state_before(house(deal3()))  # no betting round open
    assert rules(action_not_allowed(st, Action(9, "Ana", "bet", 2), None)) == [
        ("ACTION_NOT_ALLOWED", "Ana", "finding.ACTION_NOT_ALLOWED.no_round")]
    points = state_before(house(deal3()), None, profile_of("qdan", ("mode", "points")))
    found = action_not_allowed(points, Action(9, "Ana", "raise", 4, 6, True), None)
    assert found is not None and found[0].message == "Ana raises to 6 (all-in), but a game without bets has no betting."


def test_the_turn() -> None:
    text = house(deal3() + "*** FIRST BETTING ROUND ***\nBeto: checks\n")
    st, a = act(text, "Beto: checks")
    assert st.round is not None
    found = check_turn(st, a, st.round)
    assert rules(found) == [("ACTION_OUT_OF_TURN", "Beto", "finding.ACTION_OUT_OF_TURN.turn")]
    assert found is not None and found.expected == "Ana"


def test_the_call_amount() -> None:
    text = OPEN.replace("Carla: calls 12", "Carla: calls 10")
    st, a = act(text, "Carla: calls")
    assert st.round is not None
    assert rules(check_call(st, a, st.round)) == [("CALL_AMOUNT", "Carla", "finding.CALL_AMOUNT.wrong")]
    short = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 20\nBeto: calls 5\n", stacks=(100, 10, 100))
    st, a = act(short, "Beto: calls")
    found = check_call(st, a, st.round) if st.round else None
    assert found is not None and found.message == "Beto called 5, but the call was 9 (all their chips)."
    all_of_it = short.replace("Beto: calls 5", "Beto: calls 9 and is all-in")
    st, a = act(all_of_it, "Beto: calls")
    assert st.round is not None and check_call(st, a, st.round) is None


def test_bets_below_the_minimum_openers_and_units() -> None:
    small = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 1\n")
    st, a = act(small, "Ana: bets 1")
    assert st.round is not None
    assert rules(check_bet(st, a, st.round)) == [("BET_BELOW_MIN", "Ana", "finding.BET_BELOW_MIN.bet")]
    openers = house(deal3(ana="2c 3c 8h 9s Jd", carla="As Ad 5c 7d 9h")
                    + "*** FIRST BETTING ROUND ***\nAna: bets 2\n")
    st, a = act(openers, "Ana: bets", "home-open", ("openers", "jacks"))
    assert st.round is not None
    found = check_bet(st, a, st.round)
    assert rules(found) == [("OPENERS", "Ana", "finding.OPENERS.jacks")]
    assert found is not None and found[0].actual == "high card Jack"
    qdan = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 30\n", stacks=(2000, 2000, 2000))
    st, a = act(qdan, "Ana: bets", "qdan")
    assert st.round is not None
    assert rules(check_bet(st, a, st.round)) == [("BET_UNIT", "Ana", "finding.BET_UNIT.bet")]


def test_raises_notation_re_opening_and_the_minimum() -> None:
    notation = OPEN.replace("Beto: raises 8 to 12", "Beto: raises 6 to 12")
    st, a = act(notation, "Beto: raises")
    assert st.round is not None
    assert rules(check_raise(st, a, st.round)) == [("AMOUNT_NOTATION", "Beto", "finding.AMOUNT_NOTATION.raise")]
    below = OPEN.replace("Beto: raises 8 to 12", "Beto: raises 3 to 7")
    st, a = act(below, "Beto: raises")
    assert st.round is not None
    found = check_raise(st, a, st.round)
    assert rules(found) == [("RAISE_BELOW_MIN", "Beto", "finding.RAISE_BELOW_MIN.raise")]
    assert found is not None and found[0].message == ("Beto raised to 7, 3 more than the bet of 4; the smallest raise "
                                                      "was 4 (to 8).")
    reopen = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 4\nBeto: raises 2 to 6 and is all-in\n"
                   "Carla: calls 6\nAna: raises 8 to 14\n", stacks=(100, 7, 100))
    st, a = act(reopen, "Ana: raises")
    assert st.round is not None and not st.round.may_raise("Ana")
    assert rules(check_raise(st, a, st.round)) == [("RAISE_NOT_REOPENED", "Ana", "finding.RAISE_NOT_REOPENED.short")]


def test_sizes_pot_limit_fixed_limit_and_the_cap() -> None:
    st, a = act(OPEN.replace("Beto: raises 8 to 12", "Beto: raises 46 to 50"), "Beto: raises", "home-open",
                ("betting", "pot-limit"))
    assert st.round is not None
    found = check_size(st, a, st.round, 46, False, 50)
    assert rules(found) == [("BET_OVER_POT", "Beto", "finding.BET_OVER_POT.pot")]
    assert found is not None and found[0].message == "Beto made it 50; pot limit allowed at most 15."  # pot 7, call 4: 4 + 11
    fixed = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 2\nBeto: raises 3 to 5\n")
    st, a = act(fixed, "Beto: raises", "home-open", ("betting", "fixed-limit"))
    assert st.round is not None
    assert rules(check_size(st, a, st.round, 3, False, 5)) == [
        ("BET_FIXED_SIZE", "Beto", "finding.BET_FIXED_SIZE.raise")]
    capped = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 2\nBeto: raises 2 to 4\nCarla: raises 2 to 6\n"
                   "Ana: raises 2 to 8\nBeto: raises 2 to 10\n")
    st, a = act(capped, "Beto: raises 2 to 10", "home-open", ("betting", "fixed-limit"), ("raise-cap", "4"))
    assert st.round is not None and st.round.raises == 4
    assert rules(check_size(st, a, st.round, 2, False, 10)) == [("RAISE_CAP", "Beto", "finding.RAISE_CAP.cap")]


def test_applying_a_raise_moves_the_bet_and_the_increment_and_re_opens_the_round() -> None:
    st, a = act(OPEN, "Beto: raises")
    rnd = st.round
    assert rnd is not None and rnd.current == 4 and rnd.full == 4
    apply_raise(st, a, rnd)  # the round only: the chips are put in by ``pay``
    assert rnd.current == 12 and rnd.full == 8 and rnd.bets["Beto"] == 12 and rnd.last_aggressor == "Beto"
    assert rnd.pending == {"Ana", "Carla"} and rnd.raises == 2  # the bet and the raise
