"""``audit explain``: one hand (or each) replayed step by step for a dispute (the work is in ``audit.explain``)."""

from __future__ import annotations

import sys

import click

from audit.cli.options import cli_profile, epilog, option_option, profile_option

FORMATS = ("text", "json", "html")
EXAMPLES = [
    "# every hand of a log, step by step",
    "audit explain game.txt",
    "# one hand as a page to send to the players, in Spanish",
    "audit explain game.txt --hand 387708 --format html --lang es -o hand.html",
    "audit explain game.txt --format json | jq .verdict",
]


@click.command(short_help="A disputed hand step by step, with who owes whom.",
               epilog=epilog(EXAMPLES, ("0  done", "2  could not run (no such file or hand, a bad option, an output "
                                        "that would replace the log)", "130  stopped with Ctrl-C")))
@click.argument("path")
@click.option("--hand", "hand_id", default=None, metavar="ID",
              help="Explain only the hand with this id (default: every hand of the file).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text for a terminal; json for one object per hand (JSON Lines, then one per session with "
                   "its net corrections); html for one self-contained page to open on a phone.")
@click.option("--lang", type=click.Choice(["es", "en"]), default="en", show_default=True,
              help="Language of the text and html output (the verdict, the steps, the findings, money); json stays "
                   "English.")
@profile_option
@option_option
@click.option("--output", "-o", "output", default=None, metavar="FILE",
              help="Write to FILE instead of standard output (never over the log itself).")
def explain(path: str, hand_id: str | None, fmt: str, lang: str, profile_name: str | None,
            options: tuple[str, ...], output: str | None) -> None:
    """Replay the hands of PATH step by step: stacks and pot after each step, what the rules allowed, the
    findings where they happened, the pots, who should have received what, and the corrections."""
    from pathlib import Path

    from audit.errors import InputError
    from audit.explain import explain_file, render_html, render_json_lines, render_text
    from audit.outfile import atomic_output, refuse_clobber
    from audit.textout import printable

    profile = cli_profile(profile_name, options)
    if path != "-" and not Path(path).is_file():
        raise InputError(f"{path}: no such file" if not Path(path).exists() else f"{path}: not a file")
    if output is not None and path != "-":
        refuse_clobber(output, {path: "the log being explained"})
    elif output is not None:
        refuse_clobber(output, {})
    notices: list[str] = []
    items = explain_file(path, profile, hand_id, notices)
    if fmt == "html":
        chunks: list[str] = [render_html(items, lang, source=Path(path).name if path != "-" else "-")]
    elif fmt == "json":
        chunks = list(render_json_lines(items))
    else:
        chunks = ["\n".join(render_text(items, lang))]
    for note in notices:
        sys.stderr.write(f"audit: note: {printable(note)}\n")
    text = "".join(chunks)
    if output is None:
        sys.stdout.write(text)
    else:
        with atomic_output(output) as fh:
            fh.write(text)


COMMANDS: list[click.Command] = [explain]
