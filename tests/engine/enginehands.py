"""Hands for the engine's unit tests: a house log written in a test, the state after any of its lines."""

from __future__ import annotations

from audit import read_hands
from audit.engine.state import HandState
from audit.engine.streets import follow, start
from audit.findings import Finding
from audit.model import Hand
from audit.profile import Profile, load_profile


def deal3(ana: str = "As Ad 5c 7d 9h", beto: str = "Ks Kd Kh 3d 4h", carla: str = "2c 3c 8h 9s Jd") -> str:
    """Antes and the deal of a three-handed home-open hand (button on seat 3)."""
    return ("Ana: posts the ante 1\nBeto: posts the ante 1\nCarla: posts the ante 1\n*** DEALING HANDS ***\n"
            f"Dealt to Ana [{ana}]\nDealt to Beto [{beto}]\nDealt to Carla [{carla}]\n")


def house(body: str, stacks: tuple[int, ...] = (100, 100, 100), names: tuple[str, ...] = ("Ana", "Beto", "Carla"),
          button: int = 3, head: str = "") -> str:
    """A house hand: ``head`` (preamble lines), the header, the seats, then ``body``."""
    seats = "".join(f"Seat {i}: {n} ({c} in chips)\n" for i, (n, c) in enumerate(zip(names, stacks), 1))
    return (f"{head}Hand #1 - 2026/11/28 21:00:00\nTable 'Casa Pepe' Seat #{button} is the button\n{seats}{body}")


def parse(text: str) -> Hand:
    hands = list(read_hands(text=text))
    assert len(hands) == 1, text
    return hands[0]


def profile_of(name: str, *options: tuple[str, str]) -> Profile:
    prof = load_profile(name)
    return prof.with_options(list(options)) if options else prof


def line_of(text: str, fragment: str) -> int:
    """The number of the first line of ``text`` holding ``fragment``."""
    for number, line in enumerate(text.splitlines(), 1):
        if fragment in line:
            return number
    raise AssertionError(f"no line holds {fragment!r}")


def state_before(text: str, fragment: str | None = None, profile: Profile | None = None,
                 steps: bool = False) -> HandState:
    """The state after every line of the body before the first line holding ``fragment`` (``None``: all)."""
    hand = parse(text)
    st = start(hand, profile or load_profile("home-open"), None, steps)
    stop = line_of(text, fragment) if fragment is not None else None
    for item in hand.body:
        if stop is not None and item.line >= stop:
            break
        follow(st, item)
    return st


def item_at(text: str, fragment: str) -> object:
    """The model item of the line holding ``fragment``."""
    line = line_of(text, fragment)
    return next(i for i in parse(text).body if i.line == line)


def rules(found: Finding | list[Finding] | None) -> list[tuple[str, str | None, str | None]]:
    """(rule, player, message id) of what a judgement found."""
    if found is None:
        return []
    items = found if isinstance(found, list) else [found]
    return [(f.rule, f.player, f.msg_id) for f in items]
