"""The pages for people (server-rendered, no script, no outside resources): ``/`` to paste or upload a log and
pick the rules and the language; the verdict of a log, hand by hand, with links to each hand's dispute page;
the club's uploads and latest findings; sign-in with a club's token."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from audit.errors import AuditError
from audit.serve.bodies import NO_LOG, read_logs
from audit.serve.db import LOCAL_CLUB, Outcome, Upload
from audit.serve.deps import COOKIE, get_service, page_club
from audit.serve.disputes import finding_sentence, log_verdicts
from audit.serve.guard import request_lang
from audit.serve.routers.api import club_upload, explained_hand
from audit.serve.service import check_profile, profile_names
from audit.words import rule_name, say

router = APIRouter(include_in_schema=False)

_HERE = Path(__file__).resolve().parent.parent
LARGE_LOG_HANDS = 2000
"""A log with more hands than this shows its findings, not every verdict, on its result page (the verdicts
replay the whole log; each hand's page still has its own)."""
RECENT_FINDINGS = 100


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(_HERE / "templates")), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["quote"] = lambda value: quote(str(value), safe="")
    return env


def lang_of(request: Request) -> str:
    """The page's language: ``?lang=``, else the browser's first choice we have, else English."""
    return request_lang(request.scope, {k.lower(): v for k, v in request.headers.items()})


def render(request: Request, template: str, title: str, status: int = 200, **values: Any) -> HTMLResponse:
    """A page in the request's language (``values['lang']`` wins)."""
    lang = values.pop("lang", None) or lang_of(request)
    club = values.pop("club", None)
    who = "" if club is None else say("serve.local", lang) if club == LOCAL_CLUB else say("serve.club", lang, club=club)
    page = environment().get_template(template).render(
        lang=lang, title=title, who=who, signed_in=bool(request.cookies.get(COOKIE)) and club not in (None, LOCAL_CLUB),
        t=lambda key, **kw: say(key, lang, **kw), **values)
    return HTMLResponse(page, status_code=status)


def message_page(request: Request, status: int, key: str, **params: Any) -> HTMLResponse:
    lang = lang_of(request)
    return render(request, "message.html", say("serve.error_title", lang), status, message=say(key, lang, **params))


def counts_line(hands: int, violations: int, warnings: int, errors: int, lang: str) -> str:
    """``12 hands · 2 violations · 0 warnings · 0 errors`` in the language."""
    return " · ".join([say("unit.hands", lang, n=hands), say("check.violations", lang, n=violations),
                       say("check.warnings", lang, n=warnings), say("check.errors", lang, n=errors)])


@router.get("/static/serve.css")
def stylesheet() -> FileResponse:
    return FileResponse(_HERE / "static" / "serve.css", media_type="text/css",
                        headers={"Cache-Control": "max-age=3600"})


@router.get("/")
def index(request: Request, club: str = Depends(page_club)) -> HTMLResponse:
    return render(request, "index.html", say("serve.title", lang_of(request)), club=club, profiles=profile_names())


@router.post("/")
async def index_upload(request: Request, club: str = Depends(page_club)) -> Response:
    """The form of ``/``: keep each log for the club; one log goes straight to its verdict."""
    service = get_service(request)
    lang = lang_of(request)
    try:
        logs = await read_logs(request, None, service.settings.max_files, service.settings.max_upload)
        profile = check_profile(logs.profile)
    except HTTPException as exc:
        problem = say("serve.nothing_sent", lang) if exc.detail == NO_LOG else str(exc.detail)
        return render(request, "index.html", say("serve.title", lang), 400, club=club, profiles=profile_names(),
                      problem=problem)
    except AuditError as exc:
        return render(request, "index.html", say("serve.title", lang), 400, club=club, profiles=profile_names(),
                      problem=str(exc))
    lang = logs.lang if logs.lang in ("en", "es") else lang
    outcomes = [await service.upload(club, name, data, profile) for name, data in logs.files]
    if len(outcomes) == 1 and outcomes[0].status != "unreadable":
        return RedirectResponse(f"/uploads/{outcomes[0].sha256}?lang={lang}", status_code=303)
    return render(request, "index.html", say("serve.title", lang), club=club, profiles=profile_names(), lang=lang,
                  outcomes=[_outcome_view(o, lang) for o in outcomes])


def _outcome_view(o: Outcome, lang: str) -> dict[str, Any]:
    return {**o.as_dict(), "counts": counts_line(o.hands, o.violations, o.warnings, o.errors, lang)}


@router.get("/uploads")
async def uploads_page(request: Request, club: str = Depends(page_club)) -> HTMLResponse:
    service = get_service(request)
    lang = lang_of(request)
    rows = await service.in_thread(service.db.uploads, club)
    recent = await service.in_thread(service.db.recent_findings, club, RECENT_FINDINGS)
    uploads = [{"name": u.name, "sha256": u.sha256, "profile": u.profile, "when": _when(u.received_at),
                "violations": u.violations, "errors": u.errors,
                "counts": counts_line(u.hands, u.violations, u.warnings, u.errors, lang)} for u in rows]
    findings = [{**f, "sentence": finding_sentence(f, lang), "rule_name": rule_name(f["rule"], lang)}
                for f in recent]
    return render(request, "uploads.html", say("serve.uploads_title", lang), club=club, uploads=uploads,
                  findings=findings)


def _when(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


@router.get("/uploads/{sha256}")
async def result_page(request: Request, sha256: str, club: str = Depends(page_club)) -> HTMLResponse:
    """A log's verdicts: each session's, then each hand with something to say, with links to its page."""
    service = get_service(request)
    lang = lang_of(request)
    try:
        found = await club_upload(service, club, sha256)
    except HTTPException:
        return message_page(request, 404, "serve.not_found")
    counts = counts_line(found.hands, found.violations, found.warnings, found.errors, lang)
    values: dict[str, Any] = {"club": club, "upload": found, "counts": counts, "verdicts": None, "findings": None}
    try:
        data = await service.text(club, found)
    except AuditError:
        data = None
        values["not_kept"] = True
    if data is not None and found.hands <= LARGE_LOG_HANDS:
        values["verdicts"] = await service.in_thread(log_verdicts, data, found.name, found.profile, lang)
    else:
        values["findings"] = await _findings_view(service, found, lang)
        if data is not None:
            values["large"] = say("serve.large", lang, hands=say("unit.hands", lang, n=found.hands))
    return render(request, "result.html", f"{say('serve.result_title', lang)} · {found.name}", **values)


async def _findings_view(service: Any, found: Upload, lang: str) -> list[dict[str, Any]]:
    rows = await service.in_thread(service.db.findings, found)
    return [{**f, "sentence": finding_sentence(f, lang), "name": rule_name(f["rule"], lang)} for f in rows]


@router.get("/uploads/{sha256}/hands/{hand:path}")
async def hand_page(request: Request, sha256: str, hand: str, club: str = Depends(page_club)) -> Response:
    """A hand's dispute page (what ``audit explain --format html`` makes)."""
    try:
        return await explained_hand(get_service(request), club, sha256, hand, "html", lang_of(request))
    except HTTPException:
        return message_page(request, 404, "serve.not_found")


@router.get("/signin")
def signin_form(request: Request) -> Response:
    if not get_service(request).db.has_tokens():
        return RedirectResponse(f"/?lang={lang_of(request)}", status_code=303)
    return render(request, "signin.html", say("serve.signin_title", lang_of(request)))


@router.post("/signin")
async def signin(request: Request) -> Response:
    """Check the token and keep it in an HttpOnly, SameSite=Strict cookie."""
    service = get_service(request)
    lang = lang_of(request)
    try:
        form = await request.form(max_files=0, max_fields=5)
        token = str(form.get("token") or "").strip()
    except Exception:
        token = ""
    club = service.db.club_of(token) if token else None
    if club is None:
        return render(request, "signin.html", say("serve.signin_title", lang), 401, problem=say("serve.bad_token", lang))
    response = RedirectResponse(f"/?lang={lang}", status_code=303)
    response.set_cookie(COOKIE, token, max_age=30 * 24 * 3600, path="/", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    return response


@router.post("/signout")
def signout(request: Request) -> Response:
    response = RedirectResponse(f"/signin?lang={lang_of(request)}", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
