"""The database's tables, the views an analyst starts from, and the words that document both.

One definition serves every use: the DDL and ``COMMENT ON`` statements, the Arrow schemas ``audit.store.ingest``
builds rows into, the catalogue check of ``Store.open``, the Parquet export and (through ``SCHEMA``) anything
else that writes these tables. Tables only ever gain columns, at their end: a script that reads a column keeps
reading it (schema version 2 added the columns marked so below, and the table ``unsupported_hands``; version 3
the columns marked so).

**Streets.** Every street is named by one code, everywhere: ``pre`` (forced bets), ``deal``, ``first`` (first
betting round), ``redeal``, ``draw`` (``draw2``, ``draw3`` for site games with more draws), ``second`` (second
betting round), ``showdown``, ``summary``. The view ``streets`` lists them with their words and order. The column
``findings.street`` keeps the words it always held ("first betting round"); ``findings.street_code`` holds the code.

**Keys.** Every table has a key, named in its comment (``actions``: ``hand_key, seq``). Keys are unique by
construction (derived from the file's SHA-256, a line number and a position) and no index enforces them, except
``files.file_sha``: DuckDB holds an index in memory whole while a file's transaction commits, which would make a
large ingest's memory grow with the file and the database.

**Money.** Amounts are integers in the hand's ``unit``: ``chips`` (house hands, play-money site hands), or cents
of the currency named (``USD``: 150 is $1.50). Sum amounts per unit.
"""

from __future__ import annotations

from typing import Any, Final

SCHEMA_VERSION: Final = "3"
"""Version 1: audit 0.1.0 (and before the analyst views); 2: units, time zones, findings' messages; 3: the table's
own corrections (``hands.corrects``, ``seats.owed``). ``Store.open`` upgrades a database of an earlier version it
opens for writing (``audit upgrade``)."""

Column = tuple[str, str, str]  # (name, DuckDB type, comment)

TIMESTAMPTZ: Final = "TIMESTAMP WITH TIME ZONE"

_HAND_KEY: Final = ("hand_key", "VARCHAR",
                    "The hand's key: the first 16 hex digits of the file's SHA-256, a colon, the hand's first line.")
_FILE_SHA: Final = ("file_sha", "VARCHAR", "SHA-256 of the file's bytes (files.file_sha).")
_HAND_ID: Final = ("hand_id", "VARCHAR", "The hand's number as the log writes it (Hand #4501: 4501).")
_UNIT: Final = ("unit", "VARCHAR", "What the amounts count: chips, or cents of this currency (USD: 150 is $1.50). "
                                   "New in schema 2.")
_ZONE: Final = ("time_zone", "VARCHAR", "The time zone the log names for started_at (ET, WET, GMT+0100); null "
                                        "when it names none (house logs: the table's own clock). New in schema 2.")
_UTC: Final = ("started_at_utc", TIMESTAMPTZ, "started_at as an instant, when the log names a time zone audit "
                                              "knows (ET is New York time, daylight saving included). New in "
                                              "schema 2.")

TABLES: Final[dict[str, tuple[Column, ...]]] = {
    "files": (
        _FILE_SHA,
        ("path", "VARCHAR", "The path the file was ingested from (<stdin> for standard input)."),
        ("size", "BIGINT", "Bytes."),
        ("ingested_at", "TIMESTAMP", "When the file's transaction committed (local time)."),
        ("default_profile", "VARCHAR", "The profile given on the command line, with its options: qdan (joker=wild). "
                                       "A file's own Profile: line wins for its hands (hands.profile)."),
        ("hands", "INTEGER", "Hands stored in hands."),
        ("parse_errors", "INTEGER", "Rows stored in parse_errors."),
        ("findings", "INTEGER", "Rows stored in findings."),
        ("audit_version", "VARCHAR", "The version of audit that stored the file."),
    ),
    "hands": (
        _HAND_KEY, _FILE_SHA,
        ("file", "VARCHAR", "The file's path (files.path)."),
        ("line", "INTEGER", "The hand's first line in the file."),
        ("end_line", "INTEGER", "The hand's last line."),
        _HAND_ID,
        ("session", "VARCHAR", "The Session: line the hand is under; null outside a session."),
        ("profile", "VARCHAR", "The rule profile the hand was audited under."),
        ("dialect", "VARCHAR", "The log's format: house, site (PokerStars), fulltilt, ongame."),
        ("game", "VARCHAR", "The game: 5 Card Draw."),
        ("betting", "VARCHAR", "Site hands: no-limit, pot-limit or fixed-limit, as the header says; null for house "
                               "hands (the profile says)."),
        ("currency", "VARCHAR", "Site hands played for money: the currency (USD); null for chips. See unit."),
        ("table_name", "VARCHAR", "The table's name."),
        ("started_at", "TIMESTAMP", "When the hand started, as the log writes it (the time zone is in time_zone)."),
        ("started_at_text", "VARCHAR", "started_at as written in the log."),
        ("button_seat", "INTEGER", "The button's seat."),
        ("seats", "INTEGER", "Seats listed."),
        ("players", "INTEGER", "Players dealt in."),
        ("pot_total", "BIGINT", "Everything that went into the pots, in unit."),
        ("rake", "BIGINT", "What the house took, in unit."),
        ("carried", "BIGINT", "A pot carried over from a redeal, in unit."),
        ("redeal", "BOOLEAN", "Everyone checked the first round and the hand was dealt again (qdan)."),
        _UNIT, _ZONE, _UTC,
        ("corrects", "VARCHAR[]", "The earlier hands of the session (hand_id) whose wrong payment the table put right "
                                  "before this hand: its stacks changed exactly as that payment had to be reversed "
                                  "(hand_details.corrected_before says it on the earlier hand); null when none. New "
                                  "in schema 3."),
    ),
    "seats": (
        _HAND_KEY, _FILE_SHA, _HAND_ID,
        ("seat", "INTEGER", "Seat number."),
        ("player", "VARCHAR", "The player's name."),
        ("line", "INTEGER", "The seat line."),
        ("sitting_out", "BOOLEAN", "The seat line says the player sits out."),
        ("dealt_in", "BOOLEAN", "The player was dealt cards."),
        ("start_stack", "BIGINT", "Chips at the start of the hand, in unit."),
        ("end_stack", "BIGINT", "Chips at the end, by the log's own actions."),
        ("contributed", "BIGINT", "What the player put in the pots (less what came back uncalled)."),
        ("should_receive", "BIGINT", "What the rules give the player from the pots."),
        ("received", "BIGINT", "What the log says the player collected."),
        ("owed", "BIGINT", "What the verdict says the hand owes the player (above 0) or the player owes (below 0): "
                           "should_receive - received, less a rake the game allows and taking a pot whose winner "
                           "the log cannot show as paid, as audit explain settles it. New in schema 3 (rows stored "
                           "before hold should_receive - received)."),
    ),
    "actions": (
        _HAND_KEY, _FILE_SHA, _HAND_ID,
        ("seq", "INTEGER", "Position in the hand, from 0."),
        ("line", "INTEGER", "The line in the file."),
        ("street", "VARCHAR", "The street code (pre, deal, first, draw, second, showdown, summary, redeal: see the "
                              "streets view)."),
        ("player", "VARCHAR", "Who acted; null for the deck and reshuffles."),
        ("kind", "VARCHAR", "fold, check, call, bet, raise, post <blind>, dealt, discard, stand pat, show, muck, "
                            "collect, uncalled returned, parole <answer>, deck, reshuffle, score, event, ..."),
        ("amount", "BIGINT", "Chips of the line, in unit: a call or bet, the raise over the bet faced, a post, a "
                             "collection, a return; cards thrown for a discard."),
        ("to_amount", "BIGINT", "A raise: the bet it raises to."),
        ("all_in", "BOOLEAN", "The line says all-in."),
        ("timed_out", "BOOLEAN", "The player's time ran out."),
        ("took", "DOUBLE", "Seconds the player took, when the log says."),
        ("cards", "VARCHAR", "The line's cards as written, separated by spaces (dealt groups by ' | '). See "
                             "card_list."),
        ("detail", "VARCHAR", "A show's description, the pot a collect line names, an event's text."),
        ("card_list", "VARCHAR[]", "The line's cards as a list (every card dealt, in order). New in schema 2."),
        ("pot_index", "INTEGER", "A collect line: the pot collected from (pots.pot_index). New in schema 2."),
    ),
    "pots": (
        _HAND_KEY, _FILE_SHA, _HAND_ID,
        ("pot_index", "INTEGER", "0 for the main pot (or the only one), then each side pot."),
        ("name", "VARCHAR", "The pot's name everywhere in the database: pot (the only one), main, side-1, side-2."),
        ("amount", "BIGINT", "Chips in the pot, in unit."),
        ("eligible", "VARCHAR[]", "Players who can win it."),
        ("winners", "VARCHAR[]", "Players the rules give it to (empty when the cards are unknown: site logs)."),
    ),
    "awards": (
        _HAND_KEY, _FILE_SHA, _HAND_ID,
        ("pot_index", "INTEGER", "The pot (pots.pot_index)."),
        ("pot", "VARCHAR", "The pot's name (pots.name)."),
        ("player", "VARCHAR", "A player who should receive or collected something from the pot."),
        ("should_award", "BIGINT", "What the rules give the player from this pot, in unit."),
        ("collected", "BIGINT", "What the log says the player collected from it."),
    ),
    "findings": (
        ("hand_key", "VARCHAR", "The hand (hands, unsupported_hands or parse_errors); null for a finding about a "
                                "whole session (STANDINGS)."),
        _FILE_SHA,
        ("hand_id", "VARCHAR", "The hand's number; null for a session's findings."),
        ("seq", "INTEGER", "Position in the file, from 0."),
        ("file", "VARCHAR", "The file's path."),
        ("session", "VARCHAR", "The session."),
        ("rule", "VARCHAR", "The rule id (RULES.md)."),
        ("severity", "VARCHAR", "violation, warning or error."),
        ("player", "VARCHAR", "The player concerned, if one."),
        ("street", "VARCHAR", "The street in words (first betting round), as audit check prints it. See street_code."),
        ("line", "INTEGER", "The line in the file."),
        ("message", "VARCHAR", "What went wrong, in English."),
        ("expected", "VARCHAR", "What the rules expected."),
        ("actual", "VARCHAR", "What the log shows."),
        ("profile", "VARCHAR", "The profile the finding was judged under. New in schema 2."),
        ("street_code", "VARCHAR", "The street code, as in actions.street (streets view). New in schema 2."),
        ("pot_index", "INTEGER", "The pot the finding is about (pots.pot_index): a pot paid to the wrong player or in "
                                 "the wrong amount, an odd chip. New in schema 2."),
        ("msg_id", "VARCHAR", "The message's id in audit's words (finding.ODD_CHIP.wrong): message in another "
                              "language, with params. New in schema 2."),
        ("params", "VARCHAR", "The message's parameters as a JSON object ({\"player\": \"Ana\", \"the_pot\": \"main\"}"
                              "), as audit check --format json gives them. New in schema 2."),
    ),
    "parse_errors": (
        _HAND_KEY, _FILE_SHA,
        ("hand_id", "VARCHAR", "The hand's number, when its first line could be read."),
        ("file", "VARCHAR", "The file's path."),
        ("session", "VARCHAR", "The session."),
        ("profile", "VARCHAR", "The profile the block would have been audited under."),
        ("line", "INTEGER", "The line of the error."),
        ("col", "INTEGER", "The column of the error."),
        ("first_line", "INTEGER", "The block's first line."),
        ("end_line", "INTEGER", "The block's last line."),
        ("message", "VARCHAR", "Why it could not be read, with the line and a caret."),
        ("started_at", "TIMESTAMP", "The date and time on the block's first line, when it has one. New in schema 2."),
    ),
    "unsupported_hands": (
        _HAND_KEY, _FILE_SHA, _HAND_ID,
        ("file", "VARCHAR", "The file's path."),
        ("line", "INTEGER", "The hand's first line."),
        ("end_line", "INTEGER", "The hand's last line."),
        ("session", "VARCHAR", "The session."),
        ("profile", "VARCHAR", "The profile it would have been audited under."),
        ("dialect", "VARCHAR", "The log's format."),
        ("game", "VARCHAR", "The game the hand is (Badugi, Triple Draw 2-7 Lowball)."),
        ("betting", "VARCHAR", "no-limit, pot-limit or fixed-limit."),
        ("currency", "VARCHAR", "The currency; null for chips."),
        _UNIT,
        ("table_name", "VARCHAR", "The table's name."),
        ("started_at", "TIMESTAMP", "When the hand started, as written."),
        ("started_at_text", "VARCHAR", "started_at as written in the log."),
        _ZONE, _UTC,
    ),
}

TABLE_COMMENTS: Final[dict[str, str]] = {
    "files": "One row per file ingested (a file is its bytes: the same bytes again add nothing). Key: file_sha.",
    "hands": "One row per hand audited. Key: hand_key. Start from the view hand_details for dates and counts.",
    "seats": "One row per seat of each hand: stacks, what each put in, should receive and received. Key: hand_key, "
             "seat.",
    "actions": "Every line of each hand that says something happened, in order. Key: hand_key, seq. Start from the "
               "view action_details.",
    "pots": "The pots each hand built (main and side pots). Key: hand_key, pot_index.",
    "awards": "Per pot, each player who should receive or collected something. Key: hand_key, pot_index, player. "
              "Start from the view pot_details.",
    "findings": "Every rule broken (and every hand that could not be read). Key: file_sha, seq. Start from the view "
                "finding_details.",
    "parse_errors": "Blocks that could not be read or replayed. Key: hand_key.",
    "unsupported_hands": "Hands of games the audit does not cover (an UNSUPPORTED_GAME finding each; no rows in "
                         "seats, actions, pots). Key: hand_key. New in schema 2.",
}

CHAIN_TABLE: Final = "chain_links"
"""The clubs' chains (``audit.trust.chain``): not a table of a file's rows, so not in ``TABLES``; every database
has it (a plain one holds club ``local``'s chain, ``audit ingest``'s files)."""

CHAIN_COLUMNS: Final[tuple[Column, ...]] = (
    ("club", "VARCHAR", "The club whose chain the link is in (local: audit ingest, and the service's own machine)."),
    ("position", "BIGINT", "The link's number in its club's chain, from 1."),
    ("kind", "VARCHAR", "What was stored: file (audit ingest), upload, table (a live table opened), entry, undo, "
                        "close (the live table's)."),
    ("subject", "VARCHAR", "Which rows: the log's key (files.file_sha), or the live table's id."),
    ("content_sha256", "VARCHAR", "SHA-256 of what was stored: the log's bytes, or content."),
    ("content", "VARCHAR", "A live table's entry (or its opening, or the seq an undo took back) as canonical JSON; "
                           "null for a log."),
    ("received_at", "TIMESTAMP", "When it was received (local time; files.ingested_at, uploads.received_at)."),
    ("profile", "VARCHAR", "The profile it was audited under, with its options: qdan (joker=wild)."),
    ("audit_version", "VARCHAR", "The version of audit that stored it."),
    ("prev_hash", "VARCHAR", "The previous link's hash (64 zeros for the first)."),
    ("hash", "VARCHAR", "SHA-256 of this link's other columns as canonical JSON (audit.trust.chain.link_hash)."),
)
CHAIN_COMMENT: Final = ("Each club's append-only chain: one link per stored log and per live-table entry, each "
                        "holding the previous link's hash. audit verify walks it. Key: club, position.")
CHAIN_SCHEMA: Final = tuple((name, typ) for name, typ, _ in CHAIN_COLUMNS)


def create_chain_sql() -> str:
    """``CREATE TABLE IF NOT EXISTS`` for the chain. Its key is not enforced by an index, like the other tables'
    (the module's docstring): an index made each commit that appends a link cost an upload 10 ms more (bench/trust.py,
    on a busy machine). Links are appended by one writer (the service's writer thread; ``audit ingest``, which
    holds the database alone), and ``audit verify`` says a position held twice."""
    cols = ", ".join(f"{name} {typ}" + ("" if name == "content" else " NOT NULL") for name, typ in CHAIN_SCHEMA)
    return f"CREATE TABLE IF NOT EXISTS {CHAIN_TABLE} ({cols})"


SCHEMA: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    table: tuple((name, typ) for name, typ, _ in columns) for table, columns in TABLES.items()}
"""Every table's (column, DuckDB type) pairs, in order."""

DATA_TABLES: Final = tuple(t for t in SCHEMA if t != "files")
"""Tables whose rows belong to a file (``file_sha``) and that ``Store.write_file`` fills from Arrow tables."""

PRIMARY_KEYS: Final = {"files": "file_sha"}
"""The only enforced key (see the module's docstring)."""

KEYS: Final = {"files": ("file_sha",), "hands": ("hand_key",), "seats": ("hand_key", "seat"),
               "actions": ("hand_key", "seq"), "pots": ("hand_key", "pot_index"),
               "awards": ("hand_key", "pot_index", "player"), "findings": ("file_sha", "seq"),
               "parse_errors": ("hand_key",), "unsupported_hands": ("hand_key",)}
"""Each table's key, unique by construction (a test checks it)."""

ORDER_BY: Final = {
    "files": "path, file_sha", "hands": "file_sha, line", "seats": "file_sha, hand_key, seat",
    "actions": "file_sha, hand_key, seq", "pots": "file_sha, hand_key, pot_index",
    "awards": "file_sha, hand_key, pot_index, player", "findings": "file_sha, seq",
    "parse_errors": "file_sha, first_line", "unsupported_hands": "file_sha, line",
}
"""The order of the export and of tests that compare databases (insertion order is file order anyway)."""

STREETS: Final = (
    ("pre", "forced bets"), ("deal", "dealing"), ("first", "first betting round"), ("redeal", "redeal"),
    ("draw", "draw"), ("draw2", "second draw"), ("draw3", "third draw"), ("second", "second betting round"),
    ("showdown", "show down"), ("summary", "summary"),
)
"""The street vocabulary, in the order of play: (code, words)."""

STREET_CODES: Final = {name: code for code, name in STREETS}
"""A finding's street words -> the street's code."""


def hand_key(file_sha: str, line: int) -> str:
    """The stable row key of the hand (or unreadable block) starting at ``line`` of the file ``file_sha``."""
    return f"{file_sha[:16]}:{line}"


def arrow_type(duck: str) -> Any:
    """The Arrow type rows of a column of DuckDB type ``duck`` are built in (pyarrow is imported here)."""
    import pyarrow as pa

    types = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BIGINT": pa.int64(), "BOOLEAN": pa.bool_(),
             "TIMESTAMP": pa.timestamp("us"), "DATE": pa.date32(), "DOUBLE": pa.float64(),
             "VARCHAR[]": pa.list_(pa.string()), TIMESTAMPTZ: pa.timestamp("us", tz="UTC")}
    return types[duck]


def arrow_schema(table: str) -> Any:
    """The ``pyarrow.Schema`` of ``table``: its columns with the Arrow types ``audit ingest`` builds its rows in
    (and the Parquet lake stores)."""
    import pyarrow as pa

    return pa.schema([(name, arrow_type(typ)) for name, typ in SCHEMA[table]])


def create_table_sql(table: str) -> str:
    """``CREATE TABLE IF NOT EXISTS`` for one table of ``SCHEMA``."""
    cols = [f"{name} {typ}" for name, typ in SCHEMA[table]]
    if table in PRIMARY_KEYS:
        cols.append(f"PRIMARY KEY ({PRIMARY_KEYS[table]})")
    return f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(cols)})"


def quote(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def table_comment_sql() -> list[str]:
    """``COMMENT ON`` every table and column."""
    out = [f"COMMENT ON TABLE {table} IS {quote(TABLE_COMMENTS[table])}" for table in TABLES]
    for table, columns in TABLES.items():
        out.extend(f"COMMENT ON COLUMN {table}.{name} IS {quote(comment)}" for name, _, comment in columns)
    out.append(f"COMMENT ON TABLE {CHAIN_TABLE} IS {quote(CHAIN_COMMENT)}")
    out.extend(f"COMMENT ON COLUMN {CHAIN_TABLE}.{name} IS {quote(comment)}" for name, _, comment in CHAIN_COLUMNS)
    return out


# ---------------------------------------------------------------------------------------------- the views
# Shared pieces: every hand read (audited or of an unsupported game), with the file's session dates.
_EVERY_HAND = """
    SELECT hand_key, file_sha, file, line, end_line, hand_id, session, profile, dialect, game, betting, unit,
           table_name, started_at, started_at_text, time_zone, started_at_utc, true AS audited
    FROM hands
    UNION ALL
    SELECT hand_key, file_sha, file, line, end_line, hand_id, session, profile, dialect, game, betting, unit,
           table_name, started_at, started_at_text, time_zone, started_at_utc, false AS audited
    FROM unsupported_hands"""

# The hands the table put right itself (``hands.corrects`` of a later hand of the same session names them): the
# later hand, on the earlier one's row.
_CORRECTED = """
    SELECT h.hand_key, arg_min(c.hand_id, c.line) AS corrected_before
    FROM (SELECT file_sha, session, line, hand_id, unnest(corrects) AS corrected FROM hands
          WHERE corrects IS NOT NULL) AS c
    JOIN hands AS h ON h.file_sha = c.file_sha AND h.session IS NOT DISTINCT FROM c.session
        AND h.hand_id = c.corrected AND h.line < c.line
    GROUP BY h.hand_key"""

_STREET_ROWS = ", ".join(f"({quote(code)}, {quote(name)}, {i})" for i, (code, name) in enumerate(STREETS, 1))

View = tuple[str, str, tuple[tuple[str, str], ...]]  # (SQL body, comment, (column, comment) pairs)

_CORRECTED_BEFORE = ("The later hand (hand_id) before which the table put this hand's wrong payment right itself "
                     "(hands.corrects); null when it did not: nothing of this hand is left to pay once it did.")

VIEWS: Final[dict[str, View]] = {
    "streets": (
        f"SELECT street, street_name, street_order FROM (VALUES {_STREET_ROWS}) AS s(street, street_name, street_order)",
        "The street vocabulary: each code, its words, its order in a hand. Key: street.",
        (("street", "The code used in actions.street, findings.street_code and every view."),
         ("street_name", "The street in words, as findings.street and audit check say it."),
         ("street_order", "Its order in a hand, from 1."))),
    "session_details": (
        f"""
        WITH every_hand AS ({_EVERY_HAND})
        SELECT file_sha, any_value(file) AS file, session,
               string_agg(DISTINCT profile, ', ' ORDER BY profile) AS profile,
               string_agg(DISTINCT table_name, ', ' ORDER BY table_name) AS table_name,
               count(*) FILTER (WHERE audited) AS hands,
               count(*) FILTER (WHERE NOT audited) AS unsupported_hands,
               min(started_at) AS first_hand, max(started_at) AS last_hand,
               CAST(min(started_at) AS DATE) AS session_date
        FROM every_hand
        GROUP BY file_sha, session""",
        "One row per session of a file (the hands under one Session: line), and one for the file's hands outside "
        "any session (session null). Key: file_sha, session.",
        (("file_sha", "The file (files.file_sha)."), ("file", "The file's path."), ("session", "The session's name."),
         ("profile", "The profiles its hands were audited under (usually one)."),
         ("table_name", "Its table (or tables)."), ("hands", "Hands audited."),
         ("unsupported_hands", "Hands of games the audit does not cover."),
         ("first_hand", "When its first hand started."), ("last_hand", "When its last hand started."),
         ("session_date", "The date of its first hand: the session's date everywhere (views, export)."))),
    "hand_details": (
        f"""
        WITH every_hand AS ({_EVERY_HAND}),
        corrected AS ({_CORRECTED}),
        counts AS (
            SELECT hand_key,
                   count(*) FILTER (WHERE severity = 'violation') AS violations,
                   count(*) FILTER (WHERE severity = 'warning') AS warnings,
                   count(*) FILTER (WHERE severity = 'error') AS errors
            FROM findings WHERE hand_key IS NOT NULL GROUP BY hand_key)
        SELECT e.hand_key, e.file_sha, e.file, e.line, e.end_line, e.hand_id, e.session, e.profile, e.dialect,
               e.game, e.betting, e.unit, e.table_name, e.started_at, e.started_at_text, e.time_zone,
               e.started_at_utc, CAST(e.started_at AS DATE) AS play_date,
               CAST(date_trunc('week', e.started_at) AS DATE) AS week,
               coalesce(s.session_date, CAST(e.started_at AS DATE)) AS session_date, e.audited,
               h.button_seat, h.seats, h.players, h.pot_total, h.rake, h.carried, h.redeal,
               coalesce(c.violations, 0) AS violations, coalesce(c.warnings, 0) AS warnings,
               coalesce(c.errors, 0) AS errors, k.corrected_before
        FROM every_hand AS e
        LEFT JOIN hands AS h ON h.hand_key = e.hand_key AND e.audited
        LEFT JOIN session_details AS s ON s.file_sha = e.file_sha AND s.session = e.session
        LEFT JOIN counts AS c ON c.hand_key = e.hand_key
        LEFT JOIN corrected AS k ON k.hand_key = e.hand_key""",
        "Every hand read, audited or not (a game the audit does not cover), with its dates and how many findings "
        "of each severity it has. Key: hand_key.",
        (("hand_key", "The hand's key."), ("file_sha", "The file."), ("file", "The file's path."),
         ("line", "The hand's first line."), ("end_line", "Its last line."), ("hand_id", "The hand's number."),
         ("session", "The session."), ("profile", "The profile it was audited under."),
         ("dialect", "The log's format."), ("game", "The game."), ("betting", "Site hands: the betting structure."),
         ("unit", "What amounts count: chips, or cents of this currency."), ("table_name", "The table."),
         ("started_at", "When it started, as written."), ("started_at_text", "As written in the log."),
         ("time_zone", "The time zone the log names."), ("started_at_utc", "The instant, when the zone is known."),
         ("play_date", "The date it was played."), ("week", "The Monday of its week."),
         ("session_date", "Its session's date (its own date outside a session)."),
         ("audited", "False for a game the audit does not cover (unsupported_hands)."),
         ("button_seat", "The button's seat."), ("seats", "Seats listed."), ("players", "Players dealt in."),
         ("pot_total", "Everything that went into the pots, in unit."), ("rake", "The house's take, in unit."),
         ("carried", "A pot carried over, in unit."), ("redeal", "Dealt again after everyone checked."),
         ("violations", "Findings of severity violation."), ("warnings", "Findings of severity warning."),
         ("errors", "Findings of severity error."),
         ("corrected_before", _CORRECTED_BEFORE))),
    "finding_details": (
        f"""
        WITH every_hand AS ({_EVERY_HAND})
        SELECT f.file_sha, f.seq, f.file, f.session, f.hand_key, f.hand_id,
               CASE WHEN f.hand_key IS NULL THEN 'session' WHEN e.audited THEN 'hand'
                    WHEN e.hand_key IS NOT NULL THEN 'unsupported' ELSE 'unreadable' END AS scope,
               f.line, f.rule, f.severity, f.player, f.street_code AS street,
               coalesce(st.street_name, f.street) AS street_name, st.street_order, f.pot_index, p.name AS pot,
               f.message, f.expected, f.actual, f.msg_id, f.params,
               coalesce(f.profile, e.profile, pe.profile, s.profile) AS profile,
               e.dialect, coalesce(e.table_name, s.table_name) AS table_name, e.unit, e.started_at,
               coalesce(CAST(e.started_at AS DATE), CAST(pe.started_at AS DATE), s.session_date) AS play_date,
               CAST(date_trunc('week', coalesce(CAST(e.started_at AS DATE), CAST(pe.started_at AS DATE),
                                                s.session_date)) AS DATE) AS week,
               coalesce(s.session_date, CAST(e.started_at AS DATE), CAST(pe.started_at AS DATE)) AS session_date
        FROM findings AS f
        LEFT JOIN every_hand AS e ON e.hand_key = f.hand_key
        LEFT JOIN parse_errors AS pe ON pe.hand_key = f.hand_key AND e.hand_key IS NULL
        LEFT JOIN session_details AS s ON s.file_sha = f.file_sha AND s.session = f.session
        LEFT JOIN streets AS st ON st.street = f.street_code
        LEFT JOIN pots AS p ON p.hand_key = f.hand_key AND p.pot_index = f.pot_index""",
        "Every finding with its hand, file, session, profile and date: findings about a hand, a whole session "
        "(STANDINGS: no hand), a hand of another game (UNSUPPORTED_GAME) and an unreadable hand (PARSE_ERROR). "
        "Key: file_sha, seq.",
        (("file_sha", "The file."), ("seq", "Position in the file."), ("file", "The file's path."),
         ("session", "The session."), ("hand_key", "The hand; null for a session's findings."),
         ("hand_id", "The hand's number."),
         ("scope", "hand (an audited hand), session (the whole session), unsupported (another game), unreadable "
                   "(the block could not be read)."),
         ("line", "The line in the file."), ("rule", "The rule id."), ("severity", "violation, warning or error."),
         ("player", "The player concerned."), ("street", "The street code (streets)."),
         ("street_name", "The street in words."), ("street_order", "The street's order in a hand."),
         ("pot_index", "The pot the finding is about (pots.pot_index)."), ("pot", "That pot's name (pots.name)."),
         ("message", "What went wrong, in English."), ("expected", "What the rules expected."),
         ("actual", "What the log shows."), ("msg_id", "The message's id (findings.msg_id)."),
         ("params", "The message's parameters, a JSON object (findings.params)."),
         ("profile", "The profile the finding was judged under."),
         ("dialect", "The log's format."), ("table_name", "The table."),
         ("unit", "What the hand's amounts count."), ("started_at", "When the hand started."),
         ("play_date", "The date of play: the hand's, else the session's."), ("week", "The Monday of play_date's week."),
         ("session_date", "The session's date."))),
    "action_details": (
        """
        SELECT a.hand_key, a.seq, a.file_sha, h.file, a.hand_id, h.session, h.profile, h.dialect, h.table_name,
               h.unit, h.started_at, CAST(h.started_at AS DATE) AS play_date, a.line, a.street, st.street_name,
               st.street_order, a.player, a.kind, a.amount, a.to_amount, a.all_in, a.timed_out, a.took, a.cards,
               a.card_list, a.detail, a.pot_index, p.name AS pot, p.amount AS pot_amount, h.pot_total
        FROM actions AS a
        JOIN hands AS h ON h.hand_key = a.hand_key
        LEFT JOIN streets AS st ON st.street = a.street
        LEFT JOIN pots AS p ON p.hand_key = a.hand_key AND p.pot_index = a.pot_index""",
        "Every action with its hand, street and, for a collect line, the pot collected from. Key: hand_key, seq.",
        (("hand_key", "The hand."), ("seq", "Position in the hand."), ("file_sha", "The file."),
         ("file", "The file's path."), ("hand_id", "The hand's number."), ("session", "The session."),
         ("profile", "The profile."), ("dialect", "The log's format."), ("table_name", "The table."),
         ("unit", "What amount counts."), ("started_at", "When the hand started."),
         ("play_date", "The date of play."), ("line", "The line in the file."), ("street", "The street code."),
         ("street_name", "The street in words."), ("street_order", "The street's order in a hand."),
         ("player", "Who acted."), ("kind", "What the line says happened (actions.kind)."),
         ("amount", "Chips of the line (actions.amount), in unit."), ("to_amount", "A raise: the bet it raises to."),
         ("all_in", "All-in."), ("timed_out", "The player's time ran out."), ("took", "Seconds taken."),
         ("cards", "The cards as written."), ("card_list", "The cards as a list."),
         ("detail", "A show's description, a collect line's pot as written, an event's text."),
         ("pot_index", "A collect line: the pot (pots.pot_index)."), ("pot", "That pot's name."),
         ("pot_amount", "That pot's amount."), ("pot_total", "All the hand's pots together."))),
    "pot_details": (
        f"""
        WITH corrected AS ({_CORRECTED}),
        pot_findings AS (
            SELECT hand_key, pot_index, list(rule ORDER BY line, seq) AS rules,
                   list(message ORDER BY line, seq) AS messages
            FROM findings WHERE pot_index IS NOT NULL GROUP BY hand_key, pot_index)
        SELECT p.hand_key, p.pot_index, w.player, p.file_sha, h.file, p.hand_id, h.session, h.profile,
               h.table_name, h.unit, h.started_at, CAST(h.started_at AS DATE) AS play_date, p.name AS pot,
               p.amount AS pot_amount, p.eligible, p.winners, w.should_award, w.collected,
               w.collected - w.should_award AS difference, pf.hand_key IS NOT NULL AS misawarded,
               coalesce(pf.rules, []) AS finding_rules, coalesce(pf.messages, []) AS finding_messages,
               k.corrected_before
        FROM pots AS p
        JOIN hands AS h ON h.hand_key = p.hand_key
        LEFT JOIN awards AS w ON w.hand_key = p.hand_key AND w.pot_index = p.pot_index
        LEFT JOIN pot_findings AS pf ON pf.hand_key = p.hand_key AND pf.pot_index = p.pot_index
        LEFT JOIN corrected AS k ON k.hand_key = p.hand_key""",
        "Every pot with what each player should have received and collected from it, and the findings about it "
        "(a pot is misawarded when a finding says so). Key: hand_key, pot_index, player.",
        (("hand_key", "The hand."), ("pot_index", "The pot."),
         ("player", "A player who should receive or collected something (null: nobody)."), ("file_sha", "The file."),
         ("file", "The file's path."), ("hand_id", "The hand's number."), ("session", "The session."),
         ("profile", "The profile."), ("table_name", "The table."), ("unit", "What the amounts count."),
         ("started_at", "When the hand started."), ("play_date", "The date of play."),
         ("pot", "The pot's name: pot, main, side-1, ..."), ("pot_amount", "Chips in the pot."),
         ("eligible", "Players who can win it."), ("winners", "Players the rules give it to."),
         ("should_award", "What the rules give this player from it."),
         ("collected", "What the log says this player collected from it."),
         ("difference", "collected - should_award."),
         ("misawarded", "A finding says this pot was paid wrong (winner, amount or odd chip)."),
         ("finding_rules", "The rule ids of the findings about this pot, in line order."),
         ("finding_messages", "Their messages."),
         ("corrected_before", _CORRECTED_BEFORE))),
    "player_hands": (
        f"""
        WITH corrected AS ({_CORRECTED}),
        named AS (
            SELECT hand_key, player,
                   count(*) FILTER (WHERE severity = 'violation') AS violations,
                   count(*) FILTER (WHERE severity = 'warning') AS warnings
            FROM findings WHERE hand_key IS NOT NULL AND player IS NOT NULL GROUP BY hand_key, player)
        SELECT s.hand_key, s.player, s.file_sha, h.file, s.hand_id, h.session, h.profile, h.dialect, h.table_name,
               h.unit, h.started_at, CAST(h.started_at AS DATE) AS play_date,
               CAST(date_trunc('week', h.started_at) AS DATE) AS week, s.seat, s.start_stack, s.end_stack,
               s.contributed, s.should_receive, s.received, s.received - s.contributed AS net,
               s.received - s.should_receive AS misallocated, coalesce(n.violations, 0) AS violations,
               coalesce(n.warnings, 0) AS warnings, s.owed, k.corrected_before
        FROM seats AS s
        JOIN hands AS h ON h.hand_key = s.hand_key
        LEFT JOIN named AS n ON n.hand_key = s.hand_key AND n.player = s.player
        LEFT JOIN corrected AS k ON k.hand_key = s.hand_key
        WHERE s.dealt_in""",
        "One row per player dealt in per hand: chips in and out, and the findings naming the player in that hand. "
        "Key: hand_key, player.",
        (("hand_key", "The hand."), ("player", "The player."), ("file_sha", "The file."), ("file", "The file's path."),
         ("hand_id", "The hand's number."), ("session", "The session."), ("profile", "The profile."),
         ("dialect", "The log's format."), ("table_name", "The table."), ("unit", "What the amounts count."),
         ("started_at", "When the hand started."), ("play_date", "The date of play."),
         ("week", "The Monday of its week."), ("seat", "The player's seat."),
         ("start_stack", "Chips at the start."), ("end_stack", "Chips at the end."),
         ("contributed", "What the player put in."), ("should_receive", "What the rules give the player."),
         ("received", "What the player collected."), ("net", "received - contributed."),
         ("misallocated", "received - should_receive: more (or, below 0, less) than the rules give."),
         ("violations", "Violations naming the player in this hand."),
         ("warnings", "Warnings naming the player in this hand."),
         ("owed", "What the verdict says this hand owes the player (below 0: the player owes), in unit (seats.owed)."),
         ("corrected_before", _CORRECTED_BEFORE))),
}
"""The analyst views, in dependency order: name -> (SQL body, comment, column comments)."""


def view_sql(name: str, temporary: bool = False) -> str:
    """``CREATE OR REPLACE [TEMP] VIEW`` for one of ``VIEWS``."""
    return f"CREATE OR REPLACE {'TEMP ' if temporary else ''}VIEW {name} AS {VIEWS[name][0].strip()}"


def view_comment_sql(name: str) -> list[str]:
    """``COMMENT ON`` the view and each of its columns."""
    _, comment, columns = VIEWS[name]
    return [f"COMMENT ON VIEW {name} IS {quote(comment)}"] + [
        f"COMMENT ON COLUMN {name}.{column} IS {quote(text)}" for column, text in columns]


# ---------------------------------------------------------------------------------------------- upgrades
UPGRADE_FROM_1: Final = (
    "ALTER TABLE hands ADD COLUMN unit VARCHAR",
    "ALTER TABLE hands ADD COLUMN time_zone VARCHAR",
    f"ALTER TABLE hands ADD COLUMN started_at_utc {TIMESTAMPTZ}",
    "UPDATE hands SET unit = coalesce(nullif(currency, ''), 'chips')",
    "ALTER TABLE actions ADD COLUMN card_list VARCHAR[]",
    "ALTER TABLE actions ADD COLUMN pot_index INTEGER",
    "UPDATE actions SET card_list = string_split(replace(cards, ' | ', ' '), ' ') WHERE cards IS NOT NULL",
    "ALTER TABLE findings ADD COLUMN profile VARCHAR",
    "ALTER TABLE findings ADD COLUMN street_code VARCHAR",
    "ALTER TABLE findings ADD COLUMN pot_index INTEGER",
    "ALTER TABLE findings ADD COLUMN msg_id VARCHAR",
    "ALTER TABLE findings ADD COLUMN params VARCHAR",
    "UPDATE findings SET profile = (SELECT h.profile FROM hands AS h WHERE h.hand_key = findings.hand_key)",
    "UPDATE findings SET street_code = CASE street "
    + " ".join(f"WHEN {quote(name)} THEN {quote(code)}" for code, name in STREETS) + " END",
    "ALTER TABLE parse_errors ADD COLUMN started_at TIMESTAMP",
)
"""Schema 1 -> 2: the new columns, filled where the stored rows allow (``time_zone``, ``started_at_utc``, the pot
of a collect line or a finding and the date of an unreadable block stay null: the rows do not hold them)."""

UPGRADE_FROM_2: Final = (
    "ALTER TABLE hands ADD COLUMN corrects VARCHAR[]",
    "ALTER TABLE seats ADD COLUMN owed BIGINT",
    "UPDATE seats SET owed = should_receive - received",
)
"""Schema 2 -> 3: ``seats.owed`` as the stored rows give it (the verdict's rake and unknown winners need the log;
ingest the logs into a new database for the verdict's own figures), ``hands.corrects`` null (which stacks the
table corrected is known only by replaying the session)."""
