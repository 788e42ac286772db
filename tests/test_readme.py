"""The README's sample output is what the commands print: every ``$ audit …`` line of a console block is run (in
a copy of ``fixtures/demo``, so that paths print as in the README) and its output compared line for line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import AUDIT, ROOT

BLOCK = re.compile(r"^```console\n(.*?)^```", re.M | re.S)


def sessions() -> list[list[tuple[str, str]]]:
    """Each console block as (command, expected output) pairs."""
    out = []
    for block in BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        pairs: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], []))
            else:
                assert pairs, f"output before a command in a README block: {line!r}"
                pairs[-1][1].append(line)
        out.append([(command, "".join(x + "\n" for x in lines)) for command, lines in pairs])
    return out


def test_the_readme_has_console_samples() -> None:
    commands = [c for block in sessions() for c, _ in block]
    assert "audit check fixtures/demo/reopen-dispute.txt" in commands
    assert any(c.startswith("audit report") for c in commands) and any(c.startswith("audit sql") for c in commands)


@pytest.mark.parametrize("block", sessions(), ids=lambda b: b[0][0][:40])
def test_the_readme_shows_what_the_commands_print(block: list[tuple[str, str]], tmp_path: Path) -> None:
    shutil.copytree(ROOT / "fixtures" / "demo", tmp_path / "fixtures" / "demo")
    env = {**os.environ, "PATH": f"{Path(AUDIT).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("AUDIT_DB", None)
    for command, expected in block:
        assert command.startswith("audit "), command
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.stdout == expected, (command, done.stderr)
