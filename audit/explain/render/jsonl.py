"""JSON Lines: one object per hand (``kind: hand``) and per session's net corrections (``kind: session``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from audit.explain.records import Explained


def render_json_lines(items: Iterable[Explained]) -> Iterator[str]:
    """One JSON object per line, in the order the hands and sessions come."""
    for item in items:
        yield json.dumps(item.as_dict(), ensure_ascii=False) + "\n"
