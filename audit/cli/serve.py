"""The service's commands: ``audit serve`` and ``audit token add|list|revoke`` (the work is in ``audit.serve``)."""

from __future__ import annotations

import logging
import re
import socket
from typing import Any

import click

from audit.cli.options import WholeHelpGroup, db_option, epilog
from audit.errors import AuditError

SERVE_EXTRA = "audit serve needs the service's packages: pip install 'audit[serve]' (FastAPI, uvicorn, " \
              "python-multipart)"


SERVE_STATUS = ("0  stopped cleanly (Ctrl-C or SIGTERM; uploads in flight are stored whole or not at all)",
                "2  could not start (the service's packages missing, the database in use by another program, the "
                "port taken)")
TOKEN_STATUS = ("0  done", "2  could not run (a bad club name, the database in use by the service: stop it first)")


def parse_size(text: str) -> int:
    """``50MB``, ``512KB``, ``1GB`` or a number of bytes → bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?B?)\s*", text, re.I)
    if m is None:
        raise AuditError(f"--max-upload {text!r}: write a size such as 50MB, 512KB or 1GB")
    unit = {"": 1, "B": 1, "K": 1024, "KB": 1024, "M": 1024 ** 2, "MB": 1024 ** 2, "G": 1024 ** 3,
            "GB": 1024 ** 3}[m.group(2).upper()]
    size = int(float(m.group(1)) * unit)
    if size < 1:
        raise AuditError(f"--max-upload {text!r}: the limit must be at least one byte")
    return size


@click.command(short_help="Serve the database over HTTP: uploads, disputes, live tables.", epilog=epilog([
    "audit serve --db club.duckdb",
    "# every network, with clubs' tokens (make them first, while the service is stopped)",
    "audit token add north --db club.duckdb",
    "audit serve --db club.duckdb --host 0.0.0.0 --port 8080 --workers 2",
    "curl -H 'Authorization: Bearer TOKEN' --data-binary @friday.txt -H 'Content-Type: text/plain' "
    "'http://host:8080/api/v1/uploads?name=friday.txt'",
], SERVE_STATUS))
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every network; then define a token first).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port; the URL is printed).")
@click.option("--max-upload", default="50MB", show_default=True, metavar="SIZE",
              help="Largest request body; a bigger one is refused with 413.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Audit uploads in this many worker processes (1: in threads of the server).")
@click.option("--read-timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True, metavar="SECONDS",
              help="Longest pause while a client sends a request body (then 408).")
def serve(db: str, host: str, port: int, max_upload: str, workers: int, read_timeout: float) -> None:
    """Serve the database over HTTP: uploads, findings, explanations, reports and pages for people.

    Clubs authenticate with tokens (audit token add CLUB); with no token defined, only this machine is answered.
    Stops cleanly on Ctrl-C or SIGTERM (uploads in flight are stored whole or not at all).
    """
    import importlib.util

    if any(importlib.util.find_spec(name) is None for name in ("fastapi", "uvicorn", "multipart")):
        raise AuditError(SERVE_EXTRA)
    from audit.serve.app import run
    from audit.serve.db import keep_files_private
    from audit.serve.service import Settings

    settings = Settings(db=db, host=host, port=port, max_upload=parse_size(max_upload), workers=workers,
                        read_timeout=read_timeout)
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"audit serve: listening on {host}; with no token defined only this machine is answered "
                   "(audit token add CLUB)", err=True)
    check_port(host, port)
    keep_files_private()  # the database, its .wal and .tmp files: every club's logs
    run_listening(run, settings)


def _cannot_listen(host: str, port: int, reason: object) -> AuditError:
    text = str(reason)
    if isinstance(reason, OSError) and reason.errno is not None and reason.strerror:
        text = reason.strerror.lower()  # "[Errno 98] error while attempting to bind on …" said once, plainly
    hint = " (another program listens there: stop it, or choose another with --port)" \
        if "in use" in text.lower() else ""
    return AuditError(f"cannot listen on {host}:{port}: {text}{hint}")


def check_port(host: str, port: int) -> None:
    """Refuse, in one line, a port that cannot be bound (taken, or not ours to take) before the database is opened
    and uvicorn starts; bound the way uvicorn binds it (SO_REUSEADDR), then released at once."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise _cannot_listen(host, port, exc) from None
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
    except OSError as exc:
        raise _cannot_listen(host, port, exc) from None


class _BindFailure(logging.Filter):
    """Keeps uvicorn's own "[Errno 98] error while attempting to bind" off the terminal, for one line of ours."""

    def __init__(self) -> None:
        super().__init__()
        self.error: object = None

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, OSError):
            self.error = record.msg
            return False
        return True


def run_listening(run: Any, settings: Any) -> None:
    """``run(settings)``; a port taken between ``check_port`` and uvicorn's bind (uvicorn then logs the error and
    exits 1) is the same one line and exit 2."""
    failure = _BindFailure()
    logger = logging.getLogger("uvicorn.error")
    logger.addFilter(failure)
    try:
        run(settings)
    except SystemExit as exc:
        if failure.error is None or exc.code in (0, None):
            raise
        raise _cannot_listen(settings.host, settings.port, failure.error) from None
    finally:
        logger.removeFilter(failure)


@click.group(cls=WholeHelpGroup, short_help="Clubs' tokens for the service: add, list, revoke.",
             epilog=epilog(["audit token add north --db club.duckdb", "audit token list --db club.duckdb",
                           "audit token revoke --club north --db club.duckdb"], TOKEN_STATUS))
def token() -> None:
    """Clubs' tokens for the service: add, list, revoke (only a hash of each token is stored)."""


@token.command("add", short_help="Make a token for a club and print it once.",
               epilog=epilog(["audit token add north --db club.duckdb"], TOKEN_STATUS))
@click.argument("club")
@db_option
def token_add(club: str, db: str) -> None:
    """Make a token for CLUB and print it once (keep it: it cannot be shown again)."""
    from audit.serve.db import ServiceDB, keep_files_private
    from audit.serve.tokens import add_token, check_club

    check_club(club)  # a bad or reserved name (local, in any case): one line, exit 2
    keep_files_private()
    service_db = ServiceDB(db)
    try:
        token_id, secret = add_token(service_db.con, club)
    finally:
        service_db.close()
    click.echo(secret)
    click.echo(f"token {token_id} for club {club}: give it to the club; it is shown only this once "
               "(send it as 'Authorization: Bearer TOKEN', or sign in with it on the service's page)", err=True)


@token.command("list", short_help="Every token: its id, club and date (never the token).",
               epilog=epilog(["audit token list --db club.duckdb"], TOKEN_STATUS))
@db_option
def token_list(db: str) -> None:
    """Every token: its id, club and when it was made (never the token)."""
    from audit.serve.db import ServiceDB, keep_files_private
    from audit.serve.tokens import club_problem, list_tokens

    keep_files_private()
    service_db = ServiceDB(db)
    try:
        tokens = list_tokens(service_db.con)
    finally:
        service_db.close()
    if not tokens:
        click.echo("no tokens: the service answers only this machine (as club local)")
    for t in tokens:
        refused = "  (refused by the service: a reserved club name; revoke it)" if club_problem(t.club) else ""
        click.echo(f"{t.token_id}  {t.club}  {t.created_at:%Y-%m-%d %H:%M}{refused}")


@token.command("revoke", short_help="Revoke a token, or every token of a club.",
               epilog=epilog(["audit token revoke tok_1a2b3c4d --db club.duckdb",
                                         "audit token revoke --club north --db club.duckdb"], TOKEN_STATUS))
@click.argument("token_id", required=False)
@click.option("--club", default=None, help="Revoke every token of this club.")
@db_option
def token_revoke(token_id: str | None, club: str | None, db: str) -> None:
    """Revoke the token TOKEN_ID (see audit token list), or every token of --club."""
    from audit.serve.db import ServiceDB, keep_files_private
    from audit.serve.tokens import revoke

    if (token_id is None) == (club is None):
        raise click.UsageError("name a token id, or --club CLUB")
    keep_files_private()
    service_db = ServiceDB(db)
    try:
        gone = revoke(service_db.con, token_id, club)
    finally:
        service_db.close()
    for t in gone:
        click.echo(f"revoked {t.token_id} ({t.club})")


COMMANDS: list[click.Command] = [serve, token]
