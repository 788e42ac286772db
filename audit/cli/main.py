"""The ``audit`` group: every command registered, and library errors turned into one line and an exit status.

Each command lives in its own module of this package and only parses its options, calls one library function and
formats what it returns; heavy imports (DuckDB, polars, Jinja2) stay inside the commands, so ``audit check``
imports none of them. A command's module is imported when the command is asked for (``COMMANDS``), so ``audit
check`` imports no other command's module either.
"""

from __future__ import annotations

import atexit
import errno
import importlib
import io
import os
import sys
import threading
from collections.abc import Callable, MutableMapping
from typing import Any

import click

from audit.cli.options import WholeHelpGroup
from audit.errors import AuditError, Interrupted
from audit.textout import message

EXIT_FOUND = 1
EXIT_CANNOT_RUN = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
STATUS_SO_FAR = "audit.status_so_far"
"""``ctx.meta`` key of a command's status so far (a callable): the exit status when its output is closed early."""


def status_so_far(status: Callable[[], int]) -> None:
    """Say what the current command's exit status would be if its output were closed now (``audit check …
    | head``): it then ends quietly with that status, as ``grep`` does."""
    click.get_current_context().find_root().meta[STATUS_SO_FAR] = status


COMMANDS = {"backup": "backup", "check": "check", "explain": "explain", "export": "store", "ingest": "store",
            "report": "store", "serve": "serve", "simulate": "simulate", "sql": "store", "token": "serve",
            "upgrade": "store", "upload": "watch", "verify": "trust", "verify-receipt": "trust",
            "watch": "watch"}
"""Each command's name → the module of this package that defines it (in its ``COMMANDS``), imported when the
command is first asked for: ``audit check`` imports neither the other commands' modules nor what they import at
their top (logging, sockets, temporary files: about 0.01 s of every start). A test holds this to the modules."""


class AuditGroup(WholeHelpGroup):
    """Turns library errors into clear messages with exit status 2 (130 after Ctrl-C); imports each command's
    module when the command is asked for (``COMMANDS``; ``commands`` imports them all: the help lists them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loaded: set[str] = set()  # the modules of ``COMMANDS`` imported and registered
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        """Every command, each module of ``COMMANDS`` imported."""
        for module in sorted(set(COMMANDS.values())):
            self._load(module)
        return self._commands

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        self._commands = value

    def _load(self, module: str) -> None:
        if module not in self._loaded:
            self._loaded.add(module)
            for command in importlib.import_module(f"audit.cli.{module}").COMMANDS:
                self.add_command(command)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._commands[name] = cmd  # (not ``commands``, which imports every module)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self._commands and cmd_name in COMMANDS:
            self._load(COMMANDS[cmd_name])
        return self._commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self._commands) | set(COMMANDS))

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
            if isinstance(exc, StdoutFailure) and exc.errno == errno.EPIPE:
                _discard_stdout()  # the reader went away (| head): nothing to say, the status so far
                status: Callable[[], int] | None = ctx.meta.get(STATUS_SO_FAR)
                ctx.exit(status() if status is not None else 0)
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


def _discard_stdout() -> None:
    """Send what is still buffered for standard output nowhere (else Python's exit handler would print a
    traceback of its own for the same failure)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def _environment_failure(exc: OSError) -> str:
    """One line for an OSError. When standard output failed, what is still buffered for it is sent nowhere
    (else Python's exit handler would print a traceback of its own for the same failure)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if isinstance(exc, StdoutFailure):
        _discard_stdout()
        return f"cannot write to standard output ({reason})"
    if exc.filename:
        return f"{message(str(exc.filename), 300)}: {reason}"
    return f"the command could not finish ({reason})"


HELP = """Audit five-card draw hand histories against the rules the table agreed on.

\b
Start with:
  audit check game.txt                  every rule broken in a log
                                        (a folder: every *.txt, *.xml in it)
  audit ingest logs/ --db club.duckdb   keep the hands and findings
  audit report --list                   the questions the database answers
  audit explain game.txt --hand 12      a disputed hand, step by step

\b
Shell completion (click's own), for bash, zsh or fish:
  eval "$(_AUDIT_COMPLETE=bash_source audit)"    # in ~/.bashrc
  eval "$(_AUDIT_COMPLETE=zsh_source audit)"     # in ~/.zshrc
  _AUDIT_COMPLETE=fish_source audit \\
    > ~/.config/fish/completions/audit.fish

Exit status: 0 done, 1 findings (check) or a skipped file (ingest), 2 could not run, 130 stopped with Ctrl-C.
"""


@click.group(cls=AuditGroup, help=HELP, context_settings={"help_option_names": ["-h", "--help"],
                                                         "max_content_width": 110})
@click.version_option(None, "--version", "-V", package_name="audit")
def main() -> None:
    """The ``audit`` command."""


def run() -> None:
    """The ``audit`` program (its console script and ``python -m audit``): ``main``, then an exit that does not
    take the interpreter apart module by module and object by object, which takes about 0.04 s of every command
    (longer than checking a small log). What must run at exit runs first (``atexit``: the worker processes, a
    Dask cluster), and the output is flushed; with threads still running, or when flushing fails, Python's own
    exit, as before."""
    try:
        main()
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    if threading.active_count() > 1:
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("text"), as Python's exit says it
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            sys.exit(status)  # Python's exit reports it, as it did before
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    run()
