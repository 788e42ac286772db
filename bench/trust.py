"""Benchmark what the record costs: ``audit verify`` against ``audit ingest`` of the same database, and the chain's
share of an upload's time, side by side in one run.

    .venv/bin/python bench/trust.py                        # 100,000 simulated hands; 200 uploads
    .venv/bin/python bench/trust.py --hands 20000 --uploads 100 --keep /tmp/trust

1. ``audit ingest`` (its default workers) stores the corpus of ``bench/ingest.py`` (simulated home-open sessions in
   files of ``--hands-per-file`` hands) into a fresh database, then ``audit verify`` walks its chain and audits
   every file again from where it was ingested; both are timed, wall clock, each in its own process.
2. ``--uploads`` simulated sessions are uploaded to the service's application (in process, through its ASGI
   interface) with and without links, one after another; and stored as the service's writer stores them (``write_upload``, audited
   first as the service does), into a fresh service database twice: as they are (each upload's link appended in
   its transaction) and with the link left out; the time of each upload (audit + write) is summed, and the
   link's own time is measured inside the run with links. The two alternate for ``--rounds`` rounds (after one
   round to warm up), and the best of each is printed.

Figures are printed, never asserted: the machine may be busy.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import build_corpus  # noqa: E402  (bench/ingest.py, beside this script)

AUDIT = str(Path(sys.executable).with_name("audit"))


def timed(*args: str) -> float:
    """Wall-clock seconds of one ``audit`` command (which must succeed)."""
    start = time.perf_counter()
    done = subprocess.run([AUDIT, *args], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"audit {' '.join(args)} exited {done.returncode}: {done.stdout}{done.stderr}")
    return seconds


@contextmanager
def links_timed(link: bool) -> Iterator[list[float]]:
    """While it runs, the service's links are appended (``link``) or left out, and their seconds summed in the
    list it gives."""
    import audit.serve.db as service_db

    real = service_db.append_link
    spent = [0.0]

    def measured(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return real(*args, **kwargs) if link else None
        finally:
            spent[0] += time.perf_counter() - start

    service_db.append_link = measured  # type: ignore[assignment]
    try:
        yield spent
    finally:
        service_db.append_link = real


def uploads(logs: list[bytes], db: Path, link: bool) -> tuple[float, float]:
    """Store ``logs`` as the service's writer does: (seconds of every upload, seconds of its links)."""
    import hashlib

    from audit.serve.db import ServiceDB, UploadWrite, audit_upload, upload_key, write_upload
    from audit.trust.chain import remember_heads

    total = 0.0
    with links_timed(link) as spent:
        service = ServiceDB(str(db))
        cur = service.new_cursor()
        remember_heads(cur)  # as the service's writer does (audit.serve.writer.Writer)
        try:
            for i, data in enumerate(logs):
                start = time.perf_counter()
                sha = hashlib.sha256(data).hexdigest()
                key = upload_key("north", sha)
                rows = audit_upload(data, f"log-{i}.txt", "home-open", key)
                write_upload(cur, UploadWrite("north", f"log-{i}.txt", sha, data, "home-open", key, rows))
                total += time.perf_counter() - start
        finally:
            service.close()
    return total, spent[0]


def served(logs: list[bytes], db: Path, link: bool) -> tuple[float, float]:
    """Upload ``logs`` one after another to the service's application (in this process, through its ASGI
    interface: the request, the plan, the audit, the writer, the answer): (seconds in all, seconds of the links)."""
    from fastapi.testclient import TestClient

    from audit.serve.app import create_app
    from audit.serve.service import Settings

    with links_timed(link) as spent, TestClient(create_app(Settings(db=str(db))), base_url="http://127.0.0.1:8000",
                                                client=("127.0.0.1", 50123)) as client:
        start = time.perf_counter()
        for i, data in enumerate(logs):
            answer = client.post(f"/api/v1/uploads?name=log-{i}.txt", content=data,
                                 headers={"Content-Type": "text/plain"})
            if answer.status_code != 200:
                raise SystemExit(f"upload {i}: {answer.status_code} {answer.text[:200]}")
        return time.perf_counter() - start, spent[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=100_000, help="hands ingested, then verified (100,000)")
    parser.add_argument("--hands-per-file", type=int, default=2_000, help="hands per file (2,000)")
    parser.add_argument("--uploads", type=int, default=200, help="uploads stored with and without links (200)")
    parser.add_argument("--sessions-per-upload", type=int, default=1, help="simulated sessions in each upload (1)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the uploads, alternated (3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR", help="work in DIR (kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or Path(scratch)
        corpus = tmp / "corpus"
        hands, files, _ = build_corpus(corpus, args.hands, args.hands_per_file, "simulate", args.seed)
        db = tmp / "verify.duckdb"
        db.unlink(missing_ok=True)
        ingest_s = timed("ingest", str(corpus), "--db", str(db), "-q")
        verify_s = timed("verify", "--db", str(db))
        print(f"{hands:,} hands in {files} files")
        print(f"  audit ingest  {ingest_s:8.1f} s")
        print(f"  audit verify  {verify_s:8.1f} s   ({verify_s / ingest_s:.2f}x the ingest; the bar: under 2x)")

        from audit.simulate import iter_simulated

        sessions = iter_simulated("home-open", args.seed + 1)
        logs = ["\n".join(next(sessions).text for _ in range(args.sessions_per_upload)).encode("utf-8")
                for _ in range(args.uploads)]
        size = sum(len(d) for d in logs) / len(logs)
        uploads(logs[:20], tmp / "warm.duckdb", link=True)  # imports, caches: off the clock
        without = with_links = linking = float("inf")
        for i in range(args.rounds):  # alternated, the best of each: the machine's other work comes and goes
            without = min(without, uploads(logs, tmp / f"without-{i}.duckdb", link=False)[0])
            total, spent = uploads(logs, tmp / f"with-{i}.duckdb", link=True)
            if total < with_links:
                with_links, linking = total, spent
        print(f"{len(logs)} uploads of {size / 1024:.1f} KB on average (audited, then written by the writer), "
              f"best of {args.rounds} rounds")
        each = 1000 / len(logs)
        served(logs[:20], tmp / "served-warm.duckdb", link=True)
        plain = linked = float("inf")
        linked_links = 0.0
        for i in range(args.rounds):
            plain = min(plain, served(logs, tmp / f"served-without-{i}.duckdb", link=False)[0])
            total, spent = served(logs, tmp / f"served-with-{i}.duckdb", link=True)
            if total < linked:
                linked, linked_links = total, spent
        print(f"  through the service (POST /api/v1/uploads, one after another), best of {args.rounds} rounds:")
        print(f"    without links {plain * each:6.1f} ms an upload")
        print(f"    with links    {linked * each:6.1f} ms an upload ({(linked / plain - 1) * 100:+.1f} % side by side; "
              f"the links {linked_links * each:.1f} ms an upload, {linked_links / linked * 100:.1f} % of its time)")
        print("  in the writer alone (audit + write_upload):")
        print(f"  without links {without:8.2f} s   ({without * each:.1f} ms an upload)")
        print(f"  with links    {with_links:8.2f} s   ({with_links * each:.1f} ms an upload, "
              f"{(with_links / without - 1) * 100:+.1f} % side by side; the links themselves {linking * each:.1f} ms "
              f"an upload, {linking / with_links * 100:.1f} % of its time; the bar: 5 %)")


if __name__ == "__main__":
    main()
