"""``audit check``: audit files and print the findings (text for people, JSON Lines for scripts)."""

from __future__ import annotations

import json
from typing import TextIO

from audit.findings import Finding
from audit.pipeline import audit_file
from audit.profile import Profile
from audit.read import expand_paths
from audit.rules import SEVERITY_RANK


def check_paths(paths: list[str], profile: Profile, fmt: str, out: TextIO) -> int:
    """Audit ``paths`` and write findings to ``out``; returns the worst severity rank found (0: none)."""
    files = expand_paths(paths)
    worst = 0
    hands = 0
    counts = {"error": 0, "violation": 0, "warning": 0}
    for file in files:
        current_hand: str | None = None
        for audited in audit_file(file, profile):
            if audited.hand is not None or audited.failure is not None:
                hands += 1
            for f in audited.findings:
                worst = max(worst, SEVERITY_RANK[f.severity])
                counts[f.severity] += 1
                if fmt == "json":
                    out.write(json.dumps(f.as_dict(), ensure_ascii=False) + "\n")
                else:
                    if f.hand != current_hand:
                        current_hand = f.hand
                        out.write(f"\n{f.file}: hand {f.hand or '-'}\n")
                    out.write(_text_line(f) + "\n")
    if fmt == "text":
        out.write(f"\n{hands} hand{'s' if hands != 1 else ''} checked in {len(files)} "
                  f"file{'s' if len(files) != 1 else ''}: {counts['violation']} violations, "
                  f"{counts['warning']} warnings, {counts['error']} errors\n")
    return worst


def _text_line(f: Finding) -> str:
    where = f"line {f.line}"
    return f"  {where:>10}  {f.severity:<9} {f.rule:<20} {f.message}"
