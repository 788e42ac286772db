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
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any, TypeVar

import click

from audit.errors import AuditError

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("table", "csv", "json", "parquet")
READ_STATEMENTS = ("SELECT", "EXPLAIN", "PRAGMA")
"""Statement types ``audit sql`` runs; anything else is refused before it reaches the database."""


def db_option(f: F) -> F:
    return click.option("--db", "db", envvar="AUDIT_DB", default="audit.duckdb", show_default=True,
                        metavar="FILE", show_envvar=True,
                        help="The DuckDB database (default: $AUDIT_DB, else audit.duckdb here).")(f)


def output_options(f: F) -> F:
    f = click.option("--output", "-o", "output", default=None, metavar="FILE",
                     help="Write to FILE instead of standard output (required for parquet).")(f)
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="table for people; csv; json (JSON Lines: one object per row); parquet.")(f)


# ---------------------------------------------------------------------------------------------- ingest
@click.command()
@click.argument("paths", nargs=-1, required=True)
@db_option
@click.option("--profile", "profile_name", default=None, metavar="NAME",
              help="Rule profile for files without a 'Profile:' line (default home-open). A file's own line wins.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Override one profile parameter, as an 'Option:' line would.")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Audit files in this many processes (whole files each); the database ends the same.")
@click.option("--verbose", "-v", is_flag=True, help="Print a line on stderr as each file is committed.")
def ingest(paths: tuple[str, ...], db: str, profile_name: str | None, options: tuple[str, ...], workers: int,
           verbose: bool) -> None:
    """Audit PATHS and store hands, actions, pots, awards and findings in a DuckDB database.

    A folder means every *.txt in it; '-' reads standard input. Each file goes in as one transaction, keyed by
    the SHA-256 of its bytes: a file already in the database is skipped, and an interrupted run leaves only
    whole files. A file that cannot be read is reported and skipped.
    """
    from audit.ingest import ingest as run_ingest

    from audit.profile import option_pairs

    pairs = option_pairs(options)
    summary = run_ingest(list(paths), db, profile_name or "home-open", tuple(pairs), workers,
                         progress=sys.stderr.isatty(), err=sys.stderr, verbose=verbose)
    click.echo(summary.line())
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
def report(name: str | None, list_: bool, db: str, fmt: str, output: str | None) -> None:
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
        raise AuditError(f"no report named {name!r} (audit report --list names them: {', '.join(reports)})")
    _run_and_write(db, chosen.sql, fmt, output)


@click.command()
@click.argument("query")
@db_option
@output_options
def sql(query: str, db: str, fmt: str, output: str | None) -> None:
    """Run one read-only SQL QUERY on the database (writes are refused)."""
    _refuse_writes(query)
    _run_and_write(db, query, fmt, output)


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


def _run_and_write(db: str, query: str, fmt: str, output: str | None) -> None:
    from audit.store import Store

    if fmt == "parquet" and not output:
        raise AuditError("--format parquet needs --output FILE")
    with Store.open(db, read_only=True) as store:
        store.lock_down()
        table = store.query(query)
    write_result(table, fmt, output)


# ---------------------------------------------------------------------------------------------- export
@click.command()
@db_option
@click.option("--parquet", "directory", required=True, metavar="DIR",
              help="Write each table to DIR/<table>/session_date=YYYY-MM-DD/*.parquet.")
def export(db: str, directory: str) -> None:
    """Export every table as Parquet, partitioned by session date, for any engine to query."""
    import duckdb

    from audit.store import Store

    with Store.open(db, read_only=True) as store:
        try:
            counts = store.export_parquet(directory)
        except (duckdb.Error, OSError) as exc:
            raise AuditError(f"{directory}: the export failed ({exc})") from None
    total = sum(counts.values())
    click.echo(f"exported {len(counts)} tables ({total:,} rows) to {directory}: "
               + ", ".join(f"{t} {n:,}" for t, n in counts.items()))


# ---------------------------------------------------------------------------------------------- output
def write_result(table: Any, fmt: str, output: str | None) -> None:
    """Write a ``pyarrow.Table`` as ``table``, ``csv``, ``json`` (JSON Lines) or ``parquet``."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        assert output is not None
        try:
            pq.write_table(table, output)
        except OSError as exc:
            raise AuditError(f"{output}: cannot be written ({exc})") from None
        return
    try:
        handle: IO[str] = open(output, "w", encoding="utf-8", newline="") if output else sys.stdout
    except OSError as exc:
        raise AuditError(f"{output}: cannot be written ({exc.strerror})") from None
    try:
        rows = table.to_pylist()
        names = list(table.column_names)
        if fmt == "json":
            for row in rows:
                handle.write(json.dumps({k: _json_value(v) for k, v in row.items()}, ensure_ascii=False) + "\n")
        elif fmt == "csv":
            import csv

            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(names)
            for row in rows:
                writer.writerow([_csv_value(row[n]) for n in names])
        else:
            handle.write(render_table(names, [[row[n] for n in names] for row in rows]))
    finally:
        if output:
            handle.close()


def render_table(names: list[str], rows: list[list[Any]]) -> str:
    """An aligned text table (numbers right-aligned), with a closing row count."""
    cells = [[_text_value(v) for v in row] for row in rows]
    numeric = [all(isinstance(row[i], (int, float, decimal.Decimal)) and not isinstance(row[i], bool)
                   for row in rows if row[i] is not None) and any(row[i] is not None for row in rows)
               for i in range(len(names))]
    widths = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(names)]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line(names), "  ".join("-" * w for w in widths)]
    out.extend(line(c) for c in cells)
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"


def _json_value(v: Any) -> Any:
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return v.total_seconds()
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, list):
        return [_json_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, bytes):
        return v.hex()
    return v


def _csv_value(v: Any) -> str:
    if isinstance(v, float):
        return repr(v)
    return _text_value(v)


def _text_value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) < 1e15 else str(v)
    if isinstance(v, (list, dict)):
        return json.dumps(_json_value(v), ensure_ascii=False)
    if isinstance(v, dt.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    return str(v)


COMMANDS: list[click.Command] = [ingest, report, sql, export]
