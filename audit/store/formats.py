"""A query's rows as text or Parquet: ``table``, ``line`` (one ``column = value`` per line, a blank line between
rows), ``csv``, ``tsv``, ``json`` (one array), ``jsonl`` (one object per line), ``markdown``, ``parquet``.

Rows stream from DuckDB as Arrow record batches and are written a batch at a time by polars (CSV, JSON) or
pyarrow (Parquet), never converted row by row to Python objects; the text table and Markdown are built per
column with polars expressions too. What reaches a terminal is made safe: control characters in cells show as
escapes in ``table``, ``line`` and ``markdown``, and JSON carries C1 controls and bidi overrides as ``\\u`` escapes. CSV
and Parquet carry text as stored.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

from audit.errors import AuditError
from audit.textout import printable, shown
from audit.words import say

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

FORMATS = ("table", "line", "csv", "tsv", "json", "jsonl", "markdown", "parquet")
TEXT_FORMATS = FORMATS[:-1]
TABLE_SAMPLE_ROWS = 1_000
"""The text table sizes its columns from this many rows, then streams the rest (a wider cell pushes its row, or
is cut when the table is fitted to a width)."""
FORMULA_START = r"^[=+\-@\t\r]"
"""A CSV cell starting with one of these is a formula to a spreadsheet (``--escape-formulas`` quotes it)."""
MIN_COLUMN = 6
"""A column of a fitted table is never cut narrower than this (or than its heading)."""
_HIDDEN = r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]"
_JSON_HIDDEN = {code: f"\\u{code:04x}" for code in [*range(0x7f, 0xa0), 0x61c, 0x200e, 0x200f, *range(0x2028, 0x202f),
                                                     *range(0x2066, 0x206a)]}


_PLAIN = frozenset({
    "boolean", "tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint", "uinteger", "ubigint",
    "uhugeint", "float", "double", "decimal", "varchar", "date", "time", "timestamp", "timestamp_s", "timestamp_ms",
    "timestamp_ns", "timestamp with time zone", "uuid", "blob", "interval", "enum", "null"})
"""DuckDB types (``DuckDBPyType.id``) every text format writes as they come (through Arrow and polars); lists,
arrays and structs of them too (but for bytes, dates and time stamps: ``_NOT_NESTED``). Any other (``VARIANT``,
``MAP``, ``UNION``, ``BIT``, ``BIGNUM``, a geometry, a time with time zone …) reaches the text formats as DuckDB's
own text of its values. Dates and time stamps come as text too (``text_types``), which polars gave them before
but cannot give their infinities and years past 9999."""
_PARQUET_TEXT = frozenset({"union", "interval", "bit", "bignum", "time with time zone", "variant"})
"""DuckDB types Parquet cannot hold as they come from Arrow (or holds as bytes no reader can read): written as
DuckDB's text of their values; every other type keeps its own (a ``MAP`` stays a map)."""


_TIMESTAMPS = frozenset({"timestamp", "timestamp_s", "timestamp_ms", "timestamp_ns", "timestamp with time zone"})
_NOT_NESTED = frozenset({"blob", "date", *_TIMESTAMPS})
"""Types written as they come at the top level but as DuckDB's text of the whole value inside a list or struct."""
_FRACTION = ("CASE WHEN strftime({c}, '%n') = '000000000' THEN '' "
             "WHEN strftime({c}, '%n') LIKE '%000000' THEN '.' || strftime({c}, '%g') "
             "WHEN strftime({c}, '%n') LIKE '%000' THEN '.' || strftime({c}, '%f') "
             "ELSE '.' || strftime({c}, '%n') END")
_OFFSET = ("CASE WHEN timezone({c}) < 0 THEN '-' ELSE '+' END || lpad(abs(timezone_hour({c}))::VARCHAR, 2, '0') "
           "|| ':' || lpad(abs(timezone_minute({c}))::VARCHAR, 2, '0')")


def timestamp_text(typ: Any, fmt: str) -> str:
    """A timestamp column as text (an SQL expression of ``{c}``, the column): a time in years 1 to 9999 as the
    text formats always wrote it (``2026-11-28 21:10:00.500``: the fraction in 0, 3, 6 or 9 digits, as needed;
    ``T`` between date and time in JSON; the offset, ``+00:00``, of a time with time zone in the table, Markdown
    and JSON), any other (``infinity``, ``-infinity``, a year past 9999 or before 1) as DuckDB's own text, which
    polars cannot hold."""
    zoned = str(typ.id) == "timestamp with time zone"
    sep = "T" if fmt in ("json", "jsonl") else " "
    text = f"strftime({{c}}, '%Y-%m-%d{sep}%H:%M:%S') || {_FRACTION}"
    if zoned and fmt not in ("csv", "tsv"):
        text += f" || {_OFFSET}"
    text = (f"CASE WHEN {{c}} IS NULL THEN NULL WHEN isfinite({{c}}) AND year({{c}}) BETWEEN 1 AND 9999 "
            f"THEN {text} ELSE CAST({{c}} AS VARCHAR) END")
    if str(typ.id) in ("timestamp_s", "timestamp_ms"):  # strftime would take them as nanoseconds, out of range
        text = text.replace("{c}", "CAST({c} AS TIMESTAMP)")
    return text


def text_types(fmt: str) -> Callable[[Any], bool | str]:
    """Which DuckDB column types (a ``DuckDBPyType``) ``fmt`` takes as text: ``Store.reader(as_text=…)``; ``True``
    for DuckDB's text of the values, an SQL expression of ``{c}`` (the column) for a text of its own (a
    timestamp: ``timestamp_text``) or a type ``fmt`` can hold."""

    def plain(typ: Any) -> bool:
        kind = str(typ.id)
        if kind in ("list", "array", "struct"):
            children = [child for _, child in typ.children if not isinstance(child, int)]
            # a date or a time stamp inside a list or struct too: polars cannot hold their infinities either
            return all(plain(child) and str(child.id) not in _NOT_NESTED for child in children)
        return kind in _PLAIN

    def parquet_text(typ: Any) -> bool:
        kind = str(typ.id)
        if kind in ("list", "array", "struct", "map"):
            return any(parquet_text(child) for _, child in typ.children if not isinstance(child, int))
        return kind in _PARQUET_TEXT

    if fmt == "parquet":
        # Parquet has no time stamps in seconds: pyarrow makes them milliseconds, which its infinities overflow
        return lambda typ: "CAST({c} AS TIMESTAMP)" if str(typ.id) == "timestamp_s" else parquet_text(typ)
    def text(typ: Any) -> bool | str:
        # A DATE column too: DuckDB writes it as polars would (2026-11-28), and also its infinities and years past
        # 9999, which polars cannot hold; a timestamp likewise, in the text polars gave it (``timestamp_text``).
        if str(typ.id) in _TIMESTAMPS:
            return timestamp_text(typ, fmt)
        return str(typ.id) == "date" or not plain(typ)

    return text


def unique_names(names: list[str]) -> list[str]:
    """Column names made distinct: a second ``line`` becomes ``line_1`` (as DuckDB names them in a table), so no
    column of a JSON object or a CSV header hides another."""
    out: list[str] = []
    taken = set(names)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            n = 1
            while f"{name}_{n}" in taken:
                n += 1
            name = f"{name}_{n}"
            taken.add(name)
        seen.add(name)
        out.append(name)
    return out


def write_result(names: list[str], batches: Any, fmt: str, output: str | None = None, *,
                 escape_formulas: bool = False, schema: Any = None, width: int | None = None,
                 out: IO[str] | None = None, columns: list[str] | None = None, vertical: bool = False) -> int:
    """Write a query's result, streamed from ``batches`` (record batches, a ``pyarrow.RecordBatchReader`` or a
    ``pyarrow.Table``), in ``fmt``: to the file ``output`` through a temporary file renamed into place, else to
    ``out`` (standard output). ``columns``: only these columns, in this order (``pick_columns``). ``width`` fits
    the ``table`` format to that many characters; with ``vertical`` a table wider than ``width`` is written as
    ``line`` instead. Returns the rows."""
    from audit.outfile import atomic_output

    names = unique_names(names)
    if hasattr(batches, "to_batches"):  # a pyarrow.Table
        schema = batches.schema
        batches = batches.to_batches()
    if columns is not None:
        picked = pick_columns(names, columns)
        names = [names[i] for i in picked]
        schema = [list(schema)[i] for i in picked] if schema is not None else None
        batches = (batch.select(picked) for batch in batches)
    renamed = _renamed(batches, names)
    if fmt == "parquet":
        if output is None:
            raise ValueError("parquet needs an output file")
        with atomic_output(output, binary=True) as handle:
            return _write_parquet(names, renamed, handle, schema)
    try:
        if output is not None:
            with atomic_output(output) as handle:
                return write_text(names, renamed, fmt, handle, escape_formulas, width, vertical)
        return write_text(names, renamed, fmt, out or sys.stdout, escape_formulas, width, vertical)
    except _panic() as exc:  # a value polars cannot hold that no type rule above foresaw: one line, not a crash
        raise AuditError(f"a value of the result cannot be written as {fmt} ({_first_line(exc)}); "
                         "cast its column to VARCHAR in the query") from None


def pick_columns(names: list[str], wanted: list[str]) -> list[int]:
    """The positions of the columns ``wanted`` (``--columns a,b,c``: each once, in that order) among ``names``;
    ``AuditError`` naming the result's columns (and the nearest name) for one it does not have."""
    import difflib

    picked: list[int] = []
    for name in wanted:
        if name not in names:
            near = difflib.get_close_matches(name, names, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise AuditError(f"--columns: the result has no column {shown(name)}{hint} (its columns: "
                             f"{', '.join(names) or 'none'})")
        if names.index(name) not in picked:
            picked.append(names.index(name))
    if not picked:
        raise AuditError("--columns is empty; name the columns to show, e.g. --columns player,net")
    return picked


def _panic() -> type[BaseException]:
    from polars.exceptions import PanicException

    return PanicException


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _renamed(batches: Iterable[Any], names: list[str]) -> Iterator[Any]:
    import pyarrow as pa

    for batch in batches:
        if list(batch.schema.names) != names:
            batch = pa.RecordBatch.from_arrays(batch.columns, names=names)
        yield batch


def _write_parquet(names: list[str], batches: Iterable[Any], handle: IO[bytes], schema: Any) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    rows = 0
    try:
        for batch in batches:
            if writer is None:
                writer = pq.ParquetWriter(handle, batch.schema)
            writer.write_batch(batch)
            rows += batch.num_rows
        if writer is None:
            fields = list(schema) if schema is not None else []
            writer = pq.ParquetWriter(handle, pa.schema([pa.field(n, f.type) for n, f in zip(names, fields)]))
    finally:
        if writer is not None:
            writer.close()
    return rows


def write_text(names: list[str], batches: Iterable[Any], fmt: str, handle: IO[str], escape_formulas: bool = False,
               width: int | None = None, vertical: bool = False) -> int:
    """Write record batches (whose columns are ``names``) to ``handle`` in a text format; returns the rows.
    ``width`` and ``vertical``: see ``write_result``."""
    frames = (_frame(batch) for batch in batches)
    if fmt in ("csv", "tsv"):
        return _write_csv(names, frames, handle, "," if fmt == "csv" else "\t", escape_formulas)
    if fmt in ("json", "jsonl"):
        return _write_json(frames, handle, array=fmt == "json")
    if fmt == "markdown":
        return _write_markdown(names, frames, handle)
    if fmt == "table":
        return _write_table(names, frames, handle, width, vertical)
    if fmt == "line":
        return _write_lines(names, frames, handle)
    raise ValueError(f"unknown format {fmt!r}")


# ---------------------------------------------------------------------------------------------- polars
def _frame(batch: Any) -> pl.DataFrame:
    """A record batch as a polars DataFrame (zero-copy where Arrow and polars share the type); a column of a type
    polars does not read (an interval) becomes its text."""
    import polars as pl
    import pyarrow as pa

    try:
        frame = pl.from_arrow(batch, rechunk=False)
    except Exception:
        columns = []
        for column in batch.columns:
            try:
                pl.from_arrow(pa.RecordBatch.from_arrays([column], names=["c"]))
                columns.append(column)
            except Exception:
                columns.append(pa.array([None if v is None else str(v) for v in column.to_pylist()], pa.string()))
        frame = pl.from_arrow(pa.RecordBatch.from_arrays(columns, names=batch.schema.names), rechunk=False)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _json_encoded(column: str) -> pl.Expr:
    """A nested column (list, struct) as its JSON text, null staying null."""
    import polars as pl

    c = pl.col(column)
    text = pl.struct(c.alias("v")).struct.json_encode().str.slice(5).str.head(-1)
    return pl.when(c.is_null()).then(None).otherwise(text).alias(column)


def _for_json(frame: pl.DataFrame) -> pl.DataFrame:
    """Values JSON cannot carry as polars would write them: whole decimals as integers, other decimals as
    numbers, times in ISO 8601 (``2026-11-28T21:10:00``), durations as seconds, bytes as hex."""
    import polars as pl

    exprs = []
    for name, dtype in frame.schema.items():
        c = pl.col(name)
        if isinstance(dtype, pl.Decimal):
            exprs.append(c.cast(pl.Int128 if dtype.scale == 0 else pl.Float64))
        elif isinstance(dtype, pl.Datetime) and dtype.time_zone is None:
            exprs.append(c.dt.to_string("%Y-%m-%dT%H:%M:%S%.f"))
        elif dtype == pl.Time:
            exprs.append(c.dt.to_string("%H:%M:%S%.f"))
        elif isinstance(dtype, pl.Duration):
            exprs.append(c.dt.total_microseconds() / 1_000_000)
        elif dtype == pl.Binary:
            exprs.append(c.bin.encode("hex"))
        else:
            continue
    return frame.with_columns(exprs) if exprs else frame


def _cells(frame: pl.DataFrame) -> pl.DataFrame:
    """Every column as the text a person reads in a table: numbers as they are (floats to two decimals), times in
    ISO 8601 with a space, lists and structs as JSON, null as empty, control characters as escapes."""
    import polars as pl

    exprs = []
    for name, dtype in frame.schema.items():
        c = pl.col(name)
        if dtype.is_float():
            cents = (c.abs() * 100).round(0).cast(pl.Int64, strict=False)
            fixed = pl.concat_str([pl.when(c < 0).then(pl.lit("-")).otherwise(pl.lit("")),
                                   (cents // 100).cast(pl.String), pl.lit("."),
                                   (cents % 100).cast(pl.String).str.zfill(2)])
            text = pl.when(c.is_finite() & (c.abs() < 1e15)).then(fixed).otherwise(c.cast(pl.String))
        elif isinstance(dtype, pl.Datetime):
            text = c.dt.to_string("%Y-%m-%d %H:%M:%S%.f" + ("%:z" if dtype.time_zone else ""))
        elif dtype == pl.Time:
            text = c.dt.to_string("%H:%M:%S%.f")
        elif isinstance(dtype, (pl.List, pl.Array, pl.Struct)):
            text = _json_encoded(name)
        elif dtype == pl.Binary:
            text = c.bin.encode("hex")
        elif dtype == pl.Null:
            text = pl.lit("", dtype=pl.String)
        else:
            text = c.cast(pl.String)
        exprs.append(text.fill_null("").alias(name))
    cells = frame.select(exprs)
    for name in cells.columns:  # the rare cell holding a control character goes through textout.printable
        column = cells.get_column(name)
        hidden = column.str.contains(_HIDDEN)
        if hidden.any():
            shown = pl.Series([printable(v) for v in column.filter(hidden).to_list()], dtype=pl.String)
            cells = cells.with_columns(column.scatter(hidden.arg_true(), shown))
    return cells


def _numeric(frame: pl.DataFrame) -> list[bool]:
    return [dtype.is_numeric() for dtype in frame.schema.values()]


# ---------------------------------------------------------------------------------------------- writers
def _write_csv(names: list[str], frames: Iterable[pl.DataFrame], handle: IO[str], separator: str,
               escape_formulas: bool) -> int:
    import polars as pl

    rows = 0
    first = True
    for frame in frames:
        nested = [n for n, t in frame.schema.items() if isinstance(t, (pl.List, pl.Array, pl.Struct))]
        if nested:
            frame = frame.with_columns([_json_encoded(n) for n in nested])
        binary = [n for n, t in frame.schema.items() if t == pl.Binary]
        if binary:  # bytes as hex, as the other text formats write them
            frame = frame.with_columns([pl.col(n).bin.encode("hex") for n in binary])
        if escape_formulas:
            text = [n for n, t in frame.schema.items() if t == pl.String]
            frame = frame.with_columns([
                pl.when(pl.col(n).str.contains(FORMULA_START)).then(pl.lit("'") + pl.col(n)).otherwise(pl.col(n))
                .alias(n) for n in text])
        handle.write(frame.write_csv(None, include_header=first, separator=separator,
                                     datetime_format="%Y-%m-%d %H:%M:%S%.f"))
        first = False
        rows += frame.height
    if first:  # no batch at all: the header alone
        handle.write(pl.DataFrame({n: [] for n in names}).write_csv(None, separator=separator))
    return rows


def _write_json(frames: Iterable[pl.DataFrame], handle: IO[str], array: bool) -> int:
    rows = 0
    if array:
        handle.write("[")
    for frame in frames:
        if not frame.height:
            continue
        text = _for_json(frame).write_ndjson(None)
        if not text.isascii():
            text = text.translate(_JSON_HIDDEN)
        if array:
            text = ("\n" if not rows else ",\n") + text.rstrip("\n").replace("\n", ",\n")
        handle.write(text)
        rows += frame.height
    if array:
        handle.write("\n]\n" if rows else "]\n")
    return rows


def _write_markdown(names: list[str], frames: Iterable[pl.DataFrame], handle: IO[str]) -> int:
    import polars as pl

    rows = 0
    head: list[bool] | None = None
    for frame in frames:
        if head is None:
            head = _numeric(frame)
            _markdown_head(names, head, handle)
        if not frame.height:
            continue
        cells = _cells(frame).select([pl.col(n).str.replace_all("|", r"\|", literal=True) for n in frame.columns])
        lines = cells.select(pl.concat_str([pl.lit("| "), pl.concat_str(list(cells.columns), separator=" | "),
                                            pl.lit(" |")]).alias("line"))
        handle.write("\n".join(lines.to_series().to_list()) + "\n")
        rows += frame.height
    if head is None:
        _markdown_head(names, [False] * len(names), handle)
    return rows


def _markdown_head(names: list[str], numeric: list[bool], handle: IO[str]) -> None:
    heads = [printable(n).replace("|", r"\|") for n in names]
    handle.write("| " + " | ".join(heads) + " |\n|" + "|".join(" ---: " if num else " --- " for num in numeric) + "|\n")


def _write_table(names: list[str], frames: Iterable[pl.DataFrame], handle: IO[str], width: int | None,
                 vertical: bool = False) -> int:
    """An aligned text table (numbers right-aligned), sized from its first ``TABLE_SAMPLE_ROWS`` rows and fitted
    to ``width`` when given (long cells cut with an ellipsis), with a closing row count; with ``vertical``, a
    table wider than ``width`` is written as ``line`` instead (as psql's ``\\x auto`` does)."""
    import itertools

    import polars as pl

    stream = iter(frames)
    sample: list[pl.DataFrame] = []
    count = 0
    for frame in stream:
        sample.append(frame)
        count += frame.height
        if count >= TABLE_SAMPLE_ROWS:
            break
    heads = [printable(n) for n in names]
    numeric = _numeric(sample[0]) if sample else [False] * len(names)
    cells = [_cells(f) for f in sample]
    widths = [len(h) for h in heads]
    for c in cells:
        for i, n in enumerate(c.columns):
            if c.height:
                longest: Any = c.get_column(n).str.len_chars().max()
                widths[i] = max(widths[i], int(longest or 0))
    fitted = _fit(widths, heads, width) if width else None
    if fitted is not None and vertical:
        return _lines(heads, itertools.chain(cells, (_cells(f) for f in stream)), handle)
    widths = fitted or widths

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    handle.write(line([_cut(h, w) if fitted else h for h, w in zip(heads, widths)]) + "\n"
                 + "  ".join("-" * w for w in widths) + "\n")
    rows = 0
    for c in cells + [_cells(f) for f in stream]:
        rows += _table_rows(c, widths, numeric, fitted is not None, handle)
    handle.write(_row_count(rows))
    return rows


def _row_count(rows: int) -> str:
    return f"({say('unit.rows', 'en', n=rows)})\n"


def _write_lines(names: list[str], frames: Iterable[pl.DataFrame], handle: IO[str]) -> int:
    """``line``: each row as one ``column = value`` line per column (the names right-aligned, as DuckDB's
    ``.mode line``), a blank line between rows, and the closing row count."""
    return _lines([printable(n) for n in names], (_cells(f) for f in frames), handle)


def _lines(heads: list[str], cells: Iterable[pl.DataFrame], handle: IO[str]) -> int:
    import polars as pl

    widest = max((len(h) for h in heads), default=0)
    labels = [pl.lit(h.rjust(widest) + " = ") for h in heads]
    rows = 0
    for c in cells:
        if not c.height or not c.width:
            rows += c.height
            continue
        lines = c.select(pl.concat_str([pl.concat_str([label, pl.col(n)]).str.strip_chars_end()
                                        for label, n in zip(labels, c.columns)], separator="\n").alias("row"))
        handle.write(("\n" if rows else "") + "\n\n".join(lines.to_series().to_list()) + "\n")
        rows += c.height
    handle.write(("\n" if rows else "") + _row_count(rows))
    return rows


def _table_rows(cells: pl.DataFrame, widths: list[int], numeric: list[bool], cut: bool, handle: IO[str]) -> int:
    import polars as pl

    if not cells.height:
        return 0
    columns = []
    for name, w, num in zip(cells.columns, widths, numeric):
        c = pl.col(name)
        if cut:
            c = pl.when(c.str.len_chars() > w).then(c.str.slice(0, max(w - 1, 0)) + pl.lit("…")).otherwise(c)
        columns.append(c.str.pad_start(w) if num else c.str.pad_end(w))
    lines = cells.select(pl.concat_str(columns, separator="  ").str.strip_chars_end().alias("line"))
    handle.write("\n".join(lines.to_series().to_list()) + "\n")
    return cells.height


def _fit(widths: list[int], heads: list[str], width: int) -> list[int] | None:
    """Column widths that fit ``width`` characters (two spaces between columns), cutting the widest columns
    first and none below ``MIN_COLUMN`` or its heading; ``None`` when the table fits as it is."""
    room = width - 2 * (len(widths) - 1)
    if sum(widths) <= room:
        return None
    floors = [min(w, max(MIN_COLUMN, len(h))) for w, h in zip(widths, heads)]
    low, high = 0, max(widths)
    while low < high:  # the largest cap under which the table fits
        cap = (low + high + 1) // 2
        if sum(max(f, min(w, cap)) for w, f in zip(widths, floors)) <= room:
            low = cap
        else:
            high = cap - 1
    return [max(f, min(w, low)) for w, f in zip(widths, floors)]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def render_table(names: list[str], rows: list[list[Any]]) -> str:
    """An aligned text table of Python rows (numbers right-aligned), with a closing row count."""
    import io

    import pyarrow as pa

    columns = [[row[i] for row in rows] for i in range(len(names))]
    batch = pa.RecordBatch.from_arrays([pa.array(col) for col in columns], names=unique_names(names))
    buffer = io.StringIO()
    write_text(unique_names(names), [batch], "table", buffer)
    return buffer.getvalue()
