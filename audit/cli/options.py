"""Options shared by several commands, as decorators: ``--profile``, ``--option``, ``--db``, ``-o/--output``,
``--format``, ``-q/--quiet``; and the help text's examples and exit statuses."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from audit.errors import ProfileError
from audit.textout import shown

if TYPE_CHECKING:  # pragma: no cover
    from click.shell_completion import CompletionItem

    from audit.profile import Profile

F = TypeVar("F", bound=Callable[..., Any])
if TYPE_CHECKING:  # pragma: no cover
    _TextParam = click.ParamType[str]
    _IntParam = click.ParamType[int]
else:  # click before 8.3 has no generic ParamType
    _TextParam = _IntParam = click.ParamType
DEFAULT_PROFILE = "home-open"
EXIT_STATUS = {
    "check": ("0  no finding at or above --fail-on", "1  findings at or above --fail-on",
              "2  could not run (a bad option, a file that cannot be read, an unknown profile)",
              "130  stopped with Ctrl-C"),
    "ingest": ("0  every file stored (or already there)", "1  a file could not be read and was skipped (the "
               "others are stored)", "2  could not run, or stopped (a worker died, the disk filled): the database "
               "holds the files before it, each whole", "130  stopped with Ctrl-C (only whole files are kept)"),
    "data": ("0  done", "2  could not run (no such database, a query that fails or writes, an output that would "
             "replace the database)", "130  stopped with Ctrl-C"),
}
"""The exit statuses each kind of command documents in its help."""


HELP_WIDTH = 76
"""The longest line of an epilogue's examples and exit statuses: click keeps them as written (``\\b``) and indents
them by 4, so every ``--help`` fits 80 columns."""


def _wrap_example(line: str) -> list[str]:
    """An example's line cut to ``HELP_WIDTH``: a comment goes on as comments, a command as the shell continues it
    (`` \\`` at the end of a line), so it still runs when pasted."""
    import textwrap

    if line.startswith("#"):
        return textwrap.wrap(line, HELP_WIDTH, subsequent_indent="# ", break_long_words=False,
                             break_on_hyphens=False)
    out = textwrap.wrap(line, HELP_WIDTH - 2, subsequent_indent="    ", break_long_words=False,
                        break_on_hyphens=False)
    return [part + " \\" for part in out[:-1]] + out[-1:]


def _wrap_status(line: str) -> list[str]:
    """An exit status (``2  could not run …``) cut to ``HELP_WIDTH``, its text under its text."""
    import textwrap

    code, _, text = line.partition("  ")
    indent = " " * (len(code) + 2)
    return textwrap.wrap(f"{code}  {text}", HELP_WIDTH, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def epilog(examples: list[str], exit_status: tuple[str, ...] | str) -> str:
    """A command's help epilogue: examples (a comment line, then the command) and its exit statuses, each line
    cut to fit 80 columns."""
    status = EXIT_STATUS[exit_status] if isinstance(exit_status, str) else exit_status
    lines = ["\b", "Examples:"] + [f"  {part}" for line in examples for part in _wrap_example(line)]
    lines += ["", "\b", "Exit status:"] + [f"  {part}" for line in status for part in _wrap_status(line)]
    return "\n".join(lines)


class WholeHelpGroup(click.Group):
    """A group whose list of commands gives each command's short help whole, wrapped to the terminal, never cut
    mid-phrase with "...": a command's ``short_help`` if it has one, else the first sentence of its help."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _profile_names() -> list[str]:
    from audit.profile import profile_names

    return profile_names()


class ProfileName(_TextParam):
    """A shipped profile's name; a near miss (``home_open``) is answered with the name it most likely means."""

    name = "profile"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if not text.strip():
            self.fail("--profile is empty (is a shell variable unset?); name a profile, e.g. --profile home-open",
                      param, ctx)
        names = _profile_names()
        if text in names:
            return text
        import difflib

        near = difflib.get_close_matches(text.replace("_", "-").lower(), names, n=1, cutoff=0.5)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        self.fail(f"unknown profile {shown(text)}{hint} (profiles: {', '.join(names)})", param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        from click.shell_completion import CompletionItem

        return [CompletionItem(n) for n in _profile_names() if n.startswith(incomplete)]

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(_profile_names()) + "]"


class OptionSetting(_TextParam):
    """``NAME=VALUE`` for a profile parameter; an unknown name is answered with the nearest known one."""

    name = "NAME=VALUE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from audit.profile import option_domains

        text = str(value)
        key, sep, _ = text.partition("=")
        if not sep:
            self.fail(f"{shown(text)}: write it as NAME=VALUE (e.g. --option draw-limit=3)", param, ctx)
        domains = option_domains()
        name = key.strip()
        if name not in domains:
            import difflib

            near = difflib.get_close_matches(name.replace("_", "-").lower(), list(domains), n=1, cutoff=0.5)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            self.fail(f"unknown option {shown(name)}{hint} (options: {', '.join(sorted(domains))})", param, ctx)
        return text

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        from click.shell_completion import CompletionItem

        from audit.profile import option_domains

        key, sep, value = incomplete.partition("=")
        domains = option_domains()
        if not sep:
            return [CompletionItem(f"{n}=") for n in sorted(domains) if n.startswith(key)]
        return [CompletionItem(f"{key}={v}") for v in domains.get(key, ()) if v.startswith(value)]


class ByteSize(_IntParam):
    """A size: ``50MB``, ``512KB``, ``1GB`` or a number of bytes (at least one)."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        import re

        if isinstance(value, int):
            return value
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?B?)\s*", str(value), re.I)
        if m is None:
            self.fail(f"{shown(str(value))}: write a size such as 50MB, 512KB or 1GB", param, ctx)
        unit = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "G": 1 << 30,
                "GB": 1 << 30}[m.group(2).upper()]
        size = int(float(m.group(1)) * unit)
        if size < 1:
            self.fail(f"{shown(str(value))}: the size must be at least one byte", param, ctx)
        return size


def profile_option(f: F) -> F:
    return click.option("--profile", "profile_name", type=ProfileName(), default=None,
                        help="Rule profile for files without a 'Profile:' line (default home-open). A file's own "
                             "line wins.")(f)


def option_option(f: F) -> F:
    return click.option("--option", "options", type=OptionSetting(), multiple=True, metavar="NAME=VALUE",
                        help="Override one profile parameter, as an 'Option:' line would (not for a file with "
                             "its own 'Profile:' line). Repeatable.")(f)


def quiet_option(f: F) -> F:
    return click.option("--quiet", "-q", is_flag=True,
                        help="Print no progress, notes or closing summary on a terminal: only the results and "
                             "errors.")(f)


DEFAULT_DB = "audit.duckdb"
"""The database of every command that takes ``--db``, when neither ``--db`` nor ``$AUDIT_DB`` names one."""


def db_option(f: F) -> F:
    return click.option("--db", "db", envvar="AUDIT_DB", default=DEFAULT_DB, show_default=True,
                        metavar="FILE", show_envvar=True,
                        help="The DuckDB database (default: $AUDIT_DB, else audit.duckdb here).")(f)


def output_option(help: str = "Write to FILE instead of standard output (through a temporary file renamed into "
                              "place; never over the database or an input).") -> Callable[[F], F]:
    def decorate(f: F) -> F:
        return click.option("--output", "-o", "output", default=None, metavar="FILE", help=help)(f)
    return decorate


def profile_name(name: str | None) -> str:
    """The profile named by ``--profile`` (``home-open`` without one); an empty name is refused, since it is
    most likely a shell variable that was not set."""
    if name is None:
        return DEFAULT_PROFILE
    if not name.strip():
        raise ProfileError("--profile is empty (is a shell variable unset?); name a profile, e.g. --profile "
                           "home-open")
    return name


def cli_profile(name: str | None, options: tuple[str, ...]) -> Profile:
    """The profile of ``--profile NAME`` with every ``--option`` applied (``ProfileError`` on a bad one)."""
    from audit.profile import load_profile, option_pairs

    return load_profile(profile_name(name)).with_options(option_pairs(options))
