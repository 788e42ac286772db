"""A file's rows as Arrow record batches: ``audit.store.rows`` (compiled with the hot path) makes plain column
values as the hands are audited, and ``FileBuilder`` turns them into batches in the column order of
``audit.store.schema``, every ``BATCH_HANDS`` hands, for whatever takes them (``Sink``: the open transaction, a
worker's spill files, the lake's Parquet files)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from audit.pipeline import Audited
from audit.store.db import FileRows
from audit.store.rows import KEYED, RowBuilder, Runs
from audit.store.schema import DATA_TABLES, SCHEMA, arrow_schema

BATCH_HANDS = 250
"""Rows are turned into Arrow record batches every this many hands (compact columns, not Python tuples)."""

Sink = Callable[[str, Any], None]
"""Takes one record batch of a table as soon as it is made: ``sink(table name, batch)``."""

_WIDTHS = {name: len(SCHEMA[name]) for name in DATA_TABLES}


class _Table:
    """One table of a file: its Arrow schema, and the record batches kept when nothing takes them."""

    def __init__(self, name: str, sha256: str = "", file: str = "") -> None:
        self.name = name
        self.schema = arrow_schema(name)
        self.batches: list[Any] = []
        names = self.schema.names
        # actions.card_list is made here from actions.cards by Arrow's string kernels (a Python list per line
        # costs a tenth of the rows' time)
        self.card_list = names.index("card_list") if name == "actions" else -1
        self.cards = names.index("cards") if name == "actions" else -1
        self.keyed = name in KEYED  # hand_key, file_sha and hand_id come as runs (``audit.store.rows.Runs``)
        self.sha256 = sha256
        self.file = file

    def batch(self, columns: list[Any], runs: Runs | None = None) -> Any:
        """A record batch from one list of values per column (``None`` for empty columns); for a ``KEYED`` table
        the key columns from ``runs``, for ``hands`` the file's hash and name (``RowBuilder.take_parts``).

        The values that repeat on every row are made by Arrow, not from a Python list each: the file's hash
        (``pa.repeat``) and each hand's key and id (a run-end encoded array, decoded): made from Python lists,
        these columns would be a third of the batch's time."""
        import pyarrow as pa
        import pyarrow.compute as pc

        fields = list(self.schema)
        if self.keyed:
            assert runs is not None
            n = runs.rows
            if not n:
                return None
            first: list[Any] = [_repeated(runs, runs.keys, fields[0].type),
                                pa.repeat(pa.scalar(self.sha256, type=fields[1].type), n),
                                _repeated(runs, runs.hand_ids, fields[2].type)]
        elif self.name == "hands":
            n = len(columns[0]) if columns else 0
            if not n:
                return None
            first = [pa.array(columns[0], type=fields[0].type), pa.repeat(pa.scalar(self.sha256, type=fields[1].type), n),
                     pa.repeat(pa.scalar(self.file, type=fields[2].type), n)]
        else:
            if not columns or not len(columns[0]):
                return None
            first = []
        arrays = first + [pa.array(col, type=f.type) for col, f in zip(columns[len(first):], fields[len(first):])]
        if self.card_list >= 0:
            cards = pc.replace_substring(arrays[self.cards], pattern=" | ", replacement=" ")
            arrays[self.card_list] = pc.split_pattern(cards, pattern=" ")
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def table(self) -> Any:
        import pyarrow as pa

        return pa.Table.from_batches(self.batches, schema=self.schema)


def _repeated(runs: Runs, values: list[str], typ: Any) -> Any:
    """``values`` (one per run of ``runs``) repeated once per row, as a plain Arrow array of type ``typ``. A run-end
    encoded array decoded by Arrow, where the runs are long enough to pay for its fixed cost (the actions: two
    dozen rows a hand); a Python list of every row's value for short runs (seats, pots, awards). The run-end
    array is made from its parts without the validation ``RunEndEncodedArray.from_arrays`` runs (90 µs a call):
    ``Runs`` holds positive, rising ends by construction."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if runs.rows < 8 * len(runs.ends):
        return pa.array(runs.expand(values), type=typ)
    ree = pa.Array.from_buffers(pa.run_end_encoded(pa.int32(), typ), runs.rows, [None],
                                children=[pa.array(runs.ends, type=pa.int32()), pa.array(values, type=typ)])
    return pc.run_end_decode(ree)


class FileBuilder:
    """The rows of one file (``audit.store.rows``, compiled) as Arrow record batches, one every ``BATCH_HANDS`` hands,
    handed to ``sink`` as they are made (kept, without a sink)."""

    def __init__(self, sha256: str, file: str, sink: Sink | None = None,
                 on_hands: Callable[[int], None] | None = None) -> None:
        self.rows = RowBuilder(sha256, file)
        self.tables = {name: _Table(name, sha256, file) for name in DATA_TABLES}
        self.sink = sink
        self.on_hands = on_hands  # told the hands read, at every flush
        self._since_flush = 0
        self._hands_told = 0

    def add(self, audited: Audited) -> None:
        """Add one item of ``audit_file``'s output."""
        self.rows.add(audited)
        self._since_flush += 1
        if self._since_flush >= BATCH_HANDS:
            self.flush()

    def flush(self) -> None:
        cols, runs = self.rows.take_parts(_WIDTHS)
        for name, columns in cols.items():
            table = self.tables[name]
            batch = table.batch(columns, runs.get(name))
            if batch is None:
                continue
            if self.sink is None:
                table.batches.append(batch)
            else:
                self.sink(name, batch)
        self._since_flush = 0
        if self.on_hands is not None:
            read = self.rows.hands + self.rows.parse_errors + self.rows.skipped_hands
            self.on_hands(read - self._hands_told)
            self._hands_told = read

    def finish(self, path: str, size: int, default_profile: str) -> FileRows:
        self.flush()
        b = self.rows
        tables = {} if self.sink is not None else {name: t.table() for name, t in self.tables.items()}
        return FileRows(b.sha, path, size, default_profile, tables, b.hands, b.parse_errors, b.findings,
                        b.skipped_hands)
