"""The ingest's tasks on the worker pool (``audit.workers.WorkerPool``): each job goes to a worker with the
prefix of the Arrow stream files its rows may be spilled to, and comes back as its worker's answer, in job order.
``run_job`` is the database's task; the lake gives its own writer."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from audit.store.ingest.jobs import IngestJob
from audit.workers import PREFETCH, WorkerPool, answer_tasks, pickled

Sent = tuple[IngestJob, str]
"""What a worker is given: a job, and the prefix of its spill files."""

IngestPool = WorkerPool[Sent, Any]


def start_ingest_pool(count: int, task: Callable[[IngestJob, str], object], fork: bool, then: str) -> IngestPool:
    """``count`` workers running ``task(job, spill prefix)`` for each job; ``then`` ends the sentence of one that
    died (what the user does next)."""
    return WorkerPool(count, _worker_main, task, fork=fork, name_of=_job_name, then=then)


STORED_BEFORE = ("; the files before it are stored. Run the ingest again (with fewer --workers if memory is "
                 "short)")
"""The end of the sentence of a worker that died while the ingest wrote a database."""


def ahead(count: int) -> int:
    """Files sent out or waiting at most, for ``count`` workers: each worker's ``PREFETCH``, and one more each
    audited and waiting for the database."""
    return (PREFETCH + 1) * count


def submit(pool: IngestPool, jobs: list[IngestJob], spill_dir: str) -> None:
    """Send the workers their first files now (``answers`` takes the rest)."""
    pool.submit([(job, os.path.join(spill_dir, f"{n}-")) for n, job in enumerate(jobs)],
                ahead(len(pool.procs)))


def answers(pool: IngestPool) -> Iterator[tuple[IngestJob, Any]]:
    """Each job submitted with its worker's answer, in job order."""
    for (job, _prefix), out in pool.results():
        yield job, out


def _job_name(sent: Sent) -> str:
    return sent[0].path


def _worker_main(conn: Any, task: Callable[[IngestJob, str], object]) -> None:
    """A worker: audit the files the main process sends, one at a time, until the pipe closes."""
    answer_tasks(conn, lambda sent: pickled(task(*sent)))
