"""The typed steps the engine records for ``explain``: the table after each line and what was legal before it,
with no words in them."""

from __future__ import annotations

from audit.engine.steps import BetLegal, DrawLegal, Step
from audit.engine.streets import replay
from audit.model import Action, Collect, Discard, Post

from enginehands import deal3, house, parse, profile_of

TEXT = house(deal3() + "*** FIRST BETTING ROUND ***\nAna: bets 4\nBeto: raises 8 to 12\nCarla: folds\n"
             "Ana: calls 8\n*** DRAW ***\nAna: discards 2 cards [5c 7d]\nDealt to Ana [As Ad 9h] [2s 3s]\n"
             "Beto: stands pat\n*** SECOND BETTING ROUND ***\nAna: checks\nBeto: bets 10\nAna: folds\n"
             "Uncalled bet (10) returned to Beto\nBeto collected 27 from pot\n")


def steps_of(text: str, profile: str = "home-open") -> list[Step]:
    result = replay(parse(text), profile_of(profile), steps=True)
    assert result.steps is not None
    return result.steps


def test_no_steps_unless_asked() -> None:
    assert replay(parse(TEXT), profile_of("home-open")).steps is None


def test_a_step_per_line_with_the_table_after_it() -> None:
    steps = steps_of(TEXT)
    body = parse(TEXT).body
    assert [s.item for s in steps] == list(body)  # every line, in order, each with its model item
    raise_step = next(s for s in steps if isinstance(s.item, Action) and s.item.kind == "raise")
    assert raise_step.street == "first"
    assert raise_step.stacks == {"Ana": 95, "Beto": 87, "Carla": 99}
    assert raise_step.bets == {"Ana": 4, "Beto": 12} and raise_step.pot == 19
    assert raise_step.contributions == {"Ana": 5, "Beto": 13, "Carla": 1} and raise_step.dead == 0
    assert isinstance(raise_step.legal, BetLegal)
    legal = raise_step.legal
    assert (legal.to_call, legal.min_raise_to, legal.max_raise_to, legal.may_raise, legal.stack_before) == (
        4, 8, 99, True, 99)
    first_post = next(s for s in steps if isinstance(s.item, Post))
    assert first_post.street == "pre" and first_post.bets == {} and first_post.legal is None  # an ante is no bet


def test_the_draw_step_says_what_could_be_thrown() -> None:
    steps = steps_of(TEXT, "qdan")
    discard = next(s for s in steps if isinstance(s.item, Discard))
    assert isinstance(discard.draw, DrawLegal)
    assert discard.draw.may_discard == ("As", "Ad", "5c", "7d", "9h")
    assert (discard.draw.limit, discard.draw.limit_keeping_ace) == (3, 4)
    assert discard.bets == {} and discard.folded == ("Carla",)


def test_the_uncalled_bet_comes_back_and_the_pot_empties() -> None:
    steps = steps_of(TEXT)
    back = steps[-2]
    assert back.stacks["Beto"] == 87 and back.contributions["Beto"] == 13 and back.pot == 27
    collect = steps[-1]
    assert isinstance(collect.item, Collect) and collect.pot == 0 and collect.stacks["Beto"] == 114
    assert collect.bets == {}  # the round is over: the bets are in the pot


def test_findings_sit_on_the_step_of_their_line() -> None:
    text = TEXT.replace("Beto: raises 8 to 12", "Beto: raises 6 to 12")
    steps = steps_of(text)
    flagged = [(s.line, [f.rule for f in s.findings]) for s in steps if s.findings]
    assert flagged == [(next(s.line for s in steps if isinstance(s.item, Action) and s.item.kind == "raise"),
                        ["AMOUNT_NOTATION"])]


def test_the_steps_hold_no_words() -> None:
    step = steps_of(TEXT)[0]
    assert not hasattr(step, "text")
    fields = {n for n in dir(step) if not n.startswith("_")}
    assert fields == {"line", "street", "item", "stacks", "bets", "contributions", "dead", "folded", "pot", "legal",
                      "draw", "findings", "pots"}
    assert step.street in ("pre", "deal", "first", "draw", "second", "showdown", "summary")  # a key, not a name
