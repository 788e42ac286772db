"""Issue 26 (what was left of the service's report checks): ``audit report -p limit -1`` says what the service
says, in one line and exit 2, from the one check both make (``audit.store.reports.report_params``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from audit.cli import main
from audit.errors import AuditError
from audit.serve.db import report_arguments
from audit.store.reports import INT_MAX, find_report
from conftest import SHARED

LOG = SHARED / "cases" / "generated" / "mut-012-POT_WINNER.txt"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report-params") / "club.duckdb"
    assert CliRunner().invoke(main, ["ingest", str(LOG), "--db", str(path), "-q"]).exit_code == 0
    return path


@pytest.mark.parametrize("value", ["-1", str(INT_MAX + 1), "99999999999"])
def test_a_whole_number_out_of_range_is_one_clear_line(db: Path, value: str) -> None:
    result = CliRunner().invoke(main, ["report", "disputed-hands", "--db", str(db), "-p", "limit", value])
    said = f"limit: {int(value)} is out of range (a whole number from 0 to {INT_MAX})"
    assert result.exit_code == 2 and result.output == f"audit: {said}\n", result.output
    with pytest.raises(AuditError) as refused:  # the service's check is the same one
        report_arguments(find_report("disputed-hands"), {"limit": int(value)})
    assert str(refused.value) == said


def test_the_ends_of_the_range_run(db: Path) -> None:
    for value in ("0", str(INT_MAX)):
        result = CliRunner().invoke(main, ["report", "disputed-hands", "--db", str(db), "-p", "limit", value])
        assert result.exit_code == 0, result.output
