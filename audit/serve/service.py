"""The service's work, behind the routes: store an upload, check a log, explain a stored hand, run a report.

``Service`` holds what lives as long as the server: the settings, the database (``audit.serve.db``), the one
writer thread, and three pools that keep work off the event loop, so that slow work never makes a quick request
wait:

- **reads** (threads): the database's quick look-ups (a club's uploads, findings, a log's text);
- **audits**: the uploads and checks (threads of this process by default; worker processes with ``--workers N``
  above 1, a dead one replaced and its upload tried once more); at most ``audit_memory`` bytes of logs are
  audited at once (a larger log alone), the rest wait their turn;
- **explanations** (threads): a hand's dispute page, a log's verdicts, a report; each club runs at most
  ``club_running`` of them at once and ``club_waiting`` more wait, for ``queue_wait`` seconds at most: past
  either, the club is answered 503 with ``Retry-After`` (``Busy``) and the other clubs never notice. The pool
  has ``club_running + 1`` threads, so one club's jobs never fill it: another club's job finds a thread free
  (when two clubs both run theirs, a third club's job waits for the first thread to finish).

The parsers and the engine are safe in threads. The routes await its methods and never reach into the engine.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import hashlib
import logging
import math
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import IO, Any, TypeVar

from audit.errors import AuditError
from audit.serve.db import LOCAL_CLUB, Outcome, ServiceDB, Upload, UploadWrite, audit_upload, duplicate_outcome, write_upload
from audit.serve.writer import Writer
from audit.trust.keys import ServiceKey

T = TypeVar("T")
log = logging.getLogger("audit.serve")

MB = 1024 * 1024

current_club: contextvars.ContextVar[str | None] = contextvars.ContextVar("current_club", default=None)
"""The club the request in this task acts for (set by ``deps`` once it knows it): whose turn a slow job takes."""


@dataclass(frozen=True)
class Settings:
    """How the service runs (``audit serve``'s options, and the limits it keeps)."""

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
    header_timeout: float = 5.0
    """Longest time, in seconds, for a connection to send a whole request head (line and headers), from the
    moment it opens or its first byte arrives; then it is closed."""
    max_requests: int = 200
    """Most requests in progress at once (503 above); connections waiting for a request head do not count."""
    club_requests: int = 50
    """Most requests of one club in progress at once (503 above): one club never takes every turn."""
    client_requests: int = 64
    """Most requests from one client address in progress at once (503 above); above ``club_requests`` plus
    ``client_strangers``, so that clubs behind one address (a proxy on this machine) still get in."""
    stranger_requests: int = 32
    """Most requests without a valid token in progress at once, from all addresses (503 above)."""
    client_strangers: int = 8
    """Most requests without a valid token from one address in progress at once (503 above)."""
    stranger_body: int = 4096
    """Largest body of a request without a valid token, in bytes (a sign-in form is a few hundred; 413 above)."""
    stranger_deadline: float = 10.0
    """Longest time, in seconds, to receive the whole body of a request without a valid token (408 after it)."""
    max_connections: int = 2000
    """Most open connections: past it, the oldest one that has not sent a whole request head is closed."""
    club_running: int = 2
    """Explanations (a hand's page, a log's verdicts) one club runs at once."""
    club_waiting: int = 8
    """Explanations of one club that may wait for a turn (503 above)."""
    queue_wait: float = 30.0
    """Longest time, in seconds, a club's explanation waits for its turn and runs before the client gets 503."""
    audit_memory: int = 32 * MB
    """Most bytes of logs audited at once (a larger log is audited alone); the others wait their turn."""


class Busy(Exception):
    """The club has too much slow work in progress: answered 503 with ``Retry-After``."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("busy")
        self.retry_after = retry_after


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


def slow(work: Callable[..., T]) -> Callable[..., T]:
    """Mark ``work`` as slow: ``Service.in_thread`` runs it in the explanations pool, in the club's turn."""
    work.slow = True  # type: ignore[attr-defined]
    return work


class ClubTurns:
    """Each club's turns at the explanations pool: ``running`` at once, ``waiting`` more in line, first come
    first served; a job waits and runs ``limit`` seconds at most before its client is answered ``Busy``. A job
    answered so still holds its turn until it ends (a thread cannot be stopped), so a club can never have more
    than ``running`` jobs in the pool."""

    def __init__(self, running: int, waiting: int, limit: float) -> None:
        self.running = running
        self.waiting = waiting
        self.limit = limit
        self._busy: dict[str, int] = collections.defaultdict(int)
        self._line: dict[str, collections.deque[asyncio.Future[None]]] = collections.defaultdict(collections.deque)

    def retry_after(self) -> int:
        return max(1, math.ceil(self.limit / 2))

    async def run(self, club: str, pool: Executor, work: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limit
        line = self._line[club]
        if self._busy[club] >= self.running or line:
            if len(line) >= self.waiting:
                raise Busy(self.retry_after())
            turn: asyncio.Future[None] = loop.create_future()
            line.append(turn)
            try:
                await asyncio.wait_for(asyncio.shield(turn), timeout=self.limit)
            except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
                if turn.done() and not turn.cancelled():
                    self._release(club)  # the turn came as the wait ended: give it on
                else:
                    turn.cancel()
                    if turn in line:
                        line.remove(turn)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                raise Busy(self.retry_after()) from None
        else:
            self._busy[club] += 1
        # the turn is ours (``_release`` counted it when it handed it on)
        future = loop.run_in_executor(pool, work, *args)
        future.add_done_callback(lambda _: self._release(club))
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout=max(deadline - loop.time(), 0.001))
        except asyncio.TimeoutError:
            future.add_done_callback(_drop_result)
            raise Busy(self.retry_after()) from None

    def _release(self, club: str) -> None:
        line = self._line[club]
        while line:
            turn = line.popleft()
            if not turn.done():
                turn.set_result(None)  # the turn passes to the next in line; the count stays
                return
        self._busy[club] -= 1
        if not self._busy[club]:
            del self._busy[club]
            self._line.pop(club, None)


def _drop_result(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: an abandoned job's error is not reported as never seen


class MemoryTurns:
    """At most ``limit`` bytes of logs audited at once, first come first served (a larger log waits until it is
    alone, then goes)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._line: collections.deque[tuple[int, asyncio.Future[None]]] = collections.deque()

    @asynccontextmanager
    async def hold(self, size: int) -> AsyncIterator[None]:
        size = max(size, 1)
        if self._line or not self._fits(size):
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._line.append((size, turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._give(size)
                else:
                    self._line = collections.deque(x for x in self._line if x[1] is not turn)
                    self._wake()
                raise
        else:
            self.used += size
        try:
            yield
        finally:
            self._give(size)

    def _fits(self, size: int) -> bool:
        return self.used == 0 or self.used + size <= self.limit

    def _give(self, size: int) -> None:
        self.used -= size
        self._wake()

    def _wake(self) -> None:
        while self._line and self._fits(self._line[0][0]):
            size, turn = self._line.popleft()
            if not turn.done():
                self.used += size
                turn.set_result(None)


class Service:
    """Everything the routes need, opened by ``start`` and closed by ``stop``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._db: ServiceDB | None = None
        self._writer: Writer | None = None
        self._pool: Executor | None = None
        self._reads: ThreadPoolExecutor | None = None
        self._audits: ThreadPoolExecutor | None = None
        self._explains: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self.turns = ClubTurns(settings.club_running, settings.club_waiting, settings.queue_wait)
        self.memory = MemoryTurns(settings.audit_memory)
        self._control: Any = None  # the control socket for backups (audit.serve.control)
        self._key: ServiceKey | None = None  # the service's signing key (audit.trust.keys), read at start

    @property
    def db(self) -> ServiceDB:
        if self._db is None:
            raise RuntimeError("the service is not started")
        return self._db

    @property
    def key(self) -> ServiceKey:
        if self._key is None:
            raise RuntimeError("the service is not started")
        return self._key

    @property
    def started(self) -> bool:
        return self._db is not None

    def start(self) -> None:
        """Open the database (``AuditError`` when another program holds it), start the writer and the pools."""
        self._db = ServiceDB(self.settings.db)
        from audit.trust.keys import key_path, load_or_create

        try:
            self._key = load_or_create(key_path(self.settings.db))  # made at first start, 0600
        except BaseException:
            self._db.close()
            self._db = None
            raise
        self._writer = Writer(self._db.new_cursor())
        self._reads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="audit-read")
        # one thread more than a club may run at once: a club whose turn comes finds a thread free, whatever one
        # other club keeps running (with 2 threads, one club's 2 jobs held both and the other clubs' waited)
        self._explains = ThreadPoolExecutor(max_workers=self.settings.club_running + 1,
                                            thread_name_prefix="audit-explain")
        self._audits = ThreadPoolExecutor(max_workers=2, thread_name_prefix="audit-work")
        self._pool = self._new_pool() if self.settings.workers > 1 else self._audits
        from audit.serve.control import ControlServer

        self._control = ControlServer(self.settings.db, self._writer.submit)
        self._control.start()
        if self._control.problem:
            log.warning("audit backup cannot reach this service: %s", self._control.problem)

    def _new_pool(self) -> Executor:
        import multiprocessing

        # spawn, not fork: this process holds a DuckDB connection and threads that a fork would copy mid-lock
        return ProcessPoolExecutor(self.settings.workers, mp_context=multiprocessing.get_context("spawn"))

    def stop(self) -> None:
        """Finish the writes already queued (each whole), then close the pools and the database (again: nothing)."""
        if self._control is not None:
            self._control.stop()
            self._control = None
        if self._writer is not None:
            self._writer.stop()
        if self._pool is not None and self._pool is not self._audits:
            self._pool.shutdown(wait=True, cancel_futures=True)
        for pool in (self._reads, self._explains, self._audits):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        if self._db is not None:
            self._db.close()
        self._db = self._writer = self._pool = self._reads = self._explains = self._audits = None

    def problem(self) -> str | None:
        """Why the service cannot do its work now (``None``: it can): for ``/healthz``."""
        if not self.started:
            return "the service is not started"
        if self.pool_broken():
            return "a worker process died; the workers are started again with the next upload"
        return None

    def pool_broken(self) -> bool:
        """Whether a worker process of the audit pool died (the pool takes no more work until it is replaced)."""
        return bool(getattr(self._pool, "_broken", False))

    def _replace_pool(self, broken: Executor) -> None:
        """A new worker pool in place of ``broken`` (once, however many uploads found it broken)."""
        with self._pool_lock:
            if self._pool is not broken:
                return
            log.warning("a worker process died: starting the workers again")
            self._pool = self._new_pool()
        broken.shutdown(wait=False, cancel_futures=True)

    async def in_thread(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work`` off the event loop: a quick read in the reads pool; slow work (``@slow``: a hand
        explained, a log's verdicts; and a report, whose SQL may read all the club's rows) in the explanations
        pool in the club's turn (``Busy`` when the club has too much of it waiting)."""
        if getattr(work, "slow", False) or getattr(work, "__func__", None) is ServiceDB.report:
            assert self._explains is not None
            return await self.turns.run(current_club.get() or "", self._explains, work, *args)
        assert self._reads is not None
        return await asyncio.get_running_loop().run_in_executor(self._reads, work, *args)

    async def write(self, job: Callable[[Any], T]) -> T:
        """Run ``job(cursor)`` on the one writer thread (a whole transaction) and wait for it."""
        assert self._writer is not None
        return await self._writer.run(job)

    async def audit(self, work: Callable[..., T], *args: Any) -> T:
        """Run an audit in the audit pool (threads, or worker processes). A worker process that died is replaced
        and the work tried once more in the new pool."""
        pool = self._pool
        assert pool is not None
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, work, *args)
        except BrokenProcessPool:
            self._replace_pool(pool)
        assert self._pool is not None
        try:
            return await loop.run_in_executor(self._pool, work, *args)
        except BrokenProcessPool:
            self._replace_pool(self._pool)
            raise AuditError("the audit's worker process stopped twice on this file (it ran out of memory, or "
                             "was stopped); please retry, and report it with the file if it happens again") from None

    # ------------------------------------------------------------------------------------------ uploads
    async def upload(self, club: str, name: str, body: bytes | IO[bytes], profile: str) -> Outcome:
        """Audit one log and store it for ``club`` (one transaction), or say why not. ``body``: the log's bytes,
        or the file it was spooled to as it arrived (read only when its turn to be audited comes)."""
        size = _size(body)
        if not size:
            return Outcome(name, hashlib.sha256(b"").hexdigest(), "unreadable", message=f"{name}: the file is empty")
        async with self.memory.hold(size):
            data = body if isinstance(body, bytes) else await self.in_thread(_read_all, body)
            return await self._upload(club, name, data, profile)

    async def _upload(self, club: str, name: str, data: bytes, profile: str) -> Outcome:
        sha = hashlib.sha256(data).hexdigest()
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

    async def check(self, name: str, body: bytes | IO[bytes], profile: str) -> tuple[list[dict[str, Any]], str | None]:
        """The findings of one log, stored nowhere; or why it cannot be read."""
        size = _size(body)
        if not size:
            return [], f"{name}: the file is empty"
        async with self.memory.hold(size):
            data = body if isinstance(body, bytes) else await self.in_thread(_read_all, body)
            try:
                return await self.audit(check_findings, data, name, profile), None
            except AuditError as exc:
                return [], str(exc)
            except Exception as exc:
                log.exception("checking %s failed", name)
                return [], f"{name}: the audit stopped on an internal error ({type(exc).__name__}); please report it"

    def seal(self, club: str, upload: Upload, receipt: dict[str, Any]) -> dict[str, Any]:
        """A receipt of one of ``club``'s logs with the log's link in the club's chain, signed by the service."""
        if upload.uploaded:
            return self.seal_link(club, "upload", upload.file_sha, receipt)
        return self.seal_link(LOCAL_CLUB, "file", upload.file_sha, receipt)  # a log of audit ingest

    def seal_link(self, club: str, kind: str, subject: str, receipt: dict[str, Any]) -> dict[str, Any]:
        """``receipt`` with the last link of ``club``'s chain of this kind about ``subject`` (a log, a live
        table), signed by the service."""
        from audit.trust.chain import link_of

        link = link_of(self.db.cursor(), club, kind, subject)
        if link is not None:
            receipt = {**receipt, "chain": link.head()}
        return self.key.signed(receipt)

    def chain_head(self, club: str) -> dict[str, Any]:
        """``club``'s chain head, signed."""
        from audit.trust.chain import head

        return self.key.signed(head(self.db.cursor(), club))

    async def text(self, club: str, upload: Upload) -> bytes:
        """The bytes of a club's stored log (``AuditError`` when they are not kept)."""
        data = await self.in_thread(self.db.text, club, upload)
        if data is None:
            raise AuditError(f"{upload.name}: the text of this log is not kept (it was stored by 'audit ingest' "
                             "from a file that has changed or gone); upload it to explain its hands")
        return data


def _size(body: bytes | IO[bytes]) -> int:
    if isinstance(body, bytes):
        return len(body)
    body.seek(0, 2)
    size = body.tell()
    body.seek(0)
    return size


def _read_all(body: IO[bytes]) -> bytes:
    body.seek(0)
    return body.read()
