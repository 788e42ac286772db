"""Each club's append-only chain of what was stored (``chain_links``, defined in ``audit.store.schema``).

A link holds the previous link's hash, what was stored (the SHA-256 of a log's bytes, or a live-table entry as
canonical JSON), when it was received, the profile with its options and the audit version; its own hash is the
SHA-256 of all that as canonical JSON (``link_hash``). Links are appended only by the writer that stores the rows
they stand for, inside the same transaction (``append_link``): a crash or a kill leaves both or neither. The
table's key (club, position) refuses a second link at a position, so two writers can never fork a chain.

A link proves the record was not changed after it was received; it cannot say the cards were dealt honestly
(docs/explanation/trust.md).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from audit.store.schema import CHAIN_SCHEMA, CHAIN_TABLE
from audit.trust.canonical import canonical_json, canonical_text

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

GENESIS = "0" * 64
"""The ``prev_hash`` of a club's first link (and the hash of an empty chain's head)."""

LOCAL_CLUB = "local"
"""The club of ``audit ingest``'s files (and of the service's own machine)."""

LOG_KINDS = ("file", "upload")
TABLE_KINDS = ("table", "entry", "undo", "close")

COLUMNS = tuple(name for name, _ in CHAIN_SCHEMA)


@dataclass(frozen=True)
class Link:
    """One link of a club's chain (the columns of ``chain_links``, in order)."""

    club: str
    position: int
    kind: str
    subject: str
    content_sha256: str
    content: str | None
    received_at: dt.datetime
    profile: str
    audit_version: str
    prev_hash: str
    hash: str

    def fields(self) -> dict[str, Any]:
        """Everything the hash covers: every column but ``hash``, the time as ISO 8601 text."""
        return {"club": self.club, "position": self.position, "kind": self.kind, "subject": self.subject,
                "content_sha256": self.content_sha256, "content": self.content,
                "received_at": self.received_at.isoformat(), "profile": self.profile,
                "audit_version": self.audit_version, "prev_hash": self.prev_hash}

    def computed_hash(self) -> str:
        """The hash this link's fields give (``hash`` when nothing was changed)."""
        return link_hash(self.fields())

    def head(self) -> dict[str, Any]:
        """The chain's head at this link: ``{"club", "position", "hash", "at"}``."""
        return {"club": self.club, "position": self.position, "hash": self.hash, "at": self.received_at.isoformat()}


def link_hash(fields: dict[str, Any]) -> str:
    """The SHA-256 of a link's fields (``Link.fields``) as canonical JSON."""
    return hashlib.sha256(canonical_json(fields)).hexdigest()


def audit_version() -> str:
    from audit import __version__

    return __version__


_Heads = dict[str, tuple[int, str]]
_HEADS: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, _Heads] = weakref.WeakKeyDictionary()
"""Each remembering connection's clubs' heads (position, hash) as of its last commit: it dies with its connection."""
_PENDING: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, _Heads] = weakref.WeakKeyDictionary()
"""The heads of the links appended in a remembering connection's open transaction, remembered once it commits."""


def remember_heads(con: duckdb.DuckDBPyConnection) -> None:
    """Let ``append_link`` on ``con`` remember each club's head from one committed transaction to the next, rather
    than read it. Only for the connection of a database's one writer (the service's writer thread): a link another
    connection appends is not seen here. Empty at first, so what was written before (``audit ingest``, while the
    service was not running) is read."""
    _HEADS[con] = {}


def began(con: duckdb.DuckDBPyConnection) -> None:
    """A transaction opened on ``con`` (``audit.serve.db.transaction``): its links are remembered if it commits."""
    if con in _HEADS:
        _PENDING[con] = {}


def committed(con: duckdb.DuckDBPyConnection) -> None:
    """The transaction opened on ``con`` committed: the heads of its links are remembered."""
    pending = _PENDING.pop(con, None)
    heads = _HEADS.get(con)
    if pending is not None and heads is not None:
        heads.update(pending)


def rolled_back(con: duckdb.DuckDBPyConnection) -> None:
    """The transaction opened on ``con`` was rolled back (or its commit failed): every head is read again."""
    _PENDING.pop(con, None)
    heads = _HEADS.get(con)
    if heads is not None:
        heads.clear()


def append_link(con: duckdb.DuckDBPyConnection, club: str, kind: str, subject: str, received_at: dt.datetime,
                profile: str, content_sha256: str | None = None, content: Any = None,
                version: str | None = None) -> Link:
    """Append a link to ``club``'s chain on ``con``, inside the caller's open transaction (the one of the rows it
    stands for). ``content``: a live-table entry (stored as canonical JSON, its SHA-256 ``content_sha256``); for a
    log, ``content_sha256`` is its bytes' SHA-256."""
    text = None if content is None else canonical_text(content)
    digest = content_sha256 if content_sha256 is not None else hashlib.sha256((text or "").encode()).hexdigest()
    heads, pending = _HEADS.get(con), _PENDING.get(con)
    if heads is not None and pending is None:
        heads.clear()  # a link outside a transaction whose commit is seen: what follows reads the head
    # The writer's connection remembers each club's head (remember_heads) rather than reading it: one statement
    # of the link's two less: the links 1.0 ms an upload, 3.2 % of its time in the writer (2.0 ms, 6.9 %, when
    # read), through the service 1.2 ms, 3.7 % (2.5 ms, 6.4 %): `bench/trust.py --hands 2000 --uploads 100 --rounds
    # 3`, 9.5 KB uploads, plain Python, on a busy machine.
    known = (pending.get(club) or heads.get(club)) if heads is not None and pending is not None else None
    if known is not None:
        position, prev = known[0] + 1, known[1]
    else:
        # max and arg_max, not ORDER BY … LIMIT 1: the look-up in a third less time (2.1 ms, was 3.0, on a busy
        # machine)
        row = con.execute(f"SELECT max(position), arg_max(hash, position) FROM {CHAIN_TABLE} WHERE club = ?",
                          [club]).fetchone()
        position, prev = (int(row[0]) + 1, str(row[1])) if row and row[0] is not None else (1, GENESIS)
    draft = Link(club, position, kind, subject, digest, text, received_at, profile, version or audit_version(), prev,
                 "")
    link = dataclasses.replace(draft, hash=draft.computed_hash())
    con.execute(f"INSERT INTO {CHAIN_TABLE} VALUES ({', '.join('?' * len(COLUMNS))})",
                [getattr(link, name) for name in COLUMNS])
    if pending is not None:
        pending[club] = (position, link.hash)
    return link


def append_table_link(con: duckdb.DuckDBPyConnection, club: str, table_id: str, profile: str,
                      options: Iterable[tuple[str, str]], kind: str, content: dict[str, Any]) -> Link:
    """A live table's link (``kind``: table, entry, undo, close), received now, inside the caller's transaction:
    ``content`` with the table's id, as canonical JSON."""
    from audit.store.ingest import profile_label

    now = dt.datetime.now().replace(microsecond=0)
    return append_link(con, club, kind, table_id, now, profile_label(profile, options),
                       content={**content, "table": table_id})


def head(con: duckdb.DuckDBPyConnection, club: str) -> dict[str, Any]:
    """``club``'s head: the last link's ``{"club", "position", "hash", "at"}`` (position 0 and 64 zeros for a club
    with no link yet)."""
    row = con.execute(f"SELECT {', '.join(COLUMNS)} FROM {CHAIN_TABLE} WHERE club = ? ORDER BY position DESC "
                      "LIMIT 1", [club]).fetchone()
    if row is None:
        return {"club": club, "position": 0, "hash": GENESIS, "at": None}
    return Link(*row).head()


def link_of(con: duckdb.DuckDBPyConnection, club: str, kind: str, subject: str) -> Link | None:
    """The last link of ``club`` of this kind about ``subject`` (an upload's: its receipt names it)."""
    row = con.execute(f"SELECT {', '.join(COLUMNS)} FROM {CHAIN_TABLE} WHERE club = ? AND kind = ? AND subject = ? "
                      "ORDER BY position DESC LIMIT 1", [club, kind, subject]).fetchone()
    return Link(*row) if row else None


def clubs(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every club with a chain, by name."""
    return [r[0] for r in con.execute(f"SELECT DISTINCT club FROM {CHAIN_TABLE} ORDER BY club").fetchall()]


def adopt_files(con: duckdb.DuckDBPyConnection) -> int:
    """Links for the files ``audit ingest`` stored before the database had a chain (in the order they were
    stored), inside the caller's transaction: every file has a link from then on, and the chain proves nothing
    changed after that moment. Returns how many were adopted."""
    # the rows of the service's uploads (keyed 'u' and 64 hex digits; an earlier audit's, by the bytes' hash until
    # they are moved) are adopted by the service (adopt_uploads), after the move
    uploads = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND "
                          "schema_name = 'main' AND table_name = 'uploads'").fetchone() != (0,)
    held = "AND file_sha NOT IN (SELECT file_sha FROM uploads)" if uploads else ""
    rows = con.execute("SELECT file_sha, ingested_at, default_profile, audit_version FROM files "
                       f"WHERE NOT starts_with(file_sha, 'u') {held} "
                       f"AND file_sha NOT IN (SELECT subject FROM {CHAIN_TABLE} WHERE kind = 'file') "
                       "ORDER BY ingested_at, file_sha").fetchall()
    for sha, at, profile, version in rows:
        append_link(con, LOCAL_CLUB, "file", sha, at, profile, content_sha256=sha, version=version)
    return len(rows)


def adopt_uploads(con: duckdb.DuckDBPyConnection) -> int:
    """Links for the uploads the service stored before its database had a chain (``adopt_files``'s), and for the
    files of ``audit ingest`` their rows were shared with until they were moved (``audit.serve.db.migrate_uploads``
    runs first)."""
    adopt_files(con)
    rows = con.execute("SELECT u.club, u.file_sha, u.received_at, u.profile, u.sha256, f.audit_version FROM uploads u "
                       "LEFT JOIN files f ON f.file_sha = u.file_sha "
                       f"WHERE NOT EXISTS (SELECT 1 FROM {CHAIN_TABLE} c WHERE c.club = u.club AND c.kind = 'upload' "
                       "AND c.content_sha256 = u.sha256) ORDER BY u.received_at, u.club, u.sha256").fetchall()
    for club, key, at, profile, sha, version in rows:
        append_link(con, club, "upload", key, at, profile, content_sha256=sha, version=version)
    return len(rows)
