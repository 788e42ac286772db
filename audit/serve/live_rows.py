"""The live tables' rows: every query on ``live_tables`` and ``live_entries`` (defined in ``audit.serve.schema``),
each change of a table and its next version in one transaction.

A table's entry is stored by ``store_entry`` and taken back by ``remove_entry``, and only there: what must be
written with an entry, in the same transaction, goes in these two. Each change is also a link of the club's chain
(``audit.trust.chain``), appended in the change's own transaction: an undo is a link of its own, so the chain
keeps every entry the table saw.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any

from audit.serve.db import transaction
from audit.serve.schema import SERVICE_TABLES
from audit.trust.chain import append_table_link

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

    from audit.live import TableConfig

MAX_TABLES_LISTED = 200


def read_table(cur: duckdb.DuckDBPyConnection, club: str,
               table_id: str) -> tuple[dict[str, Any], int, bool, list[dict[str, Any]]] | None:
    """The club's table: (its configuration, its version, whether closed, its entries in order); ``None``: no
    such table of this club."""
    row = cur.execute("SELECT config, version, closed FROM live_tables WHERE club = ? AND table_id = ?",
                      [club, table_id]).fetchone()
    if row is None:
        return None
    entries = [json.loads(e) for (e,) in cur.execute(
        "SELECT entry FROM live_entries WHERE club = ? AND table_id = ? ORDER BY seq", [club, table_id]).fetchall()]
    return json.loads(row[0]), int(row[1]), bool(row[2]), entries


def list_tables(cur: duckdb.DuckDBPyConnection, club: str) -> list[dict[str, Any]]:
    """The club's tables, newest first (at most ``MAX_TABLES_LISTED``)."""
    rows = cur.execute(
        "SELECT table_id, config, version, closed, opened_at FROM live_tables WHERE club = ? "
        "ORDER BY opened_at DESC LIMIT ?", [club, MAX_TABLES_LISTED]).fetchall()
    return [{"id": r[0], "name": json.loads(r[1])["name"], "profile": json.loads(r[1])["profile"],
             "version": r[2], "closed": r[3], "opened_at": str(r[4])} for r in rows]


def insert_table(cur: duckdb.DuckDBPyConnection, club: str, table_id: str, table: TableConfig,
                 opened_at: dt.datetime) -> None:
    """A table opened: its configuration, at version 0, and its link, in one transaction."""
    config = table.as_json()
    with transaction(cur):
        cur.execute(SERVICE_TABLES["live_tables"].insert_sql(),
                    [club, table_id, json.dumps(config), 0, False, opened_at])
        append_table_link(cur, club, table_id, table.profile, table.options, "table", config)


def _next_version(cur: duckdb.DuckDBPyConnection, club: str, table_id: str, version: int) -> None:
    cur.execute("UPDATE live_tables SET version = ? WHERE club = ? AND table_id = ?", [version, club, table_id])


def store_entry(cur: duckdb.DuckDBPyConnection, club: str, table_id: str, table: TableConfig, seq: int, entry: str,
                version: int) -> None:
    """The table's entry number ``seq`` (its JSON), its link and the table's next ``version``, in one
    transaction."""
    with transaction(cur):
        cur.execute(SERVICE_TABLES["live_entries"].insert_sql(), [club, table_id, seq, entry])
        append_table_link(cur, club, table_id, table.profile, table.options, "entry",
                          {"seq": seq, "entry": json.loads(entry)})
        _next_version(cur, club, table_id, version)


def remove_entry(cur: duckdb.DuckDBPyConnection, club: str, table_id: str, table: TableConfig, seq: int,
                 version: int, config: dict[str, Any] | None) -> None:
    """Undo: the entry number ``seq`` taken back, its link (an undo naming the entry), the table's next
    ``version`` and, when given, its ``config`` (the hands stored with their claims), in one transaction."""
    with transaction(cur):
        cur.execute("DELETE FROM live_entries WHERE club = ? AND table_id = ? AND seq = ?", [club, table_id, seq])
        append_table_link(cur, club, table_id, table.profile, table.options, "undo", {"seq": seq})
        _next_version(cur, club, table_id, version)
        if config is not None:
            cur.execute("UPDATE live_tables SET config = ? WHERE club = ? AND table_id = ?",
                        [json.dumps(config), club, table_id])


def mark_closed(cur: duckdb.DuckDBPyConnection, club: str, table_id: str, table: TableConfig, version: int) -> None:
    """The table closed, with its link, at its next ``version``, in one transaction."""
    with transaction(cur):
        cur.execute("UPDATE live_tables SET closed = true WHERE club = ? AND table_id = ?", [club, table_id])
        append_table_link(cur, club, table_id, table.profile, table.options, "close", {})
        _next_version(cur, club, table_id, version)
