"""``audit verify``: every chain of a database walked, and every stored log checked against its link.

For each club's chain, in order: each link's position follows the last, it holds the previous link's hash, and
its own hash is that of its fields (a link edited in place, or a time changed, breaks here). Then what the link
stands for: an upload's row (its time and profile) and its bytes, whose SHA-256 must be the link's; a file of
``audit ingest`` (a plain database does not hold the bytes: the file is read again from where it was ingested
when it still holds the same bytes); a live table's entries, replayed from the links (an undo is a link of its
own: it takes an entry back without removing it from the chain) and held to the rows the table keeps. Each log
whose bytes are at hand is audited again and its findings held to the stored ones: the same audit version must
give exactly the same findings (else they were changed); a newer version's differences are listed as such,
never as tampering. Last, every stored log must have its link.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError
from audit.store.schema import CHAIN_TABLE, SCHEMA
from audit.trust.canonical import canonical_text
from audit.trust.chain import COLUMNS, GENESIS, LOCAL_CLUB, Link, audit_version

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

    from audit.store.db import Store

FINDING_COLUMNS = tuple(name for name, _ in SCHEMA["findings"])


@dataclass(frozen=True)
class Break:
    """Something stored that is not what its link says: the club, the link's position (0: a stored log with no
    link at all) and what changed."""

    club: str
    position: int
    what: str

    def line(self) -> str:
        where = f"link {self.position}" if self.position else "no link"
        return f"club {self.club}, {where}: {self.what}"


@dataclass
class VerifyReport:
    """What ``verify_database`` found."""

    links: int = 0
    clubs: list[str] = field(default_factory=list)
    reaudited: int = 0
    breaks: list[Break] = field(default_factory=list)
    newer: list[str] = field(default_factory=list)  # findings an older audit version stored differently
    not_reaudited: list[str] = field(default_factory=list)  # logs whose bytes are not at hand


Progress = Callable[[int, int], None]


def verify_database(path: str, club: str | None = None, progress: Progress | None = None) -> VerifyReport:
    """Walk every club's chain in the database at ``path`` (only ``club``'s when given); ``AuditError`` when it
    cannot (no such database, one another program holds, one with no chain yet)."""
    from audit.store.db import Store

    with Store.open(path, read_only=True) as store:
        if not store.has_chain():
            raise AuditError(f"{path}: this database has no chain yet (an earlier audit wrote it); 'audit upgrade "
                             f"--db {path}' starts it, from the logs it holds now")
        return _Walk(store, progress).run(club)


class _Walk:
    def __init__(self, store: Store, progress: Progress | None) -> None:
        self.store = store
        self.con: duckdb.DuckDBPyConnection = store.con
        self.progress = progress
        self.report = VerifyReport()
        tables = {r[0] for r in self.con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                                                 "AND database_name = current_database()").fetchall()}
        self.has_uploads = "uploads" in tables
        self.has_live = "live_entries" in tables and "live_tables" in tables
        self.findings = self._stored_findings()

    def run(self, only: str | None) -> VerifyReport:
        con = self.con
        clubs = [r[0] for r in con.execute(f"SELECT DISTINCT club FROM {CHAIN_TABLE} ORDER BY club").fetchall()]
        if only is not None:
            clubs = [c for c in clubs if c == only]
        self.report.clubs = clubs
        total = con.execute(f"SELECT count(*) FROM {CHAIN_TABLE}"
                            + (" WHERE club = ?" if only is not None else ""),
                            [only] if only is not None else []).fetchone()
        self.total = int(total[0]) if total else 0
        for name in clubs:
            self._club(name)
        self._unlinked(only)
        return self.report

    # ------------------------------------------------------------------ the chain
    def _links(self, club: str) -> Iterator[Link]:
        cur = self.con.cursor()
        try:
            cur.execute(f"SELECT {', '.join(COLUMNS)} FROM {CHAIN_TABLE} WHERE club = ? ORDER BY position", [club])
            while rows := cur.fetchmany(1000):
                yield from (Link(*row) for row in rows)
        finally:
            cur.close()

    def _club(self, club: str) -> None:
        prev, expected = GENESIS, 1
        live: dict[str, _LiveTable] = {}
        for link in self._links(club):
            self.report.links += 1
            if self.progress is not None:
                self.progress(self.report.links, self.total)
            if link.position != expected:
                self._break(club, link.position, f"link {expected} is missing (the next link is {link.position})"
                            if link.position > expected else "a second link at this position")
            expected = link.position + 1
            if link.prev_hash != prev:
                self._break(club, link.position, "it does not hold the previous link's hash: a link before it was "
                                                 "changed, removed or put in")
            if link.computed_hash() != link.hash:
                self._break(club, link.position, f"its contents were changed after it was written ({self._what(link)}"
                                                 "; its hash no longer matches them)")
            prev = link.hash
            if link.kind == "upload":
                self._upload(link)
            elif link.kind == "file":
                self._file(link)
            elif link.kind in ("table", "entry", "undo", "close"):
                self._live(link, live)
            else:
                self._break(club, link.position, f"a link of an unknown kind {link.kind!r}")
        self._live_rows(club, live)

    def _what(self, link: Link) -> str:
        """The link's fields held to the rows it stands for: which of them no longer agree."""
        if link.kind == "upload" and self.has_uploads:
            row = self.con.execute("SELECT received_at, profile FROM uploads WHERE club = ? AND sha256 = ?",
                                   [link.club, link.content_sha256]).fetchone()
        elif link.kind == "file":
            row = self.con.execute("SELECT ingested_at, default_profile FROM files WHERE file_sha = ?",
                                   [link.subject]).fetchone()
        else:
            row = None
        if row is None:
            return f"a {link.kind} link"
        said = []
        if row[0] != link.received_at:
            said.append(f"its time says {link.received_at}, the log was received {row[0]}")
        if row[1] != link.profile:
            said.append(f"its profile says {link.profile}, the log's is {row[1]}")
        return "; ".join(said) or f"a {link.kind} link"

    def _break(self, club: str, position: int, what: str) -> None:
        self.report.breaks.append(Break(club, position, what))

    # ------------------------------------------------------------------ logs
    def _upload(self, link: Link) -> None:
        from audit.serve.db import audit_upload, stored_bytes

        if not self.has_uploads:
            self._break(link.club, link.position, "the database holds no uploads")
            return
        row = self.con.execute("SELECT name, received_at, profile, file_sha FROM uploads WHERE club = ? AND "
                               "sha256 = ?", [link.club, link.content_sha256]).fetchone()
        if row is None:
            self._break(link.club, link.position, f"its upload ({link.content_sha256[:12]}…) is gone")
            return
        name, received, profile, key = row
        if key != link.subject:
            self._break(link.club, link.position, f"{name}: its rows are under another key")
        if received != link.received_at:
            self._break(link.club, link.position, f"{name}: received {link.received_at} by its link, "
                                                  f"{received} by its row")
        if profile != link.profile:
            self._break(link.club, link.position, f"{name}: audited under {link.profile} by its link, "
                                                  f"{profile} by its row")
        data = stored_bytes(self.con, link.club, link.content_sha256)
        sha = hashlib.sha256(data).hexdigest() if data is not None else None
        if sha != link.content_sha256:
            self._break(link.club, link.position, f"{name}: its stored bytes were changed (their SHA-256 is "
                                                  f"{sha or 'not whole'}, the link's {link.content_sha256})")
            return
        assert data is not None
        self._compare(link, name, lambda: audit_upload(data, name, profile, key))

    def _file(self, link: Link) -> None:
        from audit.serve.db import parse_label
        from audit.store.ingest import IngestJob, audit_file_rows, hash_file

        row = self.con.execute("SELECT path, ingested_at, default_profile, audit_version FROM files "
                               "WHERE file_sha = ?", [link.subject]).fetchone()
        if row is None:
            self._break(link.club, link.position, f"its file ({link.subject[:12]}…) is gone")
            return
        path, ingested, label, version = row
        if link.content_sha256 != link.subject:
            self._break(link.club, link.position, f"{path}: its rows are under another key")
        for what, stored, linked in (("ingested", ingested, link.received_at), ("audited under", label, link.profile),
                                     ("stored by audit", version, link.audit_version)):
            if stored != linked:
                self._break(link.club, link.position, f"{path}: {what} {linked} by its link, {stored} by its row")
        try:
            same = path != "<stdin>" and hash_file(path)[0] == link.subject
        except OSError:
            same = False
        if not same:
            self.report.not_reaudited.append(f"{path}: not at its path with the same bytes, so not audited again "
                                             "(a plain database does not keep the logs)")
            return
        name, options = parse_label(label)
        self._compare(link, path, lambda: audit_file_rows(IngestJob(path, name, tuple(options), sha256=link.subject)))

    def _compare(self, link: Link, name: str, audit: Callable[[], Any]) -> None:
        """Audit the log again and hold its findings to the stored ones."""
        try:
            rows = audit()
        except AuditError as exc:
            self._break(link.club, link.position, f"{name}: cannot be audited again ({exc})")
            return
        self.report.reaudited += 1
        table = rows.tables.get("findings")
        again = [tuple(r[c] for c in FINDING_COLUMNS) for r in table.to_pylist()] if table is not None else []
        stored = self.findings.get(link.subject, [])
        if again == stored:
            return
        change = _difference(stored, again)
        if link.audit_version != audit_version():
            self.report.newer.append(f"club {link.club}, link {link.position}, {name}: stored by audit "
                                     f"{link.audit_version}, audit {audit_version()} finds otherwise: {change}")
        else:
            self._break(link.club, link.position, f"{name}: its stored findings were changed: {change}")

    def _stored_findings(self) -> dict[str, list[tuple[Any, ...]]]:
        out: dict[str, list[tuple[Any, ...]]] = {}
        cur = self.con.cursor()
        try:
            cur.execute(f"SELECT {', '.join(FINDING_COLUMNS)} FROM findings ORDER BY file_sha, seq")
            while rows := cur.fetchmany(10_000):
                for row in rows:
                    out.setdefault(row[1], []).append(tuple(row))
        finally:
            cur.close()
        return out

    def _unlinked(self, only: str | None) -> None:
        """Every stored log has its link (one without was put in around the chain)."""
        if only in (None, LOCAL_CLUB):
            for path, sha in self.con.execute(
                    "SELECT path, file_sha FROM files WHERE NOT starts_with(file_sha, 'u') AND file_sha NOT IN "
                    f"(SELECT subject FROM {CHAIN_TABLE} WHERE club = ? AND kind = 'file') ORDER BY path",
                    [LOCAL_CLUB]).fetchall():
                self._break(LOCAL_CLUB, 0, f"{path} ({sha[:12]}…) is stored without a link")
        if self.has_uploads:
            for club, name in self.con.execute(
                    "SELECT club, name FROM uploads u WHERE (? IS NULL OR club = ?) AND NOT EXISTS (SELECT 1 FROM "
                    f"{CHAIN_TABLE} c WHERE c.club = u.club AND c.kind = 'upload' AND c.content_sha256 = u.sha256) "
                    "ORDER BY club, name", [only, only]).fetchall():
                self._break(club, 0, f"the upload {name} is stored without a link")

    # ------------------------------------------------------------------ live tables
    def _live(self, link: Link, live: dict[str, _LiveTable]) -> None:
        import json

        table = live.setdefault(link.subject, _LiveTable())
        try:
            content = json.loads(link.content or "null")
        except ValueError:
            content = None
        if link.kind == "table":
            table.opened = link.position
        elif link.kind == "entry" and isinstance(content, dict):
            table.entries[int(content.get("seq", -1))] = (link.position, canonical_text(content.get("entry")))
        elif link.kind == "undo" and isinstance(content, dict):
            table.entries.pop(int(content.get("seq", -1)), None)
        elif link.kind == "close":
            table.closed = link.position

    def _live_rows(self, club: str, live: dict[str, _LiveTable]) -> None:
        """The entries each live table keeps are those its links leave."""
        import json

        if not self.has_live:
            if live:
                self._break(club, min(t.opened or 1 for t in live.values()), "its live tables are gone")
            return
        rows: dict[str, dict[int, str]] = {}
        for table_id, seq, entry in self.con.execute("SELECT table_id, seq, entry FROM live_entries WHERE club = ? "
                                                     "ORDER BY table_id, seq", [club]).fetchall():
            try:
                rows.setdefault(table_id, {})[seq] = canonical_text(json.loads(entry))
            except ValueError:
                rows.setdefault(table_id, {})[seq] = entry
        closed = dict(self.con.execute("SELECT table_id, closed FROM live_tables WHERE club = ?", [club]).fetchall())
        for table_id in sorted(set(rows) | set(live)):
            chained = live.get(table_id, _LiveTable())
            kept = rows.get(table_id, {})
            for seq in sorted(set(kept) | set(chained.entries)):
                if seq not in chained.entries:
                    self._break(club, 0, f"table {table_id}: entry {seq} is stored without a link")
                elif seq not in kept:
                    self._break(club, chained.entries[seq][0], f"table {table_id}: entry {seq} is gone (no undo "
                                                               "took it back)")
                elif kept[seq] != chained.entries[seq][1]:
                    self._break(club, chained.entries[seq][0], f"table {table_id}: entry {seq} was changed: it "
                                                               f"says {kept[seq]}, its link {chained.entries[seq][1]}")
            if chained.closed and not closed.get(table_id, False):
                self._break(club, chained.closed, f"table {table_id} was closed, and is open again")


@dataclass
class _LiveTable:
    entries: dict[int, tuple[int, str]] = field(default_factory=dict)  # seq -> (link position, entry)
    opened: int = 0
    closed: int = 0


def _difference(stored: list[tuple[Any, ...]], again: list[tuple[Any, ...]]) -> str:
    """The first difference between the findings stored and those found again, in words."""
    for i, (a, b) in enumerate(zip(stored, again)):
        if a != b:
            cols = [f"{c} {x!r} (found again: {y!r})" for c, x, y in zip(FINDING_COLUMNS, a, b) if x != y]
            return f"finding {i + 1} says " + ", ".join(cols)
    return f"{len(stored)} findings stored, {len(again)} found again"

