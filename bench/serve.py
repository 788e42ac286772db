"""Benchmark ``audit serve`` against ``audit ingest`` on the same files: uploads/s and hands/s, both in one run.

    .venv/bin/python bench/serve.py                         # 400 files of ~10 hands, 20 clients
    .venv/bin/python bench/serve.py --files 200 --hands-per-file 100 --clients 8 --workers 2

The files are simulated home-open sessions (``audit.simulate``), written to a temporary folder. ``audit ingest``
stores them into a fresh database; then ``audit serve`` on another fresh database receives them from
``--clients`` concurrent clients over loopback (one ``text/plain`` upload per file), timed from the first request
to the last answer. Wall-clock and CPU seconds are printed for both (CPU: the ingest process and its workers;
the server process and its workers, from /proc), since wall-clock figures depend on what else the machine runs. Figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUDIT = str(Path(sys.executable).with_name("audit"))


def write_files(folder: Path, files: int, hands_per_file: int, seed: int) -> int:
    """``files`` logs of about ``hands_per_file`` hands each; returns the hands written."""
    from audit.simulate import iter_simulated

    sessions = iter_simulated("home-open", seed)
    total = 0
    for i in range(files):
        parts: list[str] = []
        hands = 0
        while hands < hands_per_file:
            session = next(sessions)
            parts.append(session.text)
            hands += session.hands
        (folder / f"log-{i:05}.txt").write_text("\n".join(parts), encoding="utf-8")
        total += hands
    return total


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of a live process, its reaped children and its live children (the audit
    worker processes of ``--workers``), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")

    def own(p: int) -> float:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return sum(int(x) for x in fields[11:15]) / ticks

    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass
    return own(pid) + sum(own(c) for c in children)


def run_ingest(folder: Path, db: Path, workers: int) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([AUDIT, "ingest", str(folder), "--db", str(db), "--workers", str(workers)],
                         capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout.strip()


def run_serve(folder: Path, db: Path, workers: int, clients: int) -> tuple[float, float, int, int]:
    log = db.with_suffix(".log")
    out_file = db.with_suffix(".out")
    with open(out_file, "w") as out, open(log, "w") as err:
        proc = subprocess.Popen([AUDIT, "serve", "--db", str(db), "--port", "0", "--workers", str(workers)],
                                stdout=out, stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 60
        while "http://" not in out_file.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"audit serve did not start: {log.read_text()}")
            time.sleep(0.05)
        port = int(out_file.read_text().split("http://127.0.0.1:")[1].split("/")[0])
        paths = sorted(folder.glob("*.txt"))
        hands = 0
        stored = 0
        lock = threading.Lock()

        def upload(path: Path) -> None:
            nonlocal hands, stored
            con = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            con.request("POST", f"/api/v1/uploads?name={path.name}", body=path.read_bytes(),
                        headers={"Content-Type": "text/plain"})
            answer = json.loads(con.getresponse().read())["uploads"][0]
            con.close()
            with lock:
                hands += answer["hands"]
                stored += answer["status"] == "stored"

        cpu_before = cpu_of(proc.pid)
        start = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(upload, paths))
        wall = time.perf_counter() - start
        cpu = cpu_of(proc.pid) - cpu_before
    finally:
        proc.terminate()
        proc.wait(60)
    return wall, cpu, hands, stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--hands-per-file", type=int, default=10)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1, help="--workers of both audit ingest and audit serve")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        folder = Path(tmp) / "logs"
        folder.mkdir()
        total = write_files(folder, args.files, args.hands_per_file, args.seed)
        size = sum(p.stat().st_size for p in folder.glob("*.txt")) / 1e6
        print(f"{args.files} files, {total:,} hands, {size:.1f} MB; {args.clients} clients; "
              f"--workers {args.workers}")
        i_wall, i_cpu, summary = run_ingest(folder, Path(tmp) / "ingest.duckdb", args.workers)
        print(f"audit ingest: {args.files / i_wall:,.1f} files/s, {total / i_wall:,.0f} hands/s "
              f"({i_wall:.2f} s wall, {i_cpu:.2f} s CPU) -- {summary}")
        s_wall, s_cpu, hands, stored = run_serve(folder, Path(tmp) / "serve.duckdb", args.workers, args.clients)
        print(f"audit serve:  {stored / s_wall:,.1f} uploads/s, {hands / s_wall:,.0f} hands/s "
              f"({s_wall:.2f} s wall, server {s_cpu:.2f} s CPU; {stored} stored, {hands:,} hands)")
        print(f"serve / ingest: {(hands / s_wall) / (total / i_wall):.0%} of the CLI's hands/s (wall); "
              f"{i_cpu / s_cpu if s_cpu else 0:.0%} by CPU seconds (ingest CPU / server CPU)")


if __name__ == "__main__":
    main()
