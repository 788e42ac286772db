"""Forced bets: antes, three blinds, site blinds, entry posts; chips put in against the stack and the all-in mark."""

from __future__ import annotations

from audit.engine.allowed import post_not_allowed
from audit.engine.forced import (
    check_all_in_mark, check_antes, check_blinds, check_entry_posts, check_post, check_stack, pay,
)
from audit.engine.table import blind_levels, blind_seats, ring_from_button
from audit.model import Post

from enginehands import deal3, house, item_at, profile_of, rules, state_before


def test_blind_seats_sizes_and_the_ring() -> None:
    assert blind_seats(["A", "B"]) == {"small": "B", "big": "A"}  # heads-up the button posts the small blind
    assert blind_seats(["A", "B", "C"]) == {"small": "A", "big": "B"}
    assert blind_seats(["A", "B", "C", "D"]) == {"small": "A", "big": "B", "over": "C"}
    posts = [Post(1, "A", "small", 2), Post(2, "B", "big", 4)]
    assert blind_levels(posts) == {"small": 2, "big": 4, "over": 8}
    assert blind_levels([Post(1, "B", "big", 3, True)]) == {"small": 1, "big": 2, "over": 4}  # short all-in
    seat_of = {"A": 1, "B": 3, "C": 5}
    assert ring_from_button(["A", "B", "C"], seat_of, 3) == ["C", "A", "B"]
    assert ring_from_button(["A", "B", "C"], seat_of, 4) == ["C", "A", "B"]  # a dead button: from seat 3


def test_the_stack_and_the_all_in_mark() -> None:
    st = state_before(house(deal3()))
    assert check_stack(st, "Ana", 99, 99, 9, "call") is None
    over = check_stack(st, "Ana", 5, 7, 9, "forced", "big")
    assert rules(over) == [("BET_OVER_STACK", "Ana", "finding.BET_OVER_STACK.forced")]
    assert over is not None and over.message == "Ana put in 7 (big blind) but had only 5 chips left; there are no loans."
    assert rules(check_all_in_mark(st, "Ana", 10, 4, 9, True)) == [("ALL_IN_FLAG", "Ana", "finding.ALL_IN_FLAG.marked")]
    assert rules(check_all_in_mark(st, "Ana", 4, 4, 9, False)) == [
        ("ALL_IN_FLAG", "Ana", "finding.ALL_IN_FLAG.unmarked")]
    assert check_all_in_mark(st, "Ana", 4, 4, 9, True) is None


def test_pay_moves_the_chips_whatever_it_finds() -> None:
    st = state_before(house(deal3()))
    pay(st, st.players["Beto"], 150, 30, False, "bet")  # more than he has: judged, and moved all the same
    beto = st.players["Beto"]
    assert beto.stack == 99 - 150 and beto.contributed == 151 and beto.all_in
    assert [f.rule for f in st.findings] == ["BET_OVER_STACK"]


def test_antes_missing_short_and_in_a_game_without_one() -> None:
    text = house("Ana: posts the ante 1\nCarla: posts the ante 2\n*** DEALING HANDS ***\n")
    st = state_before(text, "*** DEALING")
    found = check_antes(st, 99)
    assert rules(found) == [("ANTE_WRONG", "Beto", "finding.ANTE_WRONG.missing"),
                            ("ANTE_WRONG", "Carla", "finding.ANTE_WRONG.wrong")]
    assert found is not None and found[0].line == 99 and found[1].message == \
        "Carla posted an ante of 2; the ante is 1."
    none = state_before(text, "*** DEALING", profile_of("home-open", ("ante", "0")))
    assert [f.msg_id for f in check_antes(none, 99) or []] == ["finding.ANTE_WRONG.none"] * 2
    short = state_before(house("Ana: posts the ante 1\nBeto: posts the ante 1 and is all-in\n"
                               "Carla: posts the ante 1\n", stacks=(100, 1, 100)))
    assert check_antes(short, 99) is None


def test_a_post_by_a_player_not_dealt_in_after_the_deal_or_without_bets() -> None:
    text = house("Ana: posts the ante 1\nBeto: posts the ante 1\nCarla: sits out\n*** DEALING HANDS ***\n"
                 "Carla: posts the ante 1\n")
    st = state_before(text, "Carla: posts")
    post = item_at(text, "Carla: posts")
    assert isinstance(post, Post)
    assert rules(check_post(st, post)) == [("ANTE_WRONG", "Carla", "finding.ANTE_WRONG.not_dealt_in")]
    assert rules(post_not_allowed(st, post)) == [
        ("ACTION_NOT_ALLOWED", "Carla", "finding.ACTION_NOT_ALLOWED.post_after_deal")]
    points = state_before(house(deal3()), "*** DEALING", profile_of("qdan", ("mode", "points")))
    ante = Post(9, "Ana", "ante", 1)
    assert rules(check_post(points, ante)) == [("ANTE_WRONG", "Ana", "finding.ANTE_WRONG.no_betting")]


BLINDS = profile_of("stripped32")


def four(body: str) -> str:
    return house(body, stacks=(100, 100, 100, 100), names=("Ana", "Beto", "Carla", "Dario"), button=4)


def test_three_blinds_by_the_right_players_in_the_right_amounts() -> None:
    right = four("Ana: posts small blind 1\nBeto: posts big blind 2\nCarla: posts over blind 4\n")
    assert check_blinds(state_before(right, None, BLINDS), 9) is None
    wrong = four("Ana: posts small blind 1\nCarla: posts big blind 2\nDario: posts over blind 5\n")
    found = check_blinds(state_before(wrong, None, BLINDS), 9)
    assert rules(found) == [("BLIND_WRONG", "Carla", "finding.BLIND_WRONG.not_his_blind"),
                            ("BLIND_WRONG", "Dario", "finding.BLIND_WRONG.not_his_blind")]
    assert found is not None and found[0].message == "Carla posted the big blind, but it was Beto's to post."
    missing = four("Ana: posts small blind 1\nBeto: posts big blind 3\n")
    found = check_blinds(state_before(missing, None, BLINDS), 9)
    assert rules(found) == [("BLIND_WRONG", "Carla", "finding.BLIND_WRONG.missing_over"),
                            ("BLIND_WRONG", "Beto", "finding.BLIND_WRONG.wrong_big")]
    assert found is not None and found[1].message == "Beto posted a big blind of 3; it is 2 (2 × the small blind)."
    three = house("Ana: posts small blind 1\nBeto: posts big blind 2\nCarla: posts over blind 4\n")
    assert [f.msg_id for f in check_blinds(state_before(three, None, BLINDS), 9) or []] == [
        "finding.BLIND_WRONG.over_few"]


def test_entry_posts_follow_the_missed_blind_policy() -> None:
    body = ("Ana: posts small blind 1\nBeto: posts big blind 2\nCarla: posts over blind 4\n"
            "Dario: posts live blind {live}\nDario: posts dead blind {dead}\n")
    five = lambda live, dead: house(body.format(live=live, dead=dead), stacks=(100,) * 5,  # noqa: E731
                                    names=("Ana", "Beto", "Carla", "Dario", "Eva"), button=5)
    assert check_entry_posts(state_before(five(4, 3), None, BLINDS)) is None  # missed all three: 4 live + 3 dead
    assert check_entry_posts(state_before(five(2, 1), None, BLINDS)) is None  # missed small and big
    found = check_entry_posts(state_before(five(4, 1), None, BLINDS))
    assert rules(found) == [("MISSED_BLINDS", "Dario", "finding.MISSED_BLINDS.entry_over")]
    assert found is not None and found[0].expected is not None and "live 4 (a new player)" in found[0].expected
