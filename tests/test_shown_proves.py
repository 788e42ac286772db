"""What the shown cards prove (FORMAT.md, `Cards: shown`, decided 2026-12-03), over `fixtures/shown/`, through the
real CLI and the library's `HandResult.unchecked`:

- under `draw-limit = 3+ace`, a draw of four whose shown hand holds no ace (nor the joker) kept no ace:
  `DRAW_LIMIT`; an ace in the shown hand, or a hand never shown, leaves the draw unjudged (`draw_limit`);
- under `openers = jacks`, an opener who stood pat shows the hand he was dealt: no pair of Jacks or better is
  `OPENERS`; an opener who drew, or never showed, leaves it unjudged (`openers`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.pipeline import audit_text
from casejudge import run_check

ROOT = Path(__file__).resolve().parent.parent
SHOWN = ROOT / "fixtures" / "shown"
HIDDEN = ("deck", "duplicates", "discards")

# each fixture: exactly the violations it gives (hand, rule, player, line), and what its result could not check
EXACT: dict[str, tuple[list[tuple[str, str, str, int]], tuple[str, ...]]] = {
    "draw-four-no-ace": ([("Q1", "DRAW_LIMIT", "Carla", 22)], ("draw_limit",)),  # and Ana's, with aces, is not
    "draw-four-ace": ([], ("draw_limit",)),
    "draw-four-not-shown": ([], ("draw_limit",)),
    "opener-pat-no-jacks": ([("Q1", "OPENERS", "Ana", 17)], ()),
    "opener-pat-jacks": ([], ()),
    "opener-drew": ([], ("openers",)),
}


def test_every_fixture_is_listed() -> None:
    assert sorted(p.stem for p in SHOWN.glob("*.txt")) == sorted(EXACT)


@pytest.mark.parametrize("name", sorted(EXACT))
def test_what_the_shown_cards_prove(name: str) -> None:
    found = run_check(SHOWN / f"{name}.txt", None)
    bad = [(f["hand"], f["rule"], f["player"], f["line"]) for f in found if f["severity"] in ("violation", "error")]
    wanted, unjudged = EXACT[name]
    assert bad == wanted
    [result] = [a.result for a in audit_text((SHOWN / f"{name}.txt").read_text(encoding="utf-8"))
                if a.result is not None]
    assert result.unchecked == HIDDEN + unjudged


def test_the_same_hands_with_every_card_dealt_are_judged_from_the_deal() -> None:
    """Without `Cards: shown` the dealt hand decides (and the shown-cards proof is not asked for): Carla's
    draw of four, dealt no ace, is the usual `DRAW_LIMIT` at her discard, and nothing is left unchecked."""
    text = (SHOWN / "draw-four-no-ace.txt").read_text(encoding="utf-8").replace("Cards: shown\n", "")
    text = text.replace("*** DEALING HANDS ***\n", "*** DEALING HANDS ***\nDealt to Ana [As 4d 5c 7h 9s]\n"
                        "Dealt to Beto [Ks Kd 2h 3d 4h]\nDealt to Carla [2c 3c 8h 9d Jc]\n")
    text = text.replace("Ana: discards 4 cards", "Ana: discards 4 cards [4d 5c 7h 9s]\nDealt to Ana [As] [Ac 7c 8c 2d]")
    text = text.replace("Beto: discards 3 cards", "Beto: discards 3 cards [2h 3d 4h]\nDealt to Beto [Ks Kd] [Kh Qs 6d]")
    text = text.replace("Carla: discards 4 cards", "Carla: discards 4 cards [2c 3c 8h 9d]\nDealt to Carla [Jc] [Tc Th 6c 9h]")
    [audited] = [a for a in audit_text(text) if a.result is not None]
    assert audited.result is not None and audited.result.unchecked == ()
    assert [(f.rule, f.player, f.msg_id) for f in audited.findings if f.severity == "violation"] == [
        ("DRAW_LIMIT", "Carla", "finding.DRAW_LIMIT.no_ace")]
