"""``/api/v1/tables``: the live table (INTERFACE.md, "The live table"), scoped to the club like every route.

A table is its opening request and its entries (``audit.live``); both live in two tables of the service's
database (``live_tables``, ``live_entries``, defined in ``audit.serve.schema``: additions to the DuckDB surface), each
entry written by the service's one writer before it is answered, so a restart loses none: the table is rebuilt
by replaying them. Every change bumps the table's ``version``; an entry made on another version is refused with
409 (two phones cannot interleave). A hand played out is stored as the club's upload (``Service.upload``): its
findings, reports and dispute page are those of any upload.

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
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse

from audit.live import EntryError, Table, TableConfig, TableError, UnreadableLine
from audit.serve.db import transaction
from audit.serve.schema import LIVE_TABLES, create_tables
from audit.serve.deps import api_club, get_service, page_club
from audit.serve.guard import size_words
from audit.serve.models import Problem, errors
from audit.serve.service import Service, slow
from audit.trust.chain import append_table_link

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

    from audit.findings import Finding

T = TypeVar("T")

router = APIRouter()
API = "/api/v1/tables"

MAX_TABLES_LISTED = 200
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
        self.ready = False

    async def writer(self, job: Any) -> Any:
        return await self.service.write(job)

    async def ensure_tables(self) -> None:
        if not self.ready:
            await self.writer(_create_tables)
            self.ready = True

    async def get(self, club: str, table_id: str) -> Held:
        """The club's table (404 for any other club's, or none), rebuilt from its rows when it is not held: once,
        however many requests ask for it meanwhile."""
        await self.ensure_tables()
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
            raise HTTPException(409, f"this table cannot be rebuilt from its entries: {exc}") from None
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


def _create_tables(cur: duckdb.DuckDBPyConnection) -> None:
    with transaction(cur):
        create_tables(cur, LIVE_TABLES)


def _read_table(service: Service, club: str, table_id: str) -> tuple[dict[str, Any], int, bool,
                                                                        list[dict[str, Any]]] | None:
    cur = service.db.cursor()
    row = cur.execute("SELECT config, version, closed FROM live_tables WHERE club = ? AND table_id = ?",
                      [club, table_id]).fetchone()
    if row is None:
        return None
    entries = [json.loads(e) for (e,) in cur.execute(
        "SELECT entry FROM live_entries WHERE club = ? AND table_id = ? ORDER BY seq", [club, table_id]).fetchall()]
    return json.loads(row[0]), int(row[1]), bool(row[2]), entries


def _list_tables(service: Service, club: str) -> list[dict[str, Any]]:
    rows = service.db.cursor().execute(
        "SELECT table_id, config, version, closed, opened_at FROM live_tables WHERE club = ? "
        "ORDER BY opened_at DESC LIMIT ?", [club, MAX_TABLES_LISTED]).fetchall()
    return [{"id": r[0], "name": json.loads(r[1])["name"], "profile": json.loads(r[1])["profile"],
             "version": r[2], "closed": r[3], "opened_at": str(r[4])} for r in rows]


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
        raise HTTPException(400, "the body must be JSON") from None


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
def _page(table: Table) -> tuple[dict[str, Any], dict[str, Any] | None]:
    return table.state(), table.verdict() if table.closed else None


@slow
def _log(table: Table) -> str:
    return table.log()


# ------------------------------------------------------------------------------------------ the operations
async def open_table(tables: Tables, club: str, body: Any) -> tuple[str, Held, dict[str, Any]]:
    await tables.ensure_tables()
    table_id = secrets.token_hex(6)
    now = dt.datetime.now()
    try:
        config = TableConfig.from_request(body, table_id, now.strftime("%Y/%m/%d %H:%M:%S"))
        table, state = await tables.service.in_thread(_opened, config)
    except TableError as exc:
        raise HTTPException(400, str(exc)) from None
    text = json.dumps(config.as_json())

    def write(cur: duckdb.DuckDBPyConnection) -> None:
        with transaction(cur):
            cur.execute("INSERT INTO live_tables VALUES (?, ?, ?, 0, false, ?)", [club, table_id, text, now])
            append_table_link(cur, club, table_id, config.profile, config.options, "table", config.as_json())

    await tables.writer(write)
    held = Held(table, 0, asyncio.Lock(), set())
    tables.held[(club, table_id)] = held
    return table_id, held, state


async def store_change(tables: Tables, club: str, table_id: str, held: Held, sql: str, args: list[Any],
                       config: dict[str, Any] | None = None, link: tuple[str, dict[str, Any]] | None = None) -> None:
    """A change of the table (``sql`` with ``args``, and the table's ``config`` when given) and its next version,
    stored in one transaction before it is answered, with its ``link`` (kind, content) in the club's chain; the
    held table then takes the version. A change that cannot be stored drops the table held in memory: the table
    is what its rows say."""
    version = held.version + 1
    table = held.table.config

    def write(cur: duckdb.DuckDBPyConnection) -> None:
        with transaction(cur):
            cur.execute(sql, args)
            if link is not None:
                append_table_link(cur, club, table_id, table.profile, table.options, *link)
            cur.execute("UPDATE live_tables SET version = ? WHERE club = ? AND table_id = ?", [version, club, table_id])
            if config is not None:
                cur.execute("UPDATE live_tables SET config = ? WHERE club = ? AND table_id = ?",
                            [json.dumps(config), club, table_id])

    try:
        await tables.writer(write)
    except BaseException:
        tables.held.pop((club, table_id), None)
        raise
    held.version = version


def check_version(held: Held, version: object) -> None:
    if version is None:
        return
    if type(version) is not int or version != held.version:
        raise HTTPException(409, f"the table has changed since version {version} (it is at {held.version}): "
                                 "look again before entering")


async def add_entry(tables: Tables, club: str, table_id: str,
                    body: Any) -> tuple[Held, list[Finding], list[Any], dict[str, Any]]:
    """One entry, stored before it is answered: (the table, its findings, the uploads of a hand played out, the
    table's state)."""
    async with tables.locked(club, table_id) as held:
        if not isinstance(body, dict):
            raise HTTPException(400, "an entry is a JSON object")
        check_version(held, body.get("version"))
        entry = {k: body[k] for k in ("player", "action", "to", "count", "cards") if k in body}
        entry["at"] = dt.datetime.now().strftime("%Y/%m/%d %H:%M:%S")
        table = held.table
        seq = len(table.entries)
        try:
            findings, text, state = await tables.change(club, table_id, held, _entered, table, entry)
        except EntryError as exc:
            raise HTTPException(400, str(exc)) from None
        except TableError as exc:
            raise HTTPException(409, str(exc)) from None
        await store_change(tables, club, table_id, held, "INSERT INTO live_entries VALUES (?, ?, ?, ?)",
                           [club, table_id, seq, text], link=("entry", {"seq": seq, "entry": json.loads(text)}))
        stored = await tables.store_hands(club, table_id, held)
        return held, findings, stored, state_of(table_id, held, state)


async def undo_entry(tables: Tables, club: str, table_id: str, version: object) -> tuple[Held, dict[str, Any]]:
    async with tables.locked(club, table_id) as held:
        check_version(held, version)
        table = held.table
        seq = len(table.entries) - 1
        try:
            state = await tables.change(club, table_id, held, _undone, table)
        except TableError as exc:
            raise HTTPException(409, str(exc)) from None
        # the hands stored stay as stored: the entry taken back may have been the one that closed their claims
        config = dict(table.config.as_json(), sealed=table.sealed) if table.sealed else None
        await store_change(tables, club, table_id, held, "DELETE FROM live_entries WHERE club = ? AND table_id = ? "
                           "AND seq = ?", [club, table_id, seq], config, link=("undo", {"seq": seq}))
        return held, state_of(table_id, held, state)


async def close_table(tables: Tables, club: str, table_id: str,
                      version: object) -> tuple[Held, dict[str, Any], dict[str, Any]]:
    """Close the table (again: nothing changes): (the table, the session's verdict, the table's state)."""
    async with tables.locked(club, table_id) as held:
        check_version(held, version)
        table = held.table
        if table.closed:
            verdict, state = await tables.service.in_thread(_closed, table)
            verdict["receipt"] = await tables.receipt(club, table_id, held)
            return held, verdict, state_of(table_id, held, state)
        try:
            verdict, state = await tables.change(club, table_id, held, _closed, table)
        except TableError as exc:
            raise HTTPException(409, str(exc)) from None
        await store_change(tables, club, table_id, held, "UPDATE live_tables SET closed = true WHERE club = ? "
                           "AND table_id = ?", [club, table_id], link=("close", {}))
        await tables.store_hands(club, table_id, held)
        verdict["receipt"] = await tables.receipt(club, table_id, held)
        return held, verdict, state_of(table_id, held, state)


async def table_state(tables: Tables, club: str, table_id: str) -> tuple[Held, dict[str, Any]]:
    """The table's state, read under its lock (never in the middle of a change)."""
    async with tables.locked(club, table_id) as held:
        return held, state_of(table_id, held, await tables.service.in_thread(_state, held.table))


# ------------------------------------------------------------------------------------------ the routes
@router.post(API, tags=["tables"], status_code=201, responses=refusals(400, 401, 403))
async def create(request: Request, club: str = Depends(api_club)) -> JSONResponse:
    """Open a table: `{"name", "profile", "options": {}, "seats": [{"seat", "player", "chips"}], "button"}`
    (and `small_blind` for the three blinds of stripped32) → 201 `{"id", "state"}`."""
    tables = tables_of(request)
    table_id, held, state = await open_table(tables, club, await json_body(request))
    return JSONResponse({"id": table_id, "state": state_of(table_id, held, state)}, status_code=201)


@router.get(API, tags=["tables"], responses=refusals(401, 403))
async def listed(request: Request, club: str = Depends(api_club)) -> list[dict[str, Any]]:
    """The club's tables, newest first."""
    tables = tables_of(request)
    await tables.ensure_tables()
    return await tables.service.in_thread(_list_tables, tables.service, club)


@router.get(API + "/{table_id}", tags=["tables"], responses=refusals(401, 403, 404))
async def show(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """The table's state: the hand, the street, whose turn (`to_act`), what that player may do (`allowed`), the
    stacks, the bets, the pots, the findings so far, and the `version` an entry must be made on."""
    return (await table_state(tables_of(request), club, table_id))[1]


@router.post(API + "/{table_id}/events", tags=["tables"], responses=refusals(400, 401, 403, 404, 409))
async def event(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """One entry: `{"player", "action", "to"?, "count"?, "cards"?, "version"?}` → the new `state`, the `findings`
    this entry made, and `stored` (the uploads of a hand it ended). 400 only for an entry that cannot be
    understood; 409 when `version` is not the table's."""
    body = await json_body(request)
    _, findings, stored, state = await add_entry(tables_of(request), club, table_id, body)
    return {"state": state, "findings": [f.as_dict() for f in findings], "stored": stored}


@router.post(API + "/{table_id}/undo", tags=["tables"], responses=refusals(401, 403, 404, 409))
async def undo(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """Take back the last entry of the hand in play → the state before it."""
    return (await undo_entry(tables_of(request), club, table_id, await version_in(request)))[1]


@router.post(API + "/{table_id}/close", tags=["tables"], responses=refusals(401, 403, 404, 409))
async def close(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """End the session: the standings written, the session's rules judged → the session's verdict."""
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
    async with tables.locked(club, table_id) as held:
        return PlainTextResponse(await tables.service.in_thread(_log, held.table))


# ------------------------------------------------------------------------------------------ the pages
# ``/tables`` and ``/tables/{id}``: plain HTML forms (the service's pages use no script), phone first; every
# action one tap on a button whose value says the action and its amount.
PROFILES_AT_TABLE = ("home-open", "qdan", "stripped32")
SEAT_ROWS = 6


def _lang(request: Request) -> str:
    from audit.serve.routers.pages import lang_of

    return lang_of(request)


async def _form(request: Request) -> dict[str, str]:
    try:
        form = await request.form(max_files=0, max_fields=60)
    except Exception:
        return {}
    return {k: str(v) for k, v in form.items()}


@router.get("/static/table.css", include_in_schema=False)
def table_stylesheet() -> Any:
    from pathlib import Path

    from fastapi.responses import FileResponse

    return FileResponse(Path(__file__).resolve().parent.parent / "static" / "table.css", media_type="text/css",
                        headers={"Cache-Control": "max-age=3600"})


@router.get("/tables", include_in_schema=False)
async def tables_page(request: Request, club: str = Depends(page_club)) -> Any:
    return await _tables_page(request, club)


async def _tables_page(request: Request, club: str, problem: str | None = None, status: int = 200,
                       given: dict[str, str] | None = None) -> Any:
    from audit.serve.routers.pages import render
    from audit.words import say

    lang = _lang(request)
    tables = tables_of(request)
    await tables.ensure_tables()
    listed = await tables.service.in_thread(_list_tables, tables.service, club)
    return render(request, "tables.html", say("table.title", lang), status, club=club, tables=listed,
                  profiles=PROFILES_AT_TABLE, rows=range(1, SEAT_ROWS + 1), problem=problem, given=given or {})


@router.post("/tables", include_in_schema=False)
async def tables_open(request: Request, club: str = Depends(page_club)) -> Any:
    from fastapi.responses import RedirectResponse

    form = await _form(request)
    seats = []
    for i in range(1, SEAT_ROWS + 1):
        player = form.get(f"player{i}", "").strip()
        if player:
            chips = form.get(f"chips{i}", "").strip()
            seats.append({"seat": i, "player": player, "chips": whole_number(chips)})
    body: dict[str, Any] = {"name": form.get("name", ""), "profile": form.get("profile", "home-open"),
                            "seats": seats, "options": {}}
    for key in ("button", "small_blind"):
        value = form.get(key, "").strip()
        if value:
            body[key] = whole_number(value)
    try:
        table_id, _, _ = await open_table(tables_of(request), club, body)
    except HTTPException as exc:
        return await _tables_page(request, club, str(exc.detail), 400, form)
    return RedirectResponse(f"/tables/{table_id}?lang={_lang(request)}", status_code=303)


@router.get("/tables/{table_id}", include_in_schema=False)
async def table_page(request: Request, table_id: str, club: str = Depends(page_club)) -> Any:
    return await _table_page(request, club, table_id)


async def _table_page(request: Request, club: str, table_id: str, problem: str | None = None,
                      status: int = 200, verdict: dict[str, Any] | None = None) -> Any:
    from audit.serve.disputes import finding_sentence
    from audit.serve.routers.pages import message_page, render
    from audit.words import say

    lang = _lang(request)
    tables = tables_of(request)
    try:
        async with tables.locked(club, table_id) as held:
            state, closed_verdict = await tables.service.in_thread(_page, held.table)
            if closed_verdict is not None and verdict is None:
                closed_verdict["receipt"] = await tables.receipt(club, table_id, held)
    except HTTPException as exc:
        if exc.status_code != 404:
            raise
        return message_page(request, 404, "serve.not_found")
    state = state_of(table_id, held, state)
    if verdict is None:
        verdict = closed_verdict
    view = table_view(state, lang)
    view["warnings"] = [finding_sentence(f, lang) for f in state["findings"]]
    last = state.get("last_hand")
    if last:
        view["last_warnings"] = [finding_sentence(f, lang) for f in last["findings"]]
    title = f"{held.table.config.name} · {say('table.nav', lang)}"
    return render(request, "table.html", title, status, club=club, state=state, view=view, table_id=table_id,
                  problem=problem, verdict=verdict)


def pot_name(name: str, lang: str) -> str:
    from audit.words import say

    if name == "main":
        return say("table.main_pot", lang)
    if name.startswith("side-"):
        return say("table.side_pot", lang, n=int(name[5:]))
    return say("table.the_pot", lang)


def table_view(state: dict[str, Any], lang: str) -> dict[str, Any]:
    """What the page shows beyond the state: the buttons with their amounts, the pots as bars."""
    from audit.words import say

    allowed = state["allowed"]
    view: dict[str, Any] = {"buttons": [], "amounts": [], "draws": [], "pots": [], "show": False}
    actions = allowed["actions"]
    for a in ("fold", "check", "offer-parole", "accept-parole", "decline-parole"):
        if a in actions:
            view["buttons"].append((a, say("table." + a.replace("-", "_"), lang)))
    if "call" in actions:
        owed = min(allowed["to_call"], state["stacks"].get(state["to_act"], 0)) or allowed["to_call"]
        view["buttons"].append(("call", say("table.call", lang, amount=owed)))
    verb = "bet" if "bet" in actions else "raise" if "raise" in actions else None
    if verb is not None:
        low, high = allowed["min_to"], allowed["max_to"]
        pot = sum(p["amount"] for p in state["pots"])
        top = max(state["bets"].values(), default=0)
        owed = allowed["to_call"]
        choices = [("minimum", low), ("half_pot", top + (pot + owed) // 2), ("pot", top + pot + owed),
                   ("all_in", high)]
        unit = allowed.get("bet_unit", 1)
        seen: set[int] = set()
        for word, amount in choices:
            if type(unit) is int and unit > 1 and amount < high:  # a bet or raise by whole bet units (qdan)
                least = low - top + (-(low - top)) % unit  # the minimum increment, up to a whole unit
                amount = top + max(least, (amount - top) - (amount - top) % unit)
            amount = max(low, min(high, amount))
            if amount in seen or amount <= 0:
                continue
            seen.add(amount)
            label = say("table.bet_to" if verb == "bet" else "table.raise_to", lang, amount=amount)
            view["amounts"].append((f"{verb}:{amount}", label, say("table." + word, lang)))
        view["verb"] = verb
        view["low"], view["high"] = low, high
    if "draw" in actions:
        view["draws"].append(("stand-pat", say("table.stand_pat", lang)))
        for n in range(1, allowed["draw_max"] + 1):
            view["draws"].append((f"draw:{n}", say("table.draw", lang, n=n)))
    view["show"] = "show" in actions
    largest = max([p["amount"] for p in state["pots"]] + [1])
    for i, p in enumerate(state["pots"]):
        view["pots"].append({"name": pot_name(p["name"], lang), "amount": p["amount"], "main": i == 0,
                             "width": round(10 * p["amount"] / largest), "eligible": p["eligible"]})
    last = state.get("last_hand")
    if last:
        # what the host says was paid stands for the main pot (or the pot); the side pots as the table paid them
        claimed = [("main" if len(last["pots"]) > 1 else last["pots"][0]["name"], c["player"], c["chips"])
                   for c in last["claims"]]
        paid = [(p["name"], w, a) for p in last["pots"][1 if claimed else 0:] for w, a in p["awards"].items()]
        view["collects"] = [say("table.collects", lang, player=w, amount=a, pot=pot_name(name, lang))
                            for name, w, a in claimed + paid]
    view["street"] = say("table.street_" + state["street"], lang) if state["street"] in STREETS else state["street"]
    return view


STREETS = frozenset({"pre", "deal", "first", "draw", "second", "showdown", "summary", "over", "closed"})


def entry_of_form(form: dict[str, str]) -> dict[str, Any]:
    """A page's form as an API entry: the button's ``act`` (``raise:12``, ``draw:3``, ``show`` ...), the
    player, the version it was made on, the amount or cards typed."""
    act = form.get("act", "")
    action, _, amount = act.partition(":")
    entry: dict[str, Any] = {"player": form.get("player", ""), "action": action}
    if action == "other":
        entry["action"] = form.get("verb", "")
        amount = form.get("to", "").strip()
    if entry["action"] in ("bet", "raise"):
        entry["to"] = whole_number(amount)
    elif action == "draw":
        entry["count"] = whole_number(amount)
    elif action == "show":
        entry["cards"] = form.get("cards", "")
    elif action == "collect":
        amount = form.get("collect_to", "").strip()
        entry["to"] = whole_number(amount)
    version = form_version(form)
    if version is not None:
        entry["version"] = version
    return entry


def whole_number(text: str) -> int | str:
    """A form field's number (ASCII digits, at most 15: ``²`` and ``٣`` are digits to ``str.isdigit`` but no
    number here), else the text as typed, which the table then refuses as it refuses any other."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 15 else text


def form_version(form: dict[str, str]) -> int | None:
    """The table's version a page's form was made on (``None``: the form has none)."""
    version = whole_number(form.get("version", ""))
    return version if type(version) is int else None


@router.post("/tables/{table_id}", include_in_schema=False)
async def table_entry(request: Request, table_id: str, club: str = Depends(page_club)) -> Any:
    from fastapi.responses import RedirectResponse
    from audit.words import say

    form = await _form(request)
    lang = _lang(request)
    try:
        await add_entry(tables_of(request), club, table_id, entry_of_form(form))
    except HTTPException as exc:
        if exc.status_code == 404:
            raise
        problem = say("table.stale", lang) if exc.status_code == 409 and "version" in str(exc.detail) \
            else str(exc.detail)
        return await _table_page(request, club, table_id, problem, exc.status_code)
    return RedirectResponse(f"/tables/{table_id}?lang={lang}", status_code=303)


@router.post("/tables/{table_id}/undo", include_in_schema=False)
async def table_undo(request: Request, table_id: str, club: str = Depends(page_club)) -> Any:
    from fastapi.responses import RedirectResponse

    form = await _form(request)
    version = form_version(form)
    try:
        await undo_entry(tables_of(request), club, table_id, version)
    except HTTPException as exc:
        return await _table_page(request, club, table_id, str(exc.detail), exc.status_code)
    return RedirectResponse(f"/tables/{table_id}?lang={_lang(request)}", status_code=303)


@router.post("/tables/{table_id}/close", include_in_schema=False)
async def table_close(request: Request, table_id: str, club: str = Depends(page_club)) -> Any:
    form = await _form(request)
    version = form_version(form)
    try:
        _, verdict, _ = await close_table(tables_of(request), club, table_id, version)
    except HTTPException as exc:
        return await _table_page(request, club, table_id, str(exc.detail), exc.status_code)
    return await _table_page(request, club, table_id, verdict=verdict)
