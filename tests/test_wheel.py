"""The wheel as pip builds it, in its own isolated build environment, installed in a fresh venv with nothing
else: ``audit check`` and ``audit serve`` run from it. And the build hook's fallback to plain Python.

What CI builds here: a plain-Python wheel (``AUDIT_PURE_PYTHON=1``): pip's isolation (the build environment
from PyPI), the wheel's contents and its install with the ``serve`` extra are exercised in about a minute. The
compiled wheel (mypyc, several minutes on two cores) is not built by CI: its compile step is what ``make`` runs
for every test run, and the hook's fallback when compiling fails is tested below on the hook itself."""

from __future__ import annotations

import http.client
import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, ROOT


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without this checkout on the path, nor audit's own settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_NO_BUILD_ISOLATION") and not k.startswith("AUDIT_")}
    return {**env, **extra}


def test_pip_builds_the_wheel_in_isolation_and_a_fresh_venv_runs_it(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
                           capture_output=True, text=True, timeout=600, env=clean_env(AUDIT_PURE_PYTHON="1"))
    assert build.returncode == 0, build.stdout + build.stderr
    [wheel] = wheels.glob("audit-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300,
                   env=clean_env())
    # This pip installs into the venv (--python): the venv gets the wheel and its dependencies, nothing else.
    # --no-compile: no bytecode written for every module of the dependencies (most of the time it would take).
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                              "-q", "--no-compile", f"{wheel}[serve]"], capture_output=True, text=True,
                             timeout=900, env=clean_env())
    assert install.returncode == 0, install.stdout + install.stderr
    audit = str(venv / "bin" / "audit")
    where = tmp_path / "elsewhere"  # not the checkout: only the installed package can answer
    where.mkdir()
    check = subprocess.run([audit, "check", str(FIXTURES / "demo" / "reopen-dispute.txt")], capture_output=True,
                           text=True, cwd=where, env=clean_env(), timeout=120)
    assert check.returncode == 1 and "RAISE_NOT_REOPENED" in check.stdout, check.stdout + check.stderr
    state = subprocess.run([str(venv / "bin" / "python"), "-c", "import audit, audit._native as n; "
                            "print(audit.__file__); print(n.compiled_state())"], capture_output=True, text=True,
                           cwd=where, env=clean_env(), check=True).stdout.split()
    assert state[0].startswith(str(venv)), state
    print(f"the installed wheel's modules: {'compiled' if state[1] == 'compiled' else 'plain Python'}")
    assert state[1] == "none"  # AUDIT_PURE_PYTHON: plain Python, no stamp
    serve = subprocess.Popen([audit, "serve", "--db", str(tmp_path / "club.duckdb"), "--port", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=where,
                             env=clean_env(PYTHONUNBUFFERED="1"))
    try:
        assert serve.stdout is not None
        line = serve.stdout.readline()
        assert "http://127.0.0.1:" in line, line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        con.request("GET", "/healthz")
        assert con.getresponse().read() == b'{"status":"ok"}'
        con.close()
    finally:
        serve.terminate()
        assert serve.wait(60) == 0


@pytest.fixture()
def hook() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "hatch_build.py"))


@pytest.mark.parametrize("failure", [SystemExit(2), RuntimeError("no compiler"), ImportError("mypyc")])
def test_a_failed_compilation_falls_back_to_plain_python_with_one_warning(hook: dict[str, Any],
                                                                           failure: BaseException) -> None:
    """mypyc ends a build with a type error by ``SystemExit``: that too gives the plain-Python wheel."""
    def failing(build_lib: str | None = None) -> list[str]:
        raise failure

    hook["try_build"].__globals__["build"] = failing
    warnings: list[str] = []
    assert hook["try_build"]("/nowhere", warnings.append) is None
    assert len(warnings) == 1 and warnings[0].startswith("audit: the modules were not compiled (")
    assert warnings[0].endswith("); building plain Python") and type(failure).__name__ in warnings[0]


def test_ctrl_c_stops_the_build(hook: dict[str, Any]) -> None:
    def interrupted(build_lib: str | None = None) -> list[str]:
        raise KeyboardInterrupt

    hook["try_build"].__globals__["build"] = interrupted
    with pytest.raises(KeyboardInterrupt):
        hook["try_build"]("/nowhere", print)


def test_the_hook_installs_what_the_compiled_modules_import() -> None:
    """mypy checks the compiled modules with the packages they import; where one is missing from the isolated
    build environment its types are Any, and strict mode fails (``html.py: Returning Any``) — the issue's error."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    deps = project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["dependencies"]
    names = {d.split("=")[0].split(">")[0].split("<")[0].strip().lower() for d in deps}
    assert {"mypy", "setuptools", "lark", "click", "regex", "mypy_extensions", "jinja2", "babel"} <= names


@pytest.mark.slow
def test_an_in_place_build_says_no_setuptools_deprecation_and_places_the_modules_beside_their_sources(
        hook: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `make` runs (the in-place build), on a module of one function: setuptools' in-place build_ext printed
    its "setup.py install is deprecated" block every time; the build goes through a build folder instead."""
    import warnings

    from mypyc.build import mypycify

    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "tiny" / "one.py").write_text("def add(x: int) -> int:\n    return x + 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    extensions = mypycify(["tiny/one.py"], opt_level="0", group_name="tiny.native", target_dir="build/mypyc",
                          verbose=False)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        placed = hook["compile_extensions"](extensions, tmp_path)
    assert [str(w.message) for w in said if "deprecat" in str(w.message).lower()] == []
    assert sorted(p.parent for p in placed) == [tmp_path / "tiny"] * len(placed) and len(placed) == 2
    run = subprocess.run([sys.executable, "-c", "import tiny.one as m; print(m.add(41), m.__file__)"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60, env=clean_env())
    assert run.stdout.split()[0] == "42" and run.stdout.split()[1].endswith(".so"), run.stderr
    before = [p.stat().st_mtime_ns for p in placed]
    assert hook["compile_extensions"](extensions, tmp_path) == placed
    assert [p.stat().st_mtime_ns for p in placed] == before  # nothing changed: nothing copied again
