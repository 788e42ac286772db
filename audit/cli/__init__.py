"""The ``audit`` command: thin click commands over the library (``main`` is the group)."""

from audit.cli.main import main, run

__all__ = ["main", "run"]
