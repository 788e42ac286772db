"""Benchmark ``audit ingest``: hands per second with 1 and 2 workers, and peak memory.

    .venv/bin/python bench/ingest.py                      # 100,000 simulated hands, 1 and 2 workers
    .venv/bin/python bench/ingest.py --hands 20000 --workers 1 2 4 --keep /tmp/corpus
    .venv/bin/python bench/ingest.py --workers 2 --before /tmp/before --repeat 3   # against the code before
    .venv/bin/python bench/ingest.py --hands 20000 --files 20 --workers 2 --vs-pokerkit

CPU time (main + workers, and the main process's alone: with workers it writes DuckDB while they audit) is printed
too, since wall-clock hands/s depends on what else the machine runs.

The corpus is house-format text: sessions from the simulator (``audit.simulate``) when it is installed, else the
shared clean sessions (``../shared/cases/generated*/clean-*.txt``) repeated with renumbered hand ids and session
names (``--source cases`` forces that). It is cut into files of ``--hands-per-file`` hands, because workers
audit whole files. Each run ingests the whole corpus into a fresh database in a fresh process, so its peak
memory (``resource.getrusage``: the main process, and the largest worker) is its own. Figures are printed,
never asserted: the machine may be busy. ``--before DIR``: each run is also made, just before it, with the code
in ``DIR`` (another source tree, compiled with ``python hatch_build.py`` in it; run with ``PYTHONPATH=DIR``), on
the same corpus; ``--repeat`` rounds of it all. ``--vs-pokerkit``: pokerkit 0.7.7 replays the same hands
(``bench/check.py``'s side: its own virtual environment, the hands given already parsed), and each run's wall
time and CPU time are set against pokerkit's CPU time (the issue's ratio: pokerkit's time over the ingest's).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_CASES = ROOT.parent / "shared" / "cases"


def simulated_sessions(seed: int) -> Iterator[tuple[str, int]]:
    """(text, hands) of endless simulated home-open sessions."""
    from audit.simulate import iter_simulated

    for session in iter_simulated("home-open", seed):
        yield session.text, session.hands


def repeated_cases() -> Iterator[tuple[str, int]]:
    """The shared clean sessions again and again, with fresh hand ids and session names."""
    sources = sorted(SHARED_CASES.glob("generated*/clean-*.txt"))
    if not sources:
        raise SystemExit(f"no clean cases under {SHARED_CASES}")
    texts = [p.read_text(encoding="utf-8") for p in sources]
    number = 0
    copy = 0
    while True:
        copy += 1
        for text in texts:
            hands = 0

            def renumber(_: re.Match[str]) -> str:
                nonlocal number, hands
                number += 1
                hands += 1
                return f"Hand #{number}"

            out = re.sub(r"^Hand #\d+", renumber, text, flags=re.M)
            out = re.sub(r"^Session: (.*)$", rf"Session: \1-c{copy}", out, flags=re.M)
            yield out, hands


def build_corpus(folder: Path, hands: int, per_file: int, source: str, seed: int) -> tuple[int, int, str]:
    """Write about ``hands`` hands (whole sessions) into files of about ``per_file`` hands:
    (hands, files, source used)."""
    if source == "simulate":
        try:
            sessions = simulated_sessions(seed)
            first = next(sessions)
        except (ImportError, AttributeError):
            print("audit.simulate is not available: using the shared clean cases", file=sys.stderr)
            source = "cases"
        else:
            def chain() -> Iterator[tuple[str, int]]:
                yield first
                yield from sessions
            stream = chain()
    if source == "cases":
        stream = repeated_cases()
    folder.mkdir(parents=True, exist_ok=True)
    total = files = 0
    parts: list[str] = []
    in_file = 0
    for text, n in stream:
        parts.append(text)
        in_file += n
        total += n
        if in_file >= per_file or total >= hands:
            files += 1
            (folder / f"corpus-{files:05d}.txt").write_text("\n".join(parts), encoding="utf-8")
            parts, in_file = [], 0
        if total >= hands:
            break
    return total, files, source


def run_once(corpus: Path, workers: int, db: Path) -> dict[str, float]:
    """One ingest in this process (called in a fresh process by ``main``); its figures as a dict."""
    from audit.store.ingest import ingest

    start = time.perf_counter()
    summary = ingest([str(corpus)], str(db), workers=workers)
    seconds = time.perf_counter() - start
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    self_kb, children_kb = me.ru_maxrss, children.ru_maxrss
    cpu = me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
    return {"workers": workers, "files": summary.ingested, "hands": summary.hands, "findings": summary.findings,
            "seconds": seconds, "hands_per_s": summary.hands / seconds if seconds else 0.0,
            "peak_main_mb": self_kb / 1024, "peak_worker_mb": children_kb / 1024,
            "db_mb": db.stat().st_size / 1e6, "cpu_s": cpu, "hands_per_cpu_s": summary.hands / cpu if cpu else 0.0,
            "cpu_main_s": me.ru_utime + me.ru_stime}


def pokerkit_seconds(corpus: Path, tmp: Path) -> float:
    """pokerkit's CPU seconds replaying every hand of the corpus (``bench/check.py``'s pokerkit side)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import check as bench_check

    whole = tmp / "pokerkit-corpus.txt"
    with open(whole, "w", encoding="utf-8") as out:
        for p in sorted(corpus.glob("*.txt")):
            out.write(p.read_text(encoding="utf-8").rstrip("\n") + "\n\n")
    exported = tmp / "pokerkit-hands.jsonl"
    hands = bench_check.export_hands(str(whole), None, str(exported))
    pk = subprocess.run([bench_check.pokerkit_python(), str(Path(__file__).with_name("pokerkit_replay.py")),
                         str(exported), str(tmp / "pokerkit-stacks.jsonl")], capture_output=True, text=True, check=True)
    r = json.loads(pk.stdout.splitlines()[-1])
    print(f"pokerkit {r['version']}: replayed {r['replayed']:,} of {len(hands):,} parsed hands in {r['cpu']:.2f} s "
          f"CPU = {len(hands) / r['cpu']:,.0f} hands/s")
    return float(r["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=100_000, help="hands in the corpus (default 100,000)")
    parser.add_argument("--hands-per-file", type=int, default=2_000, help="hands per file (default 2,000)")
    parser.add_argument("--files", type=int, default=None,
                        help="cut the corpus into about this many files instead (--hands / --files hands each)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to measure")
    parser.add_argument("--source", choices=["simulate", "cases"], default="simulate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="build (or reuse, if it holds files) the corpus in DIR and keep it")
    parser.add_argument("--before", metavar="DIR", help="also run the code in DIR (a compiled source tree)")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of the runs")
    parser.add_argument("--vs-pokerkit", action="store_true", help="pokerkit 0.7.7's replay of the same hands")
    parser.add_argument("--run-once", nargs=3, metavar=("CORPUS", "WORKERS", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.files:
        args.hands_per_file = max(1, args.hands // args.files)
    if args.run_once:
        corpus, workers, db = args.run_once
        print(json.dumps(run_once(Path(corpus), int(workers), Path(db))))
        return

    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
        corpus = args.keep or Path(tmp) / "corpus"
        existing = sorted(corpus.glob("*.txt")) if corpus.is_dir() else []
        if existing:
            hands = sum(len(re.findall(r"^Hand #", p.read_text(encoding="utf-8"), re.M)) for p in existing)
            files, source = len(existing), f"reused {corpus}"
        else:
            start = time.perf_counter()
            hands, files, source = build_corpus(corpus, args.hands, args.hands_per_file, args.source, args.seed)
            print(f"corpus: {hands:,} hands in {files} files ({source}), built in "
                  f"{time.perf_counter() - start:.1f} s")
        size = sum(p.stat().st_size for p in corpus.glob("*.txt"))
        print(f"corpus: {hands:,} hands, {files} files, {size / 1e6:.1f} MB ({source})")
        pokerkit_cpu = pokerkit_seconds(corpus, Path(tmp)) if args.vs_pokerkit else None
        print(f"{'code':>6}  {'workers':>7}  {'hands':>8}  {'seconds':>8}  {'hands/s':>8}  {'CPU s':>7}  {'main CPU s':>10}  "
              f"{'hands/CPU s':>11}  {'peak main MB':>12}  {'peak worker MB':>14}  {'db MB':>6}")
        sides = [("before", dict(os.environ, PYTHONPATH=args.before))] if args.before else []
        sides.append(("this", None))
        for _ in range(args.repeat):
            for workers in args.workers:
                for code, env in sides:
                    db = Path(tmp) / f"bench-{code}-{workers}.duckdb"
                    db.unlink(missing_ok=True)
                    out = subprocess.run([sys.executable, __file__, "--run-once", str(corpus), str(workers), str(db)],
                                         check=True, capture_output=True, text=True, env=env)
                    r = json.loads(out.stdout.strip().splitlines()[-1])
                    worker_mb = f"{r['peak_worker_mb']:.0f}" if workers > 1 else "-"
                    print(f"{code:>6}  {workers:>7}  {r['hands']:>8,}  {r['seconds']:>8.1f}  {r['hands_per_s']:>8,.0f}  "
                          f"{r['cpu_s']:>7.1f}  {r['cpu_main_s']:>10.1f}  {r['hands_per_cpu_s']:>11,.0f}  "
                          f"{r['peak_main_mb']:>12.0f}  "
                          f"{worker_mb:>14}  {r['db_mb']:>6.1f}", flush=True)
                    if pokerkit_cpu is not None:
                        print(f"        pokerkit's {pokerkit_cpu:.2f} s CPU against this run: "
                              f"{pokerkit_cpu / r['seconds']:.2f}x by wall time, {pokerkit_cpu / r['cpu_s']:.2f}x by "
                              f"CPU time", flush=True)
        print("hands/s is wall-clock (it falls when other processes share the cores); hands/CPU s counts the "
              "CPU time of the ingest and its workers only.")


if __name__ == "__main__":
    main()
