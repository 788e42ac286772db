"""The database's commands: ``ingest``, ``report``, ``sql``, ``export``, ``upgrade``.

Each parses its options, calls one function of ``audit.store`` and prints what it returns. duckdb, pyarrow and
polars are imported inside the commands, so ``audit check`` does not pay for them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from audit.cli import options as cli_options
from audit.cli.lake import lake_ingest_options, lake_option
from audit.cli.options import (
    ByteSize, ProfileName, db_option, epilog, option_option, output_option, profile_option, quiet_option,
)
from audit.errors import AuditError
from audit.store.formats import FORMATS
from audit.textout import printable

F = TypeVar("F", bound=Callable[..., Any])


def format_options(f: F) -> F:
    f = click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
                     help="Stop the query after this many seconds (exit 2). Default: no limit.")(f)
    f = click.option("--escape-formulas", is_flag=True,
                     help="In CSV and TSV, put a ' before text starting with = + - @ (a spreadsheet would run it "
                          "as a formula).")(f)
    f = output_option("Write to FILE instead of standard output (required for parquet; never over the database; "
                      "through a temporary file renamed into place).")(f)
    f = click.option("--columns", "columns", default=None, metavar="A,B,C",
                     help="Only these columns of the result, in this order (comma-separated).")(f)
    return click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="table (for people, fitted to the terminal; when left out, a table wider than the "
                             "terminal is written as line instead), line (one 'column = value' per line, a blank "
                             "line between rows), csv, tsv, json (one array), jsonl (one object per line), "
                             "markdown, parquet.")(f)


def param_option(f: F) -> F:
    return click.option("--param", "-p", "params", type=(str, str), multiple=True, metavar="NAME VALUE",
                        help="A named parameter: $NAME in the SQL. Repeatable.")(f)


# ---------------------------------------------------------------------------------------------- ingest
INGEST_EXAMPLES = [
    "# every *.txt and *.xml of a folder, into club.duckdb (created if missing)",
    "audit ingest logs/ --db club.duckdb",
    "# two processes; a file already stored adds nothing, so a cron job can run this every night",
    "audit ingest /srv/uploads --db club.duckdb --workers 2 --quiet",
    "# standard input, under the qdan profile",
    "zcat friday.txt.gz | audit ingest - --profile qdan",
    "# a Parquet lake filled by a Dask cluster, then loaded into a database",
    "audit ingest /shared/logs --lake /shared/lake --dask tcp://scheduler:8786",
    "audit ingest --db club.duckdb --from-lake /shared/lake",
]


@click.command(short_help="Audit logs and store them in DuckDB (or a Parquet lake).",
               epilog=epilog(INGEST_EXAMPLES, "ingest"))
@click.argument("paths", nargs=-1)
@db_option
@profile_option
@option_option
@click.option("--workers", "-j", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="Audit files in this many processes (whole files each; at most one per core is used); the "
                   "database ends the same.")
@click.option("--verbose", "-v", is_flag=True, help="Print a line on stderr as each file is committed.")
@click.option("--max-stream", "max_stream", type=ByteSize(), default="1GB", show_default=True, metavar="SIZE",
              help="Largest input read from standard input, a pipe or a device (each is copied to a temporary "
                   "file first); a longer one stops the run (exit 2) before anything is stored.")
@quiet_option
@lake_ingest_options
def ingest(paths: tuple[str, ...], db: str, profile_name: str | None, options: tuple[str, ...], workers: int,
           verbose: bool, max_stream: int, quiet: bool, lake: str | None, dask: str | None,
           from_lake: str | None) -> None:
    """Audit PATHS and store hands, actions, pots, awards and findings in a DuckDB database.

    A folder means every *.txt and *.xml in it; '-' reads standard input (./- is a file named '-'). Each file goes
    in as one transaction, keyed by the SHA-256 of its bytes: a file already in the database is skipped, and an
    interrupted run (Ctrl-C: exit 130) leaves only whole files. A file that cannot be read is reported and
    skipped (the others go in; exit 1). On a terminal, progress (files, hands, hands per second, the file being
    read) shows on stderr.

    With --lake DIR the rows go to a Parquet lake instead (every worker, on this machine or a Dask cluster,
    writes its files' rows there itself); --from-lake DIR loads a lake into --db.
    """
    from audit.cli.lake import ingest_with_lake, uses_lake
    from audit.cli.main import status_so_far
    from audit.cli.progress import ProgressLine, rate_text
    from audit.profile import option_pairs
    from audit.store.db import check_db_name
    from audit.store.ingest import IngestProgress, IngestSummary
    from audit.store.ingest import ingest as run_ingest

    check_db_name(db)
    pairs = option_pairs(options)
    if not paths and not uses_lake(lake, dask, from_lake):
        raise click.UsageError("name the files or folders to ingest (or --from-lake DIR)")
    line = ProgressLine(sys.stderr, enabled=not quiet)
    into = "into the lake " if lake is not None else ""

    def progress(p: IngestProgress) -> None:
        share = f" ({100 * p.bytes_done // p.bytes_total}%)" if p.bytes_total else ""
        current = f"  {p.current}" if p.current else ""
        line.show(f"ingesting {into}{rate_text(p.done, p.files, p.hands, p.seconds)}{share}{current}")

    def tell(kind: str, text: str) -> None:
        if (kind == "stored" and not verbose) or (kind == "note" and quiet):
            return
        line.clear()
        prefix = {"skipped": "audit: skipped ", "note": "audit: note: "}.get(kind, "")
        sys.stderr.write(prefix + printable(text) + "\n")
        sys.stderr.flush()

    chosen = cli_options.profile_name(profile_name)
    summary: IngestSummary
    try:
        if uses_lake(lake, dask, from_lake):
            summary = ingest_with_lake(paths, db, lake, dask, from_lake, chosen, tuple(pairs), workers,
                                       progress if line.enabled else None, tell, max_stream)
        else:
            summary = run_ingest(list(paths), db, chosen, tuple(pairs), workers, progress if line.enabled else None,
                                 tell, max_stream)
    finally:
        line.clear()
    unfinished = getattr(summary, "unfinished", [])  # a lake's files whose every Dask worker died
    status = 2 if unfinished or any(f.internal for f in summary.failed) else 1 if summary.failed else 0
    status_so_far(lambda: status)
    if not quiet:
        click.echo(printable(summary.line()))
    if status:
        sys.exit(status)


@click.command(short_help="Bring an earlier audit's database up to this version.",
               epilog=epilog(["audit upgrade --db club.duckdb"], "data"))
@db_option
def upgrade(db: str) -> None:
    """Bring a database written by an earlier audit up to this version's tables and views (columns, tables and
    views are only added: every script that read it still works). 'audit ingest' does the same to a database it
    writes to."""
    from audit.serve.db import upgrade_service
    from audit.store.db import Store
    from audit.store.schema import SCHEMA_VERSION

    with Store.open(db) as store:
        was = store.upgraded_from
        moved = upgrade_service(store)  # the service's uploads of an earlier audit: rows of their own
    click.echo(printable(f"{db}: upgraded from schema version {was} to {SCHEMA_VERSION}" if was
                         else f"{db}: already at schema version {SCHEMA_VERSION}"))
    if moved:
        click.echo(printable(f"{db}: {moved} uploads of 'audit serve' given rows of their own (no upload shares "
                             "rows with another club's any more)"))


# ---------------------------------------------------------------------------------------------- reports
REPORT_EXAMPLES = [
    "audit report --list",
    "audit report violations-by-player --db club.duckdb",
    "# November's hands of one table, as CSV",
    "audit report violations-by-rule --from 2026-11-01 --to 2026-11-30 --table 'Casa Pepe' -f csv -o nov.csv",
    "# a report's own parameter",
    "audit report disputed-hands -p limit 10 --profile qdan",
    "# some of its columns, one 'column = value' per line (as a table too wide for the terminal is shown)",
    "audit report misawarded-pots --columns hand_id,collected,should_have,corrected_before -f line",
    "# over a Parquet lake instead of a database",
    "audit report violations-by-player --lake /shared/lake",
]


class ReportCommand(click.Command):
    """``audit report``: its help lists the reports, read when the help is shown."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from audit.store.reports import load_reports

        reports = load_reports()
        with formatter.section("Reports"):
            formatter.write_dl([(r.name, r.description or r.title) for r in reports.values()])
        with formatter.section("Parameters (--param NAME VALUE, or the options above)"):
            seen: dict[str, str] = {}
            for r in reports.values():
                for p in r.params:
                    seen.setdefault(p.name, f"{p.type}: {p.help}")
            formatter.write_dl(sorted(seen.items()))
        super().format_epilog(ctx, formatter)


@click.command(cls=ReportCommand, short_help="Run a report (reports/*.sql) on the database or a lake.",
               epilog=epilog(REPORT_EXAMPLES, "data"))
@click.argument("name", required=False)
@click.option("--list", "list_", is_flag=True, help="Name every report with its description and parameters.")
@db_option
@click.option("--from", "from_date", default=None, metavar="YYYY-MM-DD", help="Only hands played on or after this "
                                                                                  "day (from_date).")
@click.option("--to", "to_date", default=None, metavar="YYYY-MM-DD", help="Only hands played on or before this day "
                                                                           "(to_date).")
@click.option("--profile", "profile_filter", type=ProfileName(), default=None,
              help="Only hands audited under this profile.")
@click.option("--table", "table_name", default=None, metavar="NAME", help="Only this table's hands.")
@param_option
@lake_option
@format_options
def report(name: str | None, list_: bool, db: str, from_date: str | None, to_date: str | None,
           profile_filter: str | None, table_name: str | None, params: tuple[tuple[str, str], ...],
           lake: str | None, fmt: str, output: str | None, escape_formulas: bool, timeout: float | None,
           columns: str | None) -> None:
    """Run the report NAME (see --list, or below) on the database. --from, --to, --profile and --table keep
    the hands, findings and pots of those days, that profile or that table."""
    from audit.store.reports import find_report, load_reports, report_params

    if list_:
        reports = load_reports()
        width = max(len(n) for n in reports) if reports else 0
        for r in reports.values():
            takes = f" [{', '.join(p.name for p in r.params)}]" if r.params else ""
            click.echo(f"{r.name:<{width}}  {r.description or r.title}{takes}")
        return
    if not name:
        raise click.UsageError("name a report, or use --list to see them")
    chosen = find_report(name)
    given: dict[str, object] = dict(params)
    for key, value in (("from_date", from_date), ("to_date", to_date), ("profile", profile_filter),
                       ("table_name", table_name)):
        if value is not None:
            given[key] = value
    from audit.resources import data_dir

    _query(db, lake, chosen.sql, report_params(chosen, given), _Output(fmt, output, escape_formulas, columns),
           timeout, {str(data_dir("reports") / f"{chosen.name}.sql"): "the report's SQL file"})


SQL_EXAMPLES = [
    "audit sql \"SELECT rule, count(*) AS n FROM finding_details GROUP BY rule ORDER BY n DESC\"",
    "# with no database (no --db, $AUDIT_DB or audit.duckdb here) a query runs in memory",
    "audit sql \"SELECT 21 * 2 AS answer\"",
    "# the query from a file (or '-' for standard input), with a named parameter",
    "audit sql --query-file week.sql -p day 2026-11-28 -f csv -o week.csv",
    "echo 'SELECT * FROM pot_details WHERE misawarded' | audit sql - -f jsonl",
    "# what the tables and views hold, with their comments",
    "audit sql \"SELECT table_name, column_name, comment FROM duckdb_columns() WHERE comment IS NOT NULL\"",
]


@click.command(short_help="Run one read-only SQL query on the database or a lake.",
               epilog=epilog(SQL_EXAMPLES, "data"))
@click.argument("query", required=False)
@click.option("--query-file", "query_file", default=None, metavar="FILE",
              help="Read the query from FILE ('-': standard input) instead of the argument.")
@db_option
@param_option
@lake_option
@format_options
def sql(query: str | None, query_file: str | None, db: str, params: tuple[tuple[str, str], ...], lake: str | None,
        fmt: str, output: str | None, escape_formulas: bool, timeout: float | None, columns: str | None) -> None:
    """Run one read-only SQL QUERY on the database (writes are refused). QUERY '-' reads it from standard
    input. The views hand_details, finding_details, player_hands, pot_details, action_details,
    session_details and streets are the place to start (docs/reference/database.md). With no --db, no
    $AUDIT_DB and no audit.duckdb here, the query runs in memory (SELECT 1 + 1, a VALUES list)."""
    from audit.cli.options import DEFAULT_DB

    text = _query_text(query, query_file)
    source = click.get_current_context().get_parameter_source("db")
    in_memory = lake is None and source == click.core.ParameterSource.DEFAULT and not os.path.exists(DEFAULT_DB)
    _query(None if in_memory else db, lake, text, dict(params) or None,
           _Output(fmt, output, escape_formulas, columns), timeout,
           {query_file: "the query file"} if query_file is not None else {})


def _query_text(query: str | None, query_file: str | None) -> str:
    if query is not None and query_file is not None:
        raise click.UsageError("give the query or --query-file, not both")
    source = query_file if query_file is not None else "-" if query == "-" else None
    if source is None:
        if query is None:
            raise click.UsageError("give a query, --query-file FILE, or '-' to read it from standard input")
        return query
    try:
        if source == "-":
            return sys.stdin.read()
        with open(source, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise AuditError(f"{source}: the query cannot be read ({reason})") from None


@dataclass(frozen=True)
class _Output:
    """How ``report`` and ``sql`` write their rows: the format, the file (``None``: standard output), CSV's
    formula guard and ``--columns`` as given."""

    fmt: str
    output: str | None
    escape_formulas: bool
    columns: str | None


def _query(db: str | None, lake: str | None, text: str, params: dict[str, object] | None, out: _Output,
           timeout: float | None, inputs: dict[str, str]) -> None:
    """Run ``text`` on ``db`` (``None``: in memory, or the lake ``lake``) and write its rows as ``out`` says;
    ``out.output`` is none of ``inputs`` (the query's file: path → what it is), the database's files or the
    lake. A table left to its default on a terminal too narrow for it is written as ``line``."""
    import shutil

    from audit.outfile import database_files, refuse_clobber
    from audit.store.db import Store, check_db_name
    from audit.store.formats import text_types, write_result
    from audit.store.sql import IN_MEMORY, run_query

    fmt, output = out.fmt, out.output
    if db is not None:
        check_db_name(db)
    if fmt == "parquet" and not output:
        raise AuditError("--format parquet needs --output FILE")
    source: str | Callable[[], Store] = db if db is not None else IN_MEMORY
    if lake is not None:
        from functools import partial

        from audit.lake.query import open_lake_store

        inputs = {**inputs, lake: "the lake being read"}
        source = partial(open_lake_store, lake)
    elif db is not None:
        inputs = {**inputs, **database_files(db)}
    if output:
        refuse_clobber(output, inputs)
    columns = [c.strip() for c in out.columns.split(",") if c.strip()] if out.columns is not None else None
    width = shutil.get_terminal_size().columns if fmt == "table" and not output and sys.stdout.isatty() else None
    vertical = click.get_current_context().get_parameter_source("fmt") == click.core.ParameterSource.DEFAULT

    def sink(names: list[str], batches: Any, schema: Any) -> int:
        return write_result(names, batches, fmt, output, escape_formulas=out.escape_formulas, schema=schema,
                            width=width, columns=columns, vertical=vertical)

    run_query(source, text, params, sink, timeout, as_text=text_types(fmt))


# ---------------------------------------------------------------------------------------------- export
@click.command(short_help="Every table as Parquet, by session date.",
               epilog=epilog(["audit export --db club.duckdb --parquet lake/",
                              "duckdb -c \"SELECT count(*) FROM read_parquet('lake/hands/**/*.parquet', "
                              "hive_partitioning = true)\""], "data"))
@db_option
@click.option("--parquet", "directory", required=True, metavar="DIR",
              help="Write each table to DIR/<table>/session_date=YYYY-MM-DD/*.parquet. DIR must be new, empty, "
                   "or an earlier export (replaced whole); a folder holding anything else is refused.")
@quiet_option
def export(db: str, directory: str, quiet: bool) -> None:
    """Export every table as Parquet, partitioned by session date, for any engine to query."""
    import duckdb

    from audit.store.db import Store, check_db_name
    from audit.textout import counted

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
    if not quiet:
        click.echo(printable(f"exported {counted(len(counts), 'table')} ({counted(sum(counts.values()), 'row')}) "
                             f"to {directory}: " + ", ".join(f"{t} {n:,}" for t, n in counts.items())))


COMMANDS: list[click.Command] = [ingest, report, sql, export, upgrade]
