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

READ_STATEMENTS = ("SELECT", "EXPLAIN")
"""Statement types ``audit sql`` runs: a ``SELECT`` (``WITH``, ``FROM``, ``VALUES``, ``DESCRIBE``, ``SUMMARIZE``,
``SHOW`` are ``SELECT`` statements to DuckDB), or ``EXPLAIN [ANALYZE]`` of one. Anything else (a write, ``COPY``,
``EXPORT``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``, ``PRAGMA``, ``CALL``, ``CREATE SECRET`` …) is refused before
it reaches the database, wherever it hides: DuckDB itself tells the statement's type, and ``EXPLAIN ANALYZE``,
which runs its statement, is judged by the statement it runs."""

Sink = Callable[[list[str], Iterator[Any], Any], object]
"""Takes a result: its column names, an iterator of ``pyarrow.RecordBatch`` and its Arrow schema."""

IN_MEMORY = ":memory:"
"""``run_query``'s source for a query on no database: an empty in-memory one, locked down as a file is."""

_REFUSED = ("audit sql is read-only: refused {what} (only a SELECT, or EXPLAIN [ANALYZE] of one, runs; nothing "
            "is written by a query; files are added with 'audit ingest')")


def refuse_writes(query: str) -> None:
    """``AuditError`` unless ``query`` is exactly one read statement: a ``SELECT``, or ``EXPLAIN [ANALYZE]`` of a
    ``SELECT`` (the database is opened read-only and locked down as well)."""
    statements = _statements(query)
    if not statements:
        raise AuditError("the query is empty")
    if len(statements) > 1:
        raise AuditError("audit sql runs one statement at a time")
    statement = statements[0]
    kind = _kind(statement)
    if kind == "SELECT":
        return
    if kind != "EXPLAIN":
        raise AuditError(_REFUSED.format(what=f"a statement of type {kind}"))
    explained = explained_statement(statement.query)
    if explained is None:
        raise AuditError(_REFUSED.format(what="an EXPLAIN whose statement cannot be told"))
    inner = _statements(explained)
    inner_kind = _kind(inner[0]) if len(inner) == 1 else "MULTI"
    if inner_kind != "SELECT":
        raise AuditError(_REFUSED.format(what=f"EXPLAIN of a statement of type {inner_kind}"))


def _statements(query: str) -> list[Any]:
    import duckdb

    try:
        return list(duckdb.extract_statements(query))
    except duckdb.Error as exc:
        raise AuditError(f"the query failed: {shorten(str(exc), 600)}") from None


def _kind(statement: Any) -> str:
    """The statement's type as DuckDB names it (``SELECT``, ``COPY``, ``PRAGMA`` …); one this duckdb cannot name
    (``UPDATE EXTENSIONS``) is ``UNKNOWN``."""
    try:
        return str(statement.type.name)
    except ValueError:
        return "UNKNOWN"


def explained_statement(text: str) -> str | None:
    """The statement an ``EXPLAIN`` statement (``text``, one statement DuckDB parsed as such) explains, or runs
    with ``ANALYZE``: what follows ``EXPLAIN``, ``ANALYZE`` and a ``(option, …)`` list, found with DuckDB's own
    tokenizer (comments skipped). ``None`` when it cannot be told."""
    import duckdb

    tokens = [(start, kind) for start, kind in duckdb.tokenize(text) if kind != duckdb.token_type.comment]

    def word(i: int) -> str:
        return text[tokens[i][0]:].split(None, 1)[0].upper().rstrip("(,;") if i < len(tokens) else ""

    if word(0) != "EXPLAIN":
        return None
    i = 2 if word(1) in ("ANALYZE", "ANALYSE") else 1
    if i >= len(tokens):
        return None
    rest = text[tokens[i][0]:]
    if not rest.startswith("("):
        return rest
    try:  # EXPLAIN (SELECT …): a statement in brackets, not a list of options
        if len(duckdb.extract_statements(rest)) == 1:
            return rest
    except (duckdb.Error, ValueError):
        pass
    for j in range(i + 1, len(tokens)):  # (ANALYZE, FORMAT json): options hold no brackets of their own
        if text[tokens[j][0]] == ")":
            return text[tokens[j + 1][0]:] if j + 1 < len(tokens) else None
        if text[tokens[j][0]] == "(":
            return None
    return None


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
              timeout: float | None = None, as_text: Callable[[Any], bool | str] | None = None) -> None:
    """Run one read query (``refuse_writes``) on the database ``source`` (opened read-only and locked down), or on
    the read-only store a function gives (``audit.lake.query.open_lake_store``: a lake), and hand its rows,
    streamed, to ``sink``. An error while the rows stream (the query runs as they are read) is the query's:
    ``AuditError``, never mistaken for a failure to write them. ``as_text``: see ``Store.reader``."""
    import duckdb

    from audit.store.db import Store

    refuse_writes(sql)
    check_params(sql, params)
    if source == IN_MEMORY:
        opened = Store.in_memory()
    else:
        opened = Store.open(source, read_only=True) if isinstance(source, str) else source()
    with opened as store, Watchdog(store.con, timeout) as watchdog:
        try:
            names, reader = store.reader(sql, params, as_text=as_text)
        except duckdb.InterruptException:
            raise watchdog.stopped() from None
        except AuditError as exc:
            if source == IN_MEMORY and "Catalog Error" in str(exc):
                first = str(exc).splitlines()[0]
                raise AuditError(f"{first} (no --db, $AUDIT_DB or audit.duckdb here: the query ran in memory, "
                                 "where no table is; name the database with --db FILE)") from None
            raise
        sink(names, _guarded(reader, watchdog), reader.schema)


def check_params(query: str, params: dict[str, object] | None) -> None:
    """``AuditError`` in one line when the parameters given (``-p NAME VALUE``) are not those ``query`` takes
    (``$NAME``): DuckDB would refuse with its own "Binder Error"."""
    wanted = set(_statements(query)[0].named_parameters)
    given = set(params or {})
    takes = ", ".join(f"${name}" for name in sorted(wanted)) or "none"
    for name in sorted(given - wanted):
        raise AuditError(f"-p {shorten(name, 80)}: the query has no parameter ${shorten(name, 80)} "
                         f"(the parameters it takes: {takes})")
    missing = sorted(wanted - given)
    if missing:
        raise AuditError(f"the query takes {', '.join(f'${name}' for name in missing)}: give "
                         + ", ".join(f"-p {name} VALUE" for name in missing))


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
