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

from conftest import SHARED, at_least as _at_least

AUDIT = str(Path(sys.executable).with_name("audit"))


def cases_in(*folders: Path, at_least: int) -> list[Path]:
    """Every ``*.txt`` with an ``.expect.json`` beside it, in name order: at least ``at_least`` of them."""
    found = sorted(p for d in folders for p in d.glob("*.txt") if p.with_suffix(".expect.json").exists())
    return _at_least(at_least, found, shared=any(d.is_relative_to(SHARED) for d in folders))


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


class CheckedTogether:
    """The findings of many cases from one ``audit check CASE... --format json --fail-on never --jobs 1
    [--profile P]`` for each profile their expectations name, in place of a command per case: the same findings,
    case by case (``audit check`` audits each file on its own, and the batch's last case, the one any state left
    over from the others would reach, is checked alone too and must give the same), at a fraction of the cost (a
    small case's run is mostly the interpreter's start and the imports): test_profiles.py's tests and their
    commands took 29.0 CPU seconds with a command per case, 2.5 so (``resource.getrusage`` around each test in a
    ``make test-fast`` run, plain Python, 2026-12-04). Run at the first case asked for; a batch whose command
    fails leaves each of its cases to a run of its own, so that a failure names its case."""

    def __init__(self, cases: list[Path]) -> None:
        self.cases = cases
        self._found: dict[Path, list[dict[str, Any]]] | None = None

    def run_check(self, case: Path, profile: str | None) -> list[dict[str, Any]]:
        """What ``run_check(case, profile)`` gives, from the batch where ``profile`` is the case's own."""
        if self._found is None:
            self._found = {}
            groups: dict[str | None, list[Path]] = {}
            for each in self.cases:
                groups.setdefault(expectation(each).get("profile"), []).append(each)
            for group_profile, group in groups.items():
                self._found.update(_checked_together(group, group_profile))
        if case in self._found and profile == expectation(case).get("profile"):
            return self._found[case]
        return run_check(case, profile)

    def verdict(self, case: Path) -> str:
        """``verdict(case)``, from the batch."""
        expect = expectation(case)
        return judge(expect, self.run_check(case, expect.get("profile")))

    def check_case(self, case: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """``check_case(case)``, from the batch."""
        expect = expectation(case)
        return expect, _hold_to(case, expect, self.run_check(case, expect.get("profile")))


def _checked_together(cases: list[Path], profile: str | None) -> dict[Path, list[dict[str, Any]]]:
    """The findings of each of ``cases`` from one command under ``profile``; none where the command fails."""
    cmd = [AUDIT, "check", *map(str, cases), "--format", "json", "--fail-on", "never", "--jobs", "1"]
    if profile:
        cmd += ["--profile", profile]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        return {}
    found: dict[Path, list[dict[str, Any]]] = {case: [] for case in cases}
    named = {str(case): case for case in cases}
    for line in run.stdout.splitlines():
        if line.strip():
            finding = json.loads(line)
            found[named[finding["file"]]].append(finding)
    if len(cases) > 1:
        alone = run_check(cases[-1], profile)
        assert found[cases[-1]] == alone, (
            f"{cases[-1].name} checked after {len(cases) - 1} other cases gives other findings than checked alone: "
            f"a case must be judged as if it were the only file\ntogether:\n{describe(found[cases[-1]])}\n"
            f"alone:\n{describe(alone)}")
    return found


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
    return expect, _hold_to(case, expect, run_check(case, expect.get("profile")))


def _hold_to(case: Path, expect: dict[str, Any], found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``found`` once asserted to meet ``expect`` (``judge``, and ``banned_in_clean`` for a clean case)."""
    wrong = judge(expect, found) or banned_in_clean(expect, found)
    assert not wrong, f"{case.name}: {wrong}\nfindings:\n{describe(found)}"
    return found


def simulated_sessions(sim: Any, sessions: int) -> tuple[str, Counter[str]]:
    """The log of the first ``sessions`` sessions of an ``audit.simulate.Simulator`` and their stats summed."""
    stats: Counter[str] = Counter()
    texts = []
    for index in range(sessions):
        session = sim.session(index)
        texts.append(session.text)
        stats += session.stats
    return "\n".join(texts), stats
