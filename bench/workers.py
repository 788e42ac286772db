"""Where ``audit check --jobs 2``'s time goes beside ``--jobs 1``'s, on a simulated corpus (see
docs/explanation/performance.md).

    .venv/bin/python bench/workers.py [--hands 20000] [--seed 1] [--repeat 5]

1. Simulates home-open sessions until ``--hands`` hands and writes them to a temporary file (as bench/check.py).
2. The cost of forking and of two busy cores, with no main process in the way: in one process, the file's tasks
   (``audit.parallel.plan``, the command's own parts) are audited once to fill the caches, then per round: all of
   them in this process; the even and the odd tasks in two forked children one after the other; the same two
   children at once. CPU seconds of each (``getrusage``), medians of ``--repeat`` rounds.
3. The main process's share: the cut scan alone (``plan`` over the file: reading it and counting its line ends),
   and the first part of a fresh process against the same part again (what each worker pays to fill its caches).
4. The real command, ``audit check FILE --format json --jobs 2``, run in-process with clock marks: when the
   workers are forked, when the first task leaves, the main process's CPU before and after the fork, and the
   workers' CPU together.

Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from check import make_corpus  # noqa: E402


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def fork_costs(path: str, repeat: int) -> None:
    from audit.dialects.house import house_line_parser
    from audit.parallel import audit_task, plan
    from audit.profile import load_profile

    house_line_parser()
    profile = load_profile("home-open")
    tasks = list(plan([path]))

    def work(some: list[tuple[object, ...]]) -> None:
        for task in some:
            audit_task(task, profile)  # type: ignore[arg-type]

    work(tasks)  # the caches filled, as a forked worker finds them
    times: dict[str, list[float]] = {"one process": [], "two children, one after the other": [],
                                     "two children at once": []}
    for _ in range(repeat):
        start = cpu()
        work(tasks)
        times["one process"].append(cpu() - start)
        gc.freeze()
        for mode in ("two children, one after the other", "two children at once"):
            start = children_cpu()
            pids = []
            for k in range(2):
                pid = os.fork()
                if pid == 0:
                    work(tasks[k::2])
                    os._exit(0)
                if mode.endswith("other"):
                    os.waitpid(pid, 0)
                else:
                    pids.append(pid)
            for pid in pids:
                os.waitpid(pid, 0)
            times[mode].append(children_cpu() - start)
        gc.unfreeze()
    base = statistics.median(times["one process"])
    print(f"{len(tasks)} tasks; CPU of auditing all of them, medians of {repeat}:")
    for name, values in times.items():
        m = statistics.median(values)
        print(f"  {name}: {m:.3f} s ({m / base - 1:+.1%}); runs {', '.join(f'{v:.3f}' for v in values)}")


def scan_and_warm(path: str) -> None:
    code = f"""
import resource, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF); return r.ru_utime + r.ru_stime
from audit.dialects.house import house_line_parser
from audit.parallel import audit_task, plan
from audit.profile import load_profile
house_line_parser()
profile = load_profile("home-open")
c = cpu(); tasks = list(plan([{path!r}])); scan = cpu() - c
c = cpu(); audit_task(tasks[0], profile); first = cpu() - c
c = cpu(); audit_task(tasks[0], profile); again = cpu() - c
print(f"the cut scan (plan): {{1000 * scan:.1f}} ms of CPU for {{len(tasks)}} tasks; a fresh process's first part "
      f"{{1000 * first:.1f}} ms, the same part again {{1000 * again:.1f}} ms")
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def command_marks(path: str, repeat: int) -> None:
    code = f"""
import os, resource, sys, time
t0 = time.perf_counter()
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF); return r.ru_utime + r.ru_stime
sys.argv = ["audit", "check", {path!r}, "--format", "json", "--jobs", "2"]
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
import audit.parallel as P
marks = {{}}
fork = P.fork_workers
def forked(*a):
    marks["fork"] = time.perf_counter() - t0; marks["cpu"] = cpu()
    procs, conns = fork(*a)
    for conn in conns:
        send = conn.send
        def first(task, send=send):
            marks.setdefault("sent", time.perf_counter() - t0)
            send(task)
        conn.send = first
    return procs, conns
P.fork_workers = forked
from audit.cli.main import main
try:
    main(standalone_mode=False)
except SystemExit:
    pass
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.perf_counter() - t0, marks["fork"], marks["sent"], marks["cpu"], cpu() - marks["cpu"],
      r.ru_utime + r.ru_stime, file=sys.stderr)
"""
    rows = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
        rows.append([float(x) for x in done.stderr.split()[-6:]])
    wall, fork, sent, before, after, workers = (statistics.median(c) for c in zip(*rows))
    print(f"audit check --jobs 2 in process (medians of {repeat}; clock from the script's first line): "
          f"{wall:.3f} s; workers forked at {1000 * fork:.1f} ms, first task sent at {1000 * sent:.1f} ms; "
          f"main process CPU {before:.3f} s before the fork and {after:.3f} s after; workers {workers:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "corpus.txt")
        hands, _wall, _cpu = make_corpus(path, args.hands, args.seed)
        print(f"{hands} hands, {os.path.getsize(path) / 2**20:.1f} MiB")
        command_marks(path, args.repeat)
        scan_and_warm(path)
        fork_costs(path, args.repeat)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
