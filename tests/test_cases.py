"""The shared cases (shared/cases), judged through the real CLI exactly as shared/tools/run_cases.py does."""

from __future__ import annotations

from pathlib import Path

import pytest

from casejudge import CheckedTogether, cases_in
from conftest import SHARED, needs_shared

pytestmark = needs_shared

CASES = cases_in(*(SHARED / "cases" / d for d in ("edge", "generated", "generated-edge", "profiles")), at_least=60)
CHECKED = CheckedTogether(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_shared_case(case: Path) -> None:
    assert CHECKED.verdict(case) == ""


def test_there_are_shared_cases() -> None:
    assert len(CASES) >= 60
