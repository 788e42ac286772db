"""Every command of the tutorials runs: a page's ``sh`` blocks, in order, as one bash script (``set -euo
pipefail``: a command that fails fails the test) in a copy of ``fixtures/demo`` with ``.venv`` beside it, after
``source .venv/bin/activate`` as the pages ask. (Their ``console`` blocks, whose output is compared, are
``tests/test_readme.py``'s.)

Three things differ from a reader's terminal, each written here: ``audit serve`` (which a page runs in one
terminal and leaves running) is started in the background and waited for on ``/healthz``, then stopped with
SIGTERM at the end; port 8000 is a free port; ``--host 0.0.0.0`` listens on loopback only (a test talks to
127.0.0.1, never to the network)."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from test_readme import VENV, fresh_shell_env

SH = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)
PAGES = sorted(p.relative_to(ROOT) for p in (ROOT / "docs" / "tutorials").glob("*.md"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def script(text: str, port: int) -> str:
    """A page's ``sh`` blocks as one script, changed as the module's docstring says."""
    lines = ["set -euo pipefail", "source .venv/bin/activate", "SERVE_PID=", "trap '[ -z \"$SERVE_PID\" ] || "
             "{ kill -TERM $SERVE_PID; wait $SERVE_PID || true; }' EXIT"]
    for block in SH.findall(text):
        for line in block.replace("--host 0.0.0.0", "--host 127.0.0.1").replace("8000", str(port)).splitlines():
            if line.startswith("audit serve "):
                lines += [f"{line} > serve.out 2> serve.err &", "SERVE_PID=$!",
                          f"for _ in $(seq 600); do curl -fsS http://127.0.0.1:{port}/healthz >/dev/null 2>&1 "
                          "&& break; kill -0 $SERVE_PID; sleep 0.1; done"]
            else:
                lines.append(line)
    return "\n".join(lines) + "\n"


def test_the_tutorials_have_commands() -> None:
    names = {p.stem for p in PAGES}
    assert {"dispute", "live-table", "club"} <= names
    for page in ("live-table", "club"):
        text = script((ROOT / "docs" / "tutorials" / f"{page}.md").read_text(encoding="utf-8"), 1)
        assert "audit serve " in text and "curl -fsS" in text and "8000" not in text and "0.0.0.0" not in text


def run(text: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """The script of a page's text, run in ``folder`` (a copy of ``fixtures/demo`` and ``.venv`` beside it)."""
    shutil.copytree(ROOT / "fixtures" / "demo", folder / "fixtures" / "demo")
    (folder / ".venv").symlink_to(VENV)
    return subprocess.run(["bash", "-c", script(text, free_port())], cwd=folder, env=fresh_shell_env(),
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("page", [p for p in PAGES if SH.search((ROOT / p).read_text(encoding="utf-8"))],
                         ids=lambda p: p.stem)
def test_every_command_of_a_tutorial_runs(page: Path, tmp_path: Path) -> None:
    done = run((ROOT / page).read_text(encoding="utf-8"), tmp_path)
    serve_err = (tmp_path / "serve.err").read_text() if (tmp_path / "serve.err").exists() else ""
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:], serve_err[-2000:])
    if page.stem == "club":
        # what the page says the commands show: north's logs stored and reported, south sees none
        assert done.stdout.count('"status":"stored"') == 2 and "ODD_CHIP" in done.stdout
        assert "\n[]" in done.stdout, "south's list of uploads is empty"
    if page.stem == "live-table":
        assert '"Beto"' in done.stdout and "Beto raised to 3" in done.stdout and "Hand #1" in done.stdout


def test_a_failing_command_fails_the_tutorial_run(tmp_path: Path) -> None:
    """The near miss: the same runner on a page whose request is refused (a wrong token) fails, and the
    service it started is stopped."""
    done = run("```sh\naudit token add north --db club.duckdb > north.token\n"
               "audit serve --db club.duckdb --port 8000\n"
               "curl -fsS -H 'Authorization: Bearer nope' http://127.0.0.1:8000/api/v1/uploads\n```\n", tmp_path)
    assert done.returncode != 0 and "401" in done.stderr
    assert "Ctrl-C stops" in (tmp_path / "serve.out").read_text() + (tmp_path / "serve.err").read_text()
