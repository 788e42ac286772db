"""The progress line long commands show on stderr: a terminal only, never with ``-q``, rewritten in place."""

from __future__ import annotations

import io
import os
import time
from typing import IO, Any

from audit.textout import printable

INTERVAL = 0.1
"""Seconds between two redraws at most."""


class ProgressLine:
    """One line on ``stream`` (when it is a terminal and the user did not ask for quiet), rewritten in place:
    ``checking  3/10 files  12,345 hands  5,012 hands/s  game.txt``. Anything else written to the terminal
    clears it first (``clear``), so it never lands in the middle of a message or of the results."""

    def __init__(self, stream: IO[str], enabled: bool = True) -> None:
        self.stream = stream
        self.enabled = enabled and _is_terminal(stream)
        self.shown = False
        self._last = 0.0

    def show(self, text: str, force: bool = False) -> None:
        """Draw ``text`` (at most every ``INTERVAL`` seconds unless ``force``)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < INTERVAL:
            return
        self._last = now
        width = _columns(self.stream) - 1
        line = printable(text)
        if len(line) > width:
            line = line[:max(width - 1, 0)] + "…"
        self.stream.write("\r\033[K" + line)
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        """Remove the line (before a message, and at the end)."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False

    def guard(self, out: Any) -> Any:
        """``out`` such that writing to it clears the line first (when ``out`` is the same terminal)."""
        if not self.enabled or not _is_terminal(out):
            return out
        return _Clearing(out, self)


def _columns(stream: Any) -> int:
    """The width of the terminal ``stream`` writes to."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        import shutil  # (only here: it takes 2 ms to import, on every command)

        return shutil.get_terminal_size((80, 24)).columns


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def rate_text(files_done: int, files: int, hands: int, seconds: float) -> str:
    """``3/10 files  12,345 hands  5,012 hands/s``."""
    rate = f"  {hands / seconds:,.0f} hands/s" if seconds > 0.2 and hands else ""
    return f"{files_done:,}/{files:,} file{'s' if files != 1 else ''}  {hands:,} hand{'s' if hands != 1 else ''}{rate}"


class _Clearing(io.TextIOBase):
    def __init__(self, out: Any, line: ProgressLine) -> None:
        self.out = out
        self.line = line

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            self.line.clear()
        return int(self.out.write(text))

    def flush(self) -> None:
        self.out.flush()
