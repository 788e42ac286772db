"""The live table: a hand recorded while it is played, with the rules at the host's fingertips.

``Table`` keeps a session's log in the house format v1.1 (``Cards: shown``) as it grows, one line per entry,
replays the hand in play with the engine after each entry and asks the engine's own queries what is legal now
(``audit.engine.state``: to call, min / max raise-to, may raise, whose turn, the draw limit). Nothing here
knows about HTTP or a database: ``audit.serve.routers.tables`` stores the entries and serves the table.
"""

from audit.live.table import EntryError, Table, TableConfig, TableError, UnreadableLine

__all__ = ["EntryError", "Table", "TableConfig", "TableError", "UnreadableLine"]
