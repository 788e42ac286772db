"""Read-only queries: the guard that refuses anything but a read, the ``--timeout`` watchdog, and the run that
streams a query's rows from a locked-down database to whatever writes them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError, Interrupted
from audit.textout import shorten

if TYPE_CHECKING:  # pragma: no cover
    from audit.store.db import Store

READ_STATEMENTS = ("SELECT", "EXPLAIN", "PRAGMA")
"""Statement types ``audit sql`` runs; anything else is refused before it reaches the database."""

Sink = Callable[[list[str], Iterator[Any], Any], object]
"""Takes a result: its column names, an iterator of ``pyarrow.RecordBatch`` and its Arrow schema."""


def refuse_writes(query: str) -> None:
    """``AuditError`` unless ``query`` is exactly one read statement (the database is opened read-only as well)."""
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise AuditError(f"the query failed: {shorten(str(exc), 600)}") from None
    if not statements:
        raise AuditError("the query is empty")
    if len(statements) > 1:
        raise AuditError("audit sql runs one statement at a time")
    kind = statements[0].type.name
    if kind not in READ_STATEMENTS:
        raise AuditError(f"audit sql is read-only: refused a {kind} statement (only {', '.join(READ_STATEMENTS)} "
                         "run; the database is opened read-only, and files are added with 'audit ingest')")


class Watchdog:
    """Interrupts the database's running query once ``seconds`` have passed (``--timeout``)."""

    def __init__(self, con: Any, seconds: float | None) -> None:
        self.con = con
        self.seconds = seconds
        self.fired = False
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Watchdog:
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

    def stopped(self) -> Exception:
        """Why the query stopped: the timeout, or Ctrl-C."""
        if self.fired:
            return AuditError(f"the query ran longer than --timeout {self.seconds:g} s and was stopped")
        return Interrupted("interrupted")


def run_query(source: str | Callable[[], Store], sql: str, params: dict[str, object] | None, sink: Sink,
              timeout: float | None = None) -> None:
    """Run one query on the database ``source`` (opened read-only and locked down), or on the read-only store a
    function gives (``audit.lake.query.open_lake_store``: a lake), and hand its rows, streamed, to ``sink``. An
    error while the rows stream (the query runs as they are read) is the query's: ``AuditError``, never mistaken
    for a failure to write them."""
    import duckdb

    from audit.store.db import Store

    opened = Store.open(source, read_only=True) if isinstance(source, str) else source()
    with opened as store, Watchdog(store.con, timeout) as watchdog:
        try:
            names, reader = store.reader(sql, params)
        except duckdb.InterruptException:
            raise watchdog.stopped() from None
        sink(names, _guarded(reader, watchdog), reader.schema)


def _guarded(reader: Any, watchdog: Watchdog) -> Iterator[Any]:
    batches = iter(reader)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as exc:
            if watchdog.fired or "INTERRUPT" in str(exc):
                raise watchdog.stopped() from None
            raise AuditError(f"the query failed: {shorten(str(exc), 600)}") from None
        yield batch
