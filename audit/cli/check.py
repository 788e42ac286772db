"""``audit check``: every rule broken in the hands of some files (the work is in ``audit.check``)."""

from __future__ import annotations

import os
import sys

import click

from audit.cli.options import cli_profile, epilog, option_option, output_option, profile_option, quiet_option

EXAMPLES = [
    "# a log, a folder of logs (every *.txt and *.xml in it and its sub-folders), standard input",
    "audit check game.txt",
    "audit check logs/ --profile qdan",
    "zcat friday.txt.gz | audit check -",
    "# one JSON object per finding, for a script; exit 0 even with findings",
    "audit check logs/ --format json --fail-on never -o findings.jsonl",
    "# another profile, one of its parameters changed, the text in Spanish",
    "audit check game.txt --profile stripped32 --option betting=pot-limit --lang es",
    "# everything in this one process (default: one worker process per core; the output is the same)",
    "audit check logs/ --jobs 1",
]


@click.command(short_help="Audit logs: every rule broken, hand by hand.", epilog=epilog(EXAMPLES, "check"))
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
@output_option()
@quiet_option
def check(paths: tuple[str, ...], profile_name: str | None, options: tuple[str, ...], fmt: str,
          fail_on: str, lang: str, jobs: int | None, output: str | None, quiet: bool) -> None:
    """Replay every hand in PATHS and report every rule broken (nothing is written).

    PATHS are files or folders: a folder means every *.txt file in it (and every *.xml, as Boss Media names its
    logs), searched through the folders inside it too; '-' is standard input (./- is a file named '-'). The text output lists the findings hand by hand, then counts them by rule, by
    file and in all. On a terminal, progress (files, hands, hands per second) shows on stderr while it runs.
    """
    from audit import check as checking
    from audit.cli.main import EXIT_FOUND, status_so_far
    from audit.cli.progress import ProgressLine, rate_text
    from audit.parallel import default_jobs
    from audit.rules import SEVERITY_RANK

    profile = cli_profile(profile_name, options)
    threshold = SEVERITY_RANK[fail_on] if fail_on != "never" else None
    summary = checking.CheckSummary()
    status_so_far(lambda: EXIT_FOUND if threshold is not None and summary.worst >= threshold else 0)
    line = ProgressLine(sys.stderr, enabled=not quiet)
    started = _clock()
    workers = jobs if jobs is not None else default_jobs()

    def progress(tally: checking.CheckSummary) -> None:
        current = f"  {tally.current}" if tally.current else ""
        line.show(f"checking {rate_text(tally.files_done, tally.files, tally.hands, _clock() - started)}{current}")

    try:
        if output is None:
            checking.check_paths(list(paths), profile, fmt, line.guard(sys.stdout), lang, line.guard(sys.stderr),
                                 summary, progress if line.enabled else None, closing=not quiet, jobs=workers)
        else:
            from audit.outfile import atomic_output, refuse_clobber

            refuse_clobber(output, _inputs(paths))
            with atomic_output(output) as handle:
                checking.check_paths(list(paths), profile, fmt, handle, lang, line.guard(sys.stderr), summary,
                                     progress if line.enabled else None, closing=not quiet, jobs=workers)
    finally:
        line.clear()
    if threshold is not None and summary.worst >= threshold:
        sys.exit(EXIT_FOUND)


def _inputs(paths: tuple[str, ...]) -> dict[str, str]:
    """What ``check`` reads, for ``refuse_clobber``: each path named (a folder: anything inside it), and each
    log a folder gives (a link in it may name a file elsewhere)."""
    from audit.errors import InputError
    from audit.read import expand_paths

    inputs: dict[str, str] = {}
    for path in paths:
        if path == "-":
            continue
        if not os.path.isdir(path):
            inputs[path] = "a log being checked"
            continue
        inputs[path] = "a folder of logs being checked"
        try:
            inputs.update((log, "a log being checked") for log in expand_paths([path]))
        except InputError:
            pass  # a folder that cannot be listed: the check says so
    return inputs


def _clock() -> float:
    import time

    return time.monotonic()


COMMANDS: list[click.Command] = [check]
