"""``audit check``: audit files and print the findings (text for people, JSON Lines for scripts)."""

from __future__ import annotations

from typing import TextIO

from audit.findings import Finding
from audit.pipeline import audit_file
from audit.profile import Profile
from audit.read import expand_paths
from audit.rules import SEVERITY_RANK
from audit.textout import json_line, printable


def check_paths(paths: list[str], profile: Profile, fmt: str, out: TextIO, err: TextIO | None = None) -> int:
    """Audit ``paths`` and write findings to ``out`` (notes for the user to ``err``); returns the worst severity
    rank found (0: none)."""
    files = expand_paths(paths)
    worst = 0
    hands = 0
    counts = {"error": 0, "violation": 0, "warning": 0}
    notices: list[str] = []
    for file in files:
        current_hand: str | None = None
        for audited in audit_file(file, profile, notices=notices):
            if notices:
                _say(notices, err)
            if audited.hand is not None or audited.failure is not None:
                hands += 1
            for f in audited.findings:
                worst = max(worst, SEVERITY_RANK[f.severity])
                counts[f.severity] += 1
                if fmt == "json":
                    out.write(json_line(f.as_dict()) + "\n")
                else:
                    if f.hand != current_hand:
                        current_hand = f.hand
                        out.write("\n" + printable(f"{f.file}: hand {f.hand or '-'}") + "\n")
                    out.write(_text_line(f) + "\n")
        if notices:
            _say(notices, err)
    if fmt == "text":
        out.write(f"\n{hands} hand{'s' if hands != 1 else ''} checked in {len(files)} "
                  f"file{'s' if len(files) != 1 else ''}: {counts['violation']} violations, "
                  f"{counts['warning']} warnings, {counts['error']} errors\n")
    return worst


def _text_line(f: Finding) -> str:
    where = f"line {f.line}"
    return printable(f"  {where:>10}  {f.severity:<9} {f.rule:<20} {f.message}", newlines=True)


def _say(notices: list[str], err: TextIO | None) -> None:
    """Write the pipeline's notes to ``err`` and forget them."""
    if err is not None:
        for note in notices:
            err.write(f"audit: note: {printable(note)}\n")
    notices.clear()
