"""``/api/v1/tables``: the live table (INTERFACE.md, "The live table"), scoped to the club like every route.

A table is its opening request and its entries (``audit.live``); both live in two tables of the service's
database (``live_tables``, ``live_entries``, created here where missing: additions to the DuckDB surface), each
entry written by the service's one writer before it is answered, so a restart loses none: the table is rebuilt
by replaying them. Every change bumps the table's ``version``; an entry made on another version is refused with
409 (two phones cannot interleave). A hand played out is stored as the club's upload (``Service.upload``): its
findings, reports and dispute page are those of any upload.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse

from audit.live import EntryError, Table, TableConfig, TableError
from audit.serve.db import transaction
from audit.serve.deps import api_club, get_service, page_club
from audit.serve.models import Problem, errors
from audit.serve.service import Service

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

router = APIRouter()
API = "/api/v1/tables"

LIVE_TABLES = (
    "CREATE TABLE IF NOT EXISTS live_tables (club VARCHAR NOT NULL, table_id VARCHAR NOT NULL, "
    "config VARCHAR NOT NULL, version INTEGER NOT NULL, closed BOOLEAN NOT NULL, opened_at TIMESTAMP NOT NULL, "
    "PRIMARY KEY (club, table_id))",
    "CREATE TABLE IF NOT EXISTS live_entries (club VARCHAR NOT NULL, table_id VARCHAR NOT NULL, "
    "seq INTEGER NOT NULL, entry VARCHAR NOT NULL, PRIMARY KEY (club, table_id, seq))",
)
MAX_TABLES_LISTED = 200
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
        self.ready = False

    async def writer(self, job: Any) -> Any:
        return await self.service.write(job)

    async def ensure_tables(self) -> None:
        if not self.ready:
            await self.writer(_create_tables)
            self.ready = True

    async def get(self, club: str, table_id: str) -> Held:
        """The club's table (404 for any other club's, or none)."""
        await self.ensure_tables()
        key = (club, table_id)
        held = self.held.get(key)
        if held is not None:
            return held
        row = await self.service.in_thread(_read_table, self.service, club, table_id)
        if row is None:
            raise HTTPException(404, "no such table")
        config, version, closed, entries = row
        sealed = config.get("sealed", 0)  # hands stored with their claims before an undo took back the entry
        table = await self.service.in_thread(Table.replay, TableConfig.from_json(config), entries, closed,
                                             sealed if type(sealed) is int else 0)
        held = self.held.get(key) or Held(table, version, asyncio.Lock(), set())
        self.held[key] = held
        await self.store_hands(club, table_id, held)  # a hand played out just before a restart
        return held

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
        for ddl in LIVE_TABLES:
            cur.execute(ddl)


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


async def json_body(request: Request) -> Any:
    try:
        return json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(400, "the body must be JSON") from None


async def version_in(request: Request) -> object:
    """The ``version`` of an optional JSON body (undo, close)."""
    body = await request.body()
    if not body.strip():
        return None
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(400, "the body must be JSON") from None
    return data.get("version") if isinstance(data, dict) else None


def state_of(table_id: str, held: Held) -> dict[str, Any]:
    state = held.table.state()
    state["id"] = table_id
    state["version"] = held.version
    return state


# ------------------------------------------------------------------------------------------ the operations
async def open_table(tables: Tables, club: str, body: Any) -> tuple[str, Held]:
    await tables.ensure_tables()
    table_id = secrets.token_hex(6)
    now = dt.datetime.now()
    try:
        config = TableConfig.from_request(body, table_id, now.strftime("%Y/%m/%d %H:%M:%S"))
        table = Table(config)
    except TableError as exc:
        raise HTTPException(400, str(exc)) from None
    text = json.dumps(config.as_json())

    def write(cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute("INSERT INTO live_tables VALUES (?, ?, ?, 0, false, ?)", [club, table_id, text, now])

    await tables.writer(write)
    held = Held(table, 0, asyncio.Lock(), set())
    tables.held[(club, table_id)] = held
    return table_id, held


async def store_change(tables: Tables, club: str, table_id: str, held: Held, sql: str, args: list[Any],
                       config: dict[str, Any] | None = None) -> None:
    """A change of the table (``sql`` with ``args``, and the table's ``config`` when given) and its next version,
    stored in one transaction before it is answered; the held table then takes the version. A change that cannot
    be stored drops the table held in memory: the table is what its rows say."""
    version = held.version + 1

    def write(cur: duckdb.DuckDBPyConnection) -> None:
        with transaction(cur):
            cur.execute(sql, args)
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


async def add_entry(tables: Tables, club: str, table_id: str, body: Any) -> tuple[Held, list[Any], list[Any]]:
    """One entry, stored before it is answered: (the table, its findings, the uploads of a hand played out)."""
    held = await tables.get(club, table_id)
    async with held.lock:
        if not isinstance(body, dict):
            raise HTTPException(400, "an entry is a JSON object")
        check_version(held, body.get("version"))
        entry = {k: body[k] for k in ("player", "action", "to", "count", "cards") if k in body}
        entry["at"] = dt.datetime.now().strftime("%Y/%m/%d %H:%M:%S")
        table = held.table
        seq = len(table.entries)
        try:
            findings = table.apply(entry)
        except EntryError as exc:
            raise HTTPException(400, str(exc)) from None
        except TableError as exc:
            raise HTTPException(409, str(exc)) from None
        text = json.dumps(table.entries[-1])
        await store_change(tables, club, table_id, held, "INSERT INTO live_entries VALUES (?, ?, ?, ?)",
                           [club, table_id, seq, text])
        stored = await tables.store_hands(club, table_id, held)
        return held, findings, stored


async def undo_entry(tables: Tables, club: str, table_id: str, version: object) -> Held:
    held = await tables.get(club, table_id)
    async with held.lock:
        check_version(held, version)
        table = held.table
        seq = len(table.entries) - 1
        try:
            table.undo()
        except TableError as exc:
            raise HTTPException(409, str(exc)) from None
        # the hands stored stay as stored: the entry taken back may have been the one that closed their claims
        config = dict(table.config.as_json(), sealed=table.sealed) if table.sealed else None
        await store_change(tables, club, table_id, held, "DELETE FROM live_entries WHERE club = ? AND table_id = ? "
                           "AND seq = ?", [club, table_id, seq], config)
        return held


async def close_table(tables: Tables, club: str, table_id: str, version: object) -> tuple[Held, dict[str, Any]]:
    held = await tables.get(club, table_id)
    async with held.lock:
        check_version(held, version)
        table = held.table
        if table.closed:
            return held, table.verdict()
        try:
            verdict = await tables.service.in_thread(table.close)
        except TableError as exc:
            raise HTTPException(409, str(exc)) from None
        await store_change(tables, club, table_id, held, "UPDATE live_tables SET closed = true WHERE club = ? "
                           "AND table_id = ?", [club, table_id])
        await tables.store_hands(club, table_id, held)
        return held, verdict


# ------------------------------------------------------------------------------------------ the routes
@router.post(API, tags=["tables"], status_code=201, responses=refusals(400, 401, 403))
async def create(request: Request, club: str = Depends(api_club)) -> JSONResponse:
    """Open a table: `{"name", "profile", "options": {}, "seats": [{"seat", "player", "chips"}], "button"}`
    (and `small_blind` for the three blinds of stripped32) → 201 `{"id", "state"}`."""
    tables = tables_of(request)
    table_id, held = await open_table(tables, club, await json_body(request))
    return JSONResponse({"id": table_id, "state": state_of(table_id, held)}, status_code=201)


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
    held = await tables_of(request).get(club, table_id)
    return state_of(table_id, held)


@router.post(API + "/{table_id}/events", tags=["tables"], responses=refusals(400, 401, 403, 404, 409))
async def event(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """One entry: `{"player", "action", "to"?, "count"?, "cards"?, "version"?}` → the new `state`, the `findings`
    this entry made, and `stored` (the uploads of a hand it ended). 400 only for an entry that cannot be
    understood; 409 when `version` is not the table's."""
    body = await json_body(request)
    held, findings, stored = await add_entry(tables_of(request), club, table_id, body)
    return {"state": state_of(table_id, held), "findings": [f.as_dict() for f in findings], "stored": stored}


@router.post(API + "/{table_id}/undo", tags=["tables"], responses=refusals(401, 403, 404, 409))
async def undo(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """Take back the last entry of the hand in play → the state before it."""
    held = await undo_entry(tables_of(request), club, table_id, await version_in(request))
    return state_of(table_id, held)


@router.post(API + "/{table_id}/close", tags=["tables"], responses=refusals(401, 403, 404, 409))
async def close(request: Request, table_id: str, club: str = Depends(api_club)) -> dict[str, Any]:
    """End the session: the standings written, the session's rules judged → the session's verdict."""
    held, verdict = await close_table(tables_of(request), club, table_id, await version_in(request))
    verdict["state"] = state_of(table_id, held)
    return verdict


@router.get(API + "/{table_id}/log", tags=["tables"], response_class=Response,
            responses={200: {"description": "The log so far",
                             "content": {"text/plain": {"schema": {"type": "string"}}}},
                       **refusals(401, 403, 404)})
async def log_text(request: Request, table_id: str, club: str = Depends(api_club)) -> PlainTextResponse:
    """The house-format text so far (`Cards: shown`)."""
    held = await tables_of(request).get(club, table_id)
    return PlainTextResponse(held.table.log())


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
            seats.append({"seat": i, "player": player, "chips": int(chips) if chips.isdigit() else chips})
    body: dict[str, Any] = {"name": form.get("name", ""), "profile": form.get("profile", "home-open"),
                            "seats": seats, "options": {}}
    for key in ("button", "small_blind"):
        value = form.get(key, "").strip()
        if value:
            body[key] = int(value) if value.isdigit() else value
    try:
        table_id, _ = await open_table(tables_of(request), club, body)
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
    try:
        held = await tables_of(request).get(club, table_id)
    except HTTPException:
        return message_page(request, 404, "serve.not_found")
    state = state_of(table_id, held)
    if held.table.closed and verdict is None:
        verdict = held.table.verdict()
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
        if last["claims"]:  # what the host says was paid (of the main pot; the side pots as the table paid them)
            where = pot_name(last["pots"][0]["name"] if len(last["pots"]) == 1 else "main", lang)
            view["collects"] = [say("table.collects", lang, player=c["player"], amount=c["chips"], pot=where)
                                for c in last["claims"]]
            view["collects"] += [say("table.collects", lang, player=w, amount=a, pot=pot_name(p["name"], lang))
                                 for p in last["pots"][1:] for w, a in p["awards"].items()]
        else:
            view["collects"] = [say("table.collects", lang, player=w, amount=a, pot=pot_name(p["name"], lang))
                                for p in last["pots"] for w, a in p["awards"].items()]
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
        entry["to"] = int(amount) if amount.isdigit() else amount
    elif action == "draw":
        entry["count"] = int(amount) if amount.isdigit() else amount
    elif action == "show":
        entry["cards"] = form.get("cards", "")
    elif action == "collect":
        amount = form.get("collect_to", "").strip()
        entry["to"] = int(amount) if amount.isdigit() else amount
    version = form_version(form)
    if version is not None:
        entry["version"] = version
    return entry


def form_version(form: dict[str, str]) -> int | None:
    """The table's version a page's form was made on (``None``: the form has none)."""
    version = form.get("version", "")
    return int(version) if version.isdigit() else None


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
        _, verdict = await close_table(tables_of(request), club, table_id, version)
    except HTTPException as exc:
        return await _table_page(request, club, table_id, str(exc.detail), exc.status_code)
    return await _table_page(request, club, table_id, verdict=verdict)
