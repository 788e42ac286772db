"""audit: hand-history ingestion and rules audit for five-card draw poker.

The small public API, usable without the CLI (in a notebook)::

    from audit import read_hands, replay, load_profile
    for hand in read_hands("game.txt"):
        result = replay(hand, load_profile("home-open"))
        print(hand.hand_id, [f.rule for f in result.findings])

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
    from audit.pipeline import audit_file
    from audit.profile import Profile, load_profile
    from audit.replay import HandResult
    from audit.rules import Rule

_LAZY = {
    "Finding": "audit.findings", "Hand": "audit.model", "audit_file": "audit.pipeline",
    "Profile": "audit.profile", "load_profile": "audit.profile", "HandResult": "audit.replay",
    "Rule": "audit.rules", "Store": "audit.store",
}

__all__ = ["Finding", "Hand", "HandResult", "Profile", "Rule", "Store", "audit_file", "load_profile", "read_hands",
           "replay"]


def read_hands(path: str) -> Iterator[Hand]:
    """The hands of a file that could be read (use ``audit_file`` for findings on the others too)."""
    from audit.model import Hand
    from audit.dialects.dispatch import parse_block
    from audit.read import read_blocks

    for block in read_blocks(path):
        parsed = parse_block(block)
        if type(parsed) is Hand:
            yield parsed


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'audit' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)


# The engine's entry point, bound eagerly: ``audit.replay`` is also the engine's module, and a package attribute
# of that name would otherwise be the module once it is imported. (The engine needs no third-party imports.)
from audit.replay import replay  # noqa: E402
