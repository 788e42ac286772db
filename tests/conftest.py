"""Shared test helpers: where the shared cases live, the installed ``audit`` command."""

from __future__ import annotations

import sys
from pathlib import Path

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
