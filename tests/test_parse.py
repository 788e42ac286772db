"""The house grammar and the reader: every construct parses to the model pinned in fixtures/house."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from lark import Lark

from audit.model import Hand, ParseFailure
from audit.dialects.dispatch import parse_block
from audit.dialects import house_lark
from audit.dialects.house_lark import LineLexer
from audit.read import read_blocks, read_text_blocks
from audit.resources import data_dir
from conftest import at_least, FIXTURES, SHARED, needs_shared
from modeldump import dump_block

HOUSE_FIXTURES = at_least(3, sorted((FIXTURES / "house").glob("*.txt")))


@pytest.mark.parametrize("path", HOUSE_FIXTURES, ids=lambda p: p.stem)
def test_fixture_parses_to_expected_model(path: Path) -> None:
    expected = json.loads(path.with_suffix(".expect.json").read_text(encoding="utf-8"))
    got = [dump_block(parse_block(b)) for b in read_blocks(path)]
    assert got == expected


def test_fixtures_cover_every_line_kind() -> None:
    kinds: set[str] = set()
    for path in HOUSE_FIXTURES:
        for block in json.loads(path.with_suffix(".expect.json").read_text(encoding="utf-8")):
            kinds.add(block["type"])
            for item in block.get("body", []) + block.get("items", []):
                kinds.add(item["type"] + ":" + str(item.get("kind") or item.get("street") or item.get("pot") or ""))
    for needed in ["Preamble", "SessionEnd", "Post:ante", "Post:small", "Post:big", "Post:over", "Post:live",
                   "Post:dead", "NoPlay:waits", "NoPlay:sits-out", "Marker:deal", "Marker:first", "Marker:draw",
                   "Marker:second", "Marker:showdown", "Marker:summary", "Marker:redeal", "DeckLine:", "Action:fold",
                   "Action:check", "Action:call", "Action:bet", "Action:raise", "Parole:offer", "Parole:accept",
                   "Parole:decline", "Discard:", "StandPat:", "Reshuffle:", "Muck:", "Collect:pot", "Collect:main",
                   "Collect:side-1", "Collect:parole", "Uncalled:", "Event:disconnected", "Event:connected",
                   "Event:house", "Event:said", "Score:", "SummaryTotal:"]:
        assert needed in kinds, needed


def test_grammar_has_no_conflicts_in_strict_mode() -> None:
    Lark.open(str(data_dir("grammar") / "house.lark"), parser="lalr", lexer=LineLexer,
              start=["hand", "preamble", "session_end"], strict=True)


BROKEN = """Hand #1 - 2026/11/28 21:04:00
Table 'Casa Pepe' Seat #2 is the button
Seat 1: Ana (100 in chips)
Seat 2: Beto (100 in chips)
Ana: posts the ante 1
Beto: posts the ante 1
*** DEALING HANDS ***
Dealt to Ana [As Ad 5c 7d 9h]
Dealt to Beto [Ks Kd Kh 3d 4h]
*** FIRST BETTING ROUND ***
Ana: raisez 4 to 6
Beto: folds

Hand #2 - 2026/11/28 21:05:00
Table 'Casa Pepe' Seat #1 is the button
Seat 1: Ana (100 in chips)
Seat 2: Beto (100 in chips)
"""


def test_broken_line_gives_pinned_message_and_next_hand_is_read() -> None:
    blocks = [parse_block(b) for b in read_text_blocks(BROKEN, "game.txt")]
    assert isinstance(blocks[0], ParseFailure)
    assert blocks[0].message == (
        "line 11, column 6: cannot read this line: 'raisez' is not an action "
        "(folds, checks, calls, bets, raises, posts, discards, stands pat, shows, mucks …)\n"
        "    Ana: raisez 4 to 6\n"
        "         ^")
    assert (blocks[0].line, blocks[0].column, blocks[0].hand_id) == (11, 6, "1")
    assert isinstance(blocks[1], Hand) and blocks[1].hand_id == "2"


def test_line_in_the_wrong_place_is_named() -> None:
    text = BROKEN.split("\n\n")[0].replace("Ana: raisez 4 to 6", "Seat 3: Carla (100 in chips)")
    failure = parse_block(next(iter(read_text_blocks(text, "g.txt"))))
    assert isinstance(failure, ParseFailure)
    assert failure.message.startswith("line 11, column 1: a seat line cannot stand here")


def test_bad_amount_points_at_it() -> None:
    text = BROKEN.split("\n\n")[0].replace("Ana: raisez 4 to 6", "Ana: bets two")
    failure = parse_block(next(iter(read_text_blocks(text, "g.txt"))))
    assert isinstance(failure, ParseFailure)
    assert failure.message.splitlines()[0] == "line 11, column 11: cannot read this line from 'two' on"


@pytest.mark.parametrize("encoding,bom", [("utf-8", b""), ("utf-8", codecs.BOM_UTF8),
                                          ("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_encodings_and_crlf(tmp_path: Path, encoding: str, bom: bytes) -> None:
    text = (FIXTURES / "house" / "header-and-seats.txt").read_text(encoding="utf-8")
    path = tmp_path / "log.txt"
    path.write_bytes(bom + text.replace("\n", "\r\n").encode(encoding))
    got = [dump_block(parse_block(b)) for b in read_blocks(path)]
    assert got == json.loads((FIXTURES / "house" / "header-and-seats.expect.json").read_text(encoding="utf-8"))


@needs_shared
def test_every_shared_case_parses() -> None:
    hands = 0
    for path in sorted(SHARED.glob("cases/*/*.txt")):
        for block in read_blocks(path):
            parsed = parse_block(block)
            assert not isinstance(parsed, ParseFailure), parsed.message
            hands += isinstance(parsed, Hand)
    assert hands > 400


@needs_shared
def test_fast_driver_agrees_with_larks_own_parser() -> None:
    """The tight loop over the LALR tables gives what Lark's own parser (with the line lexer) gives."""

    lark = house_lark.house_parser()
    for path in at_least(40, sorted(SHARED.glob("cases/*/*.txt")))[:40] + HOUSE_FIXTURES:
        for block in read_blocks(path):
            if block.kind != "house":
                continue
            fast = parse_block(block)
            house_lark._HOUSE_BUILDER.numbers = block.numbers
            slow = lark.parse(block.text(), start="hand")
            assert fast == slow._replace(file=block.file)
