"""Compiles the hot modules with mypyc (see ``audit/_native.py``).

- ``python hatch_build.py`` builds the extension modules in place, beside their sources (what ``make`` runs);
  a build with nothing changed only re-checks the types (about 10 s).
- As hatchling's build hook, a wheel (``pip install .``, ``pipx install .``) carries the compiled modules; an
  editable install (``pip install -e .``) does not compile: ``make`` does it with the development tools of the
  venv. pip builds in an isolated environment that holds only the hook's ``dependencies`` (pyproject.toml): mypy,
  setuptools, and every package the compiled modules import, which mypy must see to check their types.
- ``AUDIT_PURE_PYTHON=1`` skips the compilation (a plain-Python wheel). So does a compilation that fails for any
  reason (no C compiler, a type error, mypy or mypyc exiting instead of raising), with one warning: the package
  works the same, at about half the speed. Only Ctrl-C stops the build.
"""

from __future__ import annotations

import os
import runpy
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent


def _native() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "audit" / "_native.py"))


def build(build_lib: str | None = None) -> list[str]:
    """Compile; in place when ``build_lib`` is None. Returns the built files (paths relative to the output)."""
    from mypyc.build import mypycify

    native = _native()
    stamp_text = native["stamp_text"](ROOT / "audit")  # before compiling: a source edited meanwhile is stale
    sources = [str(native["source_path"](name, Path("audit"))) for name in native["COMPILED"]]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        extensions = mypycify(sources, opt_level="3", group_name="audit.native", target_dir="build/mypyc",
                              verbose=False)
        outputs = compile_extensions(extensions, ROOT, build_lib)
        if build_lib is None:
            remove_strays(set(native["COMPILED"]))
        out = ROOT if build_lib is None else Path(build_lib)
        built = [str(p.resolve().relative_to(out.resolve())) for p in outputs]
        stamp = out / "audit" / native["STAMP"]
        stamp.write_text(stamp_text, encoding="utf-8")
        return built + [str(stamp.relative_to(out))]
    finally:
        os.chdir(cwd)


def compile_extensions(extensions: list[Any], root: Path, build_lib: str | None = None) -> list[Path]:
    """Compile mypyc's C (``extensions``, made under ``root``) into extension modules in ``build_lib``, or, without
    one, beside their sources under ``root``; returns them. Always through a build folder, never setuptools' in-place
    ``build_ext``: that one asks setuptools' install command where the sources are, and the command prints its
    "setup.py install is deprecated" block on every in-place build. A module that did not change is not copied."""
    from setuptools import Distribution

    lib = Path(build_lib) if build_lib is not None else root / "build" / "native-lib"
    dist = Distribution({"name": "audit", "ext_modules": extensions})
    cmd: Any = dist.get_command_obj("build_ext")
    cmd.inplace = False
    cmd.build_lib = str(lib)
    cmd.build_temp = str(root / "build" / "native-temp")
    cmd.parallel = os.cpu_count() or 1
    cmd.ensure_finalized()
    cmd.run()
    outputs = [Path(p) for p in cmd.get_outputs()]
    if build_lib is not None:
        return outputs
    placed = []
    for built in outputs:
        beside = root / built.resolve().relative_to(lib.resolve())
        if not beside.exists() or beside.read_bytes() != built.read_bytes():
            temp = beside.with_name(f".{beside.name}.{os.getpid()}.tmp")
            shutil.copy2(built, temp)
            os.replace(temp, beside)  # a program running the old module keeps it: the file is replaced, not changed
        placed.append(beside)
    return placed


def remove_strays(compiled: set[str]) -> list[Path]:
    """Remove the extension modules an earlier in-place build left beside sources that are no longer compiled
    (a module taken out of the group, such as the registry of dialects): Python would import the old extension
    module instead of the source, whatever the stamp says. Returns what was removed."""
    removed = []
    package = ROOT / "audit"
    for path in package.rglob("*.so"):
        name = ".".join(path.relative_to(package).with_suffix("").with_suffix("").parts)
        if name.startswith("native__") or name in compiled or not path.with_name(path.name.split(".")[0] + ".py").exists():
            continue
        path.unlink()
        removed.append(path)
    return removed


def compiling_line() -> str:
    """What the build says as it starts its long step."""
    return (f"audit: compiling {len(_native()['COMPILED'])} modules to C with mypyc, once, for a few minutes "
            "(AUDIT_PURE_PYTHON=1 builds plain Python at once, half as fast)")


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # running as a script, without hatchling
    BuildHookInterface = object  # type: ignore[misc,assignment]


def try_build(build_lib: str, warn: Any) -> list[str] | None:
    """``build(build_lib)``, or None after one ``warn(text)`` when compiling fails in any way: an exception, or
    mypy's or mypyc's ``SystemExit`` (a type error ends mypyc's build that way), anything but Ctrl-C."""
    try:
        return build(build_lib)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the plain-Python wheel works the same, slower
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        warn(f"audit: the modules were not compiled ({reason}); building plain Python")
        return None


class NativeBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable" or os.environ.get("AUDIT_PURE_PYTHON"):
            return
        out = tempfile.mkdtemp(prefix="audit-native-")
        # the one long step of an install (pip shows it with -v, under "Preparing metadata": hatchling leaves that
        # hook out under pip, which builds the wheel there and installs that one; build, uv and hatch show it)
        self.app.display_info(compiling_line())
        built = try_build(out, self.app.display_warning)
        if built is None:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for name in built:
            build_data["force_include"][str(Path(out) / name)] = name


if __name__ == "__main__":
    print(compiling_line(), file=sys.stderr, flush=True)
    files = build()
    print(f"compiled {len(files) - 1} extension modules in place ({', '.join(_native()['COMPILED'])})",
          file=sys.stderr)
