"""The ``audit`` command: thin click commands over the library (imports of heavy modules stay inside them)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from audit.errors import AuditError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_FOUND = 1
EXIT_CANNOT_RUN = 2


class AuditGroup(click.Group):
    """Turns library errors into clear messages with exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AuditError as exc:
            click.echo(f"audit: {exc}", err=True)
            ctx.exit(EXIT_CANNOT_RUN)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except Exception as exc:  # a bug must not look like "findings found" (exit 1) to a script
            click.echo(f"audit: internal error, the command could not finish ({type(exc).__name__}: {exc}); "
                       "please report it with the file that caused it", err=True)
            ctx.exit(EXIT_CANNOT_RUN)


@click.group(cls=AuditGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="audit")
def main() -> None:
    """Audit five-card draw hand histories against the rules the table agreed on."""


def profile_option(f: F) -> F:
    return click.option("--profile", "profile_name", default=None, metavar="NAME",
                        help="Rule profile for files without a 'Profile:' line (home-open, qdan, stripped32, "
                             "site). A file's own line wins.")(f)


def option_option(f: F) -> F:
    return click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
                        help="Override one profile parameter, as an 'Option:' line would.")(f)


def _profile(name: str | None, options: tuple[str, ...]) -> Any:
    from audit.profile import load_profile, option_pairs
    prof = load_profile(name or "home-open")
    pairs = option_pairs(options)
    return prof.with_options(pairs)


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
def check(paths: tuple[str, ...], profile_name: str | None, options: tuple[str, ...], fmt: str,
          fail_on: str, lang: str) -> None:
    """Replay every hand in PATHS and report every rule broken (nothing is written)."""
    from audit.check import check_paths
    profile = _profile(profile_name, options)
    worst = check_paths(list(paths), profile, fmt, sys.stdout, lang)
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
