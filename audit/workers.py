"""Worker processes that answer over pipes, shared by ``audit check --jobs`` (``audit.parallel``) and ``audit
ingest --workers`` and the lake (``audit.store.ingest``): how many cores there are, starting the workers with
Ctrl-C ignored (the main process stops them, so no worker prints a traceback of its own), stopping them, and
saying in plain words how one ended without answering."""

from __future__ import annotations

import os
import signal
from typing import Any

from audit.errors import AuditError


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
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited: ignored from the worker's first step
    try:
        for _ in range(count):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=target, args=(theirs, arg), daemon=True)
            proc.start()
            theirs.close()
            procs.append(proc)
            conns.append(mine)
    finally:
        signal.signal(signal.SIGINT, previous)
    return procs, conns


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


def how_it_ended(exitcode: int | None) -> str:
    """How a worker that did not answer ended, from its exit status: "it was killed (SIGKILL, perhaps for lack
    of memory)", "it stopped with status 3", …"""
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
