"""``audit explain``: a hand replayed step by step for a dispute, the verdict first with its reasons.

For each hand: every step with the stacks, the bets in front of the seats and the pots after it, what the rules
allowed at that point (betting: to call, min raise-to, max raise-to, whether raising was open; the draw: the
cards the player may throw and the draw limit), the findings at the step where they happened, the pots as
built, what each player should have received and what the log says they received, and the correction in
plain words ("Beto owes Ana 3 chips"; money as money for a site hand in a currency). For a session, the net
corrections over all its hands and the findings that moved chips.

The package along its seams: ``build`` (the typed record of what happened, through ``adapter`` from the
engine's steps), ``settle`` (who owes whom), ``phrases`` (the sentences, from ``audit.words``), and
``render`` (text, JSON Lines, one self-contained HTML page from Jinja2 templates), in English or Spanish.
"""

from __future__ import annotations

from audit.explain.build import (
    draw_allowance, explain_blocks, explain_bytes, explain_file, explain_result, explain_text, session_totals,
)
from audit.explain.phrases import correction_sentence, settlement_notes
from audit.explain.records import (
    Explained, HandExplanation, PotView, Reason, SeatView, SessionExplanation, Step,
)
from audit.explain.render import render_html, render_json_lines, render_text
from audit.explain.settle import HOUSE, POT, Settlement, Transfer, settle, settle_result

__all__ = [
    "HOUSE", "POT", "Explained", "HandExplanation", "PotView", "Reason", "SeatView", "SessionExplanation",
    "Settlement", "Step", "Transfer", "correction_sentence", "draw_allowance", "explain_blocks", "explain_bytes",
    "explain_file", "explain_result", "explain_text", "render_html", "render_json_lines", "render_text", "session_totals",
    "settle", "settle_result", "settlement_notes",
]
