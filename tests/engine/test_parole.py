"""Parole (stripped32): who may offer and when, the answers in turn, play after an accepted parole, the split."""

from __future__ import annotations

from audit.engine.parole import (
    check_answer, check_answers_missing, check_offer, check_paid_as_split, check_parole_split,
    check_play_after_split, parole_answerers,
)
from audit.engine.streets import replay
from audit.model import Parole

from conftest import FIXTURES
from enginehands import profile_of, rules, state_before

STRIPPED = profile_of("stripped32")
ACCEPTED = (FIXTURES / "profiles" / "stripped32-parole-answer-after-accept.txt").read_text(encoding="utf-8")


def parole_at(text: str, fragment: str) -> Parole:
    st = state_before(text, None, STRIPPED)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if fragment in t)
    item = next(i for i in st.hand.body if i.line == line)
    assert isinstance(item, Parole)
    return item


def test_the_first_to_act_in_the_second_round_offers_before_any_chips() -> None:
    st = state_before(ACCEPTED, "Dario: offers parole", STRIPPED)
    assert check_offer(st, parole_at(ACCEPTED, "Dario: offers")) is None
    wrong = ACCEPTED.replace("Dario: offers parole", "Ana: offers parole")
    st = state_before(wrong, "Ana: offers parole", STRIPPED)
    found = check_offer(st, parole_at(wrong, "Ana: offers"))
    assert rules(found) == [("PAROLE", "Ana", "finding.PAROLE.offer_wrong")]
    assert found is not None and found.message == ("Ana offered parole out of turn; only the first player to act in "
                                                   "the second betting round (Dario) may, before any chips go in.")


def test_answers_come_in_turn_from_the_offerers_left_once_each() -> None:
    st = state_before(ACCEPTED, "Ana: accepts", STRIPPED)
    assert parole_answerers(st) == ["Ana", "Carla"]
    assert check_answer(st, parole_at(ACCEPTED, "Ana: accepts"), ["Ana", "Carla"]) is None
    early = check_answer(st, Parole(40, "Carla", "decline"), ["Ana", "Carla"])
    assert rules(early) == [("PAROLE", "Carla", "finding.PAROLE.answer_out_of_turn")]
    own = check_answer(st, Parole(40, "Dario", "accept"), ["Ana", "Carla"])
    assert rules(own) == [("PAROLE", "Dario", "finding.PAROLE.own_offer")]
    st = state_before(ACCEPTED, "Carla: declines", STRIPPED)
    twice = check_answer(st, Parole(40, "Ana", "accept"), ["Ana", "Carla"])
    assert rules(twice) == [("PAROLE", "Ana", "finding.PAROLE.answered_twice")]
    found = check_answers_missing(st, 40)
    assert rules(found) == [("PAROLE", "Carla", "finding.PAROLE.no_answer_after_accept")]


def test_no_play_after_an_accepted_parole() -> None:
    st = state_before(ACCEPTED, "Ana collected", STRIPPED)
    assert st.parole.state == "accepted"
    assert rules(check_play_after_split(st, "Ana", 40, "bet")) == [
        ("PAROLE", "Ana", "finding.PAROLE.acted_after_split")]
    assert rules(check_play_after_split(st, "Ana", 40, "show")) == [
        ("PAROLE", "Ana", "finding.PAROLE.show_after_split")]


def test_the_split_and_a_split_nobody_accepted() -> None:
    result = replay(state_before(ACCEPTED, None, STRIPPED).hand, STRIPPED)
    assert result.findings == []
    uneven = ACCEPTED.replace("Ana collected 9 from pot (parole)", "Ana collected 10 from pot (parole)").replace(
        "Dario collected 8 from pot (parole)", "Dario collected 7 from pot (parole)")
    st = state_before(uneven, None, STRIPPED)
    split = replay(st.hand, STRIPPED)
    found = [f for f in split.findings if f.msg_id == "finding.PAROLE.split_wrong"]
    assert [(f.player, f.expected, f.actual) for f in found] == [("Ana", "9", "10"), ("Dario", "8", "7")]
    assert found[0].message.endswith("(every pot is split among its players, odd chips from the button's left: "
                                     "26 among Ana, Carla, Dario).")
    assert check_parole_split(st, split.pots) is not None
    declined = ACCEPTED.replace("Ana: accepts parole", "Ana: declines parole")
    st = state_before(declined, None, STRIPPED)
    assert rules(check_paid_as_split(st)) == [("PAROLE", "Ana", "finding.PAROLE.paid_as_split")]
