"""Benchmark the lake: ``audit ingest --lake DIR --dask local:2`` against ``audit ingest --db FILE --workers 2`` on
the same simulated hands, both printed in one run (and the lake filled by the worker pool, ``--lake --workers 2``).

    .venv/bin/python bench/lake.py                       # 100,000 simulated hands in files of 2,000
    .venv/bin/python bench/lake.py --hands 20000 --keep /tmp/corpus

The corpus is the one ``bench/ingest.py`` builds (house-format sessions from the simulator). Each run is a fresh
process writing a fresh database or lake, so its figures are its own: wall-clock hands/s (the Dask run includes
starting and stopping its local cluster), CPU seconds of the run and all its processes, and peak memory (resident set) of the main process and of each worker (for Dask,
asked of each worker before the cluster stops; for the pool, the largest child). Figures are printed, never
asserted: the machine may be busy.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ingest import build_corpus  # noqa: E402  (bench/ingest.py: the same corpus as the ingest benchmark)

KINDS = {
    "db-workers-2": "audit ingest --db FILE --workers 2",
    "lake-dask-local-2": "audit ingest --lake DIR --dask local:2",
    "lake-workers-2": "audit ingest --lake DIR --workers 2",
}


def run_once(kind: str, corpus: Path, out: Path) -> dict[str, object]:
    """One run in this process (called in a fresh process by ``main``); its figures."""
    err = io.StringIO()

    def tell(kind: str, text: str) -> None:
        err.write(f"{kind}: {text}\n")

    start = time.perf_counter()
    worker_peaks: list[float] = []
    if kind == "db-workers-2":
        from audit.store.ingest import ingest

        summary = ingest([str(corpus)], str(out), workers=2, tell=tell)
    else:
        from audit.lake.run import ingest_lake

        dask = "local:2" if kind == "lake-dask-local-2" else None
        lake_summary = ingest_lake([str(corpus)], str(out), workers=2, dask=dask, tell=tell)
        worker_peaks = lake_summary.worker_peak_mb
        summary = lake_summary
    seconds = time.perf_counter() - start
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) if out.is_dir() else out.stat().st_size
    return {"kind": kind, "files": summary.ingested, "hands": summary.hands, "seconds": seconds,
            "hands_per_s": summary.hands / seconds if seconds else 0.0, "cpu_s": cpu,
            "peak_main_mb": me.ru_maxrss / 1024,
            "peak_worker_mb": max(worker_peaks) if worker_peaks else children.ru_maxrss / 1024,
            "worker_peaks": worker_peaks, "out_mb": size / 1e6, "stderr": err.getvalue()[-2000:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=100_000, help="hands in the corpus (default 100,000)")
    parser.add_argument("--hands-per-file", type=int, default=2_000, help="hands per file (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", nargs="+", choices=sorted(KINDS), default=list(KINDS))
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="build (or reuse, if it holds files) the corpus in DIR and keep it")
    parser.add_argument("--run-once", nargs=3, metavar=("KIND", "CORPUS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.run_once:
        kind, corpus, out = args.run_once
        print(json.dumps(run_once(kind, Path(corpus), Path(out))))
        return

    with tempfile.TemporaryDirectory(prefix="audit-bench-lake-") as tmp:
        corpus = args.keep or Path(tmp) / "corpus"
        existing = sorted(corpus.glob("*.txt")) if corpus.is_dir() else []
        if existing:
            hands = sum(len(re.findall(r"^Hand #", p.read_text(encoding="utf-8"), re.M)) for p in existing)
            files, source = len(existing), f"reused {corpus}"
        else:
            hands, files, source = build_corpus(corpus, args.hands, args.hands_per_file, "simulate", args.seed)
        size = sum(p.stat().st_size for p in corpus.glob("*.txt"))
        print(f"corpus: {hands:,} hands, {files} files, {size / 1e6:.1f} MB ({source})")
        print(f"{'run':<40}  {'hands':>8}  {'seconds':>8}  {'hands/s':>8}  {'CPU s':>7}  {'peak main MB':>12}  "
              f"{'peak worker MB':>14}  {'out MB':>6}  {'hands/CPU s':>11}")
        for i, kind in enumerate(args.kinds):
            out = Path(tmp) / (f"{i}-{kind}.duckdb" if kind.startswith("db") else f"{i}-{kind}")
            done = subprocess.run([sys.executable, __file__, "--run-once", kind, str(corpus), str(out)],
                                  check=True, capture_output=True, text=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{KINDS[kind]:<40}  {r['hands']:>8,}  {r['seconds']:>8.1f}  {r['hands_per_s']:>8,.0f}  "
                  f"{r['cpu_s']:>7.1f}  {r['peak_main_mb']:>12.0f}  {r['peak_worker_mb']:>14.0f}  "
                  f"{r['out_mb']:>6.1f}  {r['hands'] / r['cpu_s'] if r['cpu_s'] else 0:>11,.0f}", flush=True)
            if r["worker_peaks"]:
                print(f"{'':<40}  each Dask worker's peak: {', '.join(f'{m:.0f}' for m in r['worker_peaks'])} MB")
        print("hands/s is wall-clock from the call to its return (cluster start and stop included), and falls when "
              "other processes share the cores; CPU s counts the run and every process it started.")


if __name__ == "__main__":
    main()
