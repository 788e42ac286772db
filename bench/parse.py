"""Parse throughput: how fast the reader and the house grammar turn a file into hands (no replay, no rules).

    .venv/bin/python bench/parse.py [--hands 20000] [--seed 1] [--repeat 3] [--file FILE] [--without SHORTCUT]
                                    [--players]

Builds a corpus with the simulator (``audit.simulate``; also timed, as the simulator's hands/s), writes it to a
temporary file, then measures ``audit.read.read_blocks`` + ``audit.dialects.dispatch.parse_block`` over it in a fresh child
process, so that the peak memory printed is that of parsing alone (``ru_maxrss``). Prints figures; asserts
nothing about time (a benchmark is a script, not a test).

``--without SHORTCUT`` (repeatable) turns one of the house parser's shortcuts off, to measure what it gains (the
figures beside them in ``audit/dialects/house_*.py`` were measured so): ``memo`` (the lines read before are read
again), ``slicing`` (every line by its pattern; the one-pass hand needs the sliced readers, so it goes too),
``one-pass`` (every hand through the tables' stack), ``stored-tables`` (Lark builds the tables at the start) and
``lazy-patterns`` (every pattern compiled at the start; these two show in the start-up figure). The shortcuts
are turned off by replacing the parser's parts, which the compiled modules do not allow: run it on the plain
Python modules (``AUDIT_PURE_PYTHON=1``).

``--players`` also replays the parsed hands (``audit.replay``, home-open) ``--repeat`` times two ways,
alternating: as parsed, every line's player the very string of his seat, and with each line's player an equal
copy (a string of its own, as a reader that sliced every line afresh would give), to measure what the seats' own
strings gain the engine's look-ups by player (any build, the compiled one included).
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


SHORTCUTS = ("memo", "slicing", "one-pass", "stored-tables", "lazy-patterns")


class _Forgetful(dict):  # type: ignore[type-arg]
    """A memo that never keeps a line."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


def measure(path: str, repeat: int, without: list[str]) -> dict[str, float]:
    """In this (fresh) process: parse the file ``repeat`` times; best time, hands, peak memory."""
    t0 = time.perf_counter()
    from audit.model import Hand
    from audit.dialects import house_parser
    from audit.dialects.dispatch import parse_block
    from audit.read import read_blocks

    if "stored-tables" in without:
        house_parser.stored_tables = lambda: None  # type: ignore[assignment]
    setup_cpu = time.process_time()
    parser = house_parser.house_line_parser()  # load the (cached) tables outside the timing
    if "lazy-patterns" in without:
        parser.patterns  # (compiles every pattern)
    setup_cpu = time.process_time() - setup_cpu
    if "memo" in without:
        parser.memo = _Forgetful()
    if "slicing" in without:
        parser.quick = False
    if "one-pass" in without:
        parser.read_hand = lambda lines, numbers, file: None  # type: ignore[method-assign]
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
    return {"hands": hands, "blocks": blocks, "seconds": best, "cpu": best_cpu, "setup": setup, "setup_cpu": setup_cpu,
            "rss_base": base, "rss_peak": rss_mib()}


def players_gain(path: str, repeat: int) -> dict[str, float]:
    """In this (fresh) process: the least CPU seconds of replaying the file's hands with the seats' own strings
    (``own``) and with a copy of the player's name on every line (``copies``)."""
    from audit import replay
    from audit.dialects.common import PLAYER_ITEMS, with_player
    from audit.dialects.dispatch import parse_block
    from audit.model import Hand, Item
    from audit.profile import load_profile
    from audit.read import read_blocks

    profile = load_profile("home-open")
    hands = [h for h in map(parse_block, read_blocks(path)) if type(h) is Hand]
    def copied(item: Item) -> Item:
        return with_player(item, (str(getattr(item, "player")) + ".")[:-1]) if type(item) in PLAYER_ITEMS else item

    copies = [h._replace(body=tuple(map(copied, h.body))) for h in hands]
    best = {"own": float("inf"), "copies": float("inf")}
    for _ in range(repeat):
        for name, these in (("own", hands), ("copies", copies)):
            cpu = time.process_time()
            for hand in these:
                replay(hand, profile)
            best[name] = min(best[name], time.process_time() - cpu)
    return {"hands": len(hands), **best}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--file", help="parse this file instead of a simulated corpus")
    ap.add_argument("--without", action="append", default=[], choices=SHORTCUTS,
                    help="turn this shortcut of the house parser off (plain Python only; repeatable)")
    ap.add_argument("--players", action="store_true",
                    help="also replay the hands with the seats' own strings and with copies of the names")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # the child process
    ap.add_argument("--measure-players", help=argparse.SUPPRESS)  # the child process of --players
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.repeat, args.without)))
        return
    if args.measure_players:
        print(json.dumps(players_gain(args.measure_players, args.repeat)))
        return
    if args.without:
        from audit import _native
        if _native.compiled_state() == "compiled":
            sys.exit("--without replaces parts of the parser, which the compiled modules do not allow: "
                     "run it with AUDIT_PURE_PYTHON=1")
    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp:
        path = args.file
        if path is None:
            path = os.path.join(tmp, "corpus.txt")
            hands, size, secs, cpu = make_corpus(path, args.hands, args.seed)
            print(f"simulate: {hands} hands ({size / 2**20:.1f} MiB) in {secs:.2f} s wall = {hands / secs:,.0f} "
                  f"hands/s; {cpu:.2f} s cpu = {hands / cpu:,.0f} hands/s (seed {args.seed})")
        child = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", path,
                                "--repeat", str(args.repeat)] + [f"--without={w}" for w in args.without],
                               capture_output=True, text=True, check=True)
        r = json.loads(child.stdout)
        if args.players:
            child = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure-players", path,
                                    "--repeat", str(args.repeat)], capture_output=True, text=True, check=True)
            players = json.loads(child.stdout)
    print(f"parse (read + parse_block): {r['hands']} hands in {r['seconds']:.2f} s wall = "
          f"{r['hands'] / r['seconds']:,.0f} hands/s; {r['cpu']:.2f} s cpu = {r['hands'] / r['cpu']:,.0f} hands/s "
          f"(best of {args.repeat}; imports and grammar {r['setup']:.2f} s, of which the parser's set-up "
          f"{r['setup_cpu'] * 1000:.1f} ms cpu"
          f"{'; without ' + ', '.join(args.without) if args.without else ''})")
    print(f"peak memory (parse process, ru_maxrss): {r['rss_peak']:.0f} MiB "
          f"({r['rss_peak'] - r['rss_base']:+.0f} MiB over the {r['rss_base']:.0f} MiB after imports)")
    if args.players:
        own, copies = players["own"], players["copies"]
        print(f"replay (home-open): {players['hands']:.0f} hands in {own:.3f} s cpu with the seats' own strings, "
              f"{copies:.3f} s with a copy of the name on every line ({100 * (copies / own - 1):+.1f}%; best of "
              f"{args.repeat})")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (wall figures suffer under load; "
          "cpu figures much less)")


if __name__ == "__main__":
    main()
