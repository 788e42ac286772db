"""The live table's cost per entry, early and late in a session: an entry at about the 10th and at about the
1,000th, and an undo at each.

    PYTHONPATH=. .venv/bin/python bench/live.py [--late 1000] [--repeat 20]

Plays a home-open session (no limit on its hands) of three players entry by entry, each entry what
``legal_now`` offers (a call or a check, stand pat, the first to show shows, the others muck), through
``audit.live.Table`` as the service does (``apply``, then ``state``). Times, in CPU seconds
(``time.process_time``), the median of ``--repeat`` entries made at each point (each on a copy of the table as it
stood there, made again from its entries) and of as many undos, and counts how often the hand in play was read
(``parse_block``) and how many of its lines the engine followed per entry. The cost must stay flat with the
session's length (an entry reads and follows only the hand in play). Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

CARDS = {"Ana": "As Ad 7c 8d 9s", "Beto": "Kh Kd Ks 7h 8h", "Carla": "Qc Qd Jc Js Tc"}


def next_entry(table: Any) -> dict[str, Any]:
    """What a host would tap now: a check or a call, stand pat; at the show down the first shows, the rest muck."""
    state = table.state()
    p, actions = state["to_act"], state["allowed"]["actions"]
    if "show" in actions:
        if any(": shows [" in line for line in table.hand.lines):
            return {"player": p, "action": "muck"}
        return {"player": p, "action": "show", "cards": CARDS[p]}
    for action in ("check", "call", "stand-pat"):
        if action in actions:
            return {"player": p, "action": action}
    raise AssertionError(f"nothing to enter: {state['allowed']}")


def played_to(entries: int) -> Any:
    from audit.live import Table, TableConfig

    seats = [{"seat": i, "player": p, "chips": 100} for i, p in enumerate(CARDS, start=1)]
    config = TableConfig.from_request({"name": "Bench", "profile": "home-open", "options": {"session-hands": "open"},
                                       "seats": seats, "button": 3}, "bench", "2026/12/04 20:00:00")
    table = Table(config)
    while len(table.entries) < entries:
        table.apply(next_entry(table))
        table.state()
    return table


def measure(table: Any, repeat: int) -> tuple[float, float, float, float]:
    """(median CPU seconds of an entry and its state, of an undo and its state, reads and lines followed per
    entry)."""
    import audit.live.table as live_table
    from audit.live import Table

    reads = follows = 0
    real_parse, real_follow = live_table.parse_block, live_table.follow

    def parse(block: Any) -> Any:
        nonlocal reads
        reads += 1
        return real_parse(block)

    def follow(st: Any, item: Any) -> bool:
        nonlocal follows
        follows += 1
        return real_follow(st, item)

    entry_times: list[float] = []
    undo_times: list[float] = []
    live_table.parse_block, live_table.follow = parse, follow  # type: ignore[assignment]
    try:
        for _ in range(repeat):
            copy = Table.replay(table.config, table.entries, sealed=table.sealed)
            copy.state()
            entry = next_entry(copy)
            reads = follows = 0
            start = time.process_time()
            copy.apply(entry)
            copy.state()
            entry_times.append(time.process_time() - start)
            counted = (reads, follows)
            start = time.process_time()
            if getattr(copy, "may_undo", lambda: True)():  # (a table of before may_undo: always)
                copy.undo()
                copy.state()
            undo_times.append(time.process_time() - start)
    finally:
        live_table.parse_block, live_table.follow = real_parse, real_follow
    return statistics.median(entry_times), statistics.median(undo_times), counted[0], counted[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--early", type=int, default=10)
    ap.add_argument("--late", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    for at in (args.early, args.late):
        table = played_to(at)
        entry, undo, reads, follows = measure(table, args.repeat)
        print(f"entry {at:>5} (hand {table.hand.number if table.hand else '-'}): {entry * 1000:7.2f} ms an entry "
              f"and its state, {undo * 1000:7.2f} ms an undo and its state; the hand read {reads}x, "
              f"{follows} line(s) followed")


if __name__ == "__main__":
    main()
