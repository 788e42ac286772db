"""Worker processes that answer over pipes, shared by ``audit check --jobs`` (``audit.parallel``) and ``audit
ingest --workers`` and the lake (``audit.store.ingest``): how many cores there are, starting the workers with
Ctrl-C ignored (the main process stops them, so no worker prints a traceback of its own), stopping them, and
saying in plain words how one ended without answering.

Two ways to start them: ``start_workers``, with a ``multiprocessing`` context (fork or spawn); and
``fork_workers``, plain ``os.fork`` and pipes, for ``audit check``, whose start-up is part of every check (the
``multiprocessing`` machinery cost it about 12 ms before the first worker had its first task). Both give
processes and pipe ends used the same way (``send``/``recv``/``send_bytes``/``recv_bytes``/``poll``, a
``sentinel`` readable once the process is gone, ``is_alive``/``join``/``exitcode``/``terminate``/``kill``), and
``ready`` waits for any of them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

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
