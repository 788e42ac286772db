"""Running it as an operator does: a bare clone's tests, the make targets' databases, the wheel build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def bare_clone(tmp_path: Path) -> Path:
    """A copy of the checkout's tests that need ../shared (and their helpers), with no ``shared`` beside it."""
    clone = tmp_path / "clone"
    (clone / "tests").mkdir(parents=True)
    for name in ("conftest.py", "casejudge.py", "test_cases.py", "test_cli.py"):
        shutil.copy(ROOT / "tests" / name, clone / "tests" / name)
    assert not (clone.parent / "shared").exists()
    return clone


def run_pytest(clone: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "AUDIT_REQUIRE_SHARED"}
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "tests/test_cases.py::test_there_are_shared_cases",
                           "tests/test_cli.py::test_clean_file_exits_0", "tests/test_cli.py::test_unknown_option_line_names_the_line"],
                          cwd=clone, capture_output=True, text=True, env=environ, timeout=120)


def test_a_bare_clone_skips_the_tests_that_need_shared_with_one_reason(tmp_path: Path) -> None:
    clone = bare_clone(tmp_path)
    run = run_pytest(clone)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 skipped" in run.stdout, run.stdout
    reasons = {line.split(": ", 1)[1] for line in run.stdout.splitlines() if line.startswith("SKIPPED")}
    assert reasons == {f"needs the shared contract folder beside the checkout, missing here: {tmp_path / 'shared'}"}


def test_ci_fails_where_those_tests_would_skip(tmp_path: Path) -> None:
    run = run_pytest(bare_clone(tmp_path), AUDIT_REQUIRE_SHARED="1")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "2 errors" in run.stdout and "AUDIT_REQUIRE_SHARED is set" in run.stdout, run.stdout
    assert "AUDIT_REQUIRE_SHARED=1" in (ROOT / ".ci" / "run").read_text()
