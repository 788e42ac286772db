"""End-to-end ``audit check`` throughput on a simulated corpus: read → parse → replay → session rules → findings.

    .venv/bin/python bench/check.py [--hands 20000] [--seed 1] [--repeat 5] [--jobs 1,2] [--small-files 10000]
                                    [--vs-pokerkit] [--pokerkit-hands N] [--before DIR] [--ceiling]

1. Simulates home-open sessions (``audit.simulate``) until ``--hands`` hands and writes them to a temporary file.
2. Runs the real command, ``audit check FILE --format json --jobs J``, for each ``--jobs`` value in turn,
   ``--repeat`` rounds (alternating, so that a busy moment of a shared machine falls on both sides): per run the
   wall time, the CPU time of the command and its workers, and the peak memory of its largest process
   (``wait4``); then the median of each, and the wall-time speed-up of each J over the first. ``--before DIR``:
   in the same rounds, the command of another copy of the code (``DIR``: a source tree, e.g. ``git archive main``
   unpacked and compiled with ``python hatch_build.py`` in it), run with ``PYTHONPATH=DIR`` and the same
   ``--jobs`` values: each J's speed-up over the first for both copies, and this copy's over the other's.
3. Runs the same pipeline in a fresh child process through ``audit.check.check_paths`` (what the command calls),
   timing wall and cpu, and its peak memory (``ru_maxrss``) -- no interpreter start-up in the figure.
   ``--ceiling``: in as many rounds, two ``--jobs 1`` commands started at once against one alone, each on the
   whole file: twice the work in some multiple of one's time, the most ``--jobs 2`` could be over ``--jobs 1`` on
   this machine at this moment (two busy cores slow each other: a shared cache, memory, a host's other guests).
4. ``--small-files N``: the same hands cut into N files in a folder (whole hands; a session's later hands are
   then audited without its session, which finds nothing on legal play), checked with each ``--jobs`` value:
   hands per second against the one large file's.
5. ``--vs-pokerkit``: pokerkit 0.7.7 replays the same hands in a virtual environment of its own
   (``~/.cache/audit-bench/pokerkit-0.7.7``, created with pip when missing), given the hands already parsed
   (as JSON, read before its clock starts): its CPU time beside ``audit check``'s whole command and beside the
   audit's replay alone of the same parsed hands; it also counts hands where pokerkit's final stacks differ from
   the audit's settlement (a third opinion on the pots).

Prints figures; asserts nothing about time. A corpus with findings is reported (legal play should have none).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any


def rss_mib(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def make_corpus(path: str, hands: int, seed: int) -> tuple[int, float, float]:
    """Write whole simulated home-open sessions until ``hands`` hands; (hands, wall s, cpu s)."""
    from audit.simulate import iter_simulated

    start, cpu = time.perf_counter(), time.process_time()
    total = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for i, s in enumerate(iter_simulated("home-open", seed)):
            out.write(("\n" if i else "") + s.text)
            total += s.hands
            if total >= hands:
                break
    return total, time.perf_counter() - start, time.process_time() - cpu


def audit_command() -> list[str]:
    exe = Path(sys.executable).with_name("audit")
    return [str(exe)] if exe.exists() else ([shutil.which("audit")] if shutil.which("audit") else
                                            [sys.executable, "-m", "audit"])  # type: ignore[list-item]


def measure_in_process(path: str) -> dict[str, Any]:
    """In this (fresh) process: the whole ``audit check`` pipeline, JSON Lines into memory."""
    t0 = time.perf_counter()
    from audit.check import check_paths
    from audit.profile import load_profile

    profile = load_profile("home-open")
    setup = time.perf_counter() - t0
    base = rss_mib()
    out = io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    worst = check_paths([path], profile, "json", out)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    lines = out.getvalue().splitlines()
    rules: dict[str, int] = {}
    for line in lines:
        rule = json.loads(line)["rule"]
        rules[rule] = rules.get(rule, 0) + 1
    return {"seconds": wall, "cpu": cpu, "setup": setup, "findings": len(lines), "rules": rules, "worst": worst,
            "rss_base": base, "rss_peak": rss_mib()}


TIME = "/usr/bin/time"


def run_command(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """One run of a command: exit status, lines printed, wall s, cpu s of it and its children, peak MiB of its
    largest process. The peak is GNU time's (a process started from this one would count this one's memory as
    its own: Linux carries the peak over a fork and an exec); without it, ``wait4``'s."""
    timed = os.path.exists(TIME)
    start = time.perf_counter()
    proc = subprocess.Popen(([TIME, "-f", "%M"] if timed else []) + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    lines = sum(1 for _ in proc.stdout)
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / 1024
    if timed:
        err, _, peak = err.rstrip("\n").rpartition("\n")
        rss = int(peak) / 1024
    return {"exit": proc.returncode, "lines": lines, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": rss, "err": err}


PROGRAM = ("import sys, audit.cli as cli; sys.argv[0] = 'audit'; "
           "sys.exit(cli.run() if hasattr(cli, 'run') else cli.main())")
"""The ``audit`` program as its console script runs it, for the code ``PYTHONPATH`` points at (whose entry point
may differ from this tree's; ``-P``: not the code of the current folder)."""


def compare_jobs(target: str, hands: int, jobs: list[int], repeat: int, label: str,
                 before: str | None = None) -> dict[int, float]:
    """``audit check TARGET --format json --jobs J`` for each J (and, with ``before``, the code in that tree with
    the same J, as -J), ``repeat`` alternating rounds; medians by J."""
    sides = [-j for j in jobs] + jobs if before else list(jobs)
    runs: dict[int, list[dict[str, Any]]] = {j: [] for j in sides}
    for _ in range(repeat):
        for j in sides:
            if j > 0:
                command = audit_command() + ["check", target, "--format", "json", "--jobs", str(j)]
                runs[j].append(run_command(command))
            else:
                command = [sys.executable, "-P", "-c", PROGRAM, "check", target, "--format", "json", "--jobs", str(-j)]
                runs[j].append(run_command(command, dict(os.environ, PYTHONPATH=str(before))))
    medians: dict[int, float] = {}
    for j in sides:
        r = runs[j]
        wall = statistics.median(x["wall"] for x in r)
        cpu = statistics.median(x["cpu"] for x in r)
        medians[j] = wall
        walls = ", ".join(f"{x['wall']:.2f}" for x in r)
        cpus = ", ".join(f"{x['cpu']:.2f}" for x in r)
        name = f"--jobs {j}" if j > 0 else f"--jobs {-j}, the code in {before}"
        print(f"audit check {label} --format json {name}: exit {r[0]['exit']}, {r[0]['lines']} findings; "
              f"median of {repeat}: {wall:.2f} s wall = {hands / wall:,.0f} hands/s, {cpu:.2f} s cpu (all its "
              f"processes) = {hands / cpu:,.0f} hands/s per cpu second; largest process {max(x['rss'] for x in r):.0f}"
              f" MiB; walls {walls}; cpus {cpus}")
        if r[0]["err"]:
            print(f"  stderr: {r[0]['err'].strip()[:300]}")
    for code in ([-1, 1] if before else [1]):
        base = code * jobs[0]
        for j in jobs[1:]:
            name = f"--jobs {j} against --jobs {jobs[0]}" + (" (the code before)" if code < 0 else "")
            print(f"  {name}: {medians[base] / medians[code * j]:.2f}x (median wall)")
    if before:
        for j in jobs:
            print(f"  --jobs {j}, this code against the code before: {medians[-j] / medians[j]:.2f}x (median wall)")
    return medians


def run_together(args: list[str], copies: int) -> tuple[float, list[float]]:
    """``copies`` runs of one command started at once: the wall time until the last ends, and each one's cpu s."""
    start = time.perf_counter()
    procs = [subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(copies)]
    cpus = []
    for proc in procs:
        _, _, usage = os.wait4(proc.pid, 0)
        cpus.append(usage.ru_utime + usage.ru_stime)
    return time.perf_counter() - start, cpus


def machine_ceiling(target: str, repeat: int) -> None:
    """What the machine itself allows ``--jobs 2``: two ``--jobs 1`` commands at once, each on the whole file,
    against one alone, ``repeat`` alternating rounds. Two at once take longer than one when the two cores slow each
    other (a shared cache, memory, a host's other guests); ``--jobs 2`` cannot beat the ratio (twice the work in
    the time of two at once, against once alone), whatever the code does."""
    command = audit_command() + ["check", target, "--format", "json", "--jobs", "1"]
    alone: list[float] = []
    alone_cpu: list[float] = []
    both: list[float] = []
    both_cpu: list[float] = []
    for _ in range(repeat):
        wall, cpus = run_together(command, 1)
        alone.append(wall)
        alone_cpu += cpus
        wall, cpus = run_together(command, 2)
        both.append(wall)
        both_cpu += cpus
    a, b = statistics.median(alone), statistics.median(both)
    ca, cb = statistics.median(alone_cpu), statistics.median(both_cpu)
    print(f"the machine's ceiling: one --jobs 1 alone {a:.2f} s wall ({ca:.2f} s cpu), two at once {b:.2f} s wall "
          f"(each {cb:.2f} s cpu, {cb / ca - 1:+.0%}): twice the work in {b / a:.2f}x the time, so at most "
          f"{2 * a / b:.2f}x for --jobs 2 (medians of {repeat}; walls alone {', '.join(f'{x:.2f}' for x in alone)}; "
          f"two at once {', '.join(f'{x:.2f}' for x in both)})")


def split_corpus(path: str, folder: str, files: int) -> int:
    """The corpus's hands cut into ``files`` files of consecutive whole blocks; returns the files written."""
    text = Path(path).read_text(encoding="utf-8")
    blocks = text.split("\n\n")
    per = max(1, -(-len(blocks) // files))
    written = 0
    for i in range(0, len(blocks), per):
        with open(os.path.join(folder, f"part-{written:05}.txt"), "w", encoding="utf-8", newline="\n") as out:
            out.write("\n\n".join(blocks[i:i + per]) + "\n")
        written += 1
    return written


# ---------------------------------------------------------------------------------------------- pokerkit
POKERKIT = "0.7.7"
POKERKIT_VENV = Path.home() / ".cache" / "audit-bench" / f"pokerkit-{POKERKIT}"


def pokerkit_python() -> str:
    """The interpreter of pokerkit's own virtual environment, created (with pip) when missing."""
    python = POKERKIT_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {POKERKIT_VENV} with pokerkit=={POKERKIT} ...", flush=True)
        subprocess.run(["python3", "-m", "venv", str(POKERKIT_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"pokerkit=={POKERKIT}"], check=True)
    return str(python)


def export_hands(path: str, limit: int | None, out: str) -> list[Any]:
    """The parsed hands of ``path`` as JSON Lines for pokerkit (seats, button, ante, minimum bet, and each step);
    returns the hands."""
    from audit.dialects.dispatch import parse_block
    from audit.model import Action, Dealt, Discard, Hand, Marker, StandPat
    from audit.profile import load_profile
    from audit.read import read_blocks

    profile = load_profile("home-open")
    hands: list[Hand] = []
    with open(out, "w", encoding="utf-8") as f:
        for block in read_blocks(path):
            hand = parse_block(block)
            if type(hand) is not Hand:
                continue
            steps: list[list[Any]] = []
            for item in hand.body:
                kind = type(item)
                if kind is Dealt:
                    steps.append(["deal", item.player, "".join(item.groups[-1])])
                elif kind is Action:
                    steps.append(["act", item.kind, item.to if item.kind == "raise" else item.amount])
                elif kind is Discard:
                    steps.append(["discard", "".join(item.cards or ())])
                elif kind is StandPat:
                    steps.append(["pat"])
                elif kind is Marker and item.street == "second":
                    steps.append(["second"])
            f.write(json.dumps({"id": hand.hand_id, "seats": [[s.seat, s.player, s.chips] for s in hand.seats],
                                "button": hand.button, "ante": profile.ante or 0, "min_bet": profile.min_bet_value,
                                "steps": steps}) + "\n")
            hands.append(hand)
            if limit is not None and len(hands) >= limit:
                break
    return hands


def pokerkit_compare(path: str, limit: int | None, tmp: str, command_cpu: float | None, hands_in_file: int) -> None:
    from audit import replay
    from audit.profile import load_profile

    exported = os.path.join(tmp, "hands.jsonl")
    hands = export_hands(path, limit, exported)
    python = pokerkit_python()
    script = str(Path(__file__).with_name("pokerkit_replay.py"))
    pk = subprocess.run([python, script, exported, os.path.join(tmp, "stacks.jsonl")], capture_output=True,
                        text=True, check=True)
    r = json.loads(pk.stdout.splitlines()[-1])
    profile = load_profile("home-open")
    start = time.process_time()
    results = [replay(hand, profile) for hand in hands]
    audit_cpu = time.process_time() - start
    differ = odd = 0
    with open(os.path.join(tmp, "stacks.jsonl"), encoding="utf-8") as f:
        for hand, result, line in zip(hands, results, f):
            stacks = json.loads(line)
            if stacks is None or stacks == result.end_stacks:
                continue
            gaps = [abs(stacks[p] - result.end_stacks[p]) for p in stacks]
            if max(gaps) == 1:
                odd += 1  # pokerkit hands a pot's odd chips out its own way (RULES.md: one each, left of button)
                continue
            differ += 1
            if differ <= 3:
                print(f"  pokerkit's end stacks differ on hand {hand.hand_id}: {stacks} vs {result.end_stacks}")
    n = len(hands)
    print(f"pokerkit {r['version']} (its own venv): replayed {r['replayed']} of {n} parsed hands in {r['cpu']:.2f} s "
          f"cpu = {n / r['cpu']:,.0f} hands/s ({r['process_wall']:.2f} s wall for its whole process)")
    print(f"audit replay + session-less rules of the same parsed hands: {audit_cpu:.2f} s cpu = {n / audit_cpu:,.0f} "
          f"hands/s -> {r['cpu'] / audit_cpu:.1f}x pokerkit's speed")
    if command_cpu is not None and n == hands_in_file:
        print(f"audit check, the whole command (read, parse, replay, rules, output; --jobs 1): {command_cpu:.2f} s cpu "
              f"-> {r['cpu'] / command_cpu:.1f}x pokerkit's replay alone")
    print(f"pokerkit's final stacks differ from the audit's settlement on {differ} hands, and by one odd chip on "
          f"{odd} split pots (pokerkit does not give odd chips one at a time from the button's left); "
          f"pokerkit refused {n - r['replayed']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="rounds of the command runs (medians are printed)")
    ap.add_argument("--jobs", default="1,2", help="--jobs values to compare, the first being the baseline")
    ap.add_argument("--small-files", type=int, default=0, metavar="N",
                    help="also check the same hands cut into N files")
    ap.add_argument("--vs-pokerkit", action="store_true", help="pokerkit 0.7.7's replay of the same hands")
    ap.add_argument("--pokerkit-hands", type=int, default=None, help="at most this many hands for pokerkit (all)")
    ap.add_argument("--before", metavar="DIR", help="also run the command of the code in DIR (a compiled source tree)")
    ap.add_argument("--ceiling", action="store_true",
                    help="also two --jobs 1 commands at once against one alone: what the machine allows --jobs 2")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # the child process
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure_in_process(args.measure)))
        return
    jobs = [int(j) for j in args.jobs.split(",")]
    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
        path = os.path.join(tmp, "corpus.txt")
        hands, wall, cpu = make_corpus(path, args.hands, args.seed)
        size = os.path.getsize(path)
        print(f"simulate: {hands} hands ({size / 2**20:.1f} MiB) in {wall:.2f} s wall = {hands / wall:,.0f} hands/s; "
              f"{cpu:.2f} s cpu = {hands / cpu:,.0f} hands/s (seed {args.seed})")
        compare_jobs(path, hands, jobs, args.repeat, "FILE", args.before)
        if args.ceiling:
            machine_ceiling(path, args.repeat)
        one_job = [run_command(audit_command() + ["check", path, "--format", "json", "--jobs", "1"])["cpu"]
                   for _ in range(3 if args.vs_pokerkit else 0)]

        child = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", path],
                               capture_output=True, text=True, check=True)
        r = json.loads(child.stdout)
        print(f"check_paths in-process (--jobs 1): {r['seconds']:.2f} s wall = {hands / r['seconds']:,.0f} hands/s; "
              f"{r['cpu']:.2f} s cpu = {hands / r['cpu']:,.0f} hands/s (imports {r['setup']:.2f} s not counted); "
              f"peak memory {r['rss_peak']:.0f} MiB ({r['rss_peak'] - r['rss_base']:+.0f} MiB over the "
              f"{r['rss_base']:.0f} MiB after imports)")
        if r["findings"]:
            print(f"  findings on simulated legal play (each is a simulator/engine disagreement): {r['rules']}")
        if args.small_files:
            folder = os.path.join(tmp, "small")
            os.mkdir(folder)
            written = split_corpus(path, folder, args.small_files)
            compare_jobs(folder, hands, jobs, args.repeat, f"FOLDER ({written} files)", args.before)
        if args.vs_pokerkit:
            pokerkit_compare(path, args.pokerkit_hands, tmp, min(one_job) if one_job else None, hands)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (wall figures suffer under load; "
          "cpu figures much less)")


if __name__ == "__main__":
    main()
