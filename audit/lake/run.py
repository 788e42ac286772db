"""``audit ingest PATH... --lake DIR [--dask ADDRESS|local[:N]]``: every input file one task, run by a Dask cluster
or by the ingest's own worker pool, each worker writing its file's rows into the lake itself.

The run hashes every local file first, as ``audit ingest`` does, and sends no work for a file already complete in
the lake. A file named by an fsspec URL (``s3://…``) is hashed by the worker that copies it, which skips it there
if it is complete. Standard input and pipes are copied into the lake's ``_tmp`` folder first, which every worker
can reach. A worker that dies (the out-of-memory killer, ``kill -9``): Dask gives its task to another worker
(``distributed.scheduler.allowed-failures`` times, 3 by default; a file whose every worker died is reported and
the run exits 2); the worker pool stops the run as ``audit ingest`` does. Either way every file complete in the
lake is complete once, and running the same command again adds the rest.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from audit.errors import AuditError, Interrupted
from audit.lake.layout import Lake, open_lake, sweep_stale_temp
from audit.lake.write import LakeWriter, Outcome, is_url
from audit.store.ingest import (
    MAX_STREAM, FileFailure, IngestJob, IngestProgress, IngestSummary, Tell, plan_jobs, usable_workers,
)
from audit.store.ingest.pool import answers, start_ingest_pool, submit
from audit.textout import counted, printable

DASK_INSTALL = "pip install 'audit[dask]'"
CONNECT_SECONDS = 20
"""How long to wait for a Dask scheduler named by ``--dask ADDRESS`` to answer."""
KEPT = "every file complete in the lake is whole, and running the same command again adds the rest"
"""What a lake keeps when a run stops, as the run's last words say."""
_LOCAL = re.compile(r"local(?::(\d+))?")
_ADDRESS = re.compile(r"([a-z][a-z0-9+]*://)?\[?[\w.:-]+\]?:\d+/?")


@dataclass
class LakeSummary(IngestSummary):
    """What one ``audit ingest --lake`` did (``db`` is the lake's folder)."""

    STORE = "lake"
    unfinished: list[str] = field(default_factory=list)  # files whose every Dask worker died: not in the lake
    worker_peak_mb: list[float] = field(default_factory=list)  # each Dask worker's peak memory (resident set)


@dataclass(frozen=True)
class DaskTarget:
    """Where ``--dask`` sends the files: a scheduler's address, or a local cluster of ``workers`` processes."""

    address: str = ""
    workers: int = 0  # a local cluster of this many worker processes (0: one per core)

    @property
    def local(self) -> bool:
        return not self.address


def dask_target(value: str) -> DaskTarget:
    """``--dask``'s value, checked (with Dask itself) before anything is read or written."""
    text = value.strip()
    local = _LOCAL.fullmatch(text)
    if local:
        count = int(local.group(1)) if local.group(1) else 0
        if local.group(1) and not 1 <= count <= 64:
            raise AuditError(f"--dask {value}: a local cluster has 1 to 64 workers")
        target = DaskTarget(workers=count)
    elif _ADDRESS.fullmatch(text):
        target = DaskTarget(address=text)
    else:
        raise AuditError(f"--dask {printable(value)[:100]}: give a scheduler's address (tcp://host:8786) or "
                         "local[:N] (a cluster of N worker processes on this machine)")
    _require_dask()
    return target


def _require_dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise AuditError(f"--dask needs Dask, which is not installed here: {DASK_INSTALL}") from None
    return distributed


def ingest_lake(paths: list[str], lake_dir: str, profile: str = "home-open",
                options: tuple[tuple[str, str], ...] = (), workers: int = 1, dask: str | None = None,
                progress: Callable[[IngestProgress], None] | None = None, tell: Tell | None = None,
                max_stream: int | None = None) -> LakeSummary:
    """Audit ``paths`` into the lake ``lake_dir`` (created when missing or empty); returns what was done.

    ``dask``: a scheduler's address or ``local[:N]``; without it, ``workers`` processes of the ingest's own pool.
    The same refusals as ``audit ingest`` stop the run before anything is written: a bad profile or option, a
    missing path, a folder that is not a lake. A file that cannot be read is ``tell``-ed and skipped, as
    ``audit.store.ingest.ingest`` does; ``progress`` is called as each file completes.
    """
    from audit.profile import load_profile
    from audit.read import expand_paths

    tell = tell or _silent
    start = time.perf_counter()
    load_profile(profile).with_options(list(options))
    target = dask_target(dask) if dask is not None else None
    local_paths = [p for p in paths if not is_url(p)]
    files = expand_paths(local_paths) if local_paths else []
    urls = expand_urls([p for p in paths if is_url(p)])
    lake = open_lake(lake_dir, create=True)
    _refuse_inputs_in_lake(lake, files)
    sweep_stale_temp(lake)
    summary = LakeSummary(lake_dir, files=len(files) + len(urls))
    scratch = lake.temp_folder("run")  # standard input and pipes, copied where every worker can read them
    try:
        jobs = plan_jobs(files, set(lake.committed), profile, options, summary, spool_dir=str(scratch),
                         max_stream=MAX_STREAM if max_stream is None else max_stream)
        jobs = [replace(job, source=job.source or os.path.abspath(job.path)) for job in jobs]
        jobs += [IngestJob(url, profile, options) for url in urls]
        for failure in summary.failed:
            tell("skipped", failure.message)
        writer = LakeWriter(str(lake.root))
        if not jobs:
            results: Iterator[tuple[IngestJob, Outcome]] = iter(())
        elif target is not None:
            results = _on_dask(target, jobs, writer, summary, tell)
        else:
            results = _on_pool(jobs, writer, workers, str(scratch), tell)
        _collect(results, summary, jobs, progress, tell)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    summary.seconds = time.perf_counter() - start
    return summary


def _silent(kind: str, text: str) -> None:
    pass


def expand_urls(urls: list[str]) -> list[str]:
    """The files fsspec URLs name (a pattern such as ``s3://bucket/logs/*.txt`` names every file it matches)."""
    if not urls:
        return []
    try:
        import fsspec
    except ImportError:  # pragma: no cover - fsspec comes with dask
        raise AuditError(f"{urls[0]}: reading URLs needs fsspec: pip install 'audit[s3]'") from None
    out: list[str] = []
    for url in urls:
        try:
            opened = fsspec.open_files(url, "rb")
        except (ImportError, ValueError) as exc:
            raise AuditError(f"{url}: this kind of URL cannot be read here ({exc}); for s3:// install "
                             "'audit[s3]'") from None
        except OSError as exc:
            raise AuditError(f"{url}: cannot be listed ({exc.strerror or exc})") from None
        if not opened:
            raise AuditError(f"{url}: no such file")
        protocol = url.split("://", 1)[0]
        for item in opened:
            path = str(item.path)
            out.append(path if "://" in path else f"{protocol}://{path}")
    return out


def _refuse_inputs_in_lake(lake: Lake, files: list[str]) -> None:
    for path in files:
        if path != "-" and os.path.realpath(path).startswith(str(lake.root) + os.sep):
            raise AuditError(f"{path}: this file is inside the lake; name inputs outside it (nothing was written)")


# ---------------------------------------------------------------------------------------------- executors
def _on_pool(jobs: list[IngestJob], writer: LakeWriter, workers: int, scratch: str,
             tell: Tell) -> Iterator[tuple[IngestJob, Outcome]]:
    """The ingest's own worker pool (or this process, for one worker)."""
    count = usable_workers(workers, len(jobs))
    if count < workers and len(jobs) > count:
        tell("note", f"using {counted(count, 'worker')} (one per core this machine gives the ingest)")
    if count <= 1:
        for job in jobs:
            yield job, writer(job)
        return
    pool = start_ingest_pool(count, writer, fork=False, then=f"; {KEPT} (with fewer --workers if memory is short)")
    try:
        submit(pool, jobs, scratch)
        yield from answers(pool)
    finally:
        pool.close()


def _on_dask(target: DaskTarget, jobs: list[IngestJob], writer: LakeWriter, summary: LakeSummary,
             tell: Tell) -> Iterator[tuple[IngestJob, Outcome]]:
    """A Dask cluster: one task per file, results as they come."""
    distributed = _require_dask()
    from distributed import KilledWorker

    cluster = None
    if target.local:
        count = usable_workers(target.workers or 64, len(jobs))
        if target.workers and count < target.workers and len(jobs) > count:
            tell("note", f"using {counted(count, 'worker')} (one per core this machine gives the ingest)")
        # The workers ignore Ctrl-C, as the pool's do (a process started while SIGINT is ignored keeps ignoring
        # it): this process stops them, and none prints a traceback of its own.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            cluster = distributed.LocalCluster(n_workers=count, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=logging.CRITICAL)
        except (OSError, RuntimeError, TimeoutError) as exc:
            raise AuditError(f"--dask local: the local Dask cluster did not start ({exc})") from None
        finally:
            signal.signal(signal.SIGINT, previous)
    try:
        try:
            client = distributed.Client(cluster if cluster is not None else target.address,
                                        timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise AuditError(f"--dask {target.address}: cannot reach the Dask scheduler ({exc}); is it running, "
                             "and is the address right?") from None
        futures: list[Any] = []
        try:
            futures = client.map(writer, jobs, pure=False)
            job_of = {future.key: job for future, job in zip(futures, jobs)}
            for future in distributed.as_completed(futures, loop=client.loop):
                job = job_of[future.key]
                try:
                    out = future.result()
                except KilledWorker:
                    out = FileFailure(job.path, f"{job.path}: every Dask worker that took it died (out of memory, "
                                                "killed); it is not in the lake")
                    summary.unfinished.append(job.path)
                except ImportError as exc:
                    raise AuditError(f"the Dask workers cannot run the audit ({exc}); install the same audit on "
                                     f"every worker ({DASK_INSTALL})") from None
                except Exception as exc:
                    raise AuditError(f"the Dask cluster stopped the run ({type(exc).__name__}: {exc}); every file "
                                     "complete in the lake is whole, and running the same command again adds the "
                                     "rest") from None
                yield job, out
            summary.worker_peak_mb = _worker_peaks(client)
        finally:
            if futures:
                client.cancel(futures)
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _worker_peaks(client: Any) -> list[float]:
    """Each worker process's peak resident memory so far, in MB (Linux and macOS; empty elsewhere)."""
    try:
        peaks = client.run(_peak_mb)
    except Exception:  # a worker gone meanwhile: the figure is only informative
        return []
    return sorted(float(v) for v in peaks.values())


def _peak_mb() -> float:
    import resource

    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / (1024 * 1024) if sys.platform == "darwin" else kb / 1024


# ---------------------------------------------------------------------------------------------- the run
def _collect(results: Iterator[tuple[IngestJob, Outcome]], summary: LakeSummary, jobs: list[IngestJob],
             progress: Callable[[IngestProgress], None] | None, tell: Tell) -> None:
    """Count what became of each file as it completes (in whatever order the workers finish them)."""
    state = IngestProgress(len(jobs), bytes_total=sum(j.size for j in jobs))
    if progress is not None and jobs:
        progress(state)
    try:
        for job, out in results:
            summary.add(out, tell, KEPT)
            if progress is not None:
                state.done += 1
                state.bytes_done += job.size
                state.hands += _hands(out)
                progress(state)
    except KeyboardInterrupt:
        raise Interrupted("interrupted; every file completed in the lake is whole, and running the same command "
                          "again adds the rest") from None
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # a Dask cluster or worker pool stops now, not when the traceback is freed


def _hands(out: Outcome) -> int:
    return out.hands + out.parse_errors + out.skipped_hands if out is not None and not isinstance(out, FileFailure) \
        else 0
