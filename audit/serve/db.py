"""The service's database: the store's tables (``audit ingest``'s), the service's own, and every query the
routes make, each scoped to one club.

The service's own tables (uploads, their bytes, tokens, the live tables) are defined in ``audit.serve.schema``.

**Every upload has rows of its own**, keyed by ``upload_key(club, sha256)``: ``u`` and 64 hex digits. No content
can produce such a key (``audit ingest`` keys a file by the SHA-256 of its bytes: 64 hex digits, never a ``u``),
nor any upload of another club (the key hashes the club's name with the bytes' SHA-256), so what one club uploads
never reaches or changes the rows of another, and a club learns nothing about another club's logs from how an
upload of its own is answered: the same bytes are audited and written again for each club. A database of an
earlier audit, whose uploads shared rows (keyed by the bytes' SHA-256, or by ``sha256("<sha256> <profile>")``
for a second profile), is moved to these keys when it is opened (``migrate_uploads``; ``audit upgrade`` does it
too): each upload gets a copy of its rows under its key, and the rows no upload nor ``audit ingest`` holds any
more are deleted.

A club sees the store's rows of its own uploads only. Club ``local`` (the machine's own user) also sees the logs
``audit ingest`` stored, which belong to no upload. Reads run on a cursor per thread (a DuckDB cursor is a
connection of its own to the one open database, with its own snapshot, so a read never waits for a write);
writes are functions of a cursor that only the service's one writer thread runs (``audit.serve.writer``).
A report sees the same: its tables and the analyst views over them (``finding_details``, ``hand_details``, …) are
temporary views of the club's rows on the report's own cursor. This is the one module of the service that uses
``audit.store``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError
from audit.rules import Rule
from audit.store.db import FileRows, Store
from audit.store.ingest import FileBuilder, profile_label
from audit.store.reports import INT_MAX, Report, find_report, load_reports, report_params
from audit.store.reports import unknown_report as unknown_report  # the same words as `audit report` gives
from audit.serve.schema import SERVICE_COLUMNS, SERVICE_TABLES, create_tables
from audit.store.schema import SCHEMA, VIEWS, view_sql
from audit.trust import chain
from audit.trust.chain import adopt_uploads, append_link

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

LOCAL_CLUB = "local"
"""The club of a service with no token defined (loopback clients only), and the owner of ``audit ingest``'s logs."""

PART_SIZE = 8 * 1024
"""The size of each row of an upload's bytes in ``upload_parts`` (the last one of a log is shorter). Measured
under the 128 MB limit, ten 30 MB logs in a row: 8 KB parts kept DuckDB's peak flat; 64 KB parts made the
checkpoint fail. The table has no key: its rows go in with their ``uploads`` row, whose key refuses a second copy."""

SERVICE_MEMORY = "128MB"
"""DuckDB's memory limit on the service's connection (its buffers; the audits and Python's objects are apart)."""

UPLOAD_KEY_PREFIX = "u"
"""The first character of every key of an upload's rows: never a hex digit, so never a key ``audit ingest`` makes."""


def upload_key(club: str, sha256: str) -> str:
    """The key of the rows of ``club``'s upload of the bytes ``sha256``: ``u`` and 64 hex digits (a hash of the
    club and the bytes' SHA-256). No content hashes to it, and no other club's upload has it."""
    return UPLOAD_KEY_PREFIX + hashlib.sha256(f"audit serve upload\n{club}\n{sha256}".encode()).hexdigest()


def club_files(club: str, sha256: str | None = None) -> tuple[str, list[Any]]:
    """SQL (and its parameters) for the logs ``club`` sees, or only the one with these bytes: its uploads, and for
    club local also the logs ``audit ingest`` stored (rows no upload has, whose bytes local has not uploaded
    itself). Columns: ``_UPLOAD_COLUMNS``."""
    one_upload, one_file = ("AND u.sha256 = ?", "AND f.file_sha = ?") if sha256 is not None else ("", "")
    uploads = ("SELECT u.file_sha, u.sha256, u.name, u.size, u.received_at, u.profile, u.hands, u.violations, "
               f"u.warnings, u.errors, true AS uploaded FROM uploads u WHERE u.club = ? {one_upload}")
    if club != LOCAL_CLUB:
        return uploads, [club] + ([sha256] if sha256 is not None else [])
    ingested = f"""
        WITH picked AS (
            SELECT * FROM files f
            WHERE f.file_sha NOT IN (SELECT file_sha FROM uploads)
              AND f.file_sha NOT IN (SELECT sha256 FROM uploads WHERE club = '{LOCAL_CLUB}') {one_file}),
        counted AS (
            SELECT file_sha, count(*) FILTER (WHERE severity = 'violation') AS violations,
                   count(*) FILTER (WHERE severity = 'warning') AS warnings,
                   count(*) FILTER (WHERE severity = 'error') AS errors
            FROM findings WHERE file_sha IN (SELECT file_sha FROM picked) GROUP BY file_sha)
        SELECT p.file_sha, p.file_sha AS sha256, p.path AS name, p.size, p.ingested_at AS received_at,
               p.default_profile AS profile, p.hands, coalesce(c.violations, 0)::INTEGER,
               coalesce(c.warnings, 0)::INTEGER, coalesce(c.errors, 0)::INTEGER, false AS uploaded
        FROM picked p LEFT JOIN counted c USING (file_sha)"""
    params: list[Any] = [club] + ([sha256, sha256] if sha256 is not None else [])
    return f"{uploads} UNION ALL ({ingested})", params


_UPLOAD_COLUMNS = ("file_sha", "sha256", "name", "size", "received_at", "profile", "hands", "violations",
                   "warnings", "errors", "uploaded")
_FINDING_COLUMNS = ("session", "hand_id", "rule", "severity", "player", "street", "line", "message", "expected",
                    "actual", "msg_id", "params")


# ---------------------------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Outcome:
    """What one uploaded log came to: ``stored``, ``duplicate`` (this club has the same bytes already) or
    ``unreadable`` (with a ``message``; nothing stored)."""

    name: str
    sha256: str
    status: str
    hands: int = 0
    violations: int = 0
    warnings: int = 0
    errors: int = 0
    message: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "sha256": self.sha256, "status": self.status, "hands": self.hands,
                "violations": self.violations, "warnings": self.warnings, "errors": self.errors,
                "message": self.message}


@dataclass(frozen=True)
class Upload:
    """A log a club sees (``uploaded`` False: stored by ``audit ingest``, seen by club local)."""

    file_sha: str
    sha256: str
    name: str
    size: int
    received_at: dt.datetime
    profile: str
    hands: int
    violations: int
    warnings: int
    errors: int
    uploaded: bool

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "sha256": self.sha256, "size": self.size,
                "received_at": self.received_at.isoformat(), "profile": self.profile, "hands": self.hands,
                "violations": self.violations, "warnings": self.warnings, "errors": self.errors}


@dataclass(frozen=True)
class Plan:
    """Before auditing an upload: the club's copy if it has one, else the key its rows go under
    (``upload_key``) and ``needs_audit`` True: an upload that is not a duplicate is always audited."""

    duplicate: Upload | None
    key: str
    needs_audit: bool


@dataclass(frozen=True)
class UploadWrite:
    """One upload for the writer: its rows (``None`` when the plan found them stored already)."""

    club: str
    name: str
    sha256: str
    data: bytes
    profile: str
    key: str
    rows: FileRows | None


# ---------------------------------------------------------------------------------------------- the database
class ServiceDB:
    """The database the service holds open for its whole life (DuckDB lets one process use a file)."""

    def __init__(self, path: str) -> None:
        with private_files(not Path(path).exists()):
            self.store = open_service_store(path)  # AuditError, in plain words, when another program holds it
        self.path = path
        self.con = self.store.con
        try:
            with transaction(self.con):
                create_tables(self.con)
            self.migrated = migrate_uploads(self.con)
            with transaction(self.con):
                adopt_uploads(self.con)  # uploads an audit without chains stored
            row = self.con.execute("SELECT current_database()").fetchone()
            self.catalog = str(row[0]) if row else "main"
            # Read once: `audit token` cannot change them while the service holds the database. A token of a
            # reserved or malformed club name (an earlier audit let `audit token add local` make one) is refused.
            from audit.serve.tokens import club_problem

            held = self.con.execute("SELECT token_hash, club FROM tokens").fetchall()
            self.tokens: dict[str, str] = {token: club for token, club in held if club_problem(club) is None}
            self._any_token = bool(held)  # a refused token still means tokens are wanted: no loopback-only mode
        except BaseException:
            self.store.close()
            raise
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._lock = threading.Lock()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's read cursor (made on first use, closed with the database)."""
        cur: duckdb.DuckDBPyConnection | None = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self.new_cursor()
            self._local.cursor = cur
        return cur

    def new_cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor of its own (the writer's, or one for temporary views), closed with the database."""
        with self._lock:
            cur = self.con.cursor()
            self._cursors.append(cur)
            return cur

    @contextmanager
    def scratch_cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor for one request that makes temporary views (they die with it)."""
        cur = self.con.cursor()
        try:
            yield cur
        finally:
            cur.close()

    def close(self) -> None:
        """Close every cursor, write the changes into the file (checkpoint) and release it."""
        with self._lock:
            for cur in self._cursors:
                try:
                    cur.close()
                except Exception:  # pragma: no cover - already closed with its thread
                    pass
            self._cursors.clear()
        try:
            self.con.execute("CHECKPOINT")
        except Exception:  # pragma: no cover - a checkpoint also runs when the database is opened next
            pass
        self.store.close()

    # ------------------------------------------------------------------------------------------ reads
    def uploads(self, club: str) -> list[Upload]:
        """The logs ``club`` sees, newest first."""
        sql, params = club_files(club)
        rows = self.cursor().execute(f"SELECT * FROM ({sql}) ORDER BY received_at DESC, name, sha256",
                                     params).fetchall()
        return [_upload(r) for r in rows]

    def upload(self, club: str, sha256: str) -> Upload | None:
        """The log of ``club`` with these bytes (``None``: none, or another club's)."""
        if not _is_sha256(sha256):
            return None
        return find_upload(self.cursor(), club, sha256.lower())

    def findings(self, upload: Upload) -> list[dict[str, Any]]:
        """The findings of one log, in file order, as ``audit check --format json`` gives them (``file``: the
        name the club gave it)."""
        rows = self.cursor().execute(f"SELECT {', '.join(_FINDING_COLUMNS)} FROM findings WHERE file_sha = ? "
                                     "ORDER BY seq", [upload.file_sha]).fetchall()
        return [{"file": upload.name, **_finding(r)} for r in rows]

    def recent_findings(self, club: str, limit: int) -> list[dict[str, Any]]:
        """The club's findings, newest log first, at most ``limit``, each with its log's name and SHA-256."""
        sql, params = club_files(club)
        rows = self.cursor().execute(
            f"SELECT c.name, c.sha256, {', '.join('f.' + c for c in _FINDING_COLUMNS)} "
            f"FROM ({sql}) c JOIN findings f ON f.file_sha = c.file_sha "
            "ORDER BY c.received_at DESC, c.name, f.seq LIMIT ?", params + [limit]).fetchall()
        return [{"name": r[0], "sha256": r[1], **_finding(r[2:])} for r in rows]

    def text(self, club: str, upload: Upload) -> bytes | None:
        """The bytes of a club's log: kept with its upload (``stored_bytes``); for a log of ``audit ingest``, the
        file it was read from if that still holds the same bytes; else ``None``."""
        if upload.uploaded:
            return stored_bytes(self.cursor(), club, upload.sha256)
        try:
            data = Path(upload.name).read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == upload.sha256 else None

    def plan(self, club: str, sha256: str, profile: str = "") -> Plan:
        """Where an upload's rows go: see ``Plan`` (one indexed look-up). Neither the profile nor whether another
        club has the same bytes plays a part: every club's upload is audited and written with rows of its own,
        so it is answered the same way, in the same time, whoever else has the bytes."""
        seen = find_upload(self.cursor(), club, sha256)
        if seen is not None:
            return Plan(seen, "", False)
        return Plan(None, upload_key(club, sha256), True)

    def report(self, club: str, sql: str, params: dict[str, object]) -> Any:
        """A report's SQL over the club's rows only, with its parameters (``$name``, bound by
        ``report_arguments``): a ``pyarrow.Table``. On a cursor of its own, each table of the store is shadowed by
        a temporary view of the club's rows (``file`` and ``path`` say the club's own name of the log,
        ``file_sha`` the SHA-256 of its bytes, as ``audit ingest`` keys a file, and ``files.ingested_at`` when the
        club uploaded it: nothing of another club's upload of the same bytes), and the analyst views are made
        again as temporary views over those, so a report that reads ``finding_details``
        sees the club's rows only, as one that reads ``findings`` does."""
        with self.scratch_cursor() as cur:
            sql_files, files_params = club_files(club)
            cur.execute("CREATE TEMP TABLE club_files AS SELECT file_sha, sha256, name, received_at "
                        f"FROM ({sql_files})", files_params)
            for table, columns in SCHEMA.items():
                present = {c for c, _ in columns}
                renamed = ["cf.sha256 AS file_sha"]
                if table == "files":
                    renamed += ["cf.name AS path", "cf.received_at AS ingested_at"]
                elif "file" in present:
                    renamed.append("cf.name AS file")
                replace = f" REPLACE ({', '.join(renamed)})"
                cur.execute(f'CREATE TEMP VIEW {table} AS SELECT t.*{replace} FROM "{self.catalog}".main.{table} t '
                            "JOIN club_files cf ON cf.file_sha = t.file_sha")
            for name in VIEWS:  # temporary views come first in name look-ups: these, not the database's
                cur.execute(view_sql(name, temporary=True))
            try:
                return cur.sql(sql, params=params).to_arrow_table()
            except Exception as exc:
                raise AuditError(f"the report failed: {str(exc).splitlines()[0]}") from None

    def club_of(self, token: str) -> str | None:
        """The club of a presented token (``None``: no such token)."""
        from audit.serve.tokens import TOKEN_PREFIX, token_hash

        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        return self.tokens.get(token_hash(token))

    def has_tokens(self) -> bool:
        """Whether any token is defined, even one refused for its club's name (then every API request needs a
        valid one)."""
        return self._any_token


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """One transaction on ``con``: committed when the block ends, rolled back when it raises (whole or not at
    all)."""
    con.execute("BEGIN TRANSACTION")
    chain.began(con)
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        chain.rolled_back(con)  # before anything else: the heads its links gave are never remembered
        try:
            con.execute("ROLLBACK")
        except Exception:  # pragma: no cover - the connection lost the transaction already
            pass
        raise
    chain.committed(con)


# ---------------------------------------------------------------------------------------------- opening
@contextmanager
def private_files(private: bool = True) -> Iterator[None]:
    """While it runs, files and folders are created readable by their owner only (umask 077): the service's
    database holds every club's logs. Nothing when ``private`` is False (an existing database keeps its mode)."""
    if not private:
        yield
        return
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def keep_files_private() -> None:
    """For the rest of this process (``audit serve``, ``audit token``), every file it creates is readable by its
    owner only: a new database, and DuckDB's files beside any database (``.wal``, the ``.tmp`` folder), which
    hold the clubs' logs too. An existing file keeps its mode."""
    os.umask(0o077)


def open_service_store(path: str) -> Store:
    """The service's database, its tables checked (``check_service_tables``), opened with DuckDB's memory limit
    ``SERVICE_MEMORY``; without it for a database whose checkpoints need more: one of audit 0.1.0 (its index on
    ``hands`` must fit in memory whole) or one holding uploads' bytes in ``uploads.content`` (an earlier audit
    kept them there, and a checkpoint rewrites that column whole, in memory)."""
    store = Store.open(path, memory_limit=SERVICE_MEMORY)
    try:
        check_service_tables(store)
        limited = not store.has_index("hands") and not bytes_in_rows(store)
    except BaseException:
        store.close()
        raise
    if limited:
        return store
    store.close()
    store = Store.open(path)
    try:
        check_service_tables(store)
    except BaseException:
        store.close()
        raise
    return store


def bytes_in_rows(store: Store) -> bool:
    """Whether an upload keeps its bytes in ``uploads.content`` (stored by an earlier audit): one with bytes and
    no parts (its tables checked first: this runs a query on them)."""
    found = store.catalogue()
    tables = found.tables if found is not None else {}
    if "uploads" not in tables:
        return False
    if "upload_parts" not in tables:
        return store.one("SELECT 1 FROM uploads WHERE size > 0 LIMIT 1") is not None
    return store.one("SELECT 1 FROM uploads u WHERE u.size > 0 AND NOT EXISTS (SELECT 1 FROM upload_parts p "
                     "WHERE p.club = u.club AND p.sha256 = u.sha256) LIMIT 1") is not None


def check_service_tables(store: Store) -> None:
    """``AuditError`` (one line) unless the service's tables, where the database has them, are tables with
    exactly their columns, as the store checks its own (DuckDB's catalogue only, never running what the file
    holds): a database whose ``uploads``, ``upload_parts`` or ``tokens`` is a view, or has other columns, is not
    the service's."""
    found = store.catalogue()
    if found is None:  # pragma: no cover - Store.open refused it already
        raise AuditError(f"{store.path}: this database defines SQL functions of its own; name another file with --db")
    tables, others = found
    for name, columns in SERVICE_COLUMNS.items():
        why = None
        if name in others:
            why = f"its {name!r} is a view, not a table"
        elif name in tables and tables[name] != columns:
            why = f"its table {name!r} has other columns"
        if why is not None:
            raise AuditError(f"{store.path}: this database was not written by 'audit serve' ({why}); name another "
                             "file with --db")


def migrate_uploads(con: duckdb.DuckDBPyConnection) -> int:
    """Give every upload of an earlier audit rows of its own under ``upload_key`` (one transaction): a copy of
    the rows it shared (keyed by the bytes' SHA-256, or derived from it for a second profile), with ``file`` and
    ``path`` its own name and ``files.ingested_at`` its own time; then the rows that were written by uploads and
    that no upload holds any more are deleted (those of ``audit ingest`` stay, for club local). Returns how many
    uploads were moved (0: none was left to move)."""
    legacy = con.execute("SELECT club, sha256, file_sha, wrote_rows, name, received_at FROM uploads "
                         "WHERE NOT starts_with(file_sha, ?)", [UPLOAD_KEY_PREFIX]).fetchall()
    if not legacy:
        return 0
    import pyarrow as pa

    mapping = pa.table({"club": [r[0] for r in legacy], "sha256": [r[1] for r in legacy],
                        "old": [r[2] for r in legacy], "wrote": [bool(r[3]) for r in legacy],
                        "new": [upload_key(r[0], r[1]) for r in legacy], "name": [r[4] for r in legacy],
                        "received_at": pa.array([r[5] for r in legacy], pa.timestamp("us"))})
    with transaction(con):
        con.execute("CREATE OR REPLACE TEMP TABLE audit_rekey (club VARCHAR, sha256 VARCHAR, old VARCHAR, "
                    "wrote BOOLEAN, new VARCHAR, name VARCHAR, received_at TIMESTAMP)")
        con.from_arrow(mapping).insert_into("audit_rekey")
        for table, columns in SCHEMA.items():
            own = {"file_sha": "m.new", "hand_key": "left(m.new, 16) || substr(t.hand_key, 17)", "file": "m.name"}
            if table == "files":
                own = {"file_sha": "m.new", "path": "m.name", "ingested_at": "m.received_at"}
            picked = ", ".join(own.get(c, f"t.{c}") for c, _ in columns)
            con.execute(f"INSERT INTO main.{table} SELECT {picked} FROM main.{table} t "
                        "JOIN audit_rekey m ON t.file_sha = m.old")
        con.execute("UPDATE uploads SET file_sha = m.new, wrote_rows = true FROM audit_rekey m "
                    "WHERE uploads.club = m.club AND uploads.sha256 = m.sha256")
        for table in SCHEMA:
            con.execute(f"DELETE FROM main.{table} WHERE file_sha IN (SELECT old FROM audit_rekey WHERE wrote) "
                        "AND file_sha NOT IN (SELECT file_sha FROM uploads)")
        con.execute("DROP TABLE audit_rekey")
    return len(legacy)


def upgrade_service(store: Store) -> int:
    """``audit upgrade`` for a database the service wrote (nothing for one it never opened): check its tables and
    give every upload of an earlier audit rows of its own (``migrate_uploads``); how many were moved."""
    found = store.catalogue()
    if found is None or not any(name in found.tables or name in found.others for name in SERVICE_COLUMNS):
        return 0
    check_service_tables(store)
    moved = migrate_uploads(store.con)
    with transaction(store.con):
        adopt_uploads(store.con)  # uploads an audit without chains stored
    return moved


def report_files() -> dict[str, Report]:
    """The reports of ``reports/`` by name (``audit report --list``)."""
    return load_reports()


def report_named(name: str) -> Report | None:
    """The report ``name`` (``None``: there is none)."""
    try:
        return find_report(name)
    except AuditError:
        return None


REPORT_INT_MAX = INT_MAX
"""The largest whole number a report's INTEGER parameter takes (DuckDB's INTEGER); the smallest is 0 (a report's
whole numbers are counts and limits)."""


def report_arguments(report: Report, given: dict[str, object]) -> dict[str, object]:
    """Every parameter ``report`` takes, bound to its value in ``given`` (null when not given); ``AuditError``
    for a parameter it does not take or a value of the wrong type (a date is YYYY-MM-DD), as ``audit report``,
    and for a whole number out of 0 to 2,147,483,647 (a ``limit`` of -1 would fail in the report's SQL): the
    checks of ``audit.store.reports.report_params``, which ``audit report`` makes too."""
    return report_params(report, given)


def report_text(table: Any, fmt: str) -> str:
    """A report's rows as ``audit report --format json`` (one array) or ``--format csv --escape-formulas``
    writes them: a text that a spreadsheet would take for a formula (a player named ``=HYPERLINK(…)`` in an
    uploaded log) is quoted."""
    import io

    from audit.store.formats import write_result

    out = io.StringIO()
    write_result(list(table.column_names), table, fmt, escape_formulas=fmt == "csv", out=out)
    return out.getvalue()


def parse_label(label: str) -> tuple[str, list[tuple[str, str]]]:
    """``qdan (joker=wild, draw-limit=3)`` → ``("qdan", [("joker", "wild"), ("draw-limit", "3")])``: the profile
    a log was stored under, as ``audit ingest`` labels it."""
    m = re.fullmatch(r"(\S+) \((.*)\)", label)
    if m is None:
        return label, []
    pairs = [part.split("=", 1) for part in m.group(2).split(", ")]
    return m.group(1), [(k, v) for k, v in (p for p in pairs if len(p) == 2)]


def stored_bytes(cur: duckdb.DuckDBPyConnection, club: str, sha256: str) -> bytes | None:
    """The bytes ``club`` uploaded as ``sha256``: its parts in ``upload_parts``, or for an upload an earlier audit
    stored, its ``uploads.content``; ``None`` when the club has no such upload (or its bytes are not whole)."""
    found = cur.execute("SELECT size, octet_length(content) = size FROM uploads WHERE club = ? AND sha256 = ?",
                        [club, sha256]).fetchall()
    if not found:
        return None
    size, in_row = found[0]
    if in_row:
        held = cur.execute("SELECT content FROM uploads WHERE club = ? AND sha256 = ?", [club, sha256]).fetchall()
        return bytes(held[0][0]) if held else None
    parts = cur.execute("SELECT part FROM upload_parts WHERE club = ? AND sha256 = ? ORDER BY seq",
                        [club, sha256]).fetchall()
    data = b"".join(bytes(p[0]) for p in parts)
    return data if len(data) == size else None


def upload_parts(club: str, sha256: str, data: bytes) -> Any:
    """The rows of ``upload_parts`` for these bytes, as a ``pyarrow.Table`` (the parts are views of ``data``, not
    copies)."""
    import array

    import pyarrow as pa

    count = max(1, -(-len(data) // PART_SIZE))
    offsets = array.array("i", [min(i * PART_SIZE, len(data)) for i in range(count + 1)])
    parts = pa.Array.from_buffers(pa.binary(), count, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    return pa.table({"club": pa.array([club] * count, pa.string()), "sha256": pa.array([sha256] * count, pa.string()),
                     "seq": pa.array(range(count), pa.int32()), "part": parts})


def _is_sha256(text: str) -> bool:
    return re.fullmatch(r"[0-9a-fA-F]{64}", text) is not None


def find_upload(cur: duckdb.DuckDBPyConnection, club: str, sha256: str) -> Upload | None:
    """The log of ``club`` with these bytes, if it has one (indexed look-ups: every upload asks this). For club
    local, a log ``audit ingest`` stored (keyed by the bytes' SHA-256, held by no upload) is one of its own."""
    found = cur.execute(f"SELECT {', '.join(_UPLOAD_COLUMNS[:-1])}, true FROM uploads WHERE club = ? AND sha256 = ?",
                        [club, sha256]).fetchall()
    if found:
        return _upload(found[0])
    if club != LOCAL_CLUB:
        return None
    ingested = cur.execute("SELECT file_sha, file_sha, path, size, ingested_at, default_profile, hands FROM files "
                           "WHERE file_sha = ?", [sha256]).fetchall()
    if not ingested or cur.execute("SELECT 1 FROM uploads WHERE file_sha = ? LIMIT 1", [sha256]).fetchall():
        return None
    severities = Counter(dict(cur.execute("SELECT severity, count(*) FROM findings WHERE file_sha = ? GROUP BY 1",
                                          [sha256]).fetchall()))
    return _upload((*ingested[0], severities["violation"], severities["warning"], severities["error"], False))


def _finding(row: tuple[Any, ...]) -> dict[str, Any]:
    """A row of ``_FINDING_COLUMNS`` with the keys of ``audit check --format json`` (``hand``, not ``hand_id``)."""
    import json

    values = dict(zip(_FINDING_COLUMNS, row))
    values["hand"] = values.pop("hand_id")
    values["params"] = json.loads(values["params"]) if values["params"] else {}
    return values


def _upload(row: tuple[Any, ...]) -> Upload:
    values = dict(zip(_UPLOAD_COLUMNS, row))
    return Upload(**values)


# ---------------------------------------------------------------------------------------------- work off the loop
def audit_upload(data: bytes, name: str, profile: str, key: str) -> FileRows:
    """Audit one uploaded log into the rows of every table, keyed by ``key`` (a worker thread or process runs
    this). ``AuditError`` when the bytes cannot be read as a log at all."""
    from audit.pipeline import audit_bytes
    from audit.profile import load_profile

    builder = FileBuilder(key, name)
    for audited in audit_bytes(data, load_profile(profile), name=name):
        for f in audited.findings:
            if f.rule == Rule.UNSUPPORTED_SITE:  # nothing of it read: refused as other logs that cannot be read
                raise AuditError(f"{name}: {f.message}")
        builder.add(audited)
    return builder.finish(name, len(data), profile_label(profile, ()))


def write_upload(cur: duckdb.DuckDBPyConnection, job: UploadWrite) -> Outcome:
    """Store one upload in one transaction (the writer thread runs this): the log's rows, under the upload's own
    key, the club's ``uploads`` row, the bytes in ``upload_parts`` and the upload's link in the club's chain
    (``audit.trust.chain``). A club that has the bytes already gets ``duplicate``.

    The rows go in without a look-up first (the writer is the service's bottleneck): the plan found the club has
    no such upload, and if the club's same bytes went in since, their keys refuse the insert and the upload is
    tried again, looking first (then it is a duplicate)."""
    import duckdb

    try:
        return _write(cur, job, look_first=False)
    except duckdb.ConstraintException:
        return _write(cur, job, look_first=True)


def _write(cur: duckdb.DuckDBPyConnection, job: UploadWrite, look_first: bool) -> Outcome:
    """``write_upload``'s one transaction: the one place an upload is stored."""
    store = Store(cur, "", False)
    with transaction(cur):
        if look_first:
            seen = find_upload(cur, job.club, job.sha256)
            if seen is not None:
                return duplicate_outcome(seen, job.name)  # (nothing written: the transaction commits nothing)
        if job.rows is None or job.rows.sha256 != job.key or not job.key.startswith(UPLOAD_KEY_PREFIX):
            raise AuditError(f"internal: the rows of {job.name} are not keyed as an upload's")
        store.append_file(job.rows, link=False)  # its link is the club's (below), not local's
        hands = job.rows.hands
        table = job.rows.tables.get("findings")
        counts = Counter(table.column("severity").to_pylist() if table is not None else [])
        received = dt.datetime.now().replace(microsecond=0)
        cur.execute(SERVICE_TABLES["uploads"].insert_sql(),
                    [job.club, job.sha256, job.name, len(job.data), received, job.profile, job.key, True, hands,
                     counts["violation"], counts["warning"], counts["error"], b""])
        cur.from_arrow(upload_parts(job.club, job.sha256, job.data)).insert_into("upload_parts")
        append_link(cur, job.club, "upload", job.key, received, job.profile, content_sha256=job.sha256)
    return Outcome(job.name, job.sha256, "stored", hands, counts["violation"], counts["warning"], counts["error"])


def duplicate_outcome(upload: Upload, name: str) -> Outcome:
    """The answer for bytes the club has already: its counts, nothing added."""
    return Outcome(name, upload.sha256, "duplicate", upload.hands, upload.violations, upload.warnings,
                   upload.errors)
