"""The README's and the documentation's sample output is what the commands print: every ``$ …`` line of a
``console`` block is run, in a copy of ``fixtures/demo`` (so that paths print as written) with ``.venv`` beside it,
and its standard output compared line for line.

The README's blocks run as written in a fresh shell: ``audit`` is not on ``PATH`` there, so they call
``.venv/bin/audit``. The documentation's pages ask for ``source .venv/bin/activate`` first, and their blocks run
after it. A block's commands run one after another in one shell, so a variable or ``cd`` carries on."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import AUDIT, ROOT

BLOCK = re.compile(r"^```console\n(.*?)^```", re.M | re.S)
VENV = Path(AUDIT).parent.parent
DOCS = sorted(p.relative_to(ROOT) for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)
MARK = "@@@ audit docs command {} @@@"


def sessions(page: Path) -> list[list[tuple[str, str]]]:
    """Each console block of a page as (command, expected output) pairs."""
    out = []
    for block in BLOCK.findall((ROOT / page).read_text(encoding="utf-8")):
        pairs: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], []))
            else:
                assert pairs, f"output before a command in a console block of {page}: {line!r}"
                pairs[-1][1].append(line)
        out.append([(command, "".join(x + "\n" for x in lines)) for command, lines in pairs])
    return out


BLOCKS = [(page, block) for page in [Path("README.md"), *DOCS] for block in sessions(page)]


def test_the_readme_and_docs_have_console_samples() -> None:
    readme = [c for block in sessions(Path("README.md")) for c, _ in block]
    assert ".venv/bin/audit check fixtures/demo/reopen-dispute.txt -q" in readme
    assert not [c for c in readme if c.startswith("audit ")], "the README's examples must work in a fresh shell"
    commands = [c for _, block in BLOCKS for c, _ in block]
    assert any(c.startswith("audit report") for c in commands) and any(c.startswith("audit sql") for c in commands)
    tutorials = {page.parent.name for page, _ in BLOCKS if page.parts[0] == "docs"}
    assert {"tutorials", "howto"} <= tutorials


def fresh_shell_env() -> dict[str, str]:
    """The environment of a new terminal: the project's environment not activated, no AUDIT_DB."""
    env = dict(os.environ)
    env.pop("AUDIT_DB", None)
    env.pop("VIRTUAL_ENV", None)
    bin_dir = str(VENV / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != bin_dir)
    return env


def run_block(page: Path, block: list[tuple[str, str]], cwd: Path) -> list[str]:
    """Run a block's commands in one bash, each one's standard output cut from the next's by a marker line."""
    script = [] if page == Path("README.md") else ["source .venv/bin/activate"]
    for i, (command, _) in enumerate(block):
        script += [f"echo '{MARK.format(i)}'", command]
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=fresh_shell_env(), capture_output=True,
                          text=True, timeout=300)
    parts = re.split(r"^@@@ audit docs command \d+ @@@\n", done.stdout, flags=re.M)
    assert len(parts) == len(block) + 1, done.stderr
    return parts[1:]


@pytest.mark.parametrize("page,block", BLOCKS, ids=[f"{p}:{b[0][0][:40]}" for p, b in BLOCKS])
def test_the_docs_show_what_the_commands_print(page: Path, block: list[tuple[str, str]], tmp_path: Path) -> None:
    shutil.copytree(ROOT / "fixtures" / "demo", tmp_path / "fixtures" / "demo")
    (tmp_path / ".venv").symlink_to(VENV)
    for (command, expected), printed in zip(block, run_block(page, block, tmp_path)):
        assert printed == expected, (str(page), command)


def test_a_readme_example_needs_the_venv_in_a_fresh_shell(tmp_path: Path) -> None:
    """The near miss: plain ``audit`` is not found in a fresh shell, which is why the README calls .venv/bin/audit."""
    (tmp_path / ".venv").symlink_to(VENV)
    done = subprocess.run(["bash", "-c", "audit --version"], cwd=tmp_path, env=fresh_shell_env(),
                          capture_output=True, text=True)
    assert done.returncode == 127 and "audit: command not found" in done.stderr
    done = subprocess.run(["bash", "-c", ".venv/bin/audit --version"], cwd=tmp_path, env=fresh_shell_env(),
                          capture_output=True, text=True)
    assert done.returncode == 0 and "audit" in done.stdout


def test_the_readmes_python_example_runs() -> None:
    """The README's Python block, run from the checkout: it prints the finding the console example shows."""
    (code,) = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("E1b RAISE_NOT_REOPENED Ana raised to 11, but the betting was not re-opened")
