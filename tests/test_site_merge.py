"""Merge Network's "5-Draw" (shared/real-hands/merge, byte for byte from fpdb's regression files: XML, pot limit,
USD, CRLF and LF mixed, a new player's INITIAL_BLIND) through the real CLI: the real hand audits clean, and a
copy edited to break one rule is caught with exactly that rule."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import AUDIT, SHARED, needs_shared

REAL = SHARED / "real-hands" / "merge" / "5-Carddraw-PL-USD-0.05-0.10.201111.txt"


def findings(path: Path) -> list[dict[str, object]]:
    run = subprocess.run([AUDIT, "check", str(path), "--format", "json", "--fail-on", "never"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


@needs_shared
def test_the_real_merge_hand_audits_clean_and_its_pot_is_the_winners() -> None:
    assert b"\r\n" in REAL.read_bytes() and REAL.read_bytes().endswith(b">\r\n\n")  # both line ends
    assert findings(REAL) == []
    run = subprocess.run([AUDIT, "explain", str(REAL), "--format", "json"], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    (hand,) = [json.loads(line) for line in run.stdout.splitlines()]
    assert hand["hand"] == "40346359-19"
    # the bet nobody called ($0.50) goes back to its maker, who takes the $0.50 pot less the $0.02 rake
    assert hand["received"]["Player3"] == 98 and hand["should_receive"]["Player3"] == 98


@needs_shared
def test_a_returning_players_blind_at_the_big_blind_is_live_as_a_new_players(tmp_path: Path) -> None:
    returning = tmp_path / "returning.txt"
    returning.write_bytes(REAL.read_bytes().replace(b'type="INITIAL_BLIND"', b'type="RETURN_BLIND"', 1))
    assert findings(returning) == []


@needs_shared
def test_an_edited_merge_hand_is_caught_with_exactly_its_rule(tmp_path: Path) -> None:
    text = REAL.read_bytes()
    over = tmp_path / "over-the-pot.txt"  # pot limit: the bet after the draw may be the $0.50 pot, not $0.60
    over.write_bytes(text.replace(b'player="0" amount="0.50"/>', b'player="0" amount="0.60"/>', 1))
    assert {(f["rule"], f["player"]) for f in findings(over)} == {("BET_OVER_POT", "Player3")}
    out_of_turn = tmp_path / "out-of-turn.txt"  # Player1 (seat 2) calls before Hero (seat 1) has checked
    swapped = text.replace(b'sequence="5" type="CHECK" timestamp="1315630234694" player="1"/>',
                           b'sequence="5" type="CALL" timestamp="1315630234694" player="2" amount="0.10"/>', 1)
    swapped = swapped.replace(b'sequence="6" type="CALL" timestamp="1315630235087" player="2" amount="0.10"/>',
                              b'sequence="6" type="CHECK" timestamp="1315630235087" player="1"/>', 1)
    assert swapped != text
    out_of_turn.write_bytes(swapped)
    caught = {(f["rule"], f["player"]) for f in findings(out_of_turn)}
    assert caught == {("ACTION_OUT_OF_TURN", "Player1"), ("ACTION_OUT_OF_TURN", "Hero")}  # Hero's turn gone by


@needs_shared
def test_a_merge_file_of_many_hands_is_read_whole_with_its_description_by_any_number_of_jobs(tmp_path: Path) -> None:
    """Merge writes its <description> once at the top of a table's file: every hand after it is read with it, and
    `check --jobs` never cuts the file where a part would lack it. A hand without one is said so."""
    description, game = REAL.read_text(encoding="ascii").replace("\r\n", "\n").rstrip("\n").split("\n", 1)
    hands = 700
    long = tmp_path / "table.txt"
    long.write_text(description + "\n" + "\n\n".join(game.replace("40346359-19", f"40346359-{n}")
                                                    for n in range(hands)) + "\n", encoding="ascii")
    assert long.stat().st_size > 4 * 256 * 1024
    for jobs in ("1", "2"):
        run = subprocess.run([AUDIT, "check", str(long), "--jobs", jobs], capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr
        assert f"{hands:,} hands checked in 1 file: 0 violations, 0 warnings, 0 errors" in run.stdout
    alone = tmp_path / "alone.txt"  # a hand cut out of its file, without the description
    alone.write_text(game + "\n", encoding="ascii")
    (only,) = findings(alone)
    assert only["rule"] == "PARSE_ERROR" and "needs its file's <description> line" in str(only["message"])


@needs_shared
def test_merges_other_games_are_said_unsupported(tmp_path: Path) -> None:
    holdem = tmp_path / "holdem.txt"
    holdem.write_bytes(REAL.read_bytes().replace(b'type="5-Draw"', b'type="Holdem"', 1))
    (only,) = findings(holdem)
    assert (only["rule"], only["actual"]) == ("UNSUPPORTED_GAME", "Hold'em")
    lowball = tmp_path / "lowball.txt"  # triple draw's rounds are not read: the game is said, not a parse error
    lowball.write_bytes(REAL.read_bytes().replace(b'type="5-Draw"', b'type="2-7 Lowball"', 1).replace(
        b'<round id="END_OF_FOLDED_GAME"', b'<round id="POST_SECOND_DRAW" sequence="9">\r\n\t</round>\r\n'
        b'\t<round id="END_OF_FOLDED_GAME"', 1))
    (only,) = findings(lowball)
    assert (only["rule"], only["actual"]) == ("UNSUPPORTED_GAME", "Triple Draw 2-7 Lowball")
