"""Commands of the store part of the CLI: ``ingest``, ``report``, ``sql``, ``export``.

Each command opens the database, calls one library function (``audit.ingest``, ``audit.store``) and formats the
result. duckdb and pyarrow are imported inside the commands, so ``audit check`` does not pay for them.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, TypeVar

import click

from audit import cli_options
from audit.cli_options import option_option, profile_option
from audit.errors import AuditError, Interrupted
from audit.textout import finite, json_line, printable, shorten, shown

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("table", "csv", "json", "parquet")
READ_STATEMENTS = ("SELECT", "EXPLAIN", "PRAGMA")
"""Statement types ``audit sql`` runs; anything else is refused before it reaches the database."""
TABLE_SAMPLE_ROWS = 1_000
"""The text table sizes its columns from this many rows, then streams the rest (a wider cell pushes its row)."""
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A CSV cell starting with one of these is a formula to a spreadsheet (``--escape-formulas`` quotes it)."""


def db_option(f: F) -> F:
    return click.option("--db", "db", envvar="AUDIT_DB", default="audit.duckdb", show_default=True,
                        metavar="FILE", show_envvar=True,
                        help="The DuckDB database (default: $AUDIT_DB, else audit.duckdb here).")(f)


def output_options(f: F) -> F:
    f = click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
                     help="Stop the query after this many seconds (exit 2). Default: no limit.")(f)
    f = click.option("--escape-formulas", is_flag=True,
                     help="In CSV, put a ' before text starting with = + - @ (a spreadsheet would run it as a "
                          "formula).")(f)
    f = click.option("--output", "-o", "output", default=None, metavar="FILE",
                     help="Write to FILE instead of standard output (required for parquet).")(f)
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="table for people; csv; json (JSON Lines: one object per row); parquet.")(f)


# ---------------------------------------------------------------------------------------------- ingest
@click.command()
@click.argument("paths", nargs=-1, required=True)
@db_option
@profile_option
@option_option
@click.option("--workers", "-j", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="Audit files in this many processes (whole files each; at most one per core is used); the "
                   "database ends the same.")
@click.option("--verbose", "-v", is_flag=True, help="Print a line on stderr as each file is committed.")
def ingest(paths: tuple[str, ...], db: str, profile_name: str | None, options: tuple[str, ...], workers: int,
           verbose: bool) -> None:
    """Audit PATHS and store hands, actions, pots, awards and findings in a DuckDB database.

    A folder means every *.txt in it; '-' reads standard input (./- is a file named '-'). Each file goes in as
    one transaction, keyed by the SHA-256 of its bytes: a file already in the database is skipped, and an
    interrupted run (Ctrl-C: exit 130) leaves only whole files. A file that cannot be read is reported and
    skipped.
    """
    from audit.ingest import ingest as run_ingest
    from audit.profile import option_pairs
    from audit.store import check_db_name

    check_db_name(db)
    pairs = option_pairs(options)
    summary = run_ingest(list(paths), db, cli_options.profile_name(profile_name), tuple(pairs), workers,
                         progress=sys.stderr.isatty(), err=sys.stderr, verbose=verbose)
    click.echo(printable(summary.line()))
    if any(f.internal for f in summary.failed):
        sys.exit(2)


# ---------------------------------------------------------------------------------------------- reports
@dataclass(frozen=True)
class Report:
    """A report file: ``reports/<name>.sql`` with ``-- title:`` and ``-- description:`` header lines."""

    name: str
    title: str
    description: str
    sql: str


_HEADER = re.compile(r"^--\s*(title|description):\s*(.*?)\s*$")


def load_reports() -> dict[str, Report]:
    """Every report shipped in ``reports/``, by name (the file name without ``.sql``)."""
    from audit.resources import data_dir

    out: dict[str, Report] = {}
    for path in sorted(data_dir("reports").glob("*.sql")):
        text = path.read_text(encoding="utf-8")
        meta: dict[str, str] = {}
        for line in text.splitlines():
            if not line.startswith("--"):
                break
            m = _HEADER.match(line)
            if m:
                meta[m.group(1)] = m.group(2)
        out[path.stem] = Report(path.stem, meta.get("title", path.stem), meta.get("description", ""), text)
    return out


@click.command()
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="Name every report with its description.")
@db_option
@output_options
def report(name: str | None, list_: bool, db: str, fmt: str, output: str | None, escape_formulas: bool,
           timeout: float | None) -> None:
    """Run the report NAME (see --list) on the database."""
    reports = load_reports()
    if list_:
        width = max(len(n) for n in reports) if reports else 0
        for r in reports.values():
            click.echo(f"{r.name:<{width}}  {r.description or r.title}")
        return
    if not name:
        raise click.UsageError("name a report, or use --list to see them")
    chosen = reports.get(name)
    if chosen is None:
        raise AuditError(f"no report named {shown(name)} (audit report --list names them: {', '.join(reports)})")
    _run_and_write(db, chosen.sql, fmt, output, escape_formulas, timeout)


@click.command()
@click.argument("query")
@db_option
@output_options
def sql(query: str, db: str, fmt: str, output: str | None, escape_formulas: bool, timeout: float | None) -> None:
    """Run one read-only SQL QUERY on the database (writes are refused)."""
    _refuse_writes(query)
    _run_and_write(db, query, fmt, output, escape_formulas, timeout)


def _refuse_writes(query: str) -> None:
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise AuditError(f"the query failed: {exc}") from None
    if not statements:
        raise AuditError("the query is empty")
    if len(statements) > 1:
        raise AuditError("audit sql runs one statement at a time")
    kind = statements[0].type.name
    if kind not in READ_STATEMENTS:
        raise AuditError(f"audit sql is read-only: refused a {kind} statement (only {', '.join(READ_STATEMENTS)} "
                         "run; the database is opened read-only, and files are added with 'audit ingest')")


class _Watchdog:
    """Interrupts the database's running query once ``seconds`` have passed (``--timeout``)."""

    def __init__(self, con: Any, seconds: float | None) -> None:
        self.con = con
        self.seconds = seconds
        self.fired = False
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> _Watchdog:
        if self.seconds is not None:
            self._thread = threading.Thread(target=self._watch, daemon=True)
            self._thread.start()
        return self

    def _watch(self) -> None:
        assert self.seconds is not None
        if self._done.wait(self.seconds):
            return
        self.fired = True
        while not self._done.wait(0.05):  # again and again: the query may not have started yet
            self.con.interrupt()

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()


def _run_and_write(db: str, query: str, fmt: str, output: str | None, escape_formulas: bool = False,
                   timeout: float | None = None) -> None:
    import duckdb

    from audit.outfile import database_files, refuse_clobber
    from audit.store import Store, check_db_name

    check_db_name(db)
    if fmt == "parquet" and not output:
        raise AuditError("--format parquet needs --output FILE")
    if output:
        refuse_clobber(output, database_files(db))
    with Store.open(db, read_only=True) as store, _Watchdog(store.con, timeout) as watchdog:
        try:
            names, reader = store.reader(query)
        except duckdb.InterruptException:
            raise _stopped(watchdog, timeout) from None
        write_result(names, _guarded(reader, watchdog, timeout), fmt, output, escape_formulas, reader.schema)


def _stopped(watchdog: _Watchdog, timeout: float | None) -> Exception:
    if watchdog.fired:
        return AuditError(f"the query ran longer than --timeout {timeout:g} s and was stopped")
    return Interrupted("interrupted")


def _guarded(reader: Any, watchdog: _Watchdog, timeout: float | None) -> Iterator[Any]:
    """The reader's batches; an error while the query runs (it runs as the rows are read) is the query's: a
    clear message, never mistaken for a failure to write the output."""
    batches = iter(reader)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as exc:
            if watchdog.fired or "INTERRUPT" in str(exc):
                raise _stopped(watchdog, timeout) from None
            raise AuditError(f"the query failed: {shorten(str(exc), 600)}") from None
        yield batch


# ---------------------------------------------------------------------------------------------- export
@click.command()
@db_option
@click.option("--parquet", "directory", required=True, metavar="DIR",
              help="Write each table to DIR/<table>/session_date=YYYY-MM-DD/*.parquet. DIR must be new, empty, "
                   "or an earlier export (replaced whole); a folder holding anything else is refused.")
def export(db: str, directory: str) -> None:
    """Export every table as Parquet, partitioned by session date, for any engine to query."""
    import duckdb

    from audit.store import Store, check_db_name

    check_db_name(db)
    if not directory.strip():
        raise AuditError("--parquet is empty; name a new folder for the export")
    with Store.open(db, read_only=True) as store:
        try:
            counts = store.export_parquet(directory)
        except duckdb.Error as exc:
            raise AuditError(f"{directory}: the export failed ({exc}); nothing was written") from None
        except OSError as exc:
            raise AuditError(f"{directory}: the export failed ({exc.strerror or exc}); nothing was "
                             "written") from None
    total = sum(counts.values())
    click.echo(printable(f"exported {len(counts)} tables ({total:,} rows) to {directory}: "
                         + ", ".join(f"{t} {n:,}" for t, n in counts.items())))


# ---------------------------------------------------------------------------------------------- output
def unique_names(names: list[str]) -> list[str]:
    """Column names made distinct: a second ``line`` becomes ``line_1`` (as DuckDB names them in a table), so no
    column of a JSON object or a CSV header hides another."""
    out: list[str] = []
    taken = set(names)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            n = 1
            while f"{name}_{n}" in taken:
                n += 1
            name = f"{name}_{n}"
            taken.add(name)
        seen.add(name)
        out.append(name)
    return out


def _rows(batches: Iterable[Any]) -> Iterator[list[Any]]:
    """Each row of a stream of record batches as a list of values, by column position (not name)."""
    for batch in batches:
        columns = [col.to_pylist() for col in batch.columns]
        for row in zip(*columns):
            yield list(row)


def write_result(names: list[str], batches: Any, fmt: str, output: str | None,
                 escape_formulas: bool = False, schema: Any = None) -> None:
    """Write a query's result, streamed from ``batches`` (a ``pyarrow.RecordBatchReader`` or a ``pyarrow.Table``)
    as ``table``, ``csv``, ``json`` (JSON Lines) or ``parquet``: to ``output`` through a temporary file renamed
    into place, else to standard output."""
    from audit.outfile import atomic_output

    names = unique_names(names)
    if hasattr(batches, "to_batches"):  # a pyarrow.Table
        schema = batches.schema
        batches = batches.to_batches()
    if fmt == "parquet":
        assert output is not None
        with atomic_output(output, binary=True) as handle:
            _write_parquet(names, batches, handle, schema)
        return
    if output:
        with atomic_output(output) as handle:
            _write_text(names, batches, fmt, handle, escape_formulas)
    else:
        _write_text(names, batches, fmt, sys.stdout, escape_formulas)


def _write_parquet(names: list[str], batches: Iterable[Any], handle: IO[bytes], schema: Any) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    try:
        for batch in batches:
            batch = pa.RecordBatch.from_arrays(batch.columns, names=names)
            if writer is None:
                writer = pq.ParquetWriter(handle, batch.schema)
            writer.write_batch(batch)
        if writer is None:
            fields = list(schema) if schema is not None else []
            empty = pa.schema([pa.field(n, f.type) for n, f in zip(names, fields)])
            writer = pq.ParquetWriter(handle, empty)
    finally:
        if writer is not None:
            writer.close()


def _write_text(names: list[str], batches: Iterable[Any], fmt: str, handle: IO[str], escape_formulas: bool) -> None:
    rows = _rows(batches)
    if fmt == "json":
        for row in rows:
            handle.write(json_line({n: _json_value(v) for n, v in zip(names, row)}) + "\n")
    elif fmt == "csv":
        import csv

        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([_csv_value(v, escape_formulas) for v in row])
    else:
        for text in stream_table(names, rows):
            handle.write(text)


def stream_table(names: list[str], rows: Iterator[list[Any]]) -> Iterator[str]:
    """An aligned text table (numbers right-aligned), sized from its first ``TABLE_SAMPLE_ROWS`` rows, with a
    closing row count; control characters in cells are shown as escapes."""
    sample: list[list[Any]] = []
    for row in rows:
        sample.append(row)
        if len(sample) >= TABLE_SAMPLE_ROWS:
            break
    cells = [[_text_value(v) for v in row] for row in sample]
    numeric = [all(isinstance(row[i], (int, float, decimal.Decimal)) and not isinstance(row[i], bool)
                   for row in sample if row[i] is not None) and any(row[i] is not None for row in sample)
               for i in range(len(names))]
    heads = [printable(n) for n in names]
    widths = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(heads)]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    yield line(heads) + "\n" + "  ".join("-" * w for w in widths) + "\n"
    count = len(sample)
    for c in cells:
        yield line(c) + "\n"
    for row in rows:
        count += 1
        yield line([_text_value(v) for v in row]) + "\n"
    yield f"({count:,} row{'s' if count != 1 else ''})\n"


def render_table(names: list[str], rows: list[list[Any]]) -> str:
    """An aligned text table (numbers right-aligned), with a closing row count."""
    return "".join(stream_table(names, iter(rows)))


def _json_value(v: Any) -> Any:
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return v.total_seconds()
    if isinstance(v, decimal.Decimal):
        if not v.is_finite():
            return None
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, list):
        return [_json_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, bytes):
        return v.hex()
    return finite(v)


def _csv_value(v: Any, escape_formulas: bool = False) -> str:
    if isinstance(v, float):
        return repr(v)
    text = _plain_value(v)
    if escape_formulas and isinstance(v, str) and text.startswith(FORMULA_START):
        return "'" + text
    return text


def _text_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) < 1e15 else str(v)
    return printable(_plain_value(v))


def _plain_value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, dict)):
        return json.dumps(_json_value(v), ensure_ascii=False)
    if isinstance(v, dt.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    return str(v)


COMMANDS: list[click.Command] = [ingest, report, sql, export]
