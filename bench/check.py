"""End-to-end ``audit check`` throughput on a simulated corpus: read → parse → replay → session rules → findings.

    .venv/bin/python bench/check.py [--hands 20000] [--seed 1] [--pokerkit-hands 3000] [--no-pokerkit]

1. Simulates home-open sessions (``audit.simulate``) until ``--hands`` hands and writes them to a temporary file.
2. Runs the real command once as a subprocess, ``audit check FILE --format json``: wall time, and the child's
   peak memory (``RUSAGE_CHILDREN``).
3. Runs the same pipeline in a fresh child process through ``audit.check.check_paths`` (what the command calls),
   timing wall and cpu, and its peak memory (``ru_maxrss``) -- no interpreter start-up in the figure.
4. If ``pokerkit`` is importable (it is not a project dependency: ``pip install pokerkit``), replays the same
   parsed hands through pokerkit's ``State`` (a five-card draw built from its no-limit streets) and through
   ``audit.replay``, and prints the ratio; it also counts hands where pokerkit's final stacks differ
   from the log's (a third opinion on the pots).

Prints figures; asserts nothing about time. A corpus with findings is reported (legal play should have none).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
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


# ---------------------------------------------------------------------------------------------- pokerkit

def pokerkit_compare(path: str, limit: int) -> None:
    try:
        import pokerkit  # noqa: F401  (optional: only this benchmark uses it)
    except ImportError:
        print("pokerkit: not installed (pip install pokerkit) -- comparison skipped")
        return
    from pokerkit import (
        Automation, BettingStructure, Deck, Mode, Opening, StandardHighHand, State, Street,
    )

    from audit.model import Action, Dealt, Discard, Hand, Marker, StandPat
    from audit.dialects.dispatch import parse_block
    from audit.profile import load_profile
    from audit.read import read_blocks
    from audit import replay

    profile = load_profile("home-open")
    hands: list[Hand] = []
    for block in read_blocks(path):
        parsed = parse_block(block)
        if type(parsed) is Hand:
            hands.append(parsed)
            if len(hands) >= limit:
                break
    automations = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
                   Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
                   Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING)
    # five-card draw, no limit: one dealing street of five hole cards, then a draw street; min bet 2
    streets = (Street(False, (False,) * 5, 0, False, Opening.POSITION, profile.min_bet_value, None),
               Street(False, (), 0, True, Opening.POSITION, profile.min_bet_value, None))

    def play(hand: Hand) -> dict[str, int]:
        seats = sorted(hand.seats, key=lambda s: s.seat)
        names = [s.player for s in seats]
        b = [s.seat for s in seats].index(hand.button)
        order = names[b + 1:] + names[:b + 1]  # pokerkit: first to act first, the button last
        index = {p: i for i, p in enumerate(order)}
        chips = {s.player: s.chips for s in seats}
        state = State(automations, Deck.STANDARD, (StandardHighHand,), streets, BettingStructure.NO_LIMIT, True,
                      profile.ante or 0, (0,) * len(order), 0, tuple(chips[p] for p in order), len(order),
                      mode=Mode.CASH_GAME)
        redeal: list[tuple[int, str]] = []
        drawing = False
        for item in hand.body:
            kind = type(item)
            if kind is Dealt:
                cards = "".join(item.groups[-1])
                if drawing:
                    redeal.append((index[item.player], cards))
                else:
                    state.deal_hole(cards, index[item.player])
            elif kind is Action:
                if item.kind == "fold":
                    state.fold()
                elif item.kind in ("check", "call"):
                    state.check_or_call()
                else:
                    state.complete_bet_or_raise_to(item.to if item.kind == "raise" else item.amount)
            elif kind is Discard:
                drawing = True
                state.stand_pat_or_discard("".join(item.cards or ()))
            elif kind is StandPat:
                drawing = True
                state.stand_pat_or_discard()
            elif kind is Marker and item.street == "second":
                for i, cards in redeal:  # pokerkit deals the draw after every player has discarded
                    state.deal_hole(cards, i)
                redeal = []
        return {p: state.stacks[index[p]] for p in order}

    warnings.simplefilter("ignore")  # pokerkit warns about cards dealt out of its own deck order
    start = time.process_time()
    failed = differ = 0
    stacks: list[dict[str, int] | None] = []
    for hand in hands:
        try:
            stacks.append(play(hand))
        except (ValueError, KeyError) as exc:
            failed += 1
            stacks.append(None)
            if failed <= 3:
                print(f"  pokerkit refused hand {hand.hand_id}: {exc}")
    pk_cpu = time.process_time() - start
    start = time.process_time()
    results = [replay(hand, profile) for hand in hands]
    audit_cpu = time.process_time() - start
    odd = 0
    for hand, pk, result in zip(hands, stacks, results):
        if pk is not None and pk != result.end_stacks:
            gaps = [abs(pk[p] - result.end_stacks[p]) for p in pk]
            if max(gaps) == 1:
                odd += 1  # pokerkit hands a pot's odd chips out its own way (RULES.md: one each, left of button)
                continue
            differ += 1
            if differ <= 3:
                print(f"  pokerkit's end stacks differ on hand {hand.hand_id}: {pk} vs {result.end_stacks}")
    n = len(hands)
    from importlib.metadata import version
    print(f"pokerkit {version('pokerkit')}: replayed {n - failed} of {n} "
          f"parsed hands in {pk_cpu:.2f} s cpu = {n / pk_cpu:,.0f} hands/s; audit replay: {audit_cpu:.2f} s cpu = "
          f"{n / audit_cpu:,.0f} hands/s (replay + rules, no parse) -> audit is {pk_cpu / audit_cpu:.1f}x "
          "pokerkit's speed")
    print(f"pokerkit's final stacks differ from the audit's settlement on {differ} hands, and by one odd chip on "
          f"{odd} split pots (pokerkit does not give odd chips one at a time from the button's left)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pokerkit-hands", type=int, default=3_000)
    ap.add_argument("--no-pokerkit", action="store_true")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # the child process
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure_in_process(args.measure)))
        return
    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
        path = os.path.join(tmp, "corpus.txt")
        hands, wall, cpu = make_corpus(path, args.hands, args.seed)
        size = os.path.getsize(path)
        print(f"simulate: {hands} hands ({size / 2**20:.1f} MiB) in {wall:.2f} s wall = {hands / wall:,.0f} hands/s; "
              f"{cpu:.2f} s cpu = {hands / cpu:,.0f} hands/s (seed {args.seed})")

        cmd = audit_command() + ["check", path, "--format", "json"]
        start = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        child_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        findings = len(proc.stdout.splitlines())
        print(f"audit check FILE --format json (subprocess): exit {proc.returncode}, {findings} findings, "
              f"{wall:.2f} s wall = {hands / wall:,.0f} hands/s; {child_cpu:.2f} s cpu = {hands / child_cpu:,.0f} "
              f"hands/s; peak memory {rss_mib(resource.RUSAGE_CHILDREN):.0f} MiB")

        child = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", path],
                               capture_output=True, text=True, check=True)
        r = json.loads(child.stdout)
        print(f"check_paths in-process: {r['seconds']:.2f} s wall = {hands / r['seconds']:,.0f} hands/s; "
              f"{r['cpu']:.2f} s cpu = {hands / r['cpu']:,.0f} hands/s (imports {r['setup']:.2f} s not counted); "
              f"peak memory {r['rss_peak']:.0f} MiB ({r['rss_peak'] - r['rss_base']:+.0f} MiB over the "
              f"{r['rss_base']:.0f} MiB after imports)")
        if r["findings"]:
            print(f"  findings on simulated legal play (each is a simulator/engine disagreement): {r['rules']}")
        if not args.no_pokerkit:
            pokerkit_compare(path, args.pokerkit_hands)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (wall figures suffer under load; "
          "cpu figures much less)")


if __name__ == "__main__":
    main()
