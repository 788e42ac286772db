"""``audit simulate``: write simulated sessions of legal play (for tests, benchmarks and demos)."""

from __future__ import annotations

import sys

import click

from audit.cli.options import OptionSetting, ProfileName, epilog

EXAMPLES = [
    "audit simulate --sessions 3 --seed 7 > three.txt",
    "audit simulate --profile stripped32 --option betting=pot-limit --sessions 100 -o pot-limit.txt",
    "audit simulate --profile qdan --sessions 50 | audit check -",
]


@click.command(short_help="Random legal sessions in the house format (seeded).",
               epilog=epilog(EXAMPLES, ("0  done", "2  could not run (a profile it cannot play, a bad option)",
                                        "130  stopped with Ctrl-C")))
@click.option("--profile", "profile_name", type=ProfileName(), default="home-open", show_default=True,
              help="Rule profile to play: home-open, qdan or stripped32 (and their options).")
@click.option("--option", "options", type=OptionSetting(), multiple=True, metavar="NAME=VALUE",
              help="Override one profile parameter (written as an 'Option:' line in each session).")
@click.option("--sessions", type=click.IntRange(min=0), default=1, show_default=True,
              help="Number of sessions (each up to the profile's session length).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed: the same seed always gives the same bytes.")
@click.option("--output", "-o", "output", default=None, metavar="FILE",
              help="Write to FILE instead of standard output (through a temporary file renamed into place).")
def simulate(profile_name: str, options: tuple[str, ...], sessions: int, seed: int, output: str | None) -> None:
    """Play SESSIONS sessions of random legal hands and print them in the house format."""
    from audit.profile import option_pairs
    from audit.simulate import Simulator

    pairs = option_pairs(options)
    sim = Simulator(profile_name, seed, pairs)  # refuses a profile it cannot play before any output
    stream = (sim.session(i) for i in range(sessions))
    if output is None:
        out = sys.stdout
        for i, s in enumerate(stream):
            out.write(("\n" if i else "") + s.text)
        out.flush()
        return
    from audit.outfile import atomic_output, refuse_clobber

    refuse_clobber(output, {})
    with atomic_output(output) as handle:
        for i, s in enumerate(stream):
            handle.write(("\n" if i else "") + s.text)


COMMANDS: list[click.Command] = [simulate]
