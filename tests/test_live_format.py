"""Format v1.1: a live table's log (``Cards: shown``) leaves unseen cards out and is judged on all the rest."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from audit import audit_text
from audit.dialects.house import parse_house_block
from audit.model import CardsLine, Preamble
from audit.read import read_text_blocks
from casejudge import CheckedTogether, cases_in
from conftest import AUDIT, FIXTURES

LIVE = FIXTURES / "live"
CASES = cases_in(LIVE, at_least=6)
CHECKED = CheckedTogether(CASES)


def check_json(path: Path) -> list[dict[str, object]]:
    run = subprocess.run([AUDIT, "check", str(path), "--format", "json", "--fail-on", "never"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_live_case(case: Path) -> None:
    assert CHECKED.verdict(case) == ""


# Each fixture breaks exactly one rule, found on its line: the rest of the hand (betting, pots, the odd chip, the
# showdown among the hands shown) is judged as in any log.
EXACT = {
    "clean-session": [],
    "under-raise": [("1", "RAISE_BELOW_MIN", "Beto", 16)],
    "odd-chip": [("1", "ODD_CHIP", "Carla", 31)],
    "draw-limit": [("1", "DRAW_LIMIT", "Ana", 21)],
    "shown-twice": [("1", "CARD_DUPLICATE", "Carla", 30)],
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact_rule_ids(name: str) -> None:
    found = check_json(LIVE / f"{name}.txt")
    assert [(f["hand"], f["rule"], f["player"], f["line"]) for f in found] == EXACT[name]


def test_cards_line_is_read_into_the_preamble() -> None:
    blocks = list(read_text_blocks("Profile: home-open\nCards: shown\n", "x.txt"))
    parsed = parse_house_block(blocks[0])
    assert type(parsed) is Preamble
    assert parsed.items[-1] == CardsLine(2, True)
    alone = parse_house_block(list(read_text_blocks("Cards: all\n", "x.txt"))[0])
    assert type(alone) is Preamble and alone.items == (CardsLine(1, False),)


def test_a_cards_line_other_than_shown_or_all_is_a_parse_error(tmp_path: Path) -> None:
    log = tmp_path / "bad.txt"
    log.write_text((LIVE / "clean-session.txt").read_text(encoding="utf-8").replace("Cards: shown", "Cards: some"),
                   encoding="utf-8")
    found = check_json(log)
    assert [(f["rule"], f["line"]) for f in found] == [("PARSE_ERROR", 5)]


def test_hands_after_cards_shown_are_judged_as_hidden_hands() -> None:
    text = (LIVE / "clean-session.txt").read_text(encoding="utf-8")
    results = [a.result for a in audit_text(text) if a.result is not None]
    assert [r.hand.shows_all_cards for r in results] == [False, False]
    assert [r.unchecked for r in results] == [("deck", "duplicates", "discards")] * 2
    plain = [a.result for a in audit_text(text.replace("Cards: shown\n", "")) if a.result is not None]
    assert [r.hand.shows_all_cards for r in plain] == [True, True] and plain[0].unchecked == ()
    # a new session starts with every card shown again, unless its preamble says otherwise
    again = text + "\nSession: next\nProfile: home-open\n\n" + text[text.index("Hand #2"):text.index("*** SESSION")]
    last = [a.result for a in audit_text(again) if a.result is not None][-1]
    assert last.hand.shows_all_cards


def test_a_discard_over_the_limit_and_skipped_cards_without_lists() -> None:
    """The draw's counts are judged without any card list (a discard of four under a limit of three)."""
    found = check_json(LIVE / "draw-limit.txt")
    assert found[0]["expected"] == "at most 3" and found[0]["actual"] == "4"


def test_a_check_in_parts_reads_a_cards_line_as_the_whole_file_does(tmp_path: Path) -> None:
    """``check --jobs``: a file is never cut after a lone ``Cards: shown`` line (its hands would be judged as if
    every card were shown: Carla's unseen draw would be DRAW_ORDER)."""
    from io import StringIO

    from audit.check import check_paths
    from audit.profile import load_profile

    text = (LIVE / "cards-line-alone.txt").read_text(encoding="utf-8")
    head, first = text.split("\n\nHand #1", 1)
    hand = "Hand #1" + first.split("\nHand #2")[0]
    long = tmp_path / "long.txt"
    long.write_text(head + "\n\n" + "\n".join(hand.replace("Hand #1 ", f"Hand #{i} ") for i in range(40)),
                    encoding="utf-8")
    outs = []
    for jobs in (1, 2):
        out = StringIO()
        check_paths([str(long)], load_profile("home-open"), "json", out, jobs=jobs, chunk_bytes=1)
        outs.append(out.getvalue())
    assert outs[0] == outs[1] == ""
