"""``audit.check.check_paths`` over the same paths at each number of jobs, run as a script in a fresh interpreter
(``python tests/checkjobs.py PATH...``; one JSON object out: ``"fmt lang jobs"`` -> ``[stdout, stderr, worst]``).

The test process cannot show what ``audit check`` does with its workers: its other test modules load DuckDB and
start threads, and a process holding either spawns its workers (``audit.workers.may_fork``) where the command,
one thread and no DuckDB, forks them. Here, as in the command, they are forked, which also spares each run the
start of fresh interpreters: half the CPU time, 12.3 s -> 6.4 s for two folders (/usr/bin/time of
``pytest tests/test_parallel.py tests/test_store.py -k "same_output and (rules or profiles)"``, plain Python,
2026-12-04)."""

from __future__ import annotations

import io
import json
import sys

from audit.check import check_paths
from audit.errors import AuditError
from audit.profile import load_profile

FORMATS = [("text", "en"), ("json", "en"), ("text", "es")]
JOBS = (1, 2, 3)


def run_check(paths: list[str], fmt: str, lang: str, jobs: int, chunk_bytes: int = 1) -> tuple[str, str, object]:
    """What ``check_paths`` writes and returns (or the message it stops with), in parts as small as the cuts
    allow (``chunk_bytes=1``: a long file is cut at every place it may be)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        worst: object = check_paths(paths, load_profile("home-open"), fmt, out, lang, err, jobs=jobs,
                                    chunk_bytes=chunk_bytes)
    except AuditError as exc:
        worst = f"stopped: {exc}"
    return out.getvalue(), err.getvalue(), worst


def main(paths: list[str]) -> None:
    json.dump({f"{fmt} {lang} {jobs}": run_check(paths, fmt, lang, jobs) for fmt, lang in FORMATS for jobs in JOBS},
              sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
