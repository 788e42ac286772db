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
        if sys.stdout is None:  # started with standard output closed (`>&-`): say so when the command writes
            sys.stdout = _ClosedOutput()
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


class _ClosedOutput(io.TextIOBase):
    """Standard output when the command was started without one: writing says so."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self) -> None:
        pass


def _environment_failure(exc: OSError) -> str:
    """One line for an OSError; when it came from standard output, later writes go nowhere (else Python's exit
    handler would print a traceback of its own for the same failure)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename:
        return f"{message(str(exc.filename), 300)}: {reason}"
    try:
        sys.stdout.flush()
    except OSError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return f"cannot write to standard output ({reason})"
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
def check(paths: tuple[str, ...], profile_name: str | None, options: tuple[str, ...], fmt: str,
          fail_on: str) -> None:
    """Replay every hand in PATHS and report every rule broken (nothing is written)."""
    from audit.check import check_paths
    profile = cli_profile(profile_name, options)
    worst = check_paths(list(paths), profile, fmt, sys.stdout, sys.stderr)
    from audit.rules import SEVERITY_RANK
    if fail_on != "never" and worst >= SEVERITY_RANK[fail_on]:
        sys.exit(EXIT_FOUND)


def _register() -> None:
    """Commands that live in their own modules (each keeps its heavy imports inside the command)."""
    from audit import cli_explain, cli_simulate, cli_store
    for module in (cli_store, cli_explain, cli_simulate):
        for command in module.COMMANDS:
            main.add_command(command)


_register()

if __name__ == "__main__":  # pragma: no cover
    main()
