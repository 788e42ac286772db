"""Which modules are compiled to C (mypyc), and the guard that keeps a stale build from running.

The hot path (read → parse → replay → session rules → findings) is plain, strictly typed Python; ``make`` (and a
wheel build) compiles these modules with mypyc into extension modules beside their sources, which Python then
imports instead of the ``.py`` files: about twice the speed, the same behaviour (the whole test suite runs on the
compiled build, and the shared cases on the pure one too).

A compiled module built from older source must never run: the build records the SHA-256 of each source in
``_native_stamp.json``; at import, if a source differs (edited since the last build) or ``AUDIT_PURE_PYTHON`` is
set, every compiled module is loaded from its ``.py`` file instead (all of them: compiled modules call each
other directly). The stamp also records each source's size and modification time: while they are all as built,
the sources are not read and hashed again (that, and the import machinery the fallback needs, took about 10 ms
of every command's start); when any differs (an edit, a checkout, an installed copy), the digests decide.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

# Compiled together, in one group (they call each other without going through Python); a dotted name is a module
# of a sub-package (``dialects.house`` is ``audit/dialects/house.py``). The dialects' own modules come from the
# registry (a dialect's ``compiled``); the registry itself is not compiled, so that adding a dialect (a line there,
# its module outside the group until it is added to it) leaves the build current.
CORE = ("model", "findings", "cards", "pots", "read", "dialects.common", "dialects.dispatch",
        "engine.steps", "engine.state", "engine.allowed", "engine.clock", "engine.table", "engine.forced",
        "engine.deal", "engine.rounds", "engine.draw", "engine.parole", "engine.betting", "engine.showdown",
        "engine.result", "engine.settle", "engine.legal", "engine.streets", "engine.session", "pipeline", "check", "store.rows",
        "owed", "profile")
HERE = Path(__file__).resolve().parent


def _dialect_modules() -> tuple[str, ...]:
    """The dialect modules the registry puts in the compiled group."""
    if __name__ == "audit._native":
        from audit.dialects.registry import compiled_modules
        return compiled_modules()
    # run by path (``hatch_build.py``, a wheel's build hook): the registry read from its file, the package not
    # imported (it may not be importable there)
    import importlib.util
    spec = importlib.util.spec_from_file_location("_audit_dialect_registry", HERE / "dialects" / "registry.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: tuple[str, ...] = module.compiled_modules()
    return found


COMPILED = CORE + _dialect_modules()
STAMP = "_native_stamp.json"


def source_path(name: str, folder: Path = HERE) -> Path:
    """The source file of the compiled module ``name`` (as listed in ``COMPILED``)."""
    return folder.joinpath(*name.split(".")).with_suffix(".py")


def source_digests(folder: Path = HERE) -> dict[str, str]:
    """SHA-256 of each compiled module's source."""
    import hashlib

    return {name: hashlib.sha256(source_path(name, folder).read_bytes()).hexdigest() for name in COMPILED}


def source_stats(folder: Path = HERE) -> dict[str, list[int]]:
    """Size and modification time (ns) of each compiled module's source (``source_path``'s file; by plain strings,
    as every command's start asks: a ``Path`` per source took most of the guard's time)."""
    base = os.fspath(folder)
    out: dict[str, list[int]] = {}
    for name in COMPILED:
        st = os.stat(os.path.join(base, *name.split(".")) + ".py")
        out[name] = [st.st_size, st.st_mtime_ns]
    return out


def stamp_text(folder: Path = HERE) -> str:
    """The stamp of a build of the sources in ``folder`` as they are now (taken before compiling, so that a
    source edited meanwhile is stale): their digests and their sizes and modification times."""
    stats = source_stats(folder)
    return json.dumps({"sha256": source_digests(folder), "stat": stats}, indent=1) + "\n"


def compiled_state() -> str:
    """``"compiled"`` (the extension modules are current), ``"none"`` (no build), ``"stale"`` (a source changed
    since the build) or ``"pure"`` (``AUDIT_PURE_PYTHON`` asks for the ``.py`` files)."""
    stamp = os.path.join(HERE, STAMP)
    if not os.path.exists(stamp):
        return "none"
    if os.environ.get("AUDIT_PURE_PYTHON"):
        return "pure"
    try:
        with open(stamp, encoding="utf-8") as handle:
            recorded: Any = json.load(handle)
        if recorded.get("stat") == source_stats():
            return "compiled"  # every source as it was built: not read again
        return "compiled" if recorded.get("sha256") == source_digests() else "stale"
    except (OSError, ValueError, AttributeError):
        return "stale"


def _source_finder() -> Any:
    """A finder of the compiled modules' ``.py`` files, ahead of the extension modules beside them (its import
    machinery loaded only when it is needed). A plain class, not an ``importlib.abc.MetaPathFinder``: that module
    imports ``importlib.resources`` and with it ``tempfile``, which ``audit check`` never needs (a test holds what
    it imports); the import system asks a finder for ``find_spec`` only."""
    import importlib.machinery
    import importlib.util
    from collections.abc import Sequence

    class SourceFinder:
        audit_sources = True

        def find_spec(self, fullname: str, path: Sequence[str] | None,
                      target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
            package, _, name = fullname.partition(".")
            if package != "audit" or name not in COMPILED:
                return None
            return importlib.util.spec_from_file_location(fullname, source_path(name))

    return SourceFinder()


def guard() -> str:
    """Called first thing by ``audit/__init__``: load the ``.py`` files when the build is stale or not wanted."""
    state = compiled_state()
    if state in ("stale", "pure") and not any(getattr(f, "audit_sources", False) for f in sys.meta_path):
        sys.meta_path.insert(0, _source_finder())
        if state == "stale":
            print("audit: the compiled modules are older than their source; running the plain Python code "
                  "(about half the speed). Run `make install` to build them again.", file=sys.stderr)
    return state


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from an extension module (not from its ``.py`` file)."""
    return str(getattr(module, "__file__", "")).endswith((".so", ".pyd"))
