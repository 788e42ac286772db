"""The shared cases (shared/cases), judged through the real CLI exactly as shared/tools/run_cases.py does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import AUDIT, SHARED

CASES = sorted(p for d in ("edge", "generated", "generated-edge", "profiles")
               for p in (SHARED / "cases" / d).glob("*.txt") if p.with_suffix(".expect.json").exists())


def run_check(path: Path, profile: str | None) -> list[dict[str, Any]]:
    cmd = [AUDIT, "check", str(path), "--format", "json", "--fail-on", "never"]
    if profile:
        cmd += ["--profile", profile]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


def judge(expect: dict[str, Any], found: list[dict[str, Any]]) -> str:
    """The verdict of run_cases.py: an empty string when the case is right."""
    if expect.get("clean"):
        bad = [f for f in found if f["severity"] in ("violation", "error")]
        return "clean case flagged: " + ", ".join(f"{f['hand']}:{f['rule']}:{f['player']}" for f in bad) if bad else ""
    for want in expect.get("must_include", []):
        if not [f for f in found if str(f["hand"]) == want["hand"] and f["rule"] == want["rule"]
                and ("player" not in want or f["player"] == want["player"])]:
            return f"missed {want}; found {sorted({(f['hand'], f['rule']) for f in found})}"
    extra = sorted({f["rule"] for f in found} & set(expect.get("must_not_include", [])))
    return f"false findings {extra}" if extra else ""


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_shared_case(case: Path) -> None:
    expect = json.loads(case.with_suffix(".expect.json").read_text(encoding="utf-8"))
    verdict = judge(expect, run_check(case, expect.get("profile")))
    assert verdict == ""


def test_there_are_shared_cases() -> None:
    assert len(CASES) >= 60
