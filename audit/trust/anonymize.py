"""Verdicts without names (``audit explain --anonymize``, the dispute page's option): every player is "Player A",
"Player B" … in the order they first sit (stable within one page), amounts, cards and findings unchanged.

The names are changed in the log's lines (to ``Player-A`` …: a log's name is one word), and the log so changed is
explained again, so every sentence of every output (findings, corrections, steps, in English and Spanish) says
the new names the way it says real ones; the output then shows them as words (``shown_names``). A
name is changed only where it stands as a whole word; a name that is also one of the log's own words (a player
called "Seat") could change more than the names, so the explanation without names is held to the original's:
the same findings on the same lines, the same pots, the same stacks and cards seat by seat, the same steps, or
it is refused.
"""

from __future__ import annotations

import io
import re
import string
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from audit.errors import AuditError

if TYPE_CHECKING:  # pragma: no cover
    from audit.explain.records import Explained
    from audit.profile import Profile


PLACEHOLDER = re.compile(r"(?<![\w\-.'])Player-([A-Z]{1,2})(?![\w\-.'])")


def alias(i: int) -> str:
    """The ``i``-th player's name in the log: Player-A … Player-Z, then Player-AA, Player-AB …"""
    letters = string.ascii_uppercase
    return "Player-" + (letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26])


def aliases(items: Iterable[Explained]) -> dict[str, str]:
    """Each player of ``items`` → an alias, in the order the players first sit."""
    out: dict[str, str] = {}
    for item in items:
        for seat in getattr(item, "seats", ()):
            if seat.player not in out:
                out[seat.player] = alias(len(out))
    return out


def shown_names(text: str, lang: str = "en") -> str:
    """An output of the renamed log with each alias as people read it: Player A (Jugador A in Spanish)."""
    from audit.words import say

    word = say("anonymized.player", lang)
    return PLACEHOLDER.sub(lambda m: f"{word} {m.group(1)}", text)


def renamer(names: dict[str, str]) -> re.Pattern[str] | None:
    """The pattern of every name as a whole word (the longest first: "Ana Maria" before "Ana")."""
    if not names:
        return None
    ordered = sorted(names, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in ordered) + r")(?!\w)")


def rename_lines(lines: Iterable[str], names: dict[str, str]) -> list[str]:
    """The lines with every name replaced by its alias (all at once: an alias is never renamed again)."""
    pattern = renamer(names)
    if pattern is None:
        return list(lines)
    return [pattern.sub(lambda m: names[m.group(0)], line) for line in lines]


def explain_anonymized(data: bytes, name: str, profile: Profile | None, hand_id: str | None,
                       original: Sequence[Explained]) -> list[Explained]:
    """The explanations of ``data`` (already explained as ``original``) with every player renamed; ``AuditError``
    when a name could not be changed without changing the verdict."""
    from audit.explain.build import explain_blocks
    from audit.read import iter_lines, split_blocks

    names = aliases(original)
    lines = rename_lines(iter_lines(io.BytesIO(data), name), names)
    shown = rename_lines([name], names)[0]
    renamed = list(explain_blocks(split_blocks(lines, shown), profile, hand_id, shown))
    _same_verdicts(original, renamed, names)
    return renamed


def _shape(item: Explained, names: dict[str, str]) -> object:
    """What renaming must leave as it was: findings (rule, severity, line), pots, seats, steps."""
    seats = [(s.seat, names.get(s.player, s.player), s.chips, s.cards, s.end) for s in getattr(item, "seats", ())]
    pots = [(p.name, p.amount) for p in getattr(item, "pots", ())]
    steps = [(s.line, s.pot) for s in getattr(item, "steps", ())]
    findings = [(f.rule, f.severity, f.line) for f in item.findings]
    return type(item).__name__, findings, pots, seats, steps


def _same_verdicts(original: Sequence[Explained], renamed: Sequence[Explained], names: dict[str, str]) -> None:
    if len(original) != len(renamed) or any(_shape(a, names) != _shape(b, {}) for a, b in zip(original, renamed)):
        raise AuditError("cannot hide the players' names in this log without changing its verdict (a player's name "
                         "is also a word the log uses); share it with the names")
