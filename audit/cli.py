"""The ``audit`` command: thin click commands over the library (imports of heavy modules stay inside them)."""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import Any

import click

from audit.cli_options import cli_profile, option_option, profile_option
from audit.errors import AuditError, Interrupted
from audit.textout import message

EXIT_FOUND = 1
EXIT_CANNOT_RUN = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


class AuditGroup(click.Group):
    """Turns library errors into clear messages with exit status 2 (130 after Ctrl-C)."""

    def invoke(self, ctx: click.Context) -> Any:
        real = sys.stdout
        sys.stdout = _Stdout(real)
        try:
            return self._invoke(ctx)
        finally:
            sys.stdout = real

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            finally:
                sys.stdout.flush()  # a full disk or a closed pipe shows here, not in Python's exit handler
        except AuditError as exc:
            click.echo(f"audit: {message(str(exc))}", err=True)
            ctx.exit(EXIT_CANNOT_RUN)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except Interrupted as exc:
            click.echo(f"audit: {message(str(exc))}", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except KeyboardInterrupt:
            click.echo("audit: interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except OSError as exc:  # the machine, not the input: a full disk, a closed output, a folder we may not write
            click.echo(f"audit: {_environment_failure(exc)}", err=True)
            ctx.exit(EXIT_CANNOT_RUN)
        except Exception as exc:  # a bug must not look like "findings found" (exit 1) to a script
            click.echo(f"audit: internal error, the command could not finish ({type(exc).__name__}: "
                       f"{message(str(exc), 500)}); please report it with the file that caused it", err=True)
            ctx.exit(EXIT_CANNOT_RUN)


class StdoutFailure(OSError):
    """Writing to standard output failed (it is closed, its disk is full, the reader went away)."""


class _Stdout(io.TextIOBase):
    """Standard output for the length of a command: a failure to write it is told apart from any other (the
    message then says "standard output"), and the command may start with none at all (`>&-`)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.failed = False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.real, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.real, "errors", None) or "strict"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.real is not None and self.real.isatty()

    def fileno(self) -> int:
        if self.real is None:
            raise OSError(errno.EBADF, "standard output is closed")
        return int(self.real.fileno())

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click asks whether this is a binary stream by writing b""
            raise TypeError("write() argument must be str")
        if not text:
            return 0
        if self.failed:
            return len(text)  # the failure is being reported; nothing more reaches it
        if self.real is None:
            self.failed = True
            raise StdoutFailure(errno.EBADF, "it is closed")
        try:
            return int(self.real.write(text))
        except OSError as exc:
            self.failed = True
            raise StdoutFailure(exc.errno, exc.strerror or str(exc)) from None

    def flush(self) -> None:
        if self.failed or self.real is None:
            return
        try:
            self.real.flush()
        except OSError as exc:
            self.failed = True
            raise StdoutFailure(exc.errno, exc.strerror or str(exc)) from None


def _environment_failure(exc: OSError) -> str:
    """One line for an OSError. When standard output failed, what is still buffered for it is sent nowhere
    (else Python's exit handler would print a traceback of its own for the same failure)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if isinstance(exc, StdoutFailure):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
        except OSError:
            pass
        return f"cannot write to standard output ({reason})"
    if exc.filename:
        return f"{message(str(exc.filename), 300)}: {reason}"
    return f"the command could not finish ({reason})"


@click.group(cls=AuditGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="audit")
def main() -> None:
    """Audit five-card draw hand histories against the rules the table agreed on."""


@main.command()
@click.argument("paths", nargs=-1, required=True)
@profile_option
@option_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text for people; json for one JSON object per finding (JSON Lines).")
@click.option("--fail-on", type=click.Choice(["violation", "warning", "never"]), default="violation",
              show_default=True, help="Exit with status 1 when a finding of this severity or worse is found.")
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True,
              help="Language of the text output; json keeps the English message and the rule id.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Worker processes auditing files, and long files a part at a time (default: one per core; "
                   "1: all in this process). The output is the same.")
def check(paths: tuple[str, ...], profile_name: str | None, options: tuple[str, ...], fmt: str,
          fail_on: str, lang: str, jobs: int | None) -> None:
    """Replay every hand in PATHS and report every rule broken (nothing is written)."""
    from audit.check import check_paths
    from audit.parallel import default_jobs
    profile = cli_profile(profile_name, options)
    worst = check_paths(list(paths), profile, fmt, sys.stdout, lang, sys.stderr,
                        jobs if jobs is not None else default_jobs())
    from audit.rules import SEVERITY_RANK
    if fail_on != "never" and worst >= SEVERITY_RANK[fail_on]:
        sys.exit(EXIT_FOUND)


def _register() -> None:
    """Commands that live in their own modules (each keeps its heavy imports inside the command)."""
    from audit import cli_explain, cli_serve, cli_simulate, cli_store
    for module in (cli_store, cli_explain, cli_simulate, cli_serve):
        for command in module.COMMANDS:
            main.add_command(command)


_register()

if __name__ == "__main__":  # pragma: no cover
    main()
