"""Commands of the simulate part of the CLI (being written)."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
