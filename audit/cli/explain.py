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
    "# the same, players as Player A, Player B ... to post in public",
    "audit explain game.txt --hand 387708 --anonymize --format html -o hand.html",
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
@click.option("--anonymize", is_flag=True,
              help="Players as Player A, Player B ... (amounts, cards, findings unchanged); the json receipt "
                   "still checks against the original log.")
@click.option("--output", "-o", "output", default=None, metavar="FILE",
              help="Write to FILE instead of standard output (never over the log itself).")
def explain(path: str, hand_id: str | None, fmt: str, lang: str, profile_name: str | None,
            options: tuple[str, ...], anonymize: bool, output: str | None) -> None:
    """Replay the hands of PATH step by step: stacks and pot after each step, what the rules allowed, the
    findings where they happened, the pots, who should have received what, and the corrections. The json
    output carries each verdict's receipt (audit verify-receipt checks it), as the html page of one --hand."""
    from pathlib import Path

    from audit.errors import InputError
    from audit.explain import explain_blocks, explain_file, render_html, render_text
    from audit.outfile import atomic_output, refuse_clobber
    from audit.profile import option_pairs
    from audit.read import read_bytes_blocks
    from audit.textout import json_line, printable
    from audit.trust.anonymize import explain_anonymized, shown_names
    from audit.trust.receipt import with_receipts

    from audit.cli.options import profile_name as chosen_profile

    profile = cli_profile(profile_name, options)
    if path != "-" and not Path(path).is_file():
        raise InputError(f"{path}: no such file" if not Path(path).exists() else f"{path}: not a file")
    if output is not None and path != "-":
        refuse_clobber(output, {path: "the log being explained"})
    elif output is not None:
        refuse_clobber(output, {})
    notices: list[str] = []
    data: bytes | None = None
    receipted: list[dict[str, object]] = []
    if fmt == "json" or anonymize or (fmt == "html" and hand_id is not None):
        # the receipts' SHA-256, and the log to rename: its bytes, read once
        import hashlib

        name = "<stdin>" if path == "-" else path
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        items = list(explain_blocks(read_bytes_blocks(data, name), profile, hand_id, name, notices))
        shown = explain_anonymized(data, name, profile, hand_id, items) if anonymize else items
        receipted = with_receipts(items, shown, hashlib.sha256(data).hexdigest(), chosen_profile(profile_name),
                                  option_pairs(options), anonymize)
    else:
        items = shown = list(explain_file(path, profile, hand_id, notices))
    if fmt == "html":
        receipt = receipted[0]["receipt"] if hand_id is not None and receipted else None  # a page of one hand
        chunks: list[str] = [render_html(shown, lang, source=Path(path).name if path != "-" else "-",
                                         receipt=receipt if isinstance(receipt, dict) else None)]
    elif fmt == "json":
        chunks = [json_line(obj) + "\n" for obj in receipted]
    else:
        chunks = ["\n".join(render_text(shown, lang))]
    if anonymize:
        chunks = [shown_names(chunk, lang if fmt != "json" else "en") for chunk in chunks]
    for note in notices:
        sys.stderr.write(f"audit: note: {printable(note)}\n")
    text = "".join(chunks)
    if output is None:
        sys.stdout.write(text)
    else:
        with atomic_output(output) as fh:
            fh.write(text)


COMMANDS: list[click.Command] = [explain]
