"""Clubs and their bearer tokens: a token is shown once when it is made; the database keeps only its SHA-256.

A token is 43 random URL-safe characters after ``audit_`` (256 bits), so a plain SHA-256 of it is as good as a
slow password hash: nobody can guess one to match. Each token also has a short public id (``tok_…``) to name it
in ``audit token list`` and ``audit token revoke``; the id says nothing about the token.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audit.errors import AuditError
from audit.serve.schema import SERVICE_TABLES

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

TOKEN_PREFIX = "audit_"
CLUB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A club's name: letters, digits, ``_ . -``, up to 64 characters (it shows in pages and file listings)."""
RESERVED_CLUBS = frozenset({"local"})
"""Names no token may have, in any case: ``local`` is the club of a service with no token (this machine's own
user), which also sees every log ``audit ingest`` stored."""


@dataclass(frozen=True)
class TokenInfo:
    """A token as ``audit token list`` shows it (never the token or its hash)."""

    token_id: str
    club: str
    created_at: dt.datetime


def token_hash(token: str) -> str:
    """What the database keeps of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def club_problem(club: str) -> str | None:
    """Why ``club`` cannot be a club's name (``None``: it can). ``local`` is reserved, whatever its case (``Local``
    too: a page would name it as this machine)."""
    if CLUB_NAME.fullmatch(club) is None:
        shown = club if len(club) <= 70 else club[:70] + "…"
        return (f"{shown!r} is not a club name: use letters, digits, '_', '.' and '-' (up to 64, starting with a "
                "letter or digit)")
    if club.lower() in RESERVED_CLUBS:
        return (f"{club!r} is reserved: club local is this machine's own user, who sees every log 'audit ingest' "
                "stored; name the club otherwise")
    return None


def check_club(club: str) -> str:
    """``club`` if it is a valid club name, else ``AuditError`` saying what one looks like or that it is reserved."""
    problem = club_problem(club)
    if problem is not None:
        raise AuditError(problem)
    return club


def add_token(con: duckdb.DuckDBPyConnection, club: str) -> tuple[str, str]:
    """A new token for ``club``: ``(token_id, token)``. The token is returned once and never stored."""
    check_club(club)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token_id = "tok_" + secrets.token_hex(4)
    con.execute(SERVICE_TABLES["tokens"].insert_sql(),
                [token_id, club, token_hash(token), dt.datetime.now().replace(microsecond=0)])
    return token_id, token


def list_tokens(con: duckdb.DuckDBPyConnection) -> list[TokenInfo]:
    """Every token, by club then age."""
    rows = con.execute("SELECT token_id, club, created_at FROM tokens ORDER BY club, created_at, token_id").fetchall()
    return [TokenInfo(r[0], r[1], r[2]) for r in rows]


def revoke(con: duckdb.DuckDBPyConnection, token_id: str | None = None, club: str | None = None) -> list[TokenInfo]:
    """Delete one token (by its id) or every token of a club; returns those deleted (``AuditError`` if none)."""
    gone = [t for t in list_tokens(con) if t.token_id == token_id or (club is not None and t.club == club)]
    if not gone:
        what = f"token {token_id!r}" if token_id else f"token of club {club!r}"
        raise AuditError(f"no {what} (audit token list names them)")
    from audit.serve.db import transaction

    with transaction(con):
        for t in gone:
            con.execute("DELETE FROM tokens WHERE token_id = ?", [t.token_id])
    return gone
