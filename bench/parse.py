"""Parse throughput: how fast the reader and the house grammar turn a file into hands (no replay, no rules).

    .venv/bin/python bench/parse.py [--hands 20000] [--seed 1] [--repeat 3] [--file FILE]

Builds a corpus with the simulator (``audit.simulate``; also timed, as the simulator's hands/s), writes it to a
temporary file, then measures ``audit.read.read_blocks`` + ``audit.dialects.dispatch.parse_block`` over it in a fresh child
process, so that the peak memory printed is that of parsing alone (``ru_maxrss``). Prints figures; asserts
nothing about time (a benchmark is a script, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_mib() -> float:
    """This process's peak resident set size so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_corpus(path: str, hands: int, seed: int) -> tuple[int, int, float, float]:
    """Write whole simulated home-open sessions until ``hands`` hands; (hands, bytes, wall s, cpu s)."""
    from audit.simulate import iter_simulated

    start = time.perf_counter()
    cpu = time.process_time()
    total = 0
    size = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for i, s in enumerate(iter_simulated("home-open", seed)):
            text = ("\n" if i else "") + s.text
            out.write(text)
            size += len(text.encode("utf-8"))
            total += s.hands
            if total >= hands:
                break
    return total, size, time.perf_counter() - start, time.process_time() - cpu


def measure(path: str, repeat: int) -> dict[str, float]:
    """In this (fresh) process: parse the file ``repeat`` times; best time, hands, peak memory."""
    t0 = time.perf_counter()
    from audit.model import Hand
    from audit.dialects.dispatch import parse_block
    from audit.dialects.house import house_line_parser
    from audit.read import read_blocks

    house_line_parser()  # load the (cached) tables outside the timing
    setup = time.perf_counter() - t0
    base = rss_mib()
    best = best_cpu = float("inf")
    hands = blocks = 0
    for _ in range(repeat):
        hands = blocks = 0
        start, cpu = time.perf_counter(), time.process_time()
        for block in read_blocks(path):
            blocks += 1
            if type(parse_block(block)) is Hand:
                hands += 1
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return {"hands": hands, "blocks": blocks, "seconds": best, "cpu": best_cpu, "setup": setup,
            "rss_base": base, "rss_peak": rss_mib()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--file", help="parse this file instead of a simulated corpus")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # the child process
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.repeat)))
        return
    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
        path = args.file
        if path is None:
            path = os.path.join(tmp, "corpus.txt")
            hands, size, secs, cpu = make_corpus(path, args.hands, args.seed)
            print(f"simulate: {hands} hands ({size / 2**20:.1f} MiB) in {secs:.2f} s wall = {hands / secs:,.0f} "
                  f"hands/s; {cpu:.2f} s cpu = {hands / cpu:,.0f} hands/s (seed {args.seed})")
        child = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", path,
                                "--repeat", str(args.repeat)], capture_output=True, text=True, check=True)
        r = json.loads(child.stdout)
    print(f"parse (read + parse_block): {r['hands']} hands in {r['seconds']:.2f} s wall = "
          f"{r['hands'] / r['seconds']:,.0f} hands/s; {r['cpu']:.2f} s cpu = {r['hands'] / r['cpu']:,.0f} hands/s "
          f"(best of {args.repeat}; imports and grammar {r['setup']:.2f} s)")
    print(f"peak memory (parse process, ru_maxrss): {r['rss_peak']:.0f} MiB "
          f"({r['rss_peak'] - r['rss_base']:+.0f} MiB over the {r['rss_base']:.0f} MiB after imports)")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (wall figures suffer under load; "
          "cpu figures much less)")


if __name__ == "__main__":
    main()
