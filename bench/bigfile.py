"""Scale check: generate a ~1 GB hand-history log and time ``audit check FILE --format json > /dev/null`` (``--jobs N`` passed on; the
workers' peaks are read too), or
with ``--ingest`` ``audit ingest FILE --db DB`` (one file, one transaction; its rows go to DuckDB in batches).

    .venv/bin/python bench/bigfile.py [--gb 1.0] [--file PATH] [--keep] [--reuse] [--format json|text]
    .venv/bin/python bench/bigfile.py --ingest [--gb 1.0] [--db PATH]   # peak memory limit 300 MB

The log is a template repeated with renamed sessions and renumbered hands: the sessions of
``../shared/cases/generated*/`` (legal ones and ones with a defect, so findings are printed too) and, when
``audit.simulate`` is there, sessions it plays for the three home profiles. Each template session starts with its
own ``Session:`` and ``Profile:`` lines, so every copy is audited as a session of its own.

Reports the file size, hands, wall time, hands/s, MB/s, the child's CPU time (the wall time depends on the
machine's load too) and its peak RSS (``VmHWM`` from ``/proc``, read every 0.2 s while it runs), and samples the
child's RSS to show whether it grows. Exit status 1 when the peak RSS is over ``--max-rss-mb`` (default
200 for check, 300 for ingest) or the command fails. With ``--ingest`` it also prints the database's size and
checks that it holds every hand.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
sys.path.insert(0, str(ROOT))


def template() -> list[str]:
    """Whole sessions, each beginning with its own ``Session:`` line."""
    sessions: list[str] = []
    for f in sorted(SHARED.glob("cases/generated*/*.txt")):
        text = f.read_text(encoding="utf-8-sig")
        if text.startswith("Session:"):
            sessions.append(text.strip("\n"))
    try:
        from audit.simulate import iter_sessions
    except ImportError:
        return sessions
    from audit.errors import AuditError
    for i, profile in enumerate(("home-open", "qdan", "stripped32")):
        try:
            sessions.extend(s.strip("\n") for s in iter_sessions(profile, 300, 1000 + i))
        except AuditError:
            pass  # a profile the simulator cannot play yet
    if not sessions:
        raise SystemExit(f"no sessions to repeat under {SHARED / 'cases'}")
    return sessions


_SESSION = re.compile(r"^Session: *(.*)$", re.M)
_HAND = re.compile(r"^Hand #(\S+)", re.M)


def generate(path: Path, target_bytes: int) -> tuple[int, int]:
    """Write copies of the template until ``target_bytes``; returns (bytes written, hands)."""
    base = "\n\n".join(template()) + "\n\n"
    hands_per_copy = len(_HAND.findall(base))
    written = hands = copy = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        while written < target_bytes:
            tag = f"r{copy}"
            text = _SESSION.sub(lambda m: f"Session: {m.group(1)}~{tag}", base)
            text = _HAND.sub(lambda m: f"Hand #{tag}-{m.group(1)}", text)
            data = text.encode("utf-8")
            out.write(text)
            written += len(data)
            hands += hands_per_copy
            copy += 1
    return written, hands


def children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def rss_mb(pid: int, field: str = "VmRSS") -> float | None:
    """The process's resident memory now (``VmRSS``) or its peak since it started the program (``VmHWM``)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gb", type=float, default=1.0, help="size of the log to generate, in GB (default 1.0)")
    ap.add_argument("--file", default="/tmp/audit-bigfile.txt", help="where to write the log")
    ap.add_argument("--reuse", action="store_true", help="use the file if it is already there")
    ap.add_argument("--keep", action="store_true", help="keep the file afterwards")
    ap.add_argument("--format", default="json", choices=["json", "text"])
    ap.add_argument("--jobs", default=None, help="check's --jobs (default: the command's own, one per core)")
    ap.add_argument("--max-rss-mb", type=float, default=None,
                    help="fail above this peak (default 200 MB for check, 300 MB for ingest)")
    ap.add_argument("--ingest", action="store_true", help="time 'audit ingest FILE --db DB' instead of check")
    ap.add_argument("--db", default="/tmp/audit-bigfile.duckdb", help="the database for --ingest (replaced)")
    args = ap.parse_args()
    if args.max_rss_mb is None:
        args.max_rss_mb = 300.0 if args.ingest else 200.0
    path = Path(args.file)
    target = int(args.gb * 1_000_000_000)
    if args.reuse and path.exists():
        size = path.stat().st_size
        with open(path, encoding="utf-8") as f:
            hands = sum(1 for line in f if line.startswith("Hand #"))
        print(f"reusing {path}: {size / 1e9:.2f} GB, {hands:,} hands", flush=True)
    else:
        start = time.monotonic()
        size, hands = generate(path, target)
        print(f"generated {path}: {size / 1e9:.2f} GB, {hands:,} hands in {time.monotonic() - start:.0f} s",
              flush=True)

    audit = str(Path(sys.executable).with_name("audit"))
    db = Path(args.db)
    if args.ingest:
        for leftover in (db, Path(str(db) + ".wal")):
            leftover.unlink(missing_ok=True)
        command = [audit, "ingest", str(path), "--db", str(db)]
    else:
        command = [audit, "check", str(path), "--format", args.format]
        if args.jobs is not None:
            command += ["--jobs", str(args.jobs)]
    print("running:", " ".join(command), "> /dev/null", flush=True)
    samples: list[tuple[float, float]] = []
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    high = [0.0]
    workers: dict[int, float] = {}  # check's worker processes: their own peaks

    def sample() -> None:
        tick = 0
        while child.poll() is None:
            peak = rss_mb(child.pid, "VmHWM")
            if peak is not None:
                high[0] = max(high[0], peak)
            for pid in children(child.pid):
                peak = rss_mb(pid, "VmHWM")
                if peak is not None:
                    workers[pid] = max(workers.get(pid, 0.0), peak)
            if tick % 5 == 0:
                mb = rss_mb(child.pid)
                if mb is not None:
                    samples.append((time.monotonic() - start, mb))
            tick += 1
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = child.communicate()
    wall = time.monotonic() - start
    sampler.join(timeout=2)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    # The child's own peak (VmHWM, read while it runs): ru_maxrss of the children would also count the pages
    # the child shared with this process between fork and exec -- this process holds the template in memory.
    peak_mb = high[0] or usage.ru_maxrss / 1024
    cpu = usage.ru_utime + usage.ru_stime
    if samples:
        picks = [samples[min(len(samples) - 1, int(len(samples) * q))] for q in (0.05, 0.25, 0.5, 0.75, 0.99)]
        print("RSS while running: " + ", ".join(f"{t:.0f} s {mb:.0f} MB" for t, mb in picks))
    print(f"exit status {child.returncode}" + (f"; stderr: {err.decode(errors='replace')[:500]}" if err else ""))
    print(f"{size / 1e9:.2f} GB, {hands:,} hands in {wall:,.0f} s: {hands / wall:,.0f} hands/s, "
          f"{size / 1e6 / wall:,.1f} MB/s; CPU {cpu:,.0f} s ({hands / cpu:,.0f} hands per CPU second); "
          f"peak RSS {peak_mb:,.0f} MB (limit {args.max_rss_mb:.0f} MB)")
    if workers:
        print(f"{len(workers)} worker processes, peak RSS each: "
              + ", ".join(f"{mb:,.0f} MB" for mb in sorted(workers.values())))
    stored_ok = True
    if args.ingest:
        import duckdb

        with duckdb.connect(str(db), read_only=True) as con:
            stored = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
            unread = con.execute("SELECT count(*) FROM parse_errors").fetchall()[0][0]
        stored_ok = stored + unread == hands
        print(f"database {db}: {db.stat().st_size / 1e6:,.0f} MB, {stored:,} hands and {unread:,} unreadable "
              f"stored ({'all' if stored_ok else 'NOT all'} of the {hands:,})")
        if not args.keep:
            db.unlink(missing_ok=True)
    if not args.keep:
        path.unlink(missing_ok=True)
    ok = child.returncode in (0, 1) and max([peak_mb, *workers.values()]) < args.max_rss_mb and stored_ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
