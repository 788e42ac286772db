"""The engine's boundaries: it imports nothing of the command line, the store or the pages (click, DuckDB,
polars, Jinja2); the package has no import cycle; every engine module is compiled in the one mypyc group; the
library audits a string with no file on disk."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from audit import _native, audit_text

from conftest import FIXTURES, ROOT

AUDIT = ROOT / "audit"
ENGINE_MAY_IMPORT = {"audit.model", "audit.findings", "audit.rules", "audit.cards", "audit.pots", "audit.profile"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, top_level_only: bool) -> set[str]:
    """The modules ``path`` imports (``top_level_only``: at import time, not inside functions or
    ``TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: list[ast.AST] = list(tree.body) if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            for a in node.names:  # ``from audit.engine import streets``: the submodule, when it is one
                sub = f"{node.module}.{a.name}"
                if (ROOT / Path(*sub.split("."))).with_suffix(".py").exists():
                    out.add(sub)
    return out


def test_nothing_under_engine_imports_click_duckdb_polars_or_the_rest_of_the_program() -> None:
    for path in sorted((AUDIT / "engine").glob("*.py")):
        found = imports(path, top_level_only=False)
        third = {m.split(".")[0] for m in found} - {"audit", "__future__", "typing", "collections", "dataclasses"}
        assert not third, f"{path.name} imports {third}"
        ours = {m for m in found if m.startswith("audit") and not m.startswith("audit.engine")}
        assert ours <= ENGINE_MAY_IMPORT, f"{path.name} imports {ours - ENGINE_MAY_IMPORT}"


def test_replaying_loads_no_command_line_store_or_page_library() -> None:
    code = ("import sys\nfrom audit import read_hands, replay, load_profile\n"
            "hand = next(read_hands(sys.argv[1]))\nreplay(hand, load_profile('home-open'))\n"
            "print(sorted(m for m in ('click', 'duckdb', 'polars', 'jinja2', 'babel') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code, str(FIXTURES / "tda" / "43-ex1.txt")], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"  # a clean hand says nothing: not even the words are loaded


def test_the_package_has_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for path in sorted(AUDIT.rglob("*.py")):
        name = module_name(path)
        graph[name] = {m for m in imports(path, top_level_only=True) if m.startswith("audit") and m != name}
    seen: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if seen.get(nxt) == 1 and not node.startswith(nxt + "."):  # a package's own __init__ is no cycle
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            if nxt not in seen:
                visit(nxt, path + [nxt])
        seen[node] = 2

    for module in sorted(graph):
        if module not in seen:
            visit(module, [module])


def test_every_engine_module_is_compiled() -> None:
    modules = {f"engine.{p.stem}" for p in (AUDIT / "engine").glob("*.py") if p.stem != "__init__"}
    assert modules <= set(_native.COMPILED), modules - set(_native.COMPILED)


def test_the_library_audits_a_string() -> None:
    text = (FIXTURES / "rules" / "RAISE_NOT_REOPENED-hit.txt").read_text(encoding="utf-8")
    found = [f for audited in audit_text(text) for f in audited.findings]
    assert [(f.rule, f.player, f.msg_id) for f in found] == [
        ("RAISE_NOT_REOPENED", "Ana", "finding.RAISE_NOT_REOPENED.short")]
    assert found[0].file == "<text>"
