"""Real online logs (shared/real-hands: PokerStars, Full Tilt, OnGame) audited under the site profile, through the
CLI."""

from __future__ import annotations

import json
import subprocess

from conftest import AUDIT, SHARED


def _findings(folder: str) -> list[dict[str, object]]:
    run = subprocess.run([AUDIT, "check", str(SHARED / "real-hands" / folder), "--format", "json",
                          "--fail-on", "never"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_all_real_five_card_draw_hands_audit_clean() -> None:
    found = _findings("pokerstars")
    assert [f for f in found if f["severity"] in ("violation", "error")] == []


def test_every_other_game_hand_is_unsupported_and_named() -> None:
    found = _findings("other-games")
    assert {f["rule"] for f in found} == {"UNSUPPORTED_GAME"}
    assert len(found) == 6
    messages = " ".join(str(f["message"]) for f in found)
    for game in ("Badugi", "Triple Draw 2-7 Lowball", "Single Draw 2-7 Lowball"):
        assert game in messages


def test_text_summary_counts_unsupported_hands() -> None:
    run = subprocess.run([AUDIT, "check", str(SHARED / "real-hands" / "other-games")], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1
    assert "6 hands checked in 3 files: 0 violations, 0 warnings, 6 errors" in run.stdout


def test_full_tilt_and_ongame_hands_audit_clean_under_the_site_profile() -> None:
    found = _findings("ongame") + _findings("fulltilt")
    assert found == []  # no finding at any severity (tests/test_dialects.py has the rest)
