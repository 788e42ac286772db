"""Shared test helpers: where the shared cases live, the installed ``audit`` command, a headless Chromium."""

from __future__ import annotations

import os
import signal
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from audit.model import Action, Dealt, Discard, Hand, Marker, Post, StandPat, Uncalled

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
FIXTURES = ROOT / "fixtures"
AUDIT = str(Path(sys.executable).with_name("audit"))

# The tests that read the contract folder (the shared cases, the real hands) carry ``@needs_shared`` (or take the
# ``shared`` fixture): on a bare clone, without ``../shared`` beside it, they skip with one reason. CI has it and
# sets AUDIT_REQUIRE_SHARED=1 (.ci/run), which turns that skip into a failure: there, none of them may be left out.
HAVE_SHARED = SHARED.is_dir()
REQUIRE_SHARED = os.environ.get("AUDIT_REQUIRE_SHARED", "") not in ("", "0")
SHARED_MISSING = f"needs the shared contract folder beside the checkout, missing here: {SHARED}"
needs_shared = pytest.mark.needs_shared


def skip_without_shared() -> None:
    """Skip the running test when ``../shared`` is missing (fail instead under AUDIT_REQUIRE_SHARED=1)."""
    if not HAVE_SHARED:
        if REQUIRE_SHARED:
            pytest.fail(f"AUDIT_REQUIRE_SHARED is set but the test {SHARED_MISSING}", pytrace=False)
        pytest.skip(SHARED_MISSING)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_shared: the test reads ../shared (skips where it is missing)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("needs_shared") is not None:
        skip_without_shared()

# A test run started in the background by a script (``nohup``, ``&``) inherits SIGINT ignored, and so would every
# command the tests start; the Ctrl-C tests need it delivered. A handler (unlike "ignore") is reset by exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The contract folder beside the checkout (``../shared``); the test skips where it is missing."""
    skip_without_shared()
    return SHARED


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium driven by Playwright (never a browser build of Playwright's own)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("The playwright Python package is missing: install the test extras (pip install -e '.[test]').")
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `bash scripts/install-browser.sh`.")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def chips_put_in(hand: Hand) -> int:
    """A site hand's posts + calls + bets + raises (a raise to y adds y minus what the player already had in the
    round), minus uncalled bets, worked out here from the model alone. A round ends at the first draw line after
    it (or a draw marker)."""
    put = 0
    in_round: dict[str, int] = defaultdict(int)
    drawing = False
    for item in hand.body:
        if type(item) in (Discard, StandPat) or (type(item) is Marker and item.street.startswith("draw")):
            if not drawing:
                drawing = True
                in_round.clear()
            continue
        if type(item) is Dealt:
            continue
        drawing = False
        if type(item) is Post:
            put += item.amount
            if item.kind in ("small", "big", "both"):
                in_round[item.player] += item.amount
        elif type(item) is Action:
            if item.kind == "raise":
                put += item.to - in_round[item.player]
                in_round[item.player] = item.to
            elif item.kind in ("call", "bet"):
                put += item.amount
                in_round[item.player] += item.amount
        elif type(item) is Uncalled:
            put -= item.amount
    return put


WORKER_KILLED = (r"audit: the worker process auditing (\S+) ended without finishing it: it was killed "
                 r"\(SIGKILL, perhaps for lack of memory\)")
"""The one sentence of a worker killed under ``check``, ``ingest`` or the lake (``audit.workers.died_message``),
up to what the command's user does next; the group is the file it was auditing."""


def children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out
