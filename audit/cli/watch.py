"""``audit watch`` (follow a poker client's folders) and ``audit upload`` (send logs to a club's service); the
work is in ``audit.watch``."""

from __future__ import annotations

import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from audit.cli.options import epilog, profile_option, quiet_option
from audit.errors import Interrupted

WATCH_STATUS = ("0  (--once) every complete hand sent", "1  (--once) a file or a log could not be read or was "
                "refused (the others are sent)", "2  could not run (no such folder, the database in use, the "
                "service unreachable after the retries or refusing the token)",
                "130  stopped with Ctrl-C (what was sent is remembered: a restart sends nothing twice)")
UPLOAD_STATUS = ("0  every file stored (or already there)", "1  a file could not be read, or the service found it "
                 "unreadable (the others are stored)", "2  could not run (no such file, the service unreachable "
                 "after the retries, the token refused)", "130  stopped with Ctrl-C (the files answered are stored)")

to_option = click.option("--to", "url", metavar="URL", default=None,
                         help="The club's service (http://host:8000, or https:// behind a proxy).")
token_option = click.option("--token", envvar="AUDIT_TOKEN", show_envvar=True, default=None, metavar="TOKEN",
                            help="The club's token (audit token add CLUB, on the service's machine).")
tries_option = click.option("--tries", type=click.IntRange(1, 100), default=6, show_default=True,
                            help="Attempts per log when the service is busy (429, 503) or cannot be reached, "
                                 "waiting 0.5 s, 1 s, 2 s … between them (or as the service asks).")


def _say(quiet: bool) -> Callable[[str], None]:
    def say(text: str) -> None:
        if not quiet:
            click.echo(text, err=True)
    return say


def hand_lines(name: str, data: bytes, profile: str | None) -> list[str]:
    """One line per hand of ``data`` with findings: the hand and its rules."""
    from audit.pipeline import audit_bytes
    from audit.profile import load_profile

    found: dict[str, list[str]] = defaultdict(list)
    for audited in audit_bytes(data, load_profile(profile or "home-open"), name=name):
        for f in audited.findings:
            if f.severity in ("violation", "warning", "error"):
                found[f.hand or "(session)"].append(f"{f.rule} ({f.severity})")
    return [f"{name}: hand {hand}: {', '.join(dict.fromkeys(rules))}" for hand, rules in found.items()]


@click.command(short_help="Follow a poker client's folders: each complete hand once.", epilog=epilog([
    "# into a database, as audit ingest would",
    "audit watch ~/PokerStars/HandHistory --db club.duckdb",
    "# to a club's service",
    "AUDIT_TOKEN=... audit watch ~/PokerStars/HandHistory --to https://audit.club.example",
    "# once, for cron: every complete hand now, then exit",
    "audit watch hands/ --db club.duckdb --once",
], WATCH_STATUS))
@click.argument("folders", nargs=-1, required=True, metavar="DIR...")
@click.option("--db", "db", default=None, metavar="FILE",
              help="Store the hands in this database (default: $AUDIT_DB, else audit.duckdb here).")
@to_option
@token_option
@profile_option
@click.option("--state", default=None, metavar="FILE",
              help="Where the hands already sent are remembered (default: FILE.watch.json beside --db; with --to, "
                   "audit-watch.json here).")
@click.option("--settle", type=click.FloatRange(0), default=2.0, show_default=True, metavar="SECONDS",
              help="The last hand of a file counts once the file ends with a blank line and is this long unchanged.")
@click.option("--poll", type=click.FloatRange(0.05), default=None, metavar="SECONDS",
              help="Look every SECONDS instead of waiting for file events (the fallback without watchfiles: 1 s).")
@click.option("--session-idle", type=click.FloatRange(0), default=600.0, show_default=True, metavar="SECONDS",
              help="A session with no SESSION END line is sent once its file is this long unchanged.")
@click.option("--once", is_flag=True, help="Send every complete hand there is now, then exit.")
@tries_option
@quiet_option
def watch(folders: tuple[str, ...], db: str | None, url: str | None, token: str | None, profile_name: str | None,
          state: str | None, settle: float, poll: float | None, session_idle: float, once: bool, tries: int,
          quiet: bool) -> None:
    """Follow folders where a poker client writes hand histories; audit and store (or send) each complete hand once.

    New files and files that grow are read as hands finish; a hand still being written waits, a file rewritten
    from the start or renamed adds only hands not sent before. Hands outside a session (a site's logs) are sent
    as they finish; a session (Session: line) is sent whole when it ends, its hands' findings said as they
    finish. One line per hand with findings. The hands sent are remembered in a state file, so a restart sends
    nothing twice. Ctrl-C stops (exit 130).
    """
    from audit import watch as feed

    if url is not None and db is not None:
        raise click.UsageError("--db and --to go one at a time: store in a database, or send to a service")
    say = _say(quiet)
    if url is None:
        db = db or os.environ.get("AUDIT_DB") or "audit.duckdb"
        state = state or db + ".watch.json"
        send: Callable[[Path, str, bytes], dict[str, Any]] = _db_sender(db, profile_name,
                                                                         Path(state).resolve().parent)
        where = db
    else:
        state = state or "audit-watch.json"
        uploader = feed.Uploader(url, token, profile_name, tries=tries,
                                 on_retry=lambda why, s: say(f"audit watch: {why}; again in {s:g} s"))
        send = lambda path, name, data: uploader.send(name, data)  # noqa: E731
        where = url
    follower = feed.Follower(list(folders), state, settle, session_idle)
    sent = failed = 0
    said: set[str] = set()  # the lines printed (a session's hands are audited again as it grows)

    def send_all(final: bool) -> None:
        nonlocal sent, failed
        for batch in follower.scan(final):
            for line in hand_lines(str(batch.path), batch.data, profile_name):
                if line not in said:
                    said.add(line)
                    click.echo(line)
            if not batch.send:
                continue
            answer = send(batch.path, batch.name, batch.data)
            follower.mark_sent(batch)  # an unreadable log is not sent again either: it would fail the same way
            if answer["status"] == "unreadable":
                failed += 1
                click.echo(f"audit watch: {answer.get('message')}", err=True)
            else:
                sent += len(batch.digests)
        for path, why in sorted(follower.skipped.items()):
            failed += 1
            click.echo(f"audit watch: {why}", err=True)
        follower.skipped.clear()

    how = "file events" if poll is None and feed.have_events() else f"a look every {poll or 1.0:g} s"
    say(f"audit watch: following {', '.join(folders)} into {where} ({how}; Ctrl-C stops)")
    try:
        send_all(once)
        if not once:
            wait = poll if poll else min(settle, 1.0) if settle else 1.0
            for _ in feed.changes(list(folders), wait, use_events=poll is None):
                send_all(False)
    except KeyboardInterrupt:
        raise Interrupted(f"watch stopped: {sent} hands sent in this run; remembered in {state}") from None
    say(f"audit watch: {sent} hands sent to {where}")
    if failed:
        sys.exit(1)


def _db_sender(db: str, profile: str | None, spool_parent: Path) -> Callable[[Path, str, bytes], dict[str, Any]]:
    """Store one log in the database as ``audit ingest`` does: the file itself when the log is the whole file (the
    database then names it, as ``audit ingest`` of it would), else through a copy spooled beside the state."""
    from audit.store.ingest import ingest

    def send(source: Path, name: str, data: bytes) -> dict[str, Any]:
        try:
            whole = source.read_bytes() == data
        except OSError:
            whole = False
        if whole:
            summary = ingest([str(source)], db, profile or "home-open")
            if summary.failed:
                return {"name": name, "status": "unreadable", "message": summary.failed[0].message}
            return {"name": name, "status": "stored" if summary.ingested else "duplicate"}
        folder = tempfile.mkdtemp(prefix=".audit-watch-", dir=spool_parent)
        path = Path(folder) / name
        try:
            path.write_bytes(data)
            summary = ingest([str(path)], db, profile or "home-open")
        finally:
            path.unlink(missing_ok=True)
            os.rmdir(folder)
        if summary.failed:
            return {"name": name, "status": "unreadable", "message": summary.failed[0].message}
        return {"name": name, "status": "stored" if summary.ingested else "duplicate"}
    return send


@click.command(short_help="Send logs to a club's service, retrying when it is busy.", epilog=epilog([
    "audit upload friday.txt saturday.txt --to http://127.0.0.1:8000 --token TOKEN",
    "# a folder: every *.txt and *.xml in it; the token from the environment",
    "AUDIT_TOKEN=... audit upload logs/ --to https://audit.club.example --profile qdan",
], UPLOAD_STATUS))
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--to", "url", metavar="URL", required=True,
              help="The club's service (http://host:8000, or https:// behind a proxy).")
@token_option
@profile_option
@tries_option
@quiet_option
def upload(paths: tuple[str, ...], url: str, token: str | None, profile_name: str | None, tries: int,
           quiet: bool) -> None:
    """Send logs to a club's service (POST /api/v1/uploads), one file at a time, retrying when it is busy.

    Prints one line per file: stored, duplicate (the club has these bytes already) or unreadable (with the
    reason), with its hands and findings. Progress shows on a terminal.
    """
    from audit import watch as feed
    from audit.read import expand_paths

    files = expand_paths(paths)
    say = _say(quiet)
    uploader = feed.Uploader(url, token, profile_name, tries=tries,
                             on_retry=lambda why, s: say(f"audit upload: {why}; again in {s:g} s"))
    progress = not quiet and sys.stderr.isatty()
    counts = {"stored": 0, "duplicate": 0, "unreadable": 0}
    try:
        for i, path in enumerate(files, 1):
            if progress:
                click.echo(f"\r[{i}/{len(files)}] {path[-60:]}\x1b[K", err=True, nl=False)
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                counts["unreadable"] += 1
                clear = "\r\x1b[K" if progress else ""
                click.echo(f"{clear}audit upload: {path}: cannot read it ({exc.strerror or exc}); skipped", err=True)
                continue
            answer = uploader.send(Path(path).name, data)
            status = str(answer.get("status"))
            counts[status] = counts.get(status, 0) + 1
            if progress:
                click.echo("\r\x1b[K", err=True, nl=False)
            if status == "unreadable":
                click.echo(f"audit upload: {answer.get('message')}", err=True)
            else:
                click.echo(f"{path}: {status} ({answer.get('hands', 0)} hands, {answer.get('violations', 0)} "
                           f"violations, {answer.get('warnings', 0)} warnings)")
    except KeyboardInterrupt:
        raise Interrupted(f"upload stopped: {counts['stored']} files stored before it") from None
    say(f"audit upload: {len(files)} files: {counts['stored']} stored, {counts['duplicate']} already there, "
        f"{counts['unreadable']} unreadable")
    if counts["unreadable"]:
        sys.exit(1)


COMMANDS: list[click.Command] = [watch, upload]
