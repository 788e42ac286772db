"""Cases with their expected findings (``<case>.txt`` + ``<case>.expect.json``), run through the real CLI and
judged exactly as ``shared/tools/run_cases.py`` judges them. Shared by the case, rule and profile tests.

``{"clean": true}``: no finding of severity violation or error. ``{"clean": false, "must_include": [{"hand",
"rule", "player"?}], "must_not_include": [rule, ...]}``: every wanted finding is there, no banned rule is.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
import sys
from pathlib import Path
from typing import Any

AUDIT = str(Path(sys.executable).with_name("audit"))


def cases_in(*folders: Path) -> list[Path]:
    """Every ``*.txt`` with an ``.expect.json`` beside it, in name order."""
    return sorted(p for d in folders for p in d.glob("*.txt") if p.with_suffix(".expect.json").exists())


def expectation(case: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(case.with_suffix(".expect.json").read_text(encoding="utf-8"))
    return data


def run_check(case: Path, profile: str | None) -> list[dict[str, Any]]:
    """``audit check CASE --format json --fail-on never [--profile P]`` in a subprocess: the findings."""
    cmd = [AUDIT, "check", str(case), "--format", "json", "--fail-on", "never"]
    if profile:
        cmd += ["--profile", profile]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"exit {run.returncode}: {(run.stderr or run.stdout).strip()[-300:]}"
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


def judge(expect: dict[str, Any], found: list[dict[str, Any]]) -> str:
    """``''`` when the findings meet the expectation, else what is wrong (run_cases.py's verdict)."""
    if expect.get("clean"):
        bad = [f for f in found if f.get("severity") in ("violation", "error")]
        if bad:
            return "clean case flagged: " + ", ".join(
                f"{f.get('hand')}:{f.get('rule')}:{f.get('player')} ({f.get('message')})" for f in bad[:4])
        return ""
    for want in expect.get("must_include", []):
        hit = [f for f in found
               if str(f.get("hand")) == want["hand"] and f.get("rule") == want["rule"]
               and ("player" not in want or f.get("player") == want["player"])]
        if not hit:
            got = sorted({f"{f.get('hand')}:{f.get('rule')}:{f.get('player')}" for f in found})
            return f"missed {want}; found {got[:8]}"
    banned = set(expect.get("must_not_include", []))
    extra = sorted({str(f.get("rule")) for f in found if f.get("rule") in banned})
    return f"false findings {extra}" if extra else ""


def banned_in_clean(expect: dict[str, Any], found: list[dict[str, Any]]) -> str:
    """Stricter than run_cases.py, where it cannot contradict it: a clean case's ``must_not_include`` rules must
    not appear at any severity (a near miss says that its own rule, a warning included, is not raised)."""
    if not expect.get("clean"):
        return ""
    banned = set(expect.get("must_not_include", []))
    extra = sorted({str(f.get("rule")) for f in found if f.get("rule") in banned})
    return f"false findings {extra}" if extra else ""


def describe(found: list[dict[str, Any]]) -> str:
    """The findings, one a line, for an assertion message."""
    return "\n".join(f"  {f.get('hand')} {f.get('rule')} {f.get('severity')} {f.get('player')} "
                     f"line {f.get('line')}: {f.get('message')}" for f in found) or "  (no findings)"


def verdict(case: Path) -> str:
    """Run and judge one case."""
    expect = expectation(case)
    return judge(expect, run_check(case, expect.get("profile")))


def check_case(case: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run ``case`` through the CLI under its expectation's profile and assert that the findings meet it
    (``judge``, and ``banned_in_clean`` for a clean case): the expectation and the findings, for what a test
    checks beyond that."""
    expect = expectation(case)
    found = run_check(case, expect.get("profile"))
    wrong = judge(expect, found) or banned_in_clean(expect, found)
    assert not wrong, f"{case.name}: {wrong}\nfindings:\n{describe(found)}"
    return expect, found


def simulated_sessions(sim: Any, sessions: int) -> tuple[str, Counter[str]]:
    """The log of the first ``sessions`` sessions of an ``audit.simulate.Simulator`` and their stats summed."""
    stats: Counter[str] = Counter()
    texts = []
    for index in range(sessions):
        session = sim.session(index)
        texts.append(session.text)
        stats += session.stats
    return "\n".join(texts), stats
