"""The service's work, behind the routes: store an upload, check a log, explain a stored hand, run a report.

``Service`` holds what lives as long as the server: the settings, the database (``audit.serve.db``), the one
writer thread, and the pool that audits uploads off the event loop (threads of this process by default; worker
processes with ``--workers N`` above 1; the parsers and the engine are safe in threads). The routes await its
methods and never reach into the engine.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from audit.errors import AuditError
from audit.serve.db import Outcome, ServiceDB, Upload, UploadWrite, audit_upload, duplicate_outcome, write_upload
from audit.serve.writer import Writer

T = TypeVar("T")
log = logging.getLogger("audit.serve")

MB = 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """How the service runs (``audit serve``'s options)."""

    db: str
    host: str = "127.0.0.1"
    port: int = 8000
    max_upload: int = 50 * MB
    """Largest request body, in bytes (413 above)."""
    read_timeout: float = 30.0
    """Longest pause, in seconds, while a client sends its request body (408 after it)."""
    body_deadline: float = 900.0
    """Longest time, in seconds, to receive a whole request body."""
    workers: int = 1
    """1: audit uploads in threads of the server process; more: in that many worker processes."""
    max_files: int = 1000
    """Most files in one multipart request."""


def profile_names() -> list[str]:
    """The profiles an upload may ask for."""
    from audit.profile import profile_names as names

    return names()


def check_profile(name: str | None) -> str:
    """The profile for logs without a ``Profile:`` line: ``name``, or home-open (as ``audit ingest``)."""
    if name is None or name == "":
        return "home-open"
    if name not in profile_names():
        shown = name if len(name) <= 40 else name[:40] + "…"
        raise AuditError(f"unknown profile {shown!r} (known: {', '.join(profile_names())})")
    return name


def check_findings(data: bytes, name: str, profile: str) -> list[dict[str, Any]]:
    """What ``audit check --format json`` prints for one log (``AuditError`` if it cannot be read at all)."""
    from audit.pipeline import audit_bytes
    from audit.profile import load_profile

    return [f.as_dict() for audited in audit_bytes(data, load_profile(profile), name=name) for f in audited.findings]


class Service:
    """Everything the routes need, opened by ``start`` and closed by ``stop``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._db: ServiceDB | None = None
        self._writer: Writer | None = None
        self._pool: Executor | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._control: Any = None  # the control socket for backups (audit.serve.control)

    @property
    def db(self) -> ServiceDB:
        if self._db is None:
            raise RuntimeError("the service is not started")
        return self._db

    @property
    def started(self) -> bool:
        return self._db is not None

    def start(self) -> None:
        """Open the database (``AuditError`` when another program holds it), start the writer and the pool."""
        self._db = ServiceDB(self.settings.db)
        self._writer = Writer(self._db.new_cursor())
        self._threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="audit-work")
        if self.settings.workers > 1:
            import multiprocessing

            # spawn, not fork: this process holds a DuckDB connection and threads that a fork would copy mid-lock
            self._pool = ProcessPoolExecutor(self.settings.workers, mp_context=multiprocessing.get_context("spawn"))
        else:
            self._pool = self._threads
        from audit.serve.control import ControlServer

        self._control = ControlServer(self.settings.db, self._writer.submit)
        self._control.start()
        if self._control.problem:
            log.warning("audit backup cannot reach this service: %s", self._control.problem)

    def stop(self) -> None:
        """Finish the writes already queued (each whole), then close the pool and the database (again: nothing)."""
        if self._control is not None:
            self._control.stop()
            self._control = None
        if self._writer is not None:
            self._writer.stop()
        if self._pool is not None and self._pool is not self._threads:
            self._pool.shutdown(wait=True, cancel_futures=True)
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
        if self._db is not None:
            self._db.close()
        self._db = self._writer = self._pool = self._threads = None

    async def in_thread(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work`` in a thread of the service (reads, explanations), off the event loop."""
        assert self._threads is not None
        return await asyncio.get_running_loop().run_in_executor(self._threads, work, *args)

    async def audit(self, work: Callable[..., T], *args: Any) -> T:
        """Run an audit in the audit pool (threads, or worker processes)."""
        assert self._pool is not None
        return await asyncio.get_running_loop().run_in_executor(self._pool, work, *args)

    # ------------------------------------------------------------------------------------------ uploads
    async def upload(self, club: str, name: str, data: bytes, profile: str) -> Outcome:
        """Audit one log and store it for ``club`` (one transaction), or say why not."""
        sha = hashlib.sha256(data).hexdigest()
        if not data:
            return Outcome(name, sha, "unreadable", message=f"{name}: the file is empty")
        plan = await self.in_thread(self.db.plan, club, sha, profile)
        if plan.duplicate is not None:
            return duplicate_outcome(plan.duplicate, name)
        rows = None
        if plan.needs_audit:
            try:
                rows = await self.audit(audit_upload, data, name, profile, plan.key)
            except AuditError as exc:
                return Outcome(name, sha, "unreadable", message=str(exc))
            except Exception as exc:  # a bug must not look like the log's fault, nor stop the other files
                log.exception("auditing %s failed", name)
                return Outcome(name, sha, "unreadable", message=f"{name}: the audit stopped on an internal error "
                               f"({type(exc).__name__}); please report it with the file")
        job = UploadWrite(club, name, sha, data, profile, plan.key, rows)
        assert self._writer is not None
        return await self._writer.run(lambda cur: write_upload(cur, job))

    async def check(self, name: str, data: bytes, profile: str) -> tuple[list[dict[str, Any]], str | None]:
        """The findings of one log, stored nowhere; or why it cannot be read."""
        if not data:
            return [], f"{name}: the file is empty"
        try:
            return await self.audit(check_findings, data, name, profile), None
        except AuditError as exc:
            return [], str(exc)
        except Exception as exc:
            log.exception("checking %s failed", name)
            return [], f"{name}: the audit stopped on an internal error ({type(exc).__name__}); please report it"

    async def text(self, club: str, upload: Upload) -> bytes:
        """The bytes of a club's stored log (``AuditError`` when they are not kept)."""
        data = await self.in_thread(self.db.text, club, upload)
        if data is None:
            raise AuditError(f"{upload.name}: the text of this log is not kept (it was stored by 'audit ingest' "
                             "from a file that has changed or gone); upload it to explain its hands")
        return data
