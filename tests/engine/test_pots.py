"""Settlement: pots built from the contributions, each paid to its best hand, and what the log paid judged against
them (winners, amounts, odd chips, uncalled bets, the summary, chips conserved, rake, redeals)."""

from __future__ import annotations

from audit.engine.result import PotResult
from audit.engine.settle import (
    check_conservation, check_redeal, check_summary, check_uncalled, judge_pot,
)
from audit.engine.streets import replay
from audit.model import SummaryTotal

from enginehands import deal3, house, parse, profile_of, rules, state_before

from conftest import needs_shared

PLAY = ("*** FIRST BETTING ROUND ***\nAna: bets 4\nBeto: calls 4\nCarla: calls 4\n*** DRAW ***\nAna: stands pat\n"
        "Beto: stands pat\nCarla: stands pat\n*** SECOND BETTING ROUND ***\nAna: checks\nBeto: checks\n"
        "Carla: checks\n*** SHOW DOWN ***\nAna: shows [As Ad 5c 7d 9h]\nBeto: shows [Ks Kd Kh 3d 4h]\n"
        "Carla: shows [2c 3c 8h 9s Jd]\n")


def messages(text: str, profile_name: str = "home-open") -> list[tuple[str, str | None, str | None]]:
    hand = parse(text)
    return [(f.rule, f.player, f.msg_id) for f in replay(hand, profile_of(profile_name)).findings]


def test_the_pot_is_built_and_won_by_the_best_hand() -> None:
    result = replay(parse(house(deal3() + PLAY + "Beto collected 15 from pot\n")), profile_of("home-open"))
    assert result.findings == []
    assert [(p["name"], p["amount"], p["winners"], p["awards"]) for p in result.pots] == [
        ("pot", 15, ["Beto"], {"Beto": 15})]
    assert result.should_receive == {"Beto": 15} and result.received == {"Beto": 15}


def test_a_pot_to_the_wrong_player_or_in_the_wrong_amount() -> None:
    assert messages(house(deal3() + PLAY + "Ana collected 15 from pot\n")) == [
        ("POT_WINNER", "Ana", "finding.POT_WINNER.not_winner")]
    assert messages(house(deal3() + PLAY + "Beto collected 12 from pot\n")) == [
        ("POT_AMOUNT", "Beto", "finding.POT_AMOUNT.total"), ("CHIPS_NOT_CONSERVED", None,
                                                             "finding.CHIPS_NOT_CONSERVED.plain")]
    assert messages(house(deal3() + PLAY + "Beto collected 15 from side pot-2\n"))[0] == (
        "POT_AMOUNT", "Beto", "finding.POT_AMOUNT.no_such_pot")
    assert messages(house(deal3() + PLAY))[0] == ("POT_AMOUNT", "Beto", "finding.POT_AMOUNT.nobody_collected")


def test_judge_pot_names_the_odd_chip_and_the_shares() -> None:
    st = state_before(house(deal3() + PLAY))
    tie = PotResult(name="main", amount=15, eligible=["Ana", "Beto"], winners=["Ana", "Beto"],
                    awards={"Ana": 8, "Beto": 7}, collected={"Ana": 7, "Beto": 8}, lines={"Ana": 40, "Beto": 41})
    found = judge_pot(st, tie)
    assert rules(found) == [("ODD_CHIP", "Beto", "finding.ODD_CHIP.wrong")]
    assert found is not None and found[0].message == ("The odd chip of the main pot went to Beto; it belonged to "
                                                      "Ana, the first tied winner left of the button.")
    shares = PotResult(name="side-1", amount=15, eligible=["Ana", "Beto"], winners=["Ana", "Beto"],
                       awards={"Ana": 8, "Beto": 7}, collected={"Ana": 5, "Beto": 10}, lines={"Ana": 40, "Beto": 41})
    found = judge_pot(st, shares)  # a tied share short by more than the odd chip: taken by the other winner
    assert rules(found) == [("POT_WINNER", "Beto", "finding.POT_WINNER.tie_taken")]
    assert found is not None and found[0].message == ("Ana tied with Beto for side pot 1 and was owed a share of 8, "
                                                      "but got 5: Beto took 3 chips of it.")


def test_uncalled_bets_the_summary_and_conservation() -> None:
    st = state_before(house(deal3()))
    found = check_uncalled(st, {"Ana": 6})
    assert rules(found) == [("UNCALLED_BET", "Ana", "finding.UNCALLED_BET.not_returned")]
    st.returned_log["Beto"] = 2
    assert [f.msg_id for f in check_uncalled(st, {}) or []] == ["finding.UNCALLED_BET.none_due"]
    summary = SummaryTotal(30, 16, 1)
    assert rules(check_summary(st, summary, 15, 15, 1)) == [(
        "SUMMARY_TOTAL", None, "finding.SUMMARY_TOTAL.pot")]
    assert check_summary(st, SummaryTotal(30, 15, 0), 15, 15, 0) is None
    found = check_conservation(st, 15, 12, 0, 1)
    assert found is not None and found.message == \
        "15 chips went in, but 12 were collected, 0 returned and 1 raked: +2 unaccounted."
    assert check_conservation(st, 15, 14, 0, 1) is None


def test_a_redeal_only_when_everyone_checked_and_the_profile_says_so() -> None:
    checked = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: checks\nBeto: checks\nCarla: checks\n"
                    "*** DRAW ***\n")
    redeal = profile_of("home-open", ("all-check", "redeal"), ("second-round-starts", "opener"))
    st = state_before(checked, None, redeal)
    st.rounds["first"].end_line = 18
    assert rules(check_redeal(st, False)) == [("REDEAL", None, "finding.REDEAL.everyone_checked")]
    assert check_redeal(st, True) is None
    plain = state_before(checked)
    assert check_redeal(plain, False) is None


@needs_shared
def test_a_site_pot_pays_money_and_the_rake_is_allowed() -> None:
    from conftest import SHARED
    path = SHARED / "real-hands" / "pokerstars" / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt"
    result = replay(parse(path.read_text(encoding="utf-8-sig")), profile_of("site"))
    assert result.findings == [] and result.rake == 5
    assert sum(p["amount"] for p in result.pots) == result.pot_total
