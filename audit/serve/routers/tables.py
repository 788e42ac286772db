"""``/api/v1/tables``: the live table (INTERFACE.md, "The live table"), scoped to the club like every route; the
pages for people (``/tables``) are ``audit.serve.routers.table_pages``, on the same operations.

A table is its opening request and its entries (``audit.live``); both live in two tables of the service's
database (``live_tables``, ``live_entries``, defined in ``audit.serve.schema``: additions to the DuckDB surface;
every query on them is ``audit.serve.live_rows``), each entry written by the service's one writer before it is
answered, so a restart loses none: the table is rebuilt by replaying them. Every change bumps the table's
``version``; an entry made on another version is refused with 409 (``StaleVersion``: two phones cannot
interleave). A hand played out is stored as the club's upload (``Service.upload``): its findings, reports and
dispute page are those of any upload. A refusal (``audit.live.Refusal``) leaves the operations as it is and
becomes a 400 or 409 with its English words here, and the page's language on a page.

A table's work (an entry, an undo, its state, closing it, rebuilding it after a restart) runs off the event loop
in the club's turn of the explanations pool (``@slow``, ``Service.in_thread``), under the table's lock: one
club's long table slows only that club. A change that may have been left half made there (the club's turn ran
out while it ran, or the table wrote a line it cannot read) drops the table held in memory: the next request
rebuilds it from its stored rows, once however many ask for it at the same time.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import secrets
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse

from audit.live import EntryError, Table, TableConfig, TableError, UnreadableLine, check_version
from audit.serve import live_rows
from audit.serve.deps import api_club, get_service
from audit.serve.guard import size_words
from audit.serve.models import Problem, errors
from audit.serve.service import Service, slow

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

    from audit.findings import Finding

T = TypeVar("T")

router = APIRouter()
API = "/api/v1/tables"

MAX_BODY = 64 * 1024
"""The largest JSON body a table's route reads (a table is under 2 KB, an entry under 200 bytes): 413 above."""
REFUSED: dict[int | str, dict[str, object]] = {
    400: {"model": Problem, "description": "An entry (or a table) that cannot be understood"},
    404: {"model": Problem, "description": "No such table of this club"},
    409: {"model": Problem, "description": "The table changed since the version the entry was made on, or it "
                                           "takes no such request now (closed; a hand in play; nothing to undo)"},
}


def refusals(*codes: int) -> dict[int | str, dict[str, object]]:
    return {c: REFUSED[c] if c in REFUSED else errors(c)[c] for c in codes}


@dataclass
class Held:
    """A table in memory: rebuilt from its rows, changed only under its lock."""

    table: Table
    version: int
    lock: asyncio.Lock
    stored: set[int]  # the hands already stored as uploads


class Tables:
    """The live tables of one running service (kept on ``app.state``)."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.held: dict[tuple[str, str], Held] = {}
        self.loading: dict[tuple[str, str], asyncio.Future[Held]] = {}  # tables being rebuilt from their rows

    async def writer(self, job: Any) -> Any:
        return await self.service.write(job)

    async def get(self, club: str, table_id: str) -> Held:
        """The club's table (404 for any other club's, or none), rebuilt from its rows when it is not held: once,
        however many requests ask for it meanwhile."""
        key = (club, table_id)
        held = self.held.get(key)
        if held is not None:
            return held
        loading = self.loading.get(key)
        if loading is None:
            loading = asyncio.ensure_future(self._load(club, table_id))
            self.loading[key] = loading
            loading.add_done_callback(lambda done: self._loaded(key, done))
        return await asyncio.shield(loading)  # (a client that goes away does not stop the others' rebuild)

    def _loaded(self, key: tuple[str, str], done: asyncio.Future[Held]) -> None:
        if self.loading.get(key) is done:
            del self.loading[key]
        if not done.cancelled():
            done.exception()  # (seen: a rebuild whose every client went away is not reported as never retrieved)

    async def _load(self, club: str, table_id: str) -> Held:
        row = await self.service.in_thread(_read_table, self.service, club, table_id)
        if row is None:
            raise HTTPException(404, "no such table")
        config, version, closed, entries = row
        sealed = config.get("sealed", 0)  # hands stored with their claims before an undo took back the entry
        try:
            table = await self.service.in_thread(_rebuild, TableConfig.from_json(config), entries, closed,
                                                 sealed if type(sealed) is int else 0)
        except TableError as exc:  # a table opened before its players' names were checked (UnreadableLine)
            raise TableError("refusal.not_rebuilt", reason=str(exc)) from None
        held = Held(table, version, asyncio.Lock(), set())
        self.held[(club, table_id)] = held
        async with held.lock:
            await self.store_hands(club, table_id, held)  # a hand played out just before a restart
        return held

    def drop(self, club: str, table_id: str, held: Held) -> None:
        """Forget ``held`` (the next request rebuilds the table from its rows)."""
        if self.held.get((club, table_id)) is held:
            del self.held[(club, table_id)]

    @asynccontextmanager
    async def locked(self, club: str, table_id: str) -> AsyncIterator[Held]:
        """The club's table under its lock (the one held when the lock is taken: one dropped meanwhile is rebuilt)."""
        while True:
            held = await self.get(club, table_id)
            await held.lock.acquire()
            if self.held.get((club, table_id)) is held:
                break
            held.lock.release()
        try:
            yield held
        finally:
            held.lock.release()

    async def change(self, club: str, table_id: str, held: Held, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)``, a change of the table, in the club's turn. An entry that cannot be understood, or a
        request the table's state does not take, changes nothing; any other way out (the club's turn ran out
        while the work ran, a line the table cannot read) may leave it half made: the table is dropped."""
        try:
            return await self.service.in_thread(work, *args)
        except BaseException as exc:
            if isinstance(exc, UnreadableLine) or not isinstance(exc, (EntryError, TableError)):
                self.drop(club, table_id, held)
            raise

    async def receipt(self, club: str, table_id: str, held: Held) -> dict[str, Any] | None:
        """The closed session's receipt: its log's verdict, sealed with the table's close link in the club's chain
        (the session's head), signed."""
        from audit.serve.disputes import session_receipt
        from audit.store.ingest import profile_label

        config = held.table.config
        data = (await self.service.in_thread(_log, held.table)).encode("utf-8")

        def seal(receipt: dict[str, Any]) -> dict[str, Any]:
            return self.service.seal_link(club, "close", table_id, receipt)

        return await self.service.in_thread(session_receipt, data, f"{config.name} - {table_id}.txt",
                                            profile_label(config.profile, config.options), seal)

    async def store_hands(self, club: str, table_id: str, held: Held) -> list[dict[str, Any]]:
        """Each hand played out and not yet stored, as the club's upload."""
        out: list[dict[str, Any]] = []
        table = held.table
        for finished in table.final_hands():
            if finished.number in held.stored:
                continue
            data = table.upload_text(finished).encode("utf-8")
            name = f"{table.config.name} - {table_id} - hand {finished.number}.txt"
            outcome = await self.service.upload(club, name, data, table.config.profile)
            held.stored.add(finished.number)
            out.append(outcome.as_dict())
        return out


def _read_table(service: Service, club: str, table_id: str) -> tuple[dict[str, Any], int, bool,
                                                                        list[dict[str, Any]]] | None:
    return live_rows.read_table(service.db.cursor(), club, table_id)


def tables_listed(service: Service, club: str) -> list[dict[str, Any]]:
    """The club's tables, newest first (a quick read)."""
    return live_rows.list_tables(service.db.cursor(), club)


def tables_of(request: Request) -> Tables:
    tables: Tables | None = getattr(request.app.state, "live_tables", None)
    if tables is None:
        tables = Tables(get_service(request))
        request.app.state.live_tables = tables
    return tables


async def small_body(request: Request) -> bytes:
    """The request's body, of ``MAX_BODY`` bytes at most (413 above, from its Content-Length or as it passes)."""
    from audit.words import say

    too_large = HTTPException(413, say("serve.too_large", "en", limit=size_words(MAX_BODY)))
    length = request.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > MAX_BODY:
        raise too_large
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        parts.append(chunk)
    return b"".join(parts)


def read_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # (RecursionError: arrays nested thousands deep)
        raise EntryError("refusal.body_json") from None


async def json_body(request: Request) -> Any:
    return read_json(await small_body(request))


async def version_in(request: Request) -> object:
    """The ``version`` of an optional JSON body (undo, close)."""
    body = await small_body(request)
    if not body.strip():
        return None
    data = read_json(body)
    return data.get("version") if isinstance(data, dict) else None


def state_of(table_id: str, held: Held, state: dict[str, Any]) -> dict[str, Any]:
    """The table's ``state`` (``Table.state``, made in the club's turn) with its id and version."""
    state["id"] = table_id
    state["version"] = held.version
    return state


# the table's work, in the club's turn of the explanations pool (``Service.in_thread``)
@slow
def _opened(config: TableConfig) -> tuple[Table, dict[str, Any]]:
    table = Table(config)
    return table, table.state()


@slow
def _rebuild(config: TableConfig, entries: list[dict[str, Any]], closed: bool, sealed: int) -> Table:
    return Table.replay(config, entries, closed, sealed)


@slow
def _entered(table: Table, entry: dict[str, Any]) -> tuple[list[Finding], str, dict[str, Any]]:
    findings = table.apply(entry)
    return findings, json.dumps(table.entries[-1]), table.state()


@slow
def _undone(table: Table) -> dict[str, Any]:
    table.undo()
    return table.state()


@slow
def _closed(table: Table) -> tuple[dict[str, Any], dict[str, Any]]:
    verdict = table.verdict() if table.closed else table.close()
    return verdict, table.state()


@slow
def _state(table: Table) -> dict[str, Any]:
    return table.state()


@slow
def _log(table: Table) -> str:
    return table.log()


# ------------------------------------------------------------------------------------------ the operations
async def open_table(tables: Tables, club: str, body: Any) -> tuple[str, Held, dict[str, Any]]:
    table_id = secrets.token_hex(6)
    now = dt.datetime.now()
    try:
        config = TableConfig.from_request(body, table_id, now.strftime("%Y/%m/%d %H:%M:%S"))
        table, state = await tables.service.in_thread(_opened, config)
    except TableError as exc:  # a table that cannot be opened as asked is not understood: 400, not 409
        raise EntryError(exc.key, **exc.params) from None
    await tables.writer(lambda cur: live_rows.insert_table(cur, club, table_id, config, now))
    held = Held(table, 0, asyncio.Lock(), set())
    tables.held[(club, table_id)] = held
    return table_id, held, state


async def store_change(tables: Tables, club: str, table_id: str, held: Held,
                       write: Callable[[duckdb.DuckDBPyConnection, int], None]) -> None:
    """A change of the table, ``write(cursor, next_version)`` (one of ``live_rows``' changes, one transaction),
    stored before it is answered; the held table then takes the version. A change that cannot be stored drops
    the table held in memory: the table is what its rows say."""
    version = held.version + 1
    try:
        await tables.writer(lambda cur: write(cur, version))
    except BaseException:
        tables.held.pop((club, table_id), None)
        raise
    held.version = version


async def add_entry(tables: Tables, club: str, table_id: str,
                    body: Any) -> tuple[Held, list[Finding], list[Any], dict[str, Any]]:
    """One entry, stored before it is answered: (the table, its findings, the uploads of a hand played out, the
    table's state)."""
    async with tables.locked(club, table_id) as held:
        if not isinstance(body, dict):
            raise EntryError("refusal.entry_object")
        check_version(body.get("version"), held.version)
        entry = {k: body[k] for k in ("player", "action", "to", "count", "cards") if k in body}
        entry["at"] = dt.datetime.now().strftime("%Y/%m/%d %H:%M:%S")
        table = held.table
        seq = len(table.entries)
        findings, text, state = await tables.change(club, table_id, held, _entered, table, entry)
        await store_change(tables, club, table_id, held,
                           lambda cur, version: live_rows.store_entry(cur, club, table_id, table.config, seq, text,
                                                                     version))
        stored = await tables.store_hands(club, table_id, held)
        return held, findings, stored, state_of(table_id, held, state)


async def undo_entry(tables: Tables, club: str, table_id: str, version: object) -> tuple[Held, dict[str, Any]]:
    async with tables.locked(club, table_id) as held:
        check_version(version, held.version)
        table = held.table
        seq = len(table.entries) - 1
        state = await tables.change(club, table_id, held, _undone, table)
        # the hands stored stay as stored: the entry taken back may have been the one that closed their claims
        config = dict(table.config.as_json(), sealed=table.sealed) if table.sealed else None
        await store_change(tables, club, table_id, held,
                           lambda cur, version: live_rows.remove_entry(cur, club, table_id, table.config, seq,
                                                                      version, config))
        return held, state_of(table_id, held, state)


async def close_table(tables: Tables, club: str, table_id: str,
                      version: object) -> tuple[Held, dict[str, Any], dict[str, Any]]:
    """Close the table (again: nothing changes): (the table, the session's verdict, the table's state)."""
    async with tables.locked(club, table_id) as held:
        check_version(version, held.version)
        table = held.table
        if table.closed:
            verdict, state = await tables.service.in_thread(_closed, table)
            verdict["receipt"] = await tables.receipt(club, table_id, held)
            return held, verdict, state_of(table_id, held, state)
        verdict, state = await tables.change(club, table_id, held, _closed, table)
        await store_change(tables, club, table_id, held,
                           lambda cur, version: live_rows.mark_closed(cur, club, table_id, table.config, version))
        await tables.store_hands(club, table_id, held)
        verdict["receipt"] = await tables.receipt(club, table_id, held)
        return held, verdict, state_of(table_id, held, state)


async def table_state(tables: Tables, club: str, table_id: str) -> tuple[Held, dict[str, Any]]:
    """The table's state, read under its lock (never in the middle of a change)."""
    async with tables.locked(club, table_id) as held:
        return held, state_of(table_id, held, await tables.service.in_thread(_state, held.table))


# ------------------------------------------------------------------------------------------ the routes
@contextmanager
def answered() -> Iterator[None]:
    """A refusal as the API says it: 400 for what cannot be understood, 409 for what the table's state does not
    take (a stale version, a closed table, nothing to undo), in English."""
    try:
        yield
    except EntryError as exc:
        raise HTTPException(400, str(exc)) from None
    except TableError as exc:
        raise HTTPException(409, str(exc)) from None


@router.post(API, tags=["tables"], status_code=201, responses=refusals(400, 401, 403))
async def create(request: Request, club: str = Depends(api_club)) -> JSONResponse:
    """Open a table: `{"name", "profile", "options": {}, "seats": [{"seat", "player", "chips"}], "button"}`
    (and `small_blind` for the three blinds of stripped32) → 201 `{"id", "state"}`."""
    tables = tables_of(request)
    with answered():
        table_id, held, state = await open_table(tables, club, await json_body(request))
    return JSONResponse({"id": table_id, "state": state_of(table_id, held, state)}, status_code=201)


@router.get(API, tags=["tables"], responses=refusals(401, 403))
async def listed(request: Request, club: str = Depends(api_club)) -> list[dict[str, Any]]:
    """The club's tables, newest first."""
    tables = tables_of(request)
    return await tables.service.in_thread(tables_listed, tables.service, club)


@router.get(API + "/{table_id}", tags=["tables"], responses=refusals(401, 403, 404))
async def show(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """The table's state: the hand, the street, whose turn (`to_act`), what that player may do (`allowed`), the
    stacks, the bets, the pots, the findings so far, and the `version` an entry must be made on."""
    with answered():
        return (await table_state(tables_of(request), club, table_id))[1]


@router.post(API + "/{table_id}/events", tags=["tables"], responses=refusals(400, 401, 403, 404, 409))
async def event(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """One entry: `{"player", "action", "to"?, "count"?, "cards"?, "version"?}` → the new `state`, the `findings`
    this entry made, and `stored` (the uploads of a hand it ended). 400 only for an entry that cannot be
    understood; 409 when `version` is not the table's."""
    with answered():
        body = await json_body(request)
        _, findings, stored, state = await add_entry(tables_of(request), club, table_id, body)
    return {"state": state, "findings": [f.as_dict() for f in findings], "stored": stored}


@router.post(API + "/{table_id}/undo", tags=["tables"], responses=refusals(401, 403, 404, 409))
async def undo(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """Take back the last entry of the hand in play → the state before it."""
    with answered():
        return (await undo_entry(tables_of(request), club, table_id, await version_in(request)))[1]


@router.post(API + "/{table_id}/close", tags=["tables"], responses=refusals(401, 403, 404, 409))
async def close(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """End the session: the standings written, the session's rules judged → the session's verdict."""
    with answered():
        _, verdict, state = await close_table(tables_of(request), club, table_id, await version_in(request))
    verdict["state"] = state
    return verdict


@router.get(API + "/{table_id}/log", tags=["tables"], response_class=Response,
            responses={200: {"description": "The log so far",
                             "content": {"text/plain": {"schema": {"type": "string"}}}},
                       **refusals(401, 403, 404)})
async def log_text(request: Request, table_id: str, club: str = Depends(api_club)) -> PlainTextResponse:
    """The house-format text so far (`Cards: shown`)."""
    tables = tables_of(request)
    with answered():
        async with tables.locked(club, table_id) as held:
            return PlainTextResponse(await tables.service.in_thread(_log, held.table))
