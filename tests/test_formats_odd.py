"""Issue 26, point 10 (what was left): time stamps polars cannot hold.

``audit sql`` and ``audit report`` write an infinite or out-of-range ``TIMESTAMP`` (``'infinity'``, ``'-infinity'``,
a year past 9999 or before 1, with or without time zone, at any precision, also inside a list or struct) as
DuckDB's own text of the value in every text format, and keep it in Parquet, never with a traceback; an ordinary
time stamp is written exactly as before (polars' text of it).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from audit.cli import main
from audit.store.db import Store
from audit.store.formats import TEXT_FORMATS, text_types, write_result
from conftest import AUDIT, SHARED

LOG = SHARED / "cases" / "generated" / "mut-012-POT_WINNER.txt"

ODD = ("SELECT 'infinity'::TIMESTAMP AS inf, '-infinity'::TIMESTAMPTZ AS neg, '294247-01-10'::TIMESTAMP AS far, "
       "'290309-12-22 (BC) 00:00:00'::TIMESTAMP AS early, 'infinity'::TIMESTAMP_S AS s, "
       "'-infinity'::TIMESTAMP_NS AS ns, '12026-01-01 00:00:00+00'::TIMESTAMPTZ AS farz, "
       "['infinity'::TIMESTAMP] AS l, TIMESTAMP '2026-11-28 21:10:00.5' AS ok")
SHOWN = {"inf": "infinity", "neg": "-infinity", "far": "294247-01-10 00:00:00", "early": "290309-12-22 (BC) 00:00:00",
         "s": "infinity", "ns": "-infinity", "farz": "12026-01-01 00:00:00+00", "l": "[infinity]"}

ORDINARY = """SELECT * FROM (VALUES
 (TIMESTAMP '2026-11-28 21:10:00', TIMESTAMPTZ '2026-11-28 21:10:00.5+00', '2026-11-28 21:10:00.123456789'::TIMESTAMP_NS,
  '2026-11-28 21:10:00.12'::TIMESTAMP_MS, '2026-11-28 21:10:01'::TIMESTAMP_S, 1.5),
 (TIMESTAMP '0500-01-02 03:04:05.000001', TIMESTAMPTZ '1969-12-31 23:59:59.999+01:30',
  '1970-01-01 00:00:00.000001'::TIMESTAMP_NS, '1900-03-01 00:00:00.001'::TIMESTAMP_MS,
  '9999-12-31 23:59:59'::TIMESTAMP_S, 2.0),
 (TIMESTAMP '2026-11-28 21:10:00.12', TIMESTAMPTZ '2026-06-28 21:10:00.123+00', '2026-11-28 21:10:00.1234'::TIMESTAMP_NS,
  NULL, NULL, NULL),
 (NULL, NULL, NULL, NULL, NULL, NULL)) t(a, "b,z", c, d, e, g)"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("odd-times") / "club.duckdb"
    assert CliRunner().invoke(main, ["ingest", str(LOG), "--db", str(path), "-q"]).exit_code == 0
    return path


@pytest.mark.parametrize("fmt", ["table", "csv", "tsv", "json", "jsonl", "markdown"])
def test_odd_time_stamps_are_written_as_duckdbs_text(db: Path, fmt: str) -> None:
    done = subprocess.run([AUDIT, "sql", ODD, "--db", str(db), "-f", fmt], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "RUST_BACKTRACE": "0"})
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
    if fmt.startswith("json"):
        row = json.loads(done.stdout)[0] if fmt == "json" else json.loads(done.stdout)
        assert row == {**SHOWN, "ok": "2026-11-28T21:10:00.500"}
        return
    for text in [*SHOWN.values(), "2026-11-28 21:10:00.500"]:
        assert text in done.stdout, (text, done.stdout)


def test_odd_time_stamps_stay_time_stamps_in_parquet(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "odd.parquet"
    done = subprocess.run([AUDIT, "sql", ODD, "--db", str(db), "-f", "parquet", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "RUST_BACKTRACE": "0"})
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
    back = duckdb.sql(f"SELECT inf::VARCHAR, neg::VARCHAR, far::VARCHAR, ok::VARCHAR "
                      f"FROM read_parquet('{out}')").fetchall()
    assert back == [("infinity", "-infinity", "294247-01-10 00:00:00", "2026-11-28 21:10:00.5")]


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_ordinary_time_stamps_are_written_as_before(zone: str) -> None:
    """Through ``text_types`` (DuckDB writes the text) every text format gives the same bytes as polars gave the
    time stamps as they came from Arrow."""
    con = duckdb.connect()
    con.execute(f"SET TimeZone = '{zone}'")
    store = Store(con=con, path=":memory:", read_only=True)
    for fmt in TEXT_FORMATS:
        before, after = io.StringIO(), io.StringIO()
        names, reader = store.reader(ORDINARY)
        write_result(names, reader, fmt, out=before)
        names, reader = store.reader(ORDINARY, as_text=text_types(fmt))
        write_result(names, reader, fmt, out=after)
        assert after.getvalue() == before.getvalue(), fmt
