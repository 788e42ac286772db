"""``python -m audit``."""

from audit.cli import run

run()
