"""A JSON-able dump of parsed blocks, for fixtures that pin the parser's model."""

from __future__ import annotations

from typing import Any

from audit.model import Hand, NothingHere, ParseFailure, Preamble, SessionEnd


def dump_block(block: Any) -> dict[str, Any]:
    """Every field of a model object, recursively, with its type name."""
    if isinstance(block, Hand):
        out = {"type": "Hand"}
        for name in Hand._fields:
            if name == "file":
                continue
            value = getattr(block, name)
            if name == "seats":
                value = [_item(s) for s in value]
            elif name == "body":
                value = [_item(i) for i in value]
            elif value is not None and hasattr(value, "_asdict"):
                value = _item(value)
            out[name] = value
        return out
    if isinstance(block, (Preamble, SessionEnd)):
        return {"type": type(block).__name__, "line": block.line,
                "items": [_item(i) for i in (block.items if isinstance(block, Preamble) else block.standings)]}
    if isinstance(block, ParseFailure):
        return {"type": "ParseFailure", "line": block.line, "column": block.column, "message": block.message}
    if isinstance(block, NothingHere):
        return {"type": "NothingHere", "line": block.line, "what": block.what}
    raise TypeError(type(block))


def _item(item: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"type": type(item).__name__}
    for k, v in item._asdict().items():
        d[k] = list(v) if isinstance(v, tuple) and not (v and isinstance(v[0], tuple)) else (
            [list(g) for g in v] if isinstance(v, tuple) else v)
    return d
