"""The DuckDB store: what ``audit ingest`` keeps, and read-only queries, reports and exports over it.

Nothing here imports click; duckdb, pyarrow and polars are imported on first use. Names are imported lazily, so
``import audit.store`` costs nothing until one is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from audit.store.db import FileRows, Store, hand_key

_LAZY = {"Store": "audit.store.db", "FileRows": "audit.store.db", "hand_key": "audit.store.db"}

__all__ = ["FileRows", "Store", "hand_key"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'audit.store' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)
