"""The documentation's reference pages are the code's: the pages ``make docs-reference`` writes
(``scripts/docs_reference.py``) hold what the code has now, and a page left stale fails here. The command reference
is rendered from the click group at build time (sphinx-click), and the build (``make docs``, which ``make test``
runs) fails on any warning."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click

from conftest import ROOT

GENERATOR = ROOT / "scripts" / "docs_reference.py"
REFERENCE = ROOT / "docs" / "reference"


def check(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(GENERATOR), "--check", "--dir", str(folder)], capture_output=True,
                          text=True, timeout=120)


def test_the_generated_reference_is_not_stale() -> None:
    done = check(REFERENCE)
    assert done.returncode == 0, done.stderr + "\nrun `make docs-reference` and commit the pages"


def test_a_stale_page_is_caught(tmp_path: Path) -> None:
    """The near miss: one rule's line taken out of a copy of the pages, which the check then names."""
    shutil.copytree(REFERENCE, tmp_path / "reference")
    rules = tmp_path / "reference" / "rules.md"
    rules.write_text("".join(line for line in rules.read_text(encoding="utf-8").splitlines(keepends=True)
                             if not line.startswith("| `ODD_CHIP`")), encoding="utf-8")
    done = check(tmp_path / "reference")
    assert done.returncode == 1 and "rules.md" in done.stderr and "database.md" not in done.stderr


def page(name: str) -> str:
    return (REFERENCE / name).read_text(encoding="utf-8")


def test_the_rules_page_has_every_rule() -> None:
    from audit.rules import Rule

    text = page("rules.md")
    for rule in Rule:
        assert f"| `{rule.value}` | {rule.severity} |" in text, rule


def test_the_database_page_has_every_table_column_and_view() -> None:
    from audit.store.schema import STREETS, TABLES, VIEWS

    text = page("database.md")
    for table, columns in {**TABLES, **{v: c for v, (_, _, c) in VIEWS.items()}}.items():
        section = text.split(f"\n### {table}\n", 1)[1].split("\n### ", 1)[0]
        for column in columns:
            assert f"| `{column[0]}` |" in section, (table, column[0])
    for code, _ in STREETS:
        assert f"| `{code}` |" in text


def test_the_http_page_has_every_operation_of_the_openapi_document() -> None:
    sys.path.insert(0, str(GENERATOR.parent))
    try:
        from docs_reference import openapi_document
    finally:
        sys.path.remove(str(GENERATOR.parent))
    spec = openapi_document()
    text = page("http-api.md")
    for path, operations in spec["paths"].items():
        for method in operations:
            assert f"\n## {method.upper()} {path}\n" in text
    for name in spec["components"]["schemas"]:
        assert f"\n### {name}\n" in text
    assert "/api/v1/tables/{table_id}/events" in json.dumps(spec) and "/api/v1/uploads" in text


def test_the_profiles_page_has_every_parameter_of_every_profile() -> None:
    from audit.profile import load_profile, option_domains, profile_names

    text = page("profiles.md")
    for name in profile_names():
        assert f"`{name}`" in text and load_profile(name).description.split(",")[0] in text
    for parameter in option_domains():
        assert f"\n| `{parameter}` |" in text


def test_the_messages_page_has_every_key_in_both_languages() -> None:
    from audit.words import catalogue

    text = page("messages.md")
    en, es = catalogue("en"), catalogue("es")
    assert set(en) == set(es)
    keys = set(re.findall(r"^\| `([^`]+)` \|", text, re.M))
    assert keys == set(en)


def test_the_command_reference_renders_every_command() -> None:
    """sphinx-click renders ``audit.cli.main:main`` with every command nested (the page names the group, so a
    command another module adds is on it too)."""
    from audit.cli.main import main

    source = (REFERENCE / "cli.md").read_text(encoding="utf-8")
    assert ".. click:: audit.cli.main:main" in source and ":nested: full" in source
    assert set(main.list_commands(click.Context(main))) >= {"check", "explain", "ingest", "serve", "backup"}
