"""The cost of each stage of ``audit check`` and ``audit ingest``, per hand, on a simulated home-open log.

    .venv/bin/python bench/stages.py [--hands 20000] [--seed 1] [--repeat 5] [--file LOG]
                                     [--instructions [--instructions-hands 2000]] [--before DIR]

Simulates home-open sessions (``audit.simulate``, seed ``--seed``) until ``--hands`` hands (or reads ``--file``),
then runs the pipeline over the whole log, streaming as the commands do (nothing kept from one hand to the next),
up to each of these stages in turn, ``--repeat`` rounds (alternating, so that a busy moment of a shared machine
falls on all of them); a stage's cost is the least CPU time (``time.process_time``) of the run up to it less
that of the run up to the stage before, printed in microseconds per hand and as a share of ``audit check``'s:

- ``read``: the file decoded and cut into blocks (``audit.read.read_blocks``);
- ``parse``: each block into the model (``audit.dialects.dispatch.parse_block``);
- ``replay``: each hand replayed and judged without its session (``audit.replay``);
- ``session``: what the pipeline adds to the replay: preambles, the session's rules across hands, the findings
  sorted and capped (``audit.pipeline.audit_parsed``);
- ``output``: what ``audit check --format json`` does with the audited blocks: counting them and writing their
  findings (``audit.parallel.checked``, ``audit.check._check_file``; legal play has no findings);
- ``rows``: ``audit ingest``'s rows of every table (``audit.store.rows.RowBuilder``), instead of the output;
- ``arrow``: those rows as Arrow record batches (``audit.store.ingest.FileBuilder``, less ``rows``; pyarrow's
  import, about 0.1 s once per process, falls here).

``check`` is ``audit.check.check_paths`` whole (the command without the interpreter's start-up). A difference of
two CPU times on a loaded machine can come out negative for a stage that costs next to nothing (``output``).
``--instructions``: also the instructions each stage executes, counted by ``valgrind --tool=callgrind`` (immune
to the machine's load), on the first ``--instructions-hands`` hands: one child process per stage runs the
pipeline up to it, and each stage is the difference from the one before (the child that stops after the
imports gives the start-up). ``--before DIR``: the CPU times of this code and of the code in ``DIR`` (a
compiled source tree), each round a fresh process of each, alternating.

Which code is measured: the ``audit`` package ``PYTHONPATH`` points at (``PYTHONPATH=$PWD`` in a compiled tree
for the compiled build; where ``PYTHONDONTWRITEBYTECODE`` is set, run ``python -m compileall audit`` in both
trees first, or the start-up compiles their plain modules again). Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

STAGES = ("read", "parse", "replay", "session", "output", "rows", "arrow")


def make_corpus(path: str, hands: int, seed: int) -> int:
    """``bench/check.py``'s corpus (whole simulated home-open sessions until ``hands`` hands): its hand count."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import check as bench_check

    total, _, _ = bench_check.make_corpus(path, hands, seed)
    return int(total)


def run_upto(path: str, level: str) -> int:
    """The pipeline of ``audit check`` (and of ``audit ingest``'s rows) over ``path``, streaming as the commands
    do (nothing kept between hands), up to the stage ``level``; returns the hands read. Each stage's cost is the
    difference between two levels (``session``: ``audit_parsed`` less the session-less replay; ``rows`` and
    ``arrow`` are built from the audited blocks instead of the output)."""
    from audit import replay
    from audit.check import CheckSummary, _check_file
    from audit.dialects.dispatch import parse_block
    from audit.model import Hand
    from audit.parallel import checked
    from audit.pipeline import FileContext, audit_parsed
    from audit.profile import load_profile
    from audit.read import read_blocks
    from audit.store.ingest import FileBuilder
    from audit.store.rows import RowBuilder

    profile = load_profile("home-open")
    blocks = read_blocks(path)
    hands = 0
    if level == "read":
        for _ in blocks:
            pass
        return 0
    if level == "parse":
        for b in blocks:
            if type(parse_block(b)) is Hand:
                hands += 1
        return hands
    if level == "replay":
        for b in blocks:
            p = parse_block(b)
            if type(p) is Hand:
                replay(p, profile)  # type: ignore[arg-type]
                hands += 1
        return hands
    ctx = FileContext(profile, profile)
    audited = (a for a in (audit_parsed(parse_block(b), b, ctx) for b in blocks) if a is not None)
    if level == "session":
        for a in audited:
            hands += a.hand is not None
        return hands
    if level == "output":
        tally = CheckSummary()
        _check_file(path, checked(audited), tally, False, "en", io.StringIO(), None, [], None)
        return tally.hands
    if level == "rows":
        rows = RowBuilder("0" * 64, path)
        for a in audited:
            rows.add(a)
        return rows.hands
    assert level == "arrow", level
    builder = FileBuilder("0" * 64, path)
    for a in audited:
        builder.add(a)
    builder.finish(path, os.path.getsize(path), "home-open")
    return builder.rows.hands


def check_whole(path: str) -> int:
    from audit.check import CheckSummary, check_paths
    from audit.profile import load_profile

    tally = CheckSummary()
    check_paths([path], load_profile("home-open"), "json", io.StringIO(), summary=tally)
    return tally.hands


def per_stage(level: dict[str, float]) -> dict[str, float]:
    """Each stage's cost from the cost of each level (the pipeline run up to it)."""
    return {"read": level["read"], "parse": level["parse"] - level["read"],
            "replay": level["replay"] - level["parse"], "session": level["session"] - level["replay"],
            "output": level["output"] - level["session"], "rows": level["rows"] - level["session"],
            "arrow": level["arrow"] - level["rows"]}


def cpu_of(fn: Callable[[], None]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def stage_costs(path: str, repeat: int) -> tuple[dict[str, float], int]:
    """The least CPU seconds of each level (and of the whole check) over ``repeat`` rounds; the hands."""
    best: dict[str, float] = {}
    hands = 0
    for _ in range(repeat):
        for name in STAGES + ("check",):
            start = time.process_time()
            n = check_whole(path) if name == "check" else run_upto(path, name)
            cpu = time.process_time() - start
            hands = max(hands, n)
            best[name] = min(best.get(name, cpu), cpu)
    return best, hands


def instructions(path: str, level: str) -> int:
    """Instructions of a child process that runs the pipeline up to ``level`` (``imports``: the imports only),
    counted by callgrind."""
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); import stages; "
            f"stages.child({path!r}, {level!r})")
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                           code], capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", proc.stderr)
    assert m, proc.stderr[-2000:]
    return int(m.group(1))


def child(path: str, level: str) -> None:
    import audit.check, audit.parallel, audit.pipeline, audit.store.ingest, audit.store.rows  # noqa: E401,F401
    from audit.profile import load_profile

    load_profile("home-open")
    if level != "imports":
        run_upto(path, level)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--file", help="a log to measure (default: simulate one)")
    ap.add_argument("--instructions", action="store_true", help="also count instructions with callgrind")
    ap.add_argument("--instructions-hands", type=int, default=2_000)
    ap.add_argument("--before", metavar="DIR", help="also measure the code in DIR (a compiled source tree), the "
                    "two alternating round by round, each round in a fresh process of each")
    ap.add_argument("--levels", help=argparse.SUPPRESS)  # a child: one round over this file, as JSON
    args = ap.parse_args()
    if args.levels:
        levels, n = stage_costs(args.levels, 1)
        print(json.dumps({"levels": levels, "hands": n}))
        return
    if args.before:
        compare(args)
        return

    from audit._native import compiled_state
    import audit.pipeline

    print(f"the audit package at {os.path.dirname(audit.__file__)} ({compiled_state()}); "
          f"pipeline module {os.path.basename(audit.pipeline.__file__ or '')}")
    with tempfile.TemporaryDirectory(prefix="audit-stages-") as tmp:
        path = args.file or os.path.join(tmp, "corpus.txt")
        if not args.file:
            make_corpus(path, args.hands, args.seed)
        levels, n = stage_costs(path, args.repeat)
        cost = per_stage(levels)
        print(f"{n:,} hands, {os.path.getsize(path) / 1e6:.1f} MB; each level's least CPU time of {args.repeat} "
              f"rounds, a stage being the difference between two levels:")
        table(cost, 1e6 / n, "us/hand")
        print(f"  {'check':<8} {1e6 * levels['check'] / n:8.1f}  = {n / levels['check']:,.0f} hands per CPU second "
              f"(check_paths whole, in process; the ingest levels: {n / levels['arrow']:,.0f})")

        if args.instructions:
            small = path
            m = n
            if not args.file:
                small = os.path.join(tmp, "small.txt")
                m = make_corpus(small, args.instructions_hands, args.seed)
            base = instructions(small, "imports")
            counts = {s: instructions(small, s) - base for s in STAGES}
            print(f"instructions (callgrind) on the first {m:,} hands; start-up and imports {base / 1e6:,.0f} M:")
            table(per_stage(counts), 1e-3 / m, "k instr/hand")


def compare(args: argparse.Namespace) -> None:
    """This code against the code in ``args.before``: each round one fresh process of each side, alternating."""
    with tempfile.TemporaryDirectory(prefix="audit-stages-") as tmp:
        path = args.file or os.path.join(tmp, "corpus.txt")
        if not args.file:
            make_corpus(path, args.hands, args.seed)
        sides = {"before": dict(os.environ, PYTHONPATH=args.before), "this": dict(os.environ)}
        best: dict[str, dict[str, float]] = {side: {} for side in sides}
        n = 0
        for _ in range(args.repeat):
            for side, env in sides.items():
                out = subprocess.run([sys.executable, __file__, "--levels", path], env=env, capture_output=True,
                                     text=True, check=True)
                got = json.loads(out.stdout.strip().splitlines()[-1])
                n = got["hands"]
                for name, cpu in got["levels"].items():
                    best[side][name] = min(best[side].get(name, cpu), cpu)
        print(f"{n:,} hands, {os.path.getsize(path) / 1e6:.1f} MB; each level's least CPU time of {args.repeat} "
              f"rounds (a fresh process of each side per round, alternating); before: the code in {args.before}")
        cost = {side: per_stage(best[side]) for side in sides}
        print(f"  {'stage':<8} {'before':>8} {'this':>8}  us/hand")
        for s in STAGES:
            print(f"  {s:<8} {1e6 * cost['before'][s] / n:8.1f} {1e6 * cost['this'][s] / n:8.1f}")
        for name, levels in (("check (read to output)", "output"), ("ingest (read to arrow)", "arrow"),
                             ("check_paths whole", "check")):
            b, t = best["before"][levels], best["this"][levels]
            print(f"  {name}: before {n / b:,.0f}, this {n / t:,.0f} hands per CPU second ({b / t:.3f}x)")


def table(cost: dict[str, float], scale: float, unit: str) -> None:
    total = sum(cost[s] for s in STAGES[:5])
    print(f"  {'stage':<8} {unit:>8} {'share':>6}   (share of read to output; ingest adds rows and arrow)")
    for s in STAGES:
        share = f"{100 * cost[s] / total:5.1f}%" if s in STAGES[:5] else "      "
        print(f"  {s:<8} {cost[s] * scale:8.1f} {share}")
    print(f"  {'sum':<8} {total * scale:8.1f}  (read to output)")


if __name__ == "__main__":
    main()
