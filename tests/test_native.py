"""The compiled build (mypyc, audit/_native.py): in use, never stale, and the same answers as plain Python."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import audit
from audit import _native
from audit.dialects import registry

from conftest import AUDIT, FIXTURES, ROOT, SHARED, needs_shared


def test_the_suite_runs_on_the_compiled_modules() -> None:
    """`make test` builds them first; a stale or missing build would make every speed figure a lie."""
    if os.environ.get("AUDIT_PURE_PYTHON"):
        pytest.skip("AUDIT_PURE_PYTHON is set: this run checks the plain Python code on purpose")
    assert _native.compiled_state() == "compiled", "run `make native` (or `make test`) to compile the modules"
    for name in _native.COMPILED:
        module = sys.modules.get(f"audit.{name}") or __import__(f"audit.{name}", fromlist=["_"])
        assert _native.is_compiled(module), name


def test_a_source_edited_after_the_build_runs_as_plain_python(tmp_path: Path) -> None:
    if _native.compiled_state() != "compiled":
        pytest.skip("no compiled build to go stale")
    copy = tmp_path / "audit"
    shutil.copytree(Path(audit.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "pots.py", "a", encoding="utf-8") as f:
        f.write("\nEDITED = True\n")
    probe = ("import sys, audit, audit.pots, audit.engine; m = sys.modules; "
             "print(m['audit.pots'].__file__, m['audit.engine.streets'].__file__, m['audit.pots'].EDITED)")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("AUDIT_PURE_PYTHON", None)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    pots, replay, edited = done.stdout.split()
    assert pots == str(copy / "pots.py") and replay == str(copy / "engine" / "streets.py") and edited == "True"
    assert "older than their source" in done.stderr
    # untouched, the copy runs compiled
    shutil.copy(Path(audit.__file__).parent / "pots.py", copy / "pots.py")
    done = subprocess.run([sys.executable, "-c",
                           "import sys, audit.engine; print(sys.modules['audit.engine.streets'].__file__)"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.stdout.strip().endswith(".so") and done.stderr == "", done.stderr


def test_a_start_with_the_sources_as_built_reads_and_hashes_none_of_them() -> None:
    """The stamp's sizes and modification times stand for the sources while they are as built: a start neither
    hashes them nor loads the import machinery of the fallback (and Lark stays out of a check's start too)."""
    if _native.compiled_state() != "compiled":
        pytest.skip("no compiled build")
    probe = ("import sys, audit, audit.cli, audit.check, audit.parallel\n"
             "from audit import _native\n"
             "loaded = sorted(m for m in ('hashlib', 'importlib.abc', 'lark') if m in sys.modules)\n"
             "print(_native.compiled_state(), loaded)")
    env = {k: v for k, v in os.environ.items() if k != "AUDIT_PURE_PYTHON"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.stdout.split(None, 1) == ["compiled", "[]\n"], done.stderr


def test_audit_pure_python_loads_every_module_from_its_source() -> None:
    """``make test-fast`` sets AUDIT_PURE_PYTHON: every module of the compiled group is then its ``.py`` file,
    whether a build is there or not (with a current build and without it, they are extension modules: the test
    above)."""
    probe = ("import audit, audit.cli\nfrom audit import _native\n"
             "modules = [__import__('audit.' + name, fromlist=['_']) for name in _native.COMPILED]\n"
             "print(len(modules), [m.__name__ for m in modules if _native.is_compiled(m)])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "AUDIT_PURE_PYTHON": "1"})
    assert done.stdout == f"{len(_native.COMPILED)} []\n", done.stderr


def corpus() -> list[str]:
    paths = [FIXTURES / "rules", FIXTURES / "tda", FIXTURES / "profiles",
             *[FIXTURES / d.name for d in registry.DIALECTS if d.name != "house"], FIXTURES / "demo",
             SHARED / "cases", SHARED / "real-hands"]
    return [str(p) for p in paths if p.exists()]


@needs_shared
@pytest.mark.parametrize("profile", ["home-open", "qdan", "stripped32"])
def test_compiled_and_plain_python_give_the_same_findings(profile: str, tmp_path: Path) -> None:
    """Every file the project has, and a simulated session, through both builds: byte-identical JSON Lines."""
    sim = tmp_path / "sim.txt"
    made = subprocess.run([AUDIT, "simulate", "--profile", profile, "--sessions", "3", "--seed", "7",
                           "--output", str(sim)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    command = [AUDIT, "check", "--profile", profile, "--format", "json", *corpus(), str(sim)]
    compiled = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                              env={k: v for k, v in os.environ.items() if k != "AUDIT_PURE_PYTHON"})
    plain = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "AUDIT_PURE_PYTHON": "1"})
    assert compiled.returncode == plain.returncode
    assert compiled.stdout.count("\n") > 100  # the corpus is full of findings: this compares real output
    assert compiled.stdout == plain.stdout
    assert compiled.stderr == plain.stderr
