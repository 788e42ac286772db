"""``audit verify`` and ``audit verify-receipt``: the record and a verdict checked (the work is in
``audit.trust``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from audit.cli.options import db_option, epilog
from audit.errors import AuditError

VERIFY_STATUS = ("0  every chain, stored byte and stored finding holds",
                 "1  something was changed: the first broken link is said first",
                 "2  could not run (no such database, one the service holds: verify a backup)")
RECEIPT_STATUS = ("0  the log's verdict is the receipt's (and, with --key, the key signed it)",
                  "1  it is not: another log, a changed byte, another profile, another key",
                  "2  could not run (no such file, a receipt that is not JSON)")
MOST_SAID = 20
"""Breaks said one by one; the rest are counted."""


@click.command(epilog=epilog([
    "audit verify --db club.duckdb",
    "# one club's chain, on a backup of the service's database",
    "audit backup --db club.duckdb copy.duckdb",
    "audit verify --db copy.duckdb --club north",
], VERIFY_STATUS))
@db_option
@click.option("--club", default=None, metavar="CLUB", help="Only this club's chain (local: audit ingest's).")
def verify(db: str, club: str | None) -> None:
    """Check that nothing stored was changed: each club's chain link by link, each stored log's bytes against
    its link, and each log audited again against its stored findings (a newer audit's differences are listed
    as such, not as tampering)."""
    from audit.cli.progress import ProgressLine
    from audit.trust.verify import verify_database

    line = ProgressLine(sys.stderr)
    report = verify_database(db, club, lambda done, total: line.show(f"audit verify: {done:,}/{total:,} links"))
    line.clear()
    if club is not None and club not in report.clubs:
        raise AuditError(f"--club {club}: the database has no chain of that club")
    for note in report.newer:
        click.echo(f"audit verify: newer audit: {note}", err=True)
    for note in report.not_reaudited[:MOST_SAID]:
        click.echo(f"audit verify: note: {note}", err=True)
    chains = f"{len(report.clubs)} chain{'s' if len(report.clubs) != 1 else ''}"
    if report.breaks:
        first, *rest = report.breaks
        click.echo(f"audit verify: BROKEN: the first broken link: {first.line()}")
        for found in rest[:MOST_SAID]:
            click.echo(f"audit verify: also: {found.line()}")
        if len(rest) > MOST_SAID:
            click.echo(f"audit verify: and {len(rest) - MOST_SAID} more")
        sys.exit(1)
    click.echo(f"audit verify: {db}: {chains}, {report.links:,} links hold; {report.reaudited:,} logs audited "
               "again, their findings as stored")


@click.command(name="verify-receipt", epilog=epilog([
    "audit explain game.txt --hand 387708 --format json > receipt.json",
    "audit verify-receipt receipt.json game.txt",
    "# a receipt of the service, with its key (GET /api/v1/key)",
    "curl -s http://host:8080/api/v1/key > key.json",
    "audit verify-receipt receipt.json friday.txt --key key.json",
], RECEIPT_STATUS))
@click.argument("receipt", metavar="RECEIPT")
@click.argument("log", metavar="LOG")
@click.option("--key", "key", default=None, metavar="FILE",
              help="The service's public key (GET /api/v1/key, its pem, or 64 hex digits): the signature must be "
                   "this key's.")
def verify_receipt(receipt: str, log: str, key: str | None) -> None:
    """Check a verdict's RECEIPT against the LOG, offline: the log's SHA-256, its verdict audited again under
    the receipt's profile and options, and with --key the service's signature."""
    from audit.trust.keys import read_public_key
    from audit.trust.receipt import check_receipt

    found = _receipt(receipt)
    try:
        data = Path(log).read_bytes()
    except OSError as exc:
        raise AuditError(f"{log}: cannot be read ({exc.strerror})") from None
    result = check_receipt(found, data, log, read_public_key(key) if key is not None else None)
    for note in result.notes:
        click.echo(f"audit verify-receipt: note: {note}", err=True)
    if not result.holds:
        for problem in result.problems:
            click.echo(f"audit verify-receipt: does not hold: {problem}")
        sys.exit(1)
    what = f"hand {found.get('hand')}" if "hand" in found else f"session {found.get('session')}"
    signed = ", signed by the key given" if key is not None else ""
    click.echo(f"audit verify-receipt: holds: {log} is the receipt's log, and its verdict of {what} under "
               f"{found.get('profile')} is the receipt's{signed}")


def _receipt(path: str) -> dict[str, Any]:
    """The receipt in the file: the receipt itself, or an object of audit explain --format json holding one."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        value = json.loads(text)
    except ValueError:
        raise AuditError(f"{path}: not a receipt (not JSON)") from None
    if isinstance(value, dict) and isinstance(value.get("receipt"), dict):
        value = value["receipt"]
    if not isinstance(value, dict):
        raise AuditError(f"{path}: not a receipt (a JSON object)")
    return value


COMMANDS: list[click.Command] = [verify, verify_receipt]
