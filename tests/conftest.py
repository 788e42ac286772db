"""Shared test helpers: where the shared cases live, the installed ``audit`` command, a headless Chromium."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
FIXTURES = ROOT / "fixtures"
AUDIT = str(Path(sys.executable).with_name("audit"))


@pytest.fixture(scope="session")
def shared() -> Path:
    """The contract folder beside the checkout (``../shared``)."""
    assert SHARED.is_dir(), f"the shared contract folder is missing: {SHARED}"
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
