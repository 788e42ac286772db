"""The lake's part of the CLI: the options ``ingest``, ``report`` and ``sql`` gain, and what ``ingest`` does with
them (``audit.cli.store`` applies the decorators and calls ``ingest_with_lake``; the work is in ``audit.lake``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from audit.textout import printable

if TYPE_CHECKING:  # pragma: no cover
    from audit.store.ingest import IngestProgress, IngestSummary, Tell

F = TypeVar("F", bound=Callable[..., Any])


def lake_option(f: F) -> F:
    """``--lake DIR`` for ``report`` and ``sql``: run over a lake instead of the database."""
    return click.option("--lake", "lake", default=None, metavar="DIR",
                        help="Run over the Parquet lake DIR (filled by 'audit ingest --lake') instead of --db.")(f)


def lake_ingest_options(f: F) -> F:
    """``--lake DIR``, ``--dask ADDRESS`` and ``--from-lake DIR`` for ``ingest``."""
    f = click.option("--from-lake", "from_lake", default=None, metavar="DIR",
                     help="Load the lake DIR into the --db database (files it holds already are skipped).")(f)
    f = click.option("--dask", "dask", default=None, metavar="ADDRESS|local[:N]",
                     help="With --lake: audit the files on the Dask cluster at ADDRESS (tcp://host:8786), or on a "
                          "local cluster of N worker processes (local: one per core). Needs "
                          "pip install 'audit[dask]'.")(f)
    return click.option("--lake", "lake", default=None, metavar="DIR",
                        help="Write the rows as Parquet under DIR/<table>/ instead of a database (a folder every "
                             "worker can reach; new, empty, or a lake). Without --dask, --workers fill it.")(f)


def uses_lake(lake: str | None, dask: str | None, from_lake: str | None) -> bool:
    """Whether an ``ingest`` goes to or from a lake."""
    return lake is not None or dask is not None or from_lake is not None


def ingest_with_lake(paths: tuple[str, ...], db: str, lake: str | None, dask: str | None, from_lake: str | None,
                     profile: str, options: tuple[tuple[str, str], ...], workers: int,
                     progress: Callable[[IngestProgress], None] | None, tell: Tell,
                     max_stream: int | None = None) -> IngestSummary:
    """``audit ingest`` with ``--lake`` (fill a lake) or ``--from-lake`` (load one into ``--db``): what was done.
    Files whose every Dask worker died are named on stderr (``unfinished``: the caller exits 2 for them)."""
    ctx = click.get_current_context()
    if from_lake is not None:
        if lake is not None or dask is not None:
            raise click.UsageError("--from-lake loads a lake into --db; it goes with neither --lake nor --dask")
        if paths:
            raise click.UsageError("--from-lake loads the lake's files: name no PATHS with it")
        from audit.lake.load import load_lake

        return load_lake(from_lake, db, tell)
    if lake is None:
        raise click.UsageError("--dask spreads the files of a lake: add --lake DIR")
    if ctx.get_parameter_source("db") == click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("--lake writes a lake instead of a database: give --lake or --db, not both (load a "
                               "lake into a database with --db FILE --from-lake DIR)")
    if not paths:
        raise click.UsageError("name the files or folders to ingest")
    from audit.lake.run import ingest_lake

    result = ingest_lake(list(paths), lake, profile, options, workers, dask, progress, tell, max_stream)
    for path in result.unfinished:
        sys.stderr.write(f"audit: {printable(path)} is not in the lake: run the same command again to add it\n")
    return result
