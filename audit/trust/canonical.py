"""The one canonical JSON of ``audit``: keys sorted, no spaces, UTF-8 (not ASCII escapes). Links, entries and
verdict digests are hashed over it, so the same value always gives the same bytes, whatever wrote it."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> bytes:
    """``value`` as canonical JSON bytes (NaN and infinities refused: JSON has none)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def canonical_text(value: Any) -> str:
    """``canonical_json`` as text (what a table's VARCHAR column holds)."""
    return canonical_json(value).decode("utf-8")


def sha256_of(value: Any) -> str:
    """The SHA-256 (hex) of ``value``'s canonical JSON."""
    return hashlib.sha256(canonical_json(value)).hexdigest()
