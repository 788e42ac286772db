"""Replay + session-rule throughput: the audit after parsing (no reading, no parsing in the figure).

    .venv/bin/python bench/replay.py [--file /tmp/sim20k.log] [--hands 20000] [--seed 1] [--repeat 3]

Parses the corpus once into memory (``--file``, or a home-open corpus simulated with ``--seed`` until ``--hands``
hands), then times -- in CPU seconds (``time.process_time``) -- what ``audit check`` does with the parsed
blocks: the replay of every hand under its profile, the session rules across hands, the findings sorted and
capped (``audit.pipeline.audit_parsed``). Prints hands/s for each repeat and the best; also the replay alone
(``audit.replay``, no session rules). Asserts nothing about time (a benchmark is a script, not a test).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", help="a corpus to read (default: simulate one)")
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from audit._native import compiled_state
    from audit.model import Hand
    from audit.dialects.dispatch import parse_block
    from audit.pipeline import FileContext, audit_parsed
    from audit.profile import load_profile
    from audit.read import read_blocks
    from audit import replay

    replay_module = sys.modules["audit.engine.streets"]
    print(f"the engine from {replay_module.__file__} ({compiled_state()})")
    path = args.file
    tmp = None
    if path is None:
        from audit.simulate import iter_simulated

        tmp = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8")
        total = 0
        for i, s in enumerate(iter_simulated("home-open", args.seed)):
            tmp.write(("\n" if i else "") + s.text)
            total += s.hands
            if total >= args.hands:
                break
        tmp.close()
        path = tmp.name
    try:
        start = time.process_time()
        parsed = [(parse_block(block), block) for block in read_blocks(path)]
        parse_cpu = time.process_time() - start
    finally:
        if tmp is not None:
            os.unlink(tmp.name)
    hands = [p for p, _ in parsed if type(p) is Hand]
    n = len(hands)
    print(f"parsed {n} hands ({len(parsed)} blocks) in {parse_cpu:.2f} s cpu = {n / parse_cpu:,.0f} hands/s")

    profile = load_profile("home-open")
    best = 0.0
    for r in range(args.repeat):
        ctx = FileContext(profile, profile)
        findings = 0
        start = time.process_time()
        for p, block in parsed:
            audited = audit_parsed(p, block, ctx)
            if audited is not None:
                findings += len(audited.findings)
        cpu = time.process_time() - start
        best = max(best, n / cpu)
        print(f"  run {r + 1}: replay + session rules {cpu:.3f} s cpu = {n / cpu:,.0f} hands/s ({findings} findings)")
    print(f"replay + session rules: best {best:,.0f} hands/s cpu")

    best = 0.0
    for r in range(args.repeat):
        start = time.process_time()
        for h in hands:
            replay(h, profile)
        cpu = time.process_time() - start
        best = max(best, n / cpu)
    print(f"replay alone (home-open, no sessions): best {best:,.0f} hands/s cpu")


if __name__ == "__main__":
    main()
