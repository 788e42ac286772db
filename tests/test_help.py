"""Every ``--help`` fits an 80-column terminal, and ``audit --help``'s list of commands is never cut mid-phrase.

The commands are found by walking the click group, so a command added later is held to the same."""

from __future__ import annotations

import os
import subprocess

import click
import pytest

from audit.cli.main import main
from conftest import AUDIT


def command_paths(group: click.Group = main, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command of the group and its sub-groups, as the words that name it after ``audit``."""
    ctx = click.Context(group)
    out = [path]
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        out += command_paths(cmd, path + (name,)) if isinstance(cmd, click.Group) else [path + (name,)]
    return out


def help_text(path: tuple[str, ...]) -> str:
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run([AUDIT, *path, "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_walk_finds_every_command() -> None:
    paths = command_paths()
    assert {("check",), ("backup",), ("token", "add"), ("token", "revoke")} <= set(paths)
    assert len(paths) >= 17


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "audit")
def test_help_fits_80_columns(path: tuple[str, ...]) -> None:
    text = help_text(path)
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert wide == [], f"audit {' '.join(path)} --help: {len(wide)} lines over 80 columns"
    assert "Usage: audit" in text


@pytest.mark.parametrize("path", [p for p in command_paths() if p == () or
                                  isinstance(main.get_command(click.Context(main), p[0]), click.Group) and len(p) == 1],
                         ids=lambda p: " ".join(p) or "audit")
def test_the_list_of_commands_is_not_cut(path: tuple[str, ...]) -> None:
    listed = help_text(path).split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    assert "..." not in listed
    names = [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and line[2] != " "]
    group = main if not path else main.get_command(click.Context(main), path[0])
    assert isinstance(group, click.Group)
    assert names == group.list_commands(click.Context(group))
