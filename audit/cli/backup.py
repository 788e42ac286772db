"""``audit backup``: a consistent copy of a database, through the service that holds it or directly (the work is
in ``audit.serve.control``)."""

from __future__ import annotations

import os

import click

from audit.cli.options import db_option, epilog
from audit.errors import AuditError

BACKUP_STATUS = ("0  the backup is written (DEST is whole: a copy of the database as it was at one moment)",
                 "2  could not run (DEST exists, no such database, the database held by a program that takes no "
                 "backup requests, a full disk); DEST is then not written")


@click.command(short_help="A consistent copy of the database, also while it is served.", epilog=epilog([
    "audit backup --db club.duckdb /srv/backups/club-$(date +%F).duckdb",
    "# while audit serve runs on club.duckdb: the service writes the copy, between two uploads",
    "# restore: stop the service, then",
    "cp /srv/backups/club-2026-12-01.duckdb club.duckdb && rm -f club.duckdb.wal",
], BACKUP_STATUS))
@db_option
@click.argument("dest", metavar="DEST")
def backup(db: str, dest: str) -> None:
    """Copy the database to DEST, consistent even while `audit serve` writes to it.

    While the service holds the database, the copy is made by the service itself (asked through the control
    socket beside the database, FILE.control, which only the user the service runs as may use), between two
    uploads; otherwise this command opens the database (keeping other programs out), checkpoints it and copies it.
    DEST must not exist; it is written whole or not at all. To restore, stop the service and copy DEST over the
    database (removing a leftover FILE.wal), or serve DEST itself.
    """
    from audit.serve.control import ask_service, backup_directly, check_dest
    from audit.store.db import check_db_name

    check_db_name(db)
    path = check_dest(dest)
    if os.path.realpath(db) == os.path.realpath(path):
        raise AuditError(f"{dest}: that is the database itself")
    answer = ask_service(db, path)
    if answer is None:
        size = backup_directly(db, path)
        how = "directly (no service holds it)"
    elif answer.get("ok"):
        size = int(answer["bytes"])
        how = "by the service that holds it"
    else:
        raise AuditError(f"the service holding {db} could not back it up: {answer.get('error')}")
    click.echo(f"audit backup: {db} copied to {dest} {how}: {size:,} bytes", err=True)


COMMANDS: list[click.Command] = [backup]
