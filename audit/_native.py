"""Which modules are compiled to C (mypyc), and the guard that keeps a stale build from running.

The hot path (read → parse → replay → session rules → findings) is plain, strictly typed Python; ``make`` (and a
wheel build) compiles these modules with mypyc into extension modules beside their sources, which Python then
imports instead of the ``.py`` files: about twice the speed, the same behaviour (the whole test suite runs on the
compiled build, and the shared cases on the pure one too).

A compiled module built from older source must never run: the build records the SHA-256 of each source in
``_native_stamp.json``; at import, if a source differs (edited since the last build) or ``AUDIT_PURE_PYTHON`` is
set, every compiled module is loaded from its ``.py`` file instead (all of them: compiled modules call each
other directly).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# Compiled together, in one group (they call each other without going through Python); a dotted name is a module
# of a sub-package (``dialects.house`` is ``audit/dialects/house.py``).
COMPILED = ("model", "findings", "cards", "pots", "read", "dialects.registry", "dialects.common",
            "dialects.house", "dialects.pokerstars", "dialects.fulltilt", "dialects.ongame", "dialects.dispatch",
            "engine.steps", "engine.state", "engine.allowed", "engine.clock", "engine.table", "engine.forced", "engine.deal", "engine.rounds",
            "engine.draw", "engine.parole", "engine.betting", "engine.showdown", "engine.result", "engine.settle",
            "engine.streets", "engine.session", "pipeline", "check", "store.rows", "profile")
STAMP = "_native_stamp.json"
HERE = Path(__file__).resolve().parent


def source_path(name: str, folder: Path = HERE) -> Path:
    """The source file of the compiled module ``name`` (as listed in ``COMPILED``)."""
    return folder.joinpath(*name.split(".")).with_suffix(".py")


def source_digests(folder: Path = HERE) -> dict[str, str]:
    """SHA-256 of each compiled module's source."""
    return {name: hashlib.sha256(source_path(name, folder).read_bytes()).hexdigest() for name in COMPILED}


def compiled_state() -> str:
    """``"compiled"`` (the extension modules are current), ``"none"`` (no build), ``"stale"`` (a source changed
    since the build) or ``"pure"`` (``AUDIT_PURE_PYTHON`` asks for the ``.py`` files)."""
    stamp = HERE / STAMP
    if not stamp.exists():
        return "none"
    if os.environ.get("AUDIT_PURE_PYTHON"):
        return "pure"
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
        current = source_digests()
    except (OSError, ValueError):
        return "stale"
    return "compiled" if recorded == current else "stale"


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' ``.py`` files, ahead of the extension modules beside them."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.partition(".")
        if package != "audit" or name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(name))


def guard() -> str:
    """Called first thing by ``audit/__init__``: load the ``.py`` files when the build is stale or not wanted."""
    state = compiled_state()
    if state in ("stale", "pure") and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())
        if state == "stale":
            print("audit: the compiled modules are older than their source; running the plain Python code "
                  "(about half the speed). Run `make install` to build them again.", file=sys.stderr)
    return state


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from an extension module (not from its ``.py`` file)."""
    return str(getattr(module, "__file__", "")).endswith((".so", ".pyd"))
