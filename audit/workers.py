"""The one worker pool under every command that fans out: ``audit check --jobs`` (``audit.parallel``), ``audit
ingest --workers`` (``audit.store.ingest``) and the lake (``audit.lake.run``).

``WorkerPool`` sends tasks to worker processes, each answering over a pipe, and gives their answers back in the
order the tasks came: a worker holds the task it works on and the next one (``PREFETCH``), and at most ``ahead``
tasks are out at once. A worker that ends without answering (the out-of-memory killer, ``kill -9``) is noticed at
once, where a ``multiprocessing.Pool`` would wait for it forever: the answers before its first unfinished task are
still given, then ``WorkerDied`` names that task, in one sentence for every command (``died``).

Two ways to start the workers: forked (``fork_workers``: plain ``os.fork`` and pipes; they start at once with
everything this process imported, which ``audit check`` needs: the ``multiprocessing`` machinery cost it about
12 ms before the first worker had its first task), or spawned (``start_workers``, a ``multiprocessing`` context),
each a fresh interpreter, for a process that must not be forked (``may_fork``). Either way the workers ignore
Ctrl-C from their first step: the main process stops them, so no worker prints a traceback of its own.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from audit.errors import AuditError

# (``pickle``, ``select`` and ``signal`` are imported where they are used: a check with no worker, the most common
# one, needs none of them, and they cost about 2 ms of its start; ``fork_workers`` imports them before it forks)


class WorkerDied(AuditError):
    """A worker process ended without an answer (killed: out of memory, ``kill -9``)."""


def cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def start_workers(ctx: Any, count: int, target: Any, arg: Any) -> tuple[list[Any], list[Any]]:
    """``count`` processes of the multiprocessing context ``ctx`` running ``target(pipe end, arg)``, with Ctrl-C
    ignored from their first step; returns their processes and this side's pipe ends."""
    procs: list[Any] = []
    conns: list[Any] = []
    with _ctrl_c_ignored():
        for _ in range(count):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=target, args=(theirs, arg), daemon=True)
            proc.start()
            theirs.close()
            procs.append(proc)
            conns.append(mine)
    return procs, conns


@contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    """Ctrl-C ignored while workers start: they inherit it, ignored from their first step."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class PipeEnd:
    """One end of a worker's two pipes (read from one, write to the other): whole messages, each a length and
    then its bytes, as ``multiprocessing``'s connections carry them."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd

    def fileno(self) -> int:
        return self.read_fd

    def send_bytes(self, data: bytes) -> None:
        view = memoryview(len(data).to_bytes(8, "little") + data)
        while view:
            view = view[os.write(self.write_fd, view):]

    def send(self, obj: object) -> None:
        import pickle

        self.send_bytes(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))

    def _read(self, size: int) -> bytes:
        parts: list[bytes] = []
        while size:
            part = os.read(self.read_fd, min(size, 1 << 20))
            if not part:
                raise EOFError("the other end of the pipe is closed")
            parts.append(part)
            size -= len(part)
        return b"".join(parts)

    def recv_bytes(self) -> bytes:
        return self._read(int.from_bytes(self._read(8), "little"))

    def recv(self) -> Any:
        import pickle

        return pickle.loads(self.recv_bytes())

    def poll(self) -> bool:
        """Whether something (a message, or the end of the pipe) can be read without waiting."""
        return _readable(self.read_fd, 0)

    def close(self) -> None:
        for fd in {self.read_fd, self.write_fd}:
            try:
                os.close(fd)
            except OSError:
                pass


class ForkedWorker:
    """A worker started with ``os.fork``, seen from the main process."""

    def __init__(self, pid: int, sentinel: int) -> None:
        self.pid = pid
        self.sentinel = sentinel  # a pipe end that reads as closed once the worker is gone
        self.exitcode: int | None = None

    def _reap(self, flags: int) -> None:
        if self.exitcode is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:  # pragma: no cover - reaped by someone else (SIGCHLD ignored): status unknown
                self.exitcode = 0
                return
            if pid:
                self.exitcode = os.waitstatus_to_exitcode(status)

    def is_alive(self) -> bool:
        self._reap(os.WNOHANG)
        return self.exitcode is None

    def join(self, timeout: float | None = None) -> None:
        if timeout is None:
            self._reap(0)
            return
        if _readable(self.sentinel, timeout):
            self._reap(0)
        else:
            self._reap(os.WNOHANG)

    def terminate(self) -> None:
        import signal

        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        import signal

        self._signal(signal.SIGKILL)

    def _signal(self, signum: int) -> None:
        if self.exitcode is None:
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass


def _readable(fd: int, timeout: float) -> bool:
    """Whether ``fd`` can be read (or is closed at its other end) within ``timeout`` seconds."""
    import select

    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(int(timeout * 1000)))


def fork_workers(count: int, target: Callable[[PipeEnd, Any], None], arg: Any) -> tuple[list[Any], list[Any]]:
    """``count`` processes forked from this one running ``target(pipe end, arg)`` (Ctrl-C ignored from their
    first step, every other worker's pipe ends closed in them); returns them and this side's pipe ends. A worker
    leaves with ``os._exit``: 0 when ``target`` returns, 1 (after its traceback) when it raises. This process's
    buffered output is flushed first (a worker would write it again), and the collector leaves the objects the
    workers share with it untouched (``gc.freeze`` while they are forked: copied pages stay shared)."""
    import gc
    import pickle  # noqa: F401 - what the pipes and the workers use, imported once here, not after the fork in
    import select  # noqa: F401   every process (about 4 ms each there, and the first tasks waited for the main
    import signal  # noqa: F401   process's)

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    procs: list[Any] = []
    conns: list[Any] = []
    ours: list[int] = []  # this process's ends of the workers started so far
    gc.freeze()
    try:
        _fork_each(count, target, arg, procs, conns, ours)
    finally:
        gc.unfreeze()
    return procs, conns


def _fork_each(count: int, target: Callable[[PipeEnd, Any], None], arg: Any, procs: list[Any], conns: list[Any],
               ours: list[int]) -> None:
    """``fork_workers``' forks, appended to ``procs`` and ``conns`` as they start."""
    with _ctrl_c_ignored():
        for _ in range(count):
            to_worker, from_main = os.pipe()
            to_main, from_worker = os.pipe()
            alive_read, alive_write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker
                status = 1
                try:
                    for fd in ours + [from_main, to_main, alive_read]:
                        os.close(fd)
                    target(PipeEnd(to_worker, from_worker), arg)
                    status = 0
                except BaseException:
                    import traceback
                    traceback.print_exc()
                finally:
                    try:
                        sys.stderr.flush()
                    finally:
                        os._exit(status)
            for fd in (to_worker, from_worker, alive_write):
                os.close(fd)
            procs.append(ForkedWorker(pid, alive_read))
            conns.append(PipeEnd(to_main, from_main))
            ours += [to_main, from_main, alive_read]


def ready(waiting: Sequence[Any]) -> list[Any]:
    """The pipe ends and sentinels (objects with ``fileno()``, or file descriptors) of ``waiting`` that can be
    read now, waiting until one can."""
    import select

    poller = select.poll()
    by_fd: dict[int, Any] = {}
    for item in waiting:
        fd = item if isinstance(item, int) else item.fileno()
        by_fd[fd] = item
        poller.register(fd, select.POLLIN)
    return [by_fd[fd] for fd, _ in poller.poll()]  # (a signal's interruption is retried by Python itself)


def stop_workers(procs: list[Any], conns: list[Any]) -> None:
    """Stop every worker (they hold nothing that needs saving) and wait for them."""
    for conn in conns:
        try:
            conn.close()
        except OSError:
            pass
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=10)
        if proc.is_alive():  # pragma: no cover - a worker stuck in a system call
            proc.kill()
            proc.join()
        if isinstance(proc, ForkedWorker):
            try:
                os.close(proc.sentinel)
            except OSError:
                pass


def how_it_ended(exitcode: int | None) -> str:
    """How a worker that did not answer ended, from its exit status: "it was killed (SIGKILL, perhaps for lack
    of memory)", "it stopped with status 3", …"""
    import signal

    how = "it stopped"
    if exitcode is not None and exitcode < 0:
        try:
            how = f"it was killed ({signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"it was killed (signal {-exitcode}"
        how += ", perhaps for lack of memory)" if exitcode == -signal.SIGKILL else ")"
    elif exitcode:
        how = f"it stopped with status {exitcode}"
    return how


def may_fork() -> bool:
    """Whether this process may fork its workers: it runs one thread and has loaded neither DuckDB nor Arrow (a
    fork copies their locks and thread pools half-held). Otherwise they are spawned."""
    import threading

    return (hasattr(os, "fork") and threading.active_count() == 1
            and not any(name in sys.modules for name in ("duckdb", "pyarrow")))


def pickled(answer: object) -> bytes:
    """An answer as a worker sends it."""
    import pickle

    return pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)


def answer_tasks(conn: Any, work: Callable[[Any], bytes]) -> None:
    """A worker's loop: each task the main process sends, answered with ``work(task)`` (the answer's bytes, e.g.
    ``pickled``), one at a time, until the pipe closes."""
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        answer = work(task)
        try:
            conn.send_bytes(answer)
        except OSError:  # the main process is gone: nobody to answer
            return


def died_message(name: str, exitcode: int | None, then: str) -> str:
    """The one sentence for a worker that ended without answering, whichever command ran it: what it was auditing
    (``name``), how it ended, and ``then``, what the command's user does next."""
    return f"the worker process auditing {name} ended without finishing it: {how_it_ended(exitcode)}{then}"


PREFETCH = 2
"""Tasks a worker holds at once: the one it works on, and the next, which waits in its pipe (no pause for the
round trip between two tasks)."""

Task = TypeVar("Task")
Answer = TypeVar("Answer")


class WorkerPool(Generic[Task, Answer]):
    """Worker processes, each running ``worker(pipe end, arg)`` (a setup, then ``answer_tasks``), given tasks and
    giving their answers back in task order.

    ``fork``: forked from this process (``may_fork`` must hold), else spawned. ``name_of(task)`` names a task in
    the sentence of a worker that died (``died_message``), ``then`` ends it."""

    def __init__(self, count: int, worker: Callable[[Any, Any], None], arg: Any, *, fork: bool,
                 name_of: Callable[[Task], str], then: str) -> None:
        if fork:
            self.procs, self.conns = fork_workers(count, worker, arg)
        else:
            import multiprocessing

            self.procs, self.conns = start_workers(multiprocessing.get_context("spawn"), count, worker, arg)
        self.name_of = name_of
        self.then = then
        self.submit(())

    def run(self, tasks: Iterable[Task], ahead: int,
            local: Callable[[Task], Answer | None] | None = None) -> Iterator[tuple[Task, Answer]]:
        """Each task with its answer, in task order (``submit``, then ``results``)."""
        self.submit(tasks, ahead, local)
        return self.results()

    def submit(self, tasks: Iterable[Task], ahead: int = 1,
               local: Callable[[Task], Answer | None] | None = None) -> None:
        """Take ``tasks`` and send the workers their first ones now (``results`` sends the rest): they start while
        this process does something else. ``tasks`` is read as the workers need more (planning the next may mean
        reading a file further), at most ``ahead`` tasks ahead of the answers given. A task for which ``local``
        gives an answer is not sent: that answer is given in its turn (a task the caller does itself)."""
        self._tasks = iter(tasks)
        self._ahead = ahead
        self._local = local
        self._order: dict[int, Task] = {}
        self._answers: dict[int, Answer] = {}
        self._waiting: deque[int] = deque()  # task numbers taken, not yet sent
        self._sent: dict[int, deque[int]] = {w: deque() for w in range(len(self.procs))}  # oldest first
        self._live = list(range(len(self.procs)))
        self._death: tuple[int, str] | None = None  # the first task whose worker died, and the sentence
        self._taken = self._given = 0
        self._more = True
        self._take()

    def _take(self) -> None:
        """Send what can go now, taking tasks while fewer than ``ahead`` are out: each goes out as soon as it is
        taken."""
        self._send()
        while self._more and self._death is None and self._taken - self._given < self._ahead:
            task = next(self._tasks, None)
            if task is None:
                self._more = False
                return
            number = self._taken
            self._order[number] = task
            answer = self._local(task) if self._local is not None else None
            if answer is None:
                self._waiting.append(number)
            else:
                self._answers[number] = answer
            self._taken += 1
            self._send()

    def _send(self) -> None:
        """Tasks to the workers holding fewer than ``PREFETCH``: every worker its first before any its second, and
        a second only while more tasks are left than workers (at the end, a task waiting behind another could have
        gone to a worker left idle)."""
        waiting, live = self._waiting, self._live
        for depth in range(1, PREFETCH + 1):
            for w in live:
                sent = self._sent[w]
                if (waiting and self._death is None and len(sent) < depth
                        and (depth == 1 or self._more or len(waiting) > len(live))):
                    number = waiting.popleft()
                    sent.append(number)
                    try:
                        self.conns[w].send(self._order[number])
                    except OSError:
                        pass  # the worker is gone: its sentinel says so in ``results``

    def results(self) -> Iterator[tuple[Task, Answer]]:
        """The answers of the tasks ``submit`` took, in task order. When a worker dies, the answers before its first
        unfinished task are still given, then ``WorkerDied`` names that task.

        The tasks to send are sent before each answer is given: the caller works between answers (prints, writes
        the database), and a worker that waited for its next task meanwhile would sit idle."""
        while True:
            self._take()
            while self._given in self._answers or (self._death is not None and self._given == self._death[0]):
                if self._death is not None and self._given == self._death[0]:
                    raise WorkerDied(self._death[1])
                number = self._given
                self._given += 1
                self._take()
                yield self._order.pop(number), self._answers.pop(number)
            busy = [w for w in self._live if self._sent[w]]
            if not busy:
                if not self._waiting and (not self._more or self._death is not None) and self._given == self._taken:
                    return
                if not self._live:  # pragma: no cover - every worker died with no task of its own
                    raise WorkerDied(f"every worker process ended{self.then}")
                continue
            self._collect(busy)

    def _collect(self, busy: list[int]) -> None:
        """Wait until a busy worker answers or ends; take every answer that came, and note a worker that died."""
        import pickle

        now = ready([self.conns[w] for w in busy] + [self.procs[w].sentinel for w in busy])
        for w in busy:
            conn, sent = self.conns[w], self._sent[w]
            try:
                while sent and (conn in now or conn.poll()):
                    now = [r for r in now if r is not conn]
                    self._answers[sent.popleft()] = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                pass
            if sent and (self.procs[w].sentinel in now or not self.procs[w].is_alive()):
                first = sent[0]
                sent.clear()
                self._live.remove(w)
                self.procs[w].join(timeout=5)  # its exit status
                if self._death is None or first < self._death[0]:
                    self._death = (first, died_message(self.name_of(self._order[first]), self.procs[w].exitcode,
                                                       self.then))

    def close(self) -> None:
        """Stop every worker (they hold nothing that needs saving) and wait for them."""
        stop_workers(self.procs, self.conns)
