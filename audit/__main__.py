"""``python -m audit``."""

from audit.cli import main

main()
