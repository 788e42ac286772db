"""pokerkit's replay of hands exported by ``bench/check.py --vs-pokerkit`` (run by pokerkit's own interpreter).

    POKERKIT_PYTHON bench/pokerkit_replay.py HANDS.jsonl STACKS.jsonl

Reads every hand first (not timed), then replays each through pokerkit's ``State`` (five-card draw built from
its no-limit streets: one dealing street of five hole cards, then a draw street), timing the CPU; writes each
hand's final stacks (``null`` when pokerkit refused the hand) to STACKS.jsonl and prints one JSON line of
figures. Imports nothing of audit.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from importlib.metadata import version
from typing import Any

START = time.perf_counter()

from pokerkit import Automation, BettingStructure, Deck, Mode, Opening, StandardHighHand, State, Street  # noqa: E402

AUTOMATIONS = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
               Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
               Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING)


def play(hand: dict[str, Any]) -> dict[str, int]:
    streets = (Street(False, (False,) * 5, 0, False, Opening.POSITION, hand["min_bet"], None),
               Street(False, (), 0, True, Opening.POSITION, hand["min_bet"], None))
    seats = sorted(hand["seats"])
    names = [player for _, player, _ in seats]
    b = [seat for seat, _, _ in seats].index(hand["button"])
    order = names[b + 1:] + names[:b + 1]  # pokerkit: first to act first, the button last
    index = {p: i for i, p in enumerate(order)}
    chips = {player: stack for _, player, stack in seats}
    state = State(AUTOMATIONS, Deck.STANDARD, (StandardHighHand,), streets, BettingStructure.NO_LIMIT, True,
                  hand["ante"], (0,) * len(order), 0, tuple(chips[p] for p in order), len(order),
                  mode=Mode.CASH_GAME)
    redeal: list[tuple[int, str]] = []
    drawing = False
    for step in hand["steps"]:
        kind = step[0]
        if kind == "deal":
            if drawing:
                redeal.append((index[step[1]], step[2]))
            else:
                state.deal_hole(step[2], index[step[1]])
        elif kind == "act":
            if step[1] == "fold":
                state.fold()
            elif step[1] in ("check", "call"):
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(step[2])
        elif kind == "discard":
            drawing = True
            state.stand_pat_or_discard(step[1])
        elif kind == "pat":
            drawing = True
            state.stand_pat_or_discard()
        elif kind == "second":
            for i, cards in redeal:  # pokerkit deals the draw after every player has discarded
                state.deal_hole(cards, i)
            redeal = []
    return {p: state.stacks[index[p]] for p in order}


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        hands = [json.loads(line) for line in f]
    warnings.simplefilter("ignore")  # pokerkit warns about cards dealt out of its own deck order
    stacks: list[dict[str, int] | None] = []
    start = time.process_time()
    for hand in hands:
        try:
            stacks.append(play(hand))
        except (ValueError, KeyError):
            stacks.append(None)
    cpu = time.process_time() - start
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for s in stacks:
            out.write(json.dumps(s) + "\n")
    print(json.dumps({"version": version("pokerkit"), "hands": len(hands),
                      "replayed": sum(s is not None for s in stacks), "cpu": cpu,
                      "process_wall": time.perf_counter() - START}))


if __name__ == "__main__":
    main()
