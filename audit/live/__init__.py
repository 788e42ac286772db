"""The live table: a hand recorded while it is played, with the rules at the host's fingertips.

By concern: ``config`` (what the host said when opening the table), ``actions`` (what the host may enter, a row
each: its fields, its line, its word), ``lines`` (the lines the table writes itself: the hand's head, the forced
bets, the payout by the engine's pots, a parole or the host's claims), ``errors`` (the refusals, said in the
page's language) and ``table`` (the session itself: its log, the hand in play followed by the engine, what is
legal now from ``audit.engine.legal``, undo, the verdict). Nothing here knows about HTTP or a database:
``audit.serve.routers.tables`` stores the entries and serves the table.
"""

from audit.live.config import TableConfig
from audit.live.errors import EntryError, Refusal, StaleVersion, TableError, UnreadableLine, check_version
from audit.live.table import Table

__all__ = ["EntryError", "Refusal", "StaleVersion", "Table", "TableConfig", "TableError", "UnreadableLine",
           "check_version"]
