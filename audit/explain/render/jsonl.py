"""JSON Lines: one object per hand (``kind: hand``) and per session's net corrections (``kind: session``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from audit.explain.records import Explained
from audit.textout import json_line


def render_json_lines(items: Iterable[Explained]) -> Iterator[str]:
    """One JSON object per line, in the order the hands and sessions come."""
    for item in items:
        yield json_line(item.as_dict()) + "\n"
