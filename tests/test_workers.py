"""The one worker pool (audit.workers.WorkerPool) on its own: answers in task order, tasks taken a bounded way
ahead, a task answered here in its place, and a worker that dies said at its first unfinished task. The commands'
own killed-worker tests (test_parallel, test_safety, test_lake) hold check, ingest and the lake to its sentence."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from audit.workers import WorkerDied, WorkerPool, answer_tasks, pickled


def _square_unless_doomed(n: int, doomed: int) -> int:
    if n == doomed:
        os.kill(os.getpid(), signal.SIGKILL)
    return n * n


def _worker(conn: Any, doomed: int) -> None:
    answer_tasks(conn, lambda n: pickled(_square_unless_doomed(n, doomed)))


def _pool(doomed: int = -1) -> WorkerPool[int, int]:
    return WorkerPool(2, _worker, doomed, fork=True, name_of=lambda n: f"task {n}", then=". Try again")


def test_answers_come_in_task_order_and_no_task_is_taken_more_than_ahead() -> None:
    taken: list[int] = []

    def tasks() -> Iterator[int]:
        for n in range(40):
            taken.append(n)
            yield n

    pool = _pool()
    got = []
    try:
        for n, answer in pool.run(tasks(), ahead=3):
            assert len(taken) <= n + 1 + 3, (n, taken)
            got.append((n, answer))
    finally:
        pool.close()
    assert got == [(n, n * n) for n in range(40)]


def test_a_task_answered_here_keeps_its_place() -> None:
    pool = _pool()
    try:
        got = list(pool.run(range(9), ahead=4, local=lambda n: -n if n % 3 == 1 else None))
    finally:
        pool.close()
    assert got == [(n, -n if n % 3 == 1 else n * n) for n in range(9)]


def test_a_dead_worker_is_said_at_its_first_unfinished_task_after_the_answers_before_it() -> None:
    pool = _pool(doomed=5)
    got = []
    try:
        with pytest.raises(WorkerDied) as died:
            for n, answer in pool.run(range(12), ahead=6):
                got.append((n, answer))
    finally:
        pool.close()
    assert got == [(n, n * n) for n in range(5)]
    assert str(died.value) == ("the worker process auditing task 5 ended without finishing it: it was killed "
                               "(SIGKILL, perhaps for lack of memory). Try again")
