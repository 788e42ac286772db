"""What is legal now: the queries over a betting round and over the hand's state, and how a finding is made."""

from __future__ import annotations

from audit import replay
from audit.engine.state import (
    BettingRound, betting, cards_of, chips_put_in, draw_limit, expected_actor, finding, folded_players, is_folded,
    max_raise_to, may_draw, may_raise, min_raise_to, next_to_draw, pot_now, stack_of, to_call,
)
from audit.profile import load_profile
from audit.rules import Rule

from enginehands import deal3, house, parse, profile_of, state_before


def test_a_round_knows_the_call_the_min_raise_and_whether_raising_is_open() -> None:
    rnd = BettingRound({"Ana": 4, "Beto": 12}, 12, 8)
    rnd.acted = {"Ana", "Beto"}
    assert rnd.to_call("Ana") == 8 and rnd.to_call("Beto") == 0 and rnd.to_call("Carla") == 12
    assert rnd.min_raise_to() == 20
    assert rnd.may_raise("Carla")  # has not acted
    assert rnd.may_raise("Ana")  # faces a full raise of 8
    rnd.bets["Ana"] = 12  # Ana calls; Carla goes all-in for 2 more
    rnd.current = rnd.bets["Carla"] = 14
    rnd.acted.add("Carla")
    assert not rnd.may_raise("Ana")  # only 2 more since she acted: the betting is not re-opened for her
    opening = BettingRound({}, 0, 2)
    assert opening.min_raise_to() == 2 and opening.to_call("Ana") == 0


def test_fixed_limit_re_opens_on_half_a_bet_all_in() -> None:
    rnd = BettingRound({"Ana": 10}, 10, 10, fixed=True)
    rnd.acted = {"Ana"}
    assert rnd.min_raise_to() == 20  # one bet of 10 above the last full bet (the blind counts)
    assert not rnd.may_raise("Ana")
    rnd.full_to = 15  # an all-in for 5 of a 10 bet counts as full (TDA 47-B)
    assert rnd.may_raise("Ana")


TEXT = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 4\nBeto: raises 8 to 12\nCarla: folds\n"
             "Ana: calls 8\n*** DRAW ***\nAna: discards 2 cards [5c 7d]\nDealt to Ana [As Ad 9h] [2s 3s]\n"
             "Beto: stands pat\n*** SECOND BETTING ROUND ***\nAna: checks\nBeto: checks\n*** SHOW DOWN ***\n"
             "Ana: shows [As Ad 9h 2s 3s]\nBeto: shows [Ks Kd Kh 3d 4h]\nBeto collected 27 from pot\n")


def test_the_queries_mid_round() -> None:
    st = state_before(TEXT, "Carla: folds")
    assert to_call(st, "Carla") == 12 and to_call(st, "Ana") == 8
    assert min_raise_to(st) == 20  # the last full increment was 8
    assert max_raise_to(st, "Carla") == 99  # no limit: the whole stack (99 after the ante)
    assert may_raise(st, "Carla")
    assert expected_actor(st, st.last_actor) == "Carla"
    assert pot_now(st) == 3 + 4 + 12
    assert betting(st) == "no-limit"


def test_pot_limit_caps_a_raise_at_the_pot_after_the_call() -> None:
    st = state_before(TEXT, "Carla: folds", profile_of("home-open", ("betting", "pot-limit")))
    # the pot is 19; calling 12 makes it 31; the raise-to is at most 12 + 31 = 43
    assert max_raise_to(st, "Carla") == 43


def test_the_draw_queries() -> None:
    st = state_before(TEXT, "Ana: discards")
    assert st.street == "draw"
    assert next_to_draw(st) == "Ana" and may_draw(st, "Ana") and not may_draw(st, "Beto")
    assert not may_draw(st, "Carla")  # folded
    assert draw_limit(st, "Ana", ("5c", "7d")) == 5  # home-open: 0 to 5
    qdan = state_before(TEXT, "Ana: discards", profile_of("qdan"))
    assert draw_limit(qdan, "Ana", ("5c", "7d", "9h", "Ad")) == 4  # keeps the ace of spades: one more
    assert draw_limit(qdan, "Ana", ("As", "Ad", "5c", "7d")) == 3  # keeps no ace


def test_a_finding_carries_its_message_id_parameters_and_english_message() -> None:
    st = state_before(TEXT, "Carla: folds")
    f = finding(st, Rule.CALL_AMOUNT, 20, "wrong", (("player", "Ana"), ("called_amount", 5), ("call_amount", 8)),
                player="Ana", expected=8, actual=5)
    assert f.msg_id == "finding.CALL_AMOUNT.wrong" and ("called_amount", 5) in f.params
    assert f.message == "Ana called 5, but the call was 8."
    assert (f.rule, f.severity, f.street, f.expected, f.actual) == ("CALL_AMOUNT", "violation",
                                                                      "first betting round", "8", "5")


def test_a_site_hands_finding_says_money() -> None:
    text = ("PokerStars Game #1: 5 Card Draw No Limit ($0.25/$0.50 USD) - 2009/11/26 14:43:31 ET\n"
            "Table 'T' 6-max Seat #1 is the button\nSeat 1: Ana ($10 in chips)\nSeat 2: Beto ($10 in chips)\n"
            "Ana: posts small blind $0.25\nBeto: posts big blind $0.50\n*** DEALING HANDS ***\n")
    st = state_before(text, None, profile_of("site"))
    assert st.hand.game is not None and st.hand.game.currency == "USD"
    f = finding(st, Rule.CALL_AMOUNT, 9, "wrong", (("player", "Ana"), ("called_amount", 25), ("call_amount", 50)))
    assert f.message == "Ana called $0.25, but the call was $0.50."
    assert ("unit", "USD") in f.params


def test_each_seated_player_has_one_record_the_phases_keep() -> None:
    st = state_before(TEXT, "*** SHOW DOWN ***")
    assert list(st.players) == ["Ana", "Beto", "Carla"] and [pl.name for pl in st.dealt] == st.order
    ana, beto, carla = (st.players[p] for p in ("Ana", "Beto", "Carla"))
    assert [pl.index for pl in st.dealt] == [0, 1, 2] and st.dealt[0] is ana
    assert (ana.seat, ana.start, ana.stack, ana.contributed) == (1, 100, 100 - 13, 13)
    assert ana.cards == ("As", "Ad", "9h", "2s", "3s") and ana.drew and not ana.folded and not ana.all_in
    assert beto.drew and beto.stack == 87 and carla.folded and not carla.drew and carla.contributed == 1
    assert stack_of(st, "Ana") == 87 and stack_of(st, "Nobody") == 0 and cards_of(st, "Nobody") is None
    assert is_folded(st, "Carla") and not is_folded(st, "Ana") and folded_players(st) == {"Carla"}
    assert chips_put_in(st) == {"Ana": 13, "Beto": 13, "Carla": 1} and pot_now(st) == 27


def test_the_contributions_list_the_dealt_in_then_whoever_else_put_chips_in() -> None:
    # two seats sitting out post all the same (judged), the later seat first: the contributions keep the
    # players dealt in in seat order, then the others in the order they put chips in, as the result says them
    text = house("Eva: posts the ante 1\nDario: posts the ante 1\n" + deal3(), stacks=(100, 100, 100, 50, 60),
                 names=("Ana", "Beto", "Carla", "Dario", "Eva"))
    text = text.replace("Dario (50 in chips)", "Dario (50 in chips) is sitting out").replace(
        "Eva (60 in chips)", "Eva (60 in chips) is sitting out")
    st = state_before(text, "*** DEALING HANDS ***")
    assert st.order == ["Ana", "Beto", "Carla"] and st.players["Eva"].sitting_out
    assert list(chips_put_in(st)) == ["Ana", "Beto", "Carla", "Eva", "Dario"]
    result = replay(parse(text), load_profile("home-open"))
    assert list(result.contributions) == ["Ana", "Beto", "Carla", "Eva", "Dario"]
    assert result.start_stacks == {"Ana": 100, "Beto": 100, "Carla": 100, "Dario": 50, "Eva": 60}
    assert result.end_stacks["Eva"] == 59 and result.end_stacks["Dario"] == 49
