"""The house grammar's LALR tables as stored beside it (``grammar/house.tables.json``, written by
``audit.dialects.house_lark``, ``make tables``): a check loads them and does not import Lark. Tables stored for
another text of the grammar are never used: Lark then builds them again from the grammar as it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from audit.resources import data_dir

__all__ = ["GRAMMAR", "TABLES", "TABLES_FORMAT", "grammar_file", "stored_tables"]


GRAMMAR: Final = "house.lark"
TABLES: Final = "house.tables.json"
"""The grammar's tables as Lark builds them, stored beside it (``make tables`` writes them again)."""
TABLES_FORMAT: Final = 1


def grammar_file() -> Path:
    """The house grammar's file (``grammar/house.lark``); its tables are stored beside it."""
    return data_dir("grammar") / GRAMMAR


def stored_tables() -> dict[str, Any] | None:
    """The stored tables when they were built from ``house.lark`` as it is now (else ``None``)."""
    path = grammar_file()
    try:
        grammar = path.read_text(encoding="utf-8")
        tables = json.loads(path.with_name(TABLES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(tables, dict) and tables.get("format") == TABLES_FORMAT and tables.get("grammar") == grammar:
        return tables
    return None
