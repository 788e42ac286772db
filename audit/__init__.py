"""audit: hand-history ingestion and rules audit for five-card draw poker.

The small public API, usable without the CLI (in a notebook), on a path, a string or bytes::

    from audit import audit_text, explain_text, read_hands, replay, load_profile
    for audited in audit_text(log):                 # or audit_file("game.txt"), audit_bytes(upload)
        print([(f.hand, f.rule, f.message) for f in audited.findings])
    for hand in read_hands("game.txt"):             # or read_hands(text=log), read_hands(data=upload)
        result = replay(hand, load_profile("home-open"))
    with Store.open("club.duckdb", read_only=True) as store:   # what ``audit ingest`` stored
        frame = store.frame("misawarded-pots")      # a report or SQL, as a polars DataFrame (audit.frames)

Names are imported on first use, so ``audit check`` starts without loading what it does not need.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from audit import _native  # noqa: E402

_native.guard()  # a stale compiled build (a source edited since `make`) must not run: the .py files load instead

if TYPE_CHECKING:  # pragma: no cover
    from audit.findings import Finding
    from audit.model import Hand
    from audit.explain import explain_bytes, explain_file, explain_text
    from audit.pipeline import audit_bytes, audit_file, audit_text
    from audit.profile import Profile, load_profile
    from audit.engine import HandResult, replay
    from audit.rules import Rule

_LAZY = {
    "Finding": "audit.findings", "Hand": "audit.model", "audit_file": "audit.pipeline",
    "audit_text": "audit.pipeline", "audit_bytes": "audit.pipeline", "explain_file": "audit.explain",
    "explain_text": "audit.explain", "explain_bytes": "audit.explain",
    "Profile": "audit.profile", "load_profile": "audit.profile", "HandResult": "audit.engine", "replay": "audit.engine",
    "Rule": "audit.rules", "Store": "audit.store",
}

__all__ = ["Finding", "Hand", "HandResult", "Profile", "Rule", "Store", "audit_bytes", "audit_file", "audit_text",
           "explain_bytes", "explain_file", "explain_text", "load_profile", "read_hands", "replay"]


def read_hands(path: str | None = None, *, text: str | None = None, data: bytes | None = None) -> Iterator[Hand]:
    """The hands that could be read from a file (``path``), a string (``text``) or bytes (``data``); give one
    of the three. Use ``audit_file`` / ``audit_text`` / ``audit_bytes`` for findings on the others too."""
    from audit.model import Hand
    from audit.dialects.dispatch import parse_block
    from audit.read import read_blocks, read_bytes_blocks, read_text_blocks

    if (path is None) + (text is None) + (data is None) != 2:
        raise TypeError("read_hands() takes exactly one of path, text or data")
    if text is not None:
        blocks = read_text_blocks(text)
    elif data is not None:
        blocks = read_bytes_blocks(data)
    else:
        blocks = read_blocks(path)  # type: ignore[arg-type]
    for block in blocks:
        parsed = parse_block(block)
        if type(parsed) is Hand:
            yield parsed


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'audit' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)

