"""The one writer: every write to the database goes through one thread with its own cursor, one job at a time.

DuckDB lets one process write a database file, and inside the process concurrent writers would conflict; so the
service queues its writes (each upload one transaction, as ``audit ingest`` writes a file) to this thread. The
event loop awaits a job's future and keeps serving; reads run on other cursors and never wait for a write.
Stopping lets the jobs already queued finish (each is a whole transaction), then the thread ends.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

T = TypeVar("T")

_STOP = object()


class Writer:
    """A thread that runs ``job(cursor)`` for each submitted job, in order."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection) -> None:
        from audit.trust.chain import remember_heads

        remember_heads(cursor)  # the one writer: no other connection appends a link while the service runs
        self._cursor = cursor
        self._jobs: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="audit-writer", daemon=True)
        self._accepting = True
        self._thread.start()

    def submit(self, job: Callable[[duckdb.DuckDBPyConnection], T]) -> Future[T]:
        """Queue ``job``; its future holds what it returned or raised."""
        future: Future[T] = Future()
        if not self._accepting:
            future.set_exception(RuntimeError("the service is shutting down"))
            return future
        self._jobs.put((job, future))
        return future

    async def run(self, job: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """Queue ``job`` and wait for it without blocking the event loop. If the waiting request is cancelled
        (the server is stopping), the job still runs to its end: it is one transaction, whole or not at all."""
        return await asyncio.shield(asyncio.wrap_future(self.submit(job)))

    def _run(self) -> None:
        while True:
            item = self._jobs.get()
            if item is _STOP:
                return
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job(self._cursor))
            except BaseException as exc:  # the job's own transaction is rolled back; the writer goes on
                future.set_exception(exc)

    def stop(self, timeout: float | None = None) -> None:
        """Take no new job, let the queued ones finish, and end the thread."""
        self._accepting = False
        self._jobs.put(_STOP)
        self._thread.join(timeout)
