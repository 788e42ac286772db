"""``/tables`` and ``/tables/{id}``: the live table's pages for people, on the operations of
``audit.serve.routers.tables`` (the JSON routes). Plain HTML forms (the service's pages use no script), phone
first; every action one tap on a button whose value says the action and its amount. A refusal is said in the
page's language (``audit.live.Refusal.words``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import FileResponse, RedirectResponse

from audit.live import EntryError, Refusal, StaleVersion, Table
from audit.live.actions import BY_NAME
from audit.serve.deps import page_club
from audit.serve.routers.pages import lang_of, message_page, render
from audit.serve.routers.tables import (
    add_entry, close_table, open_table, state_of, tables_listed, tables_of, undo_entry,
)
from audit.serve.service import slow
from audit.words import say

router = APIRouter()

PROFILES_AT_TABLE = ("home-open", "qdan", "stripped32")
SEAT_ROWS = 6
STREETS = frozenset({"pre", "deal", "first", "draw", "second", "showdown", "summary", "over", "closed"})


async def _form(request: Request) -> dict[str, str]:
    try:
        form = await request.form(max_files=0, max_fields=60)
    except Exception:
        return {}
    return {k: str(v) for k, v in form.items()}


@slow
def page_state(table: Table) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The table's state and, once closed, its verdict (in the club's turn of the explanations pool)."""
    return table.state(), table.verdict() if table.closed else None


def refusal_words(exc: Refusal, lang: str) -> str:
    """A refusal as the page says it: someone else's entry first in plain words, any other in the language."""
    return say("table.stale", lang) if isinstance(exc, StaleVersion) else exc.words(lang)


@router.get("/static/table.css", include_in_schema=False)
def table_stylesheet() -> Any:
    return FileResponse(Path(__file__).resolve().parent.parent / "static" / "table.css", media_type="text/css",
                        headers={"Cache-Control": "max-age=3600"})


@router.get("/tables", include_in_schema=False)
async def tables_page(request: Request, club: str = Depends(page_club)) -> Any:
    return await _tables_page(request, club)


async def _tables_page(request: Request, club: str, problem: str | None = None, status: int = 200,
                       given: dict[str, str] | None = None) -> Any:
    lang = lang_of(request)
    tables = tables_of(request)
    listed = await tables.service.in_thread(tables_listed, tables.service, club)
    return render(request, "tables.html", say("table.title", lang), status, club=club, tables=listed,
                  profiles=PROFILES_AT_TABLE, rows=range(1, SEAT_ROWS + 1), problem=problem, given=given or {})


@router.post("/tables", include_in_schema=False)
async def tables_open(request: Request, club: str = Depends(page_club)) -> Any:
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
    except Refusal as exc:
        return await _tables_page(request, club, refusal_words(exc, lang_of(request)), 400, form)
    return RedirectResponse(f"/tables/{table_id}?lang={lang_of(request)}", status_code=303)


@router.get("/tables/{table_id}", include_in_schema=False)
async def table_page(request: Request, table_id: str, club: str = Depends(page_club)) -> Any:
    return await _table_page(request, club, table_id)


async def _table_page(request: Request, club: str, table_id: str, problem: str | None = None,
                      status: int = 200, verdict: dict[str, Any] | None = None) -> Any:
    from audit.serve.disputes import finding_sentence

    lang = lang_of(request)
    tables = tables_of(request)
    try:
        async with tables.locked(club, table_id) as held:
            state, closed_verdict = await tables.service.in_thread(page_state, held.table)
            if closed_verdict is not None and verdict is None:
                closed_verdict["receipt"] = await tables.receipt(club, table_id, held)
    except HTTPException as exc:
        if exc.status_code != 404:
            raise
        return message_page(request, 404, "serve.not_found")
    except Refusal as exc:  # a table its entries cannot rebuild
        return message_page(request, 409, exc.key, **exc.params)
    state = state_of(table_id, held, state)
    if verdict is None:
        verdict = closed_verdict
    view = table_view(state, lang)
    entry = {(f["rule"], f["line"], f.get("player"), f.get("msg_id")) for f in state.get("entry_findings", [])}
    # the last entry's warnings with the undo that takes it back; the hand's earlier ones without
    view["entry_warnings"] = [finding_sentence(f, lang) for f in state.get("entry_findings", [])]
    view["warnings"] = [finding_sentence(f, lang) for f in state["findings"]
                        if (f["rule"], f["line"], f.get("player"), f.get("msg_id")) not in entry]
    last = state.get("last_hand")
    if last:
        view["last_warnings"] = [finding_sentence(f, lang) for f in last["findings"]]
    if verdict is not None:
        view["owes"] = owes_words(verdict.get("owes", []), lang)
    title = f"{held.table.config.name} · {say('table.nav', lang)}"
    return render(request, "table.html", title, status, club=club, state=state, view=view, table_id=table_id,
                  problem=problem, verdict=verdict)


def owes_words(owes: list[dict[str, Any]], lang: str) -> list[str]:
    """Who owes whom at the table's close, in words (the dispute page's sentences)."""
    from audit.explain import Transfer
    from audit.explain.phrases import correction_sentence

    return [correction_sentence(Transfer(t["from"], t["to"], t["chips"]), lang) for t in owes]


def pot_name(name: str, lang: str) -> str:
    """A pot's name on its bar (``main``, ``side-2``, ``pot``)."""
    if name == "main":
        return say("table.main_pot", lang)
    if name.startswith("side-"):
        return say("table.side_pot", lang, n=int(name[5:]))
    return say("table.the_pot", lang)


def pot_phrase(name: str, lang: str) -> str:
    """A pot in a sentence (``the main pot``; ``bote principal`` after ``del``)."""
    if name.startswith("side-"):
        return say("pot_phrase.side_n", lang, n=name[5:])
    return say("pot_phrase." + (name if name in ("main", "pot") else "pot"), lang)


def table_view(state: dict[str, Any], lang: str) -> dict[str, Any]:
    """What the page shows beyond the state: the buttons with their amounts (``allowed``'s, as the engine's
    ``legal_now`` gives them: the minimum, half the pot and the pot in whole bet units, the all-in), the pots as
    bars."""
    allowed = state["allowed"]
    view: dict[str, Any] = {"buttons": [], "amounts": [], "draws": [], "pots": [], "show": False}
    actions = allowed["actions"]
    for a in ("fold", "check", "offer-parole", "accept-parole", "decline-parole"):
        if a in actions:
            view["buttons"].append((a, say(BY_NAME[a].word, lang)))
    if "call" in actions:
        owed = min(allowed["to_call"], state["stacks"].get(state["to_act"], 0)) or allowed["to_call"]
        view["buttons"].append(("call", say(BY_NAME["call"].word, lang, amount=owed)))
    verb = "bet" if "bet" in actions else "raise" if "raise" in actions else None
    if verb is not None:
        low, high = allowed["min_to"], allowed["max_to"]
        all_in = allowed.get("all_in_to")
        choices = [("minimum", low), ("half_pot", allowed.get("half_pot_to")), ("pot", allowed.get("pot_to")),
                   ("all_in", all_in)]
        seen: set[int] = set()
        for word, amount in choices:
            if type(amount) is not int or amount in seen or amount <= 0:
                continue
            seen.add(amount)
            if amount == all_in:
                word = "all_in"  # every chip he has, whatever else the amount is
            label = say(BY_NAME[verb].word, lang, amount=amount)
            view["amounts"].append((f"{verb}:{amount}", label, say("table." + word, lang)))
        view["verb"] = verb
        view["low"], view["high"] = low, high
    if "draw" in actions:
        view["draws"].append(("stand-pat", say(BY_NAME["stand-pat"].word, lang)))
        for n in range(1, allowed["draw_max"] + 1):
            view["draws"].append((f"draw:{n}", say(BY_NAME["draw"].word, lang, n=n)))
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
        view["collects"] = [say("table.collects", lang, player=w, amount=a, pot=pot_phrase(name, lang))
                            for name, w, a in claimed + paid]
    view["street"] = say("table.street_" + state["street"], lang) if state["street"] in STREETS else state["street"]
    return view


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
    form = await _form(request)
    lang = lang_of(request)
    try:
        await add_entry(tables_of(request), club, table_id, entry_of_form(form))
    except Refusal as exc:
        return await _table_page(request, club, table_id, refusal_words(exc, lang),
                                 400 if isinstance(exc, EntryError) else 409)
    return RedirectResponse(f"/tables/{table_id}?lang={lang}", status_code=303)


@router.post("/tables/{table_id}/undo", include_in_schema=False)
async def table_undo(request: Request, table_id: str, club: str = Depends(page_club)) -> Any:
    form = await _form(request)
    try:
        await undo_entry(tables_of(request), club, table_id, form_version(form))
    except Refusal as exc:
        return await _table_page(request, club, table_id, refusal_words(exc, lang_of(request)), 409)
    return RedirectResponse(f"/tables/{table_id}?lang={lang_of(request)}", status_code=303)


@router.post("/tables/{table_id}/close", include_in_schema=False)
async def table_close(request: Request, table_id: str, club: str = Depends(page_club)) -> Any:
    form = await _form(request)
    try:
        _, verdict, _ = await close_table(tables_of(request), club, table_id, form_version(form))
    except Refusal as exc:
        return await _table_page(request, club, table_id, refusal_words(exc, lang_of(request)), 409)
    return await _table_page(request, club, table_id, verdict=verdict)
