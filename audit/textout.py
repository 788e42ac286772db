"""Text that reaches a terminal: control characters made visible, user input cut short, JSON without NaN.

A player, table or file name comes from a log someone else wrote. Printed raw, an escape sequence in it can clear
the screen, move the cursor over a finding or recolour the terminal, and a right-to-left override can make a
line read backwards. Every text output (``check``, ``explain``, the tables of ``sql`` and ``report``, messages
on stderr) goes through ``printable``; JSON output through ``json_line``.
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

# Unicode categories shown as escapes: controls (C0, DEL, C1), format characters (bidi overrides and
# isolates, zero-width characters), line and paragraph separators, surrogates, private use and unassigned.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_ESCAPES: dict[int, str] = {}
_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _escape(ch: str) -> str:
    code = ord(ch)
    known = _ESCAPES.get(code)
    if known is not None:
        return known
    if ch in _NAMED:
        shown = _NAMED[ch]
    elif unicodedata.category(ch) not in _HIDDEN:
        shown = ch
    elif code < 0x100:
        shown = f"\\x{code:02x}"
    elif code < 0x10000:
        shown = f"\\u{code:04x}"
    else:
        shown = f"\\U{code:08x}"
    if len(_ESCAPES) < 4096:
        _ESCAPES[code] = shown
    return shown


def printable(text: str, newlines: bool = False) -> str:
    """``text`` with every control and format character written as a visible escape (``\\x1b``, ``\\u202e``);
    with ``newlines``, line ends are kept (a message laid out on several lines)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or (newlines and ch == "\n"):
            out.append(ch)
        else:
            out.append(_escape(ch))
    return "".join(out)


def shorten(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, marked with an ellipsis (user input echoed in a message)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def shown(value: str, limit: int = 80) -> str:
    """User input quoted in a message: visible escapes, cut to ``limit`` characters, in quotes."""
    return repr(shorten(printable(value), limit))


def message(text: str, limit: int = 1_000) -> str:
    """A message for stderr: visible escapes (its own line ends kept), at most ``limit`` characters."""
    return printable(shorten(text, limit), newlines=True)


_JSON_HIDDEN = {code: f"\\u{code:04x}" for code in [*range(0x7f, 0xa0), 0x61c, 0x200e, 0x200f, *range(0x2028, 0x202f),
                                                     *range(0x2066, 0x206a)]}


def finite(value: Any) -> Any:
    """``value`` with every NaN and infinity (in lists and dicts too) replaced by ``None``: JSON has neither."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def json_line(value: Any) -> str:
    """One JSON object on one line: NaN and infinities as ``null``, and the characters JSON may carry raw but a
    terminal would obey (C1 controls, bidi overrides, line separators) as ``\\u`` escapes (the same value)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(finite(value), ensure_ascii=False, allow_nan=False)
    if not text.isprintable():
        text = text.translate(_JSON_HIDDEN)
    return text


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``1 hand``, ``2,000 hands``: a count with its noun in the right number (English; ``audit.words`` for
    text in other languages)."""
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"
