"""Tests for audit.dialects.pokerstars: the site dialect (real PokerStars hand histories) read into the house model."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.model import (
    Action, Collect, Dealt, Discard, Event, Game, Hand, Marker, Muck, ParseFailure, Post, Seat, Show, StandPat,
    SummaryTotal,
)
from audit.dialects.dispatch import parse_block
from audit.read import RawBlock, read_blocks, read_text_blocks
from audit.dialects.common import to_amount
from audit.dialects.pokerstars import pokerstars_grammar
from conftest import at_least, SHARED, chips_put_in, needs_shared

ROOT = Path(__file__).resolve().parent.parent
REAL = SHARED / "real-hands"
STARS = REAL / "pokerstars"
OTHER = REAL / "other-games"
FIXTURES = ROOT / "fixtures" / "site"

needs_real = needs_shared  # ../shared/real-hands


def parse_site_block(block: RawBlock) -> Hand | ParseFailure:
    """Through the registry's dispatch, as the pipeline reads it."""
    result = parse_block(block)
    assert isinstance(result, (Hand, ParseFailure))
    return result


def hands_of(path: Path) -> list[Hand | ParseFailure]:
    return [parse_site_block(b) for b in read_blocks(path)]


def stars_hands() -> list[Hand]:
    out: list[Hand] = []
    for path in at_least(8, sorted(STARS.glob("*.txt"))):
        for result in hands_of(path):
            assert isinstance(result, Hand), result.message
            out.append(result)
    return out


def one(text: str) -> Hand | ParseFailure:
    blocks = list(read_text_blocks(text))
    assert len(blocks) == 1
    return parse_site_block(blocks[0])


def by_id(hand_id: str) -> Hand:
    for hand in stars_hands():
        if hand.hand_id == hand_id:
            return hand
    raise AssertionError(hand_id)


def summary_total(hand: Hand) -> SummaryTotal:
    totals = [i for i in hand.body if type(i) is SummaryTotal]
    assert len(totals) == 1
    return totals[0]


# ---- the 37 real 5 Card Draw hands ------------------------------------------------------------------------

@needs_real
def test_every_real_hand_parses() -> None:
    hands = stars_hands()
    assert len(hands) == 37
    assert len({h.hand_id for h in hands}) == 37
    for hand in hands:
        assert hand.dialect == "site"
        assert hand.game is not None and hand.game.name == "5 Card Draw" and hand.game.currency == "USD"
        assert hand.seats and hand.body
        assert hand.end_line >= hand.body[-1].line > hand.line


@needs_real
def test_every_real_hand_reconciles() -> None:
    """chips put in - uncalled = total pot = collected + rake, in integer cents, for all 37 hands."""
    for hand in stars_hands():
        total = summary_total(hand)
        collected = sum(i.amount for i in hand.body if type(i) is Collect)
        assert {i.kind for i in hand.body if type(i) is Post} <= {"small", "big", "ante"}, hand.hand_id
        assert chips_put_in(hand) == total.total, hand.hand_id
        assert collected + total.rake == total.total, hand.hand_id


@needs_real
def test_summary_lines_agree_with_collected() -> None:
    """What the summary says each seat won equals the collected lines (a check that nothing is lost)."""
    import re
    for hand in stars_hands():
        won = sum(
            to_amount(m, True) or 0
            for e in hand.body if type(e) is Event and e.kind == "summary"
            for m in re.findall(r"(?:won|collected) \((\$[\d.]+)\)", e.text)
        )
        assert won == sum(i.amount for i in hand.body if type(i) is Collect), hand.hand_id


@needs_real
def test_side_pot_hand_fields() -> None:
    hand = by_id("64146221551")
    assert hand.file.endswith("5-Carddraw-FL-USD-0.10-0.20-201106.sidepot.txt")
    assert hand.line == 1 and hand.end_line == 36
    assert hand.started_at == "2011/07/04 21:56:59"
    assert hand.table == "Pulova" and hand.button == 3
    assert hand.game == Game("5 Card Draw", "fixed-limit", 10, 20, "USD", "WET")
    assert hand.seats[3] == Seat(6, 5, "Player4", 15)
    body = hand.body
    assert body[0] == Post(8, "Player3", "small", 5)
    assert body[2] == Event(10, "Player6", "sits-out", "sits out")  # no seat line for Player6: fine
    assert body[3] == Marker(11, "deal")
    assert Action(15, "Hero", "raise", 10, 20) in body
    assert Action(17, "Player4", "call", 5, 0, all_in=True) in body
    assert Discard(18, "Player3", 2, None) in body  # hidden
    assert Discard(20, "Hero", 2, ("7h", "Th")) in body
    assert Dealt(21, "Hero", (("Qd", "6c", "6h"), ("4h", "Td"))) in body
    assert Show(25, "Player3", ("2h", "Kh", "Qs", "Ad", "Ks"), "a pair of Kings") in body
    assert Muck(26, "Hero") in body
    assert Collect(27, "Player3", 10, "side") in body
    assert Collect(29, "Player3", 43, "main") in body
    assert SummaryTotal(31, 55, 2) in body
    assert Event(33, "Hero", "summary", "Seat 3: Hero (button) mucked [Qd 4h 6c 6h Td]") in body
    assert not any(type(i) is Show and i.line > 30 for i in body)  # no Show invented from the summary
    assert not any(type(i) is Marker and i.street not in ("deal", "showdown", "summary") for i in body)


@needs_real
def test_names_with_spaces_and_cents() -> None:
    hand = by_id("35839082075")  # line numbers are the file's: this hand starts at line 163
    assert hand.line == 163
    assert hand.seats[0] == Seat(165, 1, "francois 712", 152)
    assert Action(174, "Postman15", "call", 10) in hand.body
    assert Action(175, "francois 712", "raise", 10, 20) in hand.body
    assert Discard(181, "francois 712", 1, None) in hand.body
    assert Muck(188, "francois 712") in hand.body
    assert Event(192, "francois 712", "summary", "Seat 1: francois 712 mucked [Qh Qc Js Kc Kh]") in hand.body
    # pot limit: $18.10 -> 1810, "$1" -> 100, dates as written
    pl = by_id("49900000007")
    assert pl.game == Game("5 Card Draw", "pot-limit", 50, 100, "USD", "PT")
    assert Post(7, "Player1", "big", 100) in pl.body
    assert Action(11, "Hero", "call", 250) in pl.body
    assert Collect(23, "Player2", 1810, "pot") in pl.body
    assert SummaryTotal(25, 1900, 90) in pl.body
    nl = by_id("49934100000")
    assert nl.game == Game("5 Card Draw", "no-limit", 25, 50, "USD", "PT")
    assert nl.started_at == "2010/09/20 20:50:00" and nl.table == "Table VI"
    assert nl.seats[4] == Seat(7, 5, "Hero", 2000)
    big = by_id("153148513639")  # "PokerStars Hand #", $30/$60
    assert big.game == Game("5 Card Draw", "fixed-limit", 3000, 6000, "USD", "EET")
    assert big.started_at == "2016/05/11 10:23:37"
    assert Collect(22, "Hero", 47900, "pot") in big.body
    assert by_id("85872891589").started_at == "2012/09/08 9:27:48"  # no bracketed second time


@needs_real
def test_table_events() -> None:
    hand = by_id("35839492817")
    kinds = [(e.player, e.kind) for e in hand.body if type(e) is Event and e.kind != "summary"]
    assert kinds == [("Postman15", "timed-out"), ("Postman15", "sits-out"), ("Postman15", "returns"),
                     ("trixr4dough", "other")]
    first = by_id("35839131252")
    others = [e for e in first.body if type(e) is Event and e.kind != "summary"]
    assert others == [Event(242, "Gemma702", "other", "was removed from the table for failing to post"),
                      Event(252, "Jana50", "joins", "joins the table at seat #5")]
    folded = by_id("63823205441")
    assert Event(19, "Player2", "other", "doesn't show hand") in folded.body


# ---- other games: a Hand naming the game (the engine reports UNSUPPORTED_GAME), never an exception ------

@needs_real
@pytest.mark.parametrize("name, games", [
    ("2-7 Single Draw-NL-USD-0.25-0.50-201106.allin.txt", ["Single Draw 2-7 Lowball"]),
    ("Badugi-USD-0.25-0.50-201009.txt", ["Badugi"] * 4),
    ("Triple Draw 2-7 Lowball-FL-USD-1.00-2.00-201206.duplicate.holecards.txt", ["Triple Draw 2-7 Lowball"]),
])
def test_other_games_give_hands(name: str, games: list[str]) -> None:
    results = hands_of(OTHER / name)
    assert [r.game.name if isinstance(r, Hand) and r.game else r for r in results] == games
    for hand in results:
        assert isinstance(hand, Hand)
        total = summary_total(hand)
        assert chips_put_in(hand) == total.total
        assert sum(i.amount for i in hand.body if type(i) is Collect) + total.rake == total.total


@needs_real
def test_corrupt_triple_draw_lines_become_other_events() -> None:
    (hand,) = hands_of(OTHER / "Triple Draw 2-7 Lowball-FL-USD-1.00-2.00-201206.duplicate.holecards.txt")
    assert isinstance(hand, Hand)
    assert Event(21, "", "other", "Hero: discards 2 cards []") in hand.body
    assert [m.street for m in hand.body if type(m) is Marker] == [
        "deal", "draw", "draw2", "draw3", "summary"]
    single = hands_of(OTHER / "2-7 Single Draw-NL-USD-0.25-0.50-201106.allin.txt")[0]
    assert isinstance(single, Hand)
    assert Show(28, "Player6", ("2d", "Th", "3d", "6h", "5c"), "Lo: T,6,5,3,2") in single.body


def test_other_game_never_raises() -> None:
    holdem = """PokerStars Game #1: Hold'em No Limit ($0.01/$0.02 USD) - 2010/01/01 1:02:03 ET
Table 'X' 9-max Seat #1 is the button
Seat 1: A ($2 in chips)
Seat 2: B ($2 in chips)
A: posts small blind $0.01
B: posts big blind $0.02
*** HOLE CARDS ***
Dealt to A [Ah Kh]
A: calls $0.01
B: checks
*** FLOP *** [2c 3d 4h]
A: checks
B: checks
*** SUMMARY ***
Total pot $0.04 | Rake $0
Board [2c 3d 4h]
Seat 1: A (small blind) showed [Ah Kh] and won ($0.04)
"""
    hand = one(holdem)
    assert isinstance(hand, Hand) and hand.game is not None and hand.game.name == "Hold'em"
    assert Event(7, "", "other", "*** HOLE CARDS ***") in hand.body
    assert Event(16, "", "other", "Board [2c 3d 4h]") in hand.body
    for broken in ("PokerStars Game #1: Badugi Limit ($0.25/$0.50 USD)\n", "PokerStars\nTable\n",
                   "PokerStars Game #2: Razz Limit ($1/$2 USD) - 2010/01/01 1:02:03 ET\nSeat 1: A ($1 in chips)\n",
                   holdem.replace("Total pot $0.04", "Total pot $0.045")):
        assert isinstance(one(broken), ParseFailure)


# ---- 5 Card Draw lines that do not read: ParseFailure with line, column, caret ------------------------------

NL = (STARS / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt") if STARS.is_dir() else None


def _nl_with(old: str, new: str) -> Hand | ParseFailure:
    assert NL is not None
    text = NL.read_text(encoding="utf-8-sig")
    assert old in text
    return one(text.replace(old, new, 1))


@needs_real
@pytest.mark.parametrize("old, new, line, column, what", [
    ("Hero: discards 1 card [4c]", "Hero: discards 2 cards []", 19, 24,
     "cannot read this 'discards' line from '[]' on"),
    ("Hero: checks", "Hero: dances", 17, 1, "cannot read this line: it is not a line of the site's"),
    ("Player4: calls $0.25", "Player4: calls", 16, 15, "the 'calls' line stops short"),
    ("Player4: calls $0.25", "Player4: calls $0.25 and is allin", 16, 29, "from 'allin' on"),
    ("$0.95 from", "$0.955 from", 26, 19, "'$0.955' is not a currency amount"),
    ("Total pot $1 |", "Total pot $1 | Jackpot $1 |", 28, 16, "cannot read the 'Total pot' line from 'Jackpot'"),
    ("Player4: shows [6d Js As Jd 6c]", "Player4: shows [6d Js As Jd 1c]", 24, 29, "from '1c]' on"),
    ("*** DEALING HANDS ***", "*** DEALING CARDS ***", 11, 13, "cannot read a street line from 'CARDS' on"),
    ("Table 'Table VI'", "Tablet 'x'", 2, 1, "not a line of the site's hand histories"),
    ("Seat 1: Player1", "Player1: folds\nSeat 1: Player1", 3, 1,
     "a seat line ('Seat 1: <player> ($1.52 in chips)') must come right after the table line"),
    ("Seat 2: Player2 ($7.50 in chips)", "Player2: folds\nSeat 2: Player2 ($7.50 in chips)", 5, 1,
     "a seat line cannot stand here"),
    ("Dealt to Hero", "Seat 6: Late ($1 in chips)\nDealt to Hero", 12, 1, "a seat line cannot stand here"),
])
def test_unreadable_line_in_five_card_draw(old: str, new: str, line: int, column: int, what: str) -> None:
    result = _nl_with(old, new)
    assert isinstance(result, ParseFailure)
    assert (result.line, result.column) == (line, column)
    assert what in result.message
    assert result.hand_id == "49934100000" and result.first_line == 1
    caret_line = result.message.splitlines()[-1]
    assert caret_line == "    " + " " * (column - 1) + "^"


# ---- the synthetic fixture: play money, antes, side pot, odd names, chat and events -------------------------

def test_play_money_fixture() -> None:
    (hand,) = hands_of(FIXTURES / "play-money-sidepot.txt")
    assert isinstance(hand, Hand)
    assert hand.game == Game("5 Card Draw", "pot-limit", 10, 20, "", "CET")
    assert hand.line == 4 and hand.table == "Synthetic I" and hand.button == 1
    assert [s.player for s in hand.seats] == ["Mr. T: the 2nd", "ana-b", "Zé Carlos", "late comer"]
    assert hand.seats[3].sitting_out and hand.seats[2].chips == 40
    assert Post(10, "Mr. T: the 2nd", "ante", 5) in hand.body
    assert Action(18, "Mr. T: the 2nd", "raise", 40, 60) in hand.body
    assert Event(21, "Zé Carlos", "said", "good luck: all") in hand.body
    assert Event(17, "newbie", "joins", "joins the table at seat #5") in hand.body
    assert [e.kind for e in hand.body if type(e) is Event and e.player in ("ana-b", "late comer", "ghost")
            and e.kind != "summary"] == ["disconnected", "connected", "returns", "leaves"]
    assert StandPat(24, "Zé Carlos") in hand.body
    total = summary_total(hand)
    assert total == SummaryTotal(39, 370, 0)
    assert chips_put_in(hand) == 370 == sum(i.amount for i in hand.body if type(i) is Collect)


def test_single_lines() -> None:
    head = ("PokerStars Hand #7:  5 Card Draw No Limit (€0.25/€0.50 EUR) - 2013/03/04 5:06:07 CET\n"
            "Table 'T' 6-max Seat #2 is the button\n"
            "Seat 1: a ($10 in chips)\nSeat 2: b (€5.05 in chips) out of hand (moved from another table)\n")
    hand = one(head + "a: posts small & big blinds €0.75 and is all-in\n"
                      "a collected €1.50 from side pot-2\n"
                      "b: raises €1 to €1.50 and has reached the €1.50 cap\n"
                      "Dealt to a [] [2c 3c 4c 5c 7d]\n"
                      "a: bets €12 and is all-in\n")
    assert isinstance(hand, Hand)
    assert hand.game == Game("5 Card Draw", "no-limit", 25, 50, "EUR", "CET")
    assert hand.seats[1] == Seat(4, 2, "b", 505, True)
    assert list(hand.body) == [
        Post(5, "a", "both", 75, True), Collect(6, "a", 150, "side-2"), Action(7, "b", "raise", 100, 150),
        Dealt(8, "a", (("2c", "3c", "4c", "5c", "7d"),)), Action(9, "a", "bet", 1200, 1200, True)]
    play = one("PokerStars Game #8:  5 Card Draw Limit (10/20) - 2013/03/04 5:06:07 ET\n"
               "Table 'T' Seat #1 is the button\nSeat 1: a (1.5 in chips)\n")
    assert isinstance(play, ParseFailure) and "not a whole number of chips" in play.message


def test_amounts_are_exact() -> None:
    assert to_amount("$0.05", True) == 5
    assert to_amount("$1", True) == 100
    assert to_amount("$18.10", True) == 1810
    assert to_amount("$0.1", True) == 10
    assert to_amount("$1,234.56", True) == 123456
    assert to_amount("€1", True) == 100
    assert to_amount("1500", False) == 1500
    for bad in ("$1.234", "$.5", "$1.", "$1.2.3", "", "$", "1.50"):  # a currency amount carries its sign
        assert to_amount(bad, True) is None
    for bad in ("1.5", "$15", ""):
        assert to_amount(bad, False) is None
    # no float on the way: 0.29 would be 28 through int(float * 100)
    assert to_amount("$0.29", True) == 29 and to_amount("$1.15", True) == 115


@needs_real
def test_parse_block_dispatches_here() -> None:
    from audit.dialects.pokerstars import parse_hand
    block = next(iter(read_blocks(STARS / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt")))
    assert block.kind == "site"
    assert parse_block(block) == parse_hand(block)._replace(shows_all_cards=False)


def test_grammar_builds_in_strict_mode() -> None:
    assert pokerstars_grammar(strict=True) is not pokerstars_grammar()


def test_other_sites_and_wrong_signs() -> None:
    dollars_in_play_money = one("PokerStars Game #8:  5 Card Draw Limit (10/20) - 2013/03/04 5:06:07 ET\n"
                                "Table 'T' Seat #1 is the button\nSeat 1: a ($15 in chips)\n")
    assert isinstance(dollars_in_play_money, ParseFailure)
    assert dollars_in_play_money.column == 12 and "'$15' is not a whole number of chips" in dollars_in_play_money.message


@needs_real
def test_mangled_hands_never_raise() -> None:
    """Cut, doubled or garbled lines anywhere in a real hand: a Hand or a ParseFailure, never an exception."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    lines = (STARS / "5-Carddraw-FL-USD-0.10-0.20-201106.sidepot.txt").read_text(encoding="utf-8-sig").splitlines()
    lines = [line for line in lines if line.strip()]

    @settings(max_examples=150, deadline=None)
    @given(st.integers(0, len(lines) - 1), st.integers(0, 80), st.text(max_size=6), st.booleans())
    def check(index: int, cut: int, junk: str, double: bool) -> None:
        mangled = list(lines)
        line = mangled[index]
        mangled[index] = line[:cut] + junk + line[cut + len(junk):]
        if double:
            mangled.insert(index, mangled[index])
        for block in read_text_blocks("\n".join(mangled)):
            if block.kind == "site":
                assert isinstance(parse_site_block(block), (Hand, ParseFailure))

    check()
