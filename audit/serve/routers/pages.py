"""The pages for people (server-rendered, no script, no outside resources): ``/`` to paste or upload a log and
pick the rules and the language; the verdict of a log, hand by hand, with links to each hand's dispute page;
the club's uploads and latest findings; sign-in with a club's token."""

from __future__ import annotations

import datetime as dt
import re
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
from audit.serve.disputes import hand_page as dispute_page
from audit.serve.guard import dispute_page_csp, request_lang
from audit.serve.routers.api import club_upload
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
    from audit.trust.receipt import receipt_line, short_code

    env.globals.update(receipt_code=short_code, receipt_line=receipt_line)
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
        problem = say("serve.nothing_sent", lang) if exc.detail == NO_LOG else request_problem(str(exc.detail), lang)
        return render(request, "index.html", say("serve.title", lang), 400, club=club, profiles=profile_names(),
                      problem=problem)
    except AuditError as exc:
        return render(request, "index.html", say("serve.title", lang), 400, club=club, profiles=profile_names(),
                      problem=request_problem(str(exc), lang))
    lang = logs.lang if logs.lang in ("en", "es") else lang
    outcomes = [await service.upload(club, name, data, profile) for name, data in logs.files]
    if len(outcomes) == 1 and outcomes[0].status != "unreadable":
        again = "&again=1" if outcomes[0].status == "duplicate" else ""
        return RedirectResponse(f"/uploads/{outcomes[0].sha256}?lang={lang}{again}", status_code=303)
    views = []
    for o in outcomes:
        view = _outcome_view(o, lang)
        if o.status == "duplicate":
            earlier = await service.in_thread(service.db.upload, club, o.sha256)
            view["already"] = say("serve.already", lang, when=_when(earlier.received_at)) if earlier else ""
        views.append(view)
    return render(request, "index.html", say("serve.title", lang), club=club, profiles=profile_names(), lang=lang,
                  outcomes=views)


def _outcome_view(o: Outcome, lang: str) -> dict[str, Any]:
    out = {**o.as_dict(), "counts": counts_line(o.hands, o.violations, o.warnings, o.errors, lang)}
    if o.message is not None:
        out["message"] = upload_problem(o.message, o.name, lang)
    return out


_PROBLEMS = [  # the service's English reasons (audit.read, audit.serve.service) → their message in audit/words
    (re.compile(r": the file is empty$"), "serve.reason_empty"),
    (re.compile(r"(?::(?P<line>\d+))?: this is not a text file \(it holds binary data\)$"), "serve.reason_binary"),
    (re.compile(r": this looks like UTF-16 text without a byte-order mark"), "serve.reason_utf16"),
    (re.compile(r":(?P<line>\d+): the file is not valid (?P<encoding>[\w-]+) text"), "serve.reason_encoding"),
    (re.compile(r":(?P<line>\d+): line is longer than"), "serve.reason_long"),
    (re.compile(r": the audit stopped on an internal error"), "serve.reason_internal"),
]


def upload_problem(message: str, name: str, lang: str) -> str:
    """Why an uploaded log could not be read, in the page's language: the service says it in English (the API's
    ``message``); a page in another language says it from the message files, the file's name kept as it is."""
    if lang == "en":
        return message
    rest = message[len(name):] if message.startswith(name) else message
    for pattern, key in _PROBLEMS:
        found = pattern.search(rest)
        if found is not None:
            return say(key, lang, name=name, **{k: v for k, v in found.groupdict().items() if v is not None})
    return say("serve.reason_other", lang, name=name)


def request_problem(message: str, lang: str) -> str:
    """A refused form (``read_logs``, an unknown profile) in the page's language."""
    if lang == "en":
        return message
    if message.startswith("unknown profile"):
        return say("serve.unknown_profile", lang, known=", ".join(profile_names()))
    return say("serve.form_unreadable", lang)


@router.get("/uploads")
async def uploads_page(request: Request, club: str = Depends(page_club)) -> HTMLResponse:
    service = get_service(request)
    lang = lang_of(request)
    rows = await service.in_thread(service.db.uploads, club)
    recent = await service.in_thread(service.db.recent_findings, club, RECENT_FINDINGS)
    judged = await service.in_thread(_judged_by, service, club)
    uploads = [{"name": u.name, "sha256": u.sha256, "profile": judged.get(u.sha256) or u.profile,
                "when": _when(u.received_at),
                "violations": u.violations, "errors": u.errors,
                "counts": counts_line(u.hands, u.violations, u.warnings, u.errors, lang)} for u in rows]
    findings = [{**f, "sentence": finding_sentence(f, lang), "rule_name": rule_name(f["rule"], lang)}
                for f in recent]
    return render(request, "uploads.html", say("serve.uploads_title", lang), club=club, uploads=uploads,
                  findings=findings)


def _judged_by(service: Any, club: str) -> dict[str, str]:
    """Each of the club's logs → the profiles its hands were judged by (a PokerStars log: ``site``, whatever the
    upload's default was), over the club's own rows only."""
    try:
        rows = service.db.report(club, "SELECT file_sha, string_agg(DISTINCT profile, ', ' ORDER BY profile) AS p "
                                       "FROM hands WHERE profile IS NOT NULL GROUP BY file_sha", {}).to_pylist()
    except AuditError:
        return {}
    return {str(r["file_sha"]): str(r["p"]) for r in rows if r["p"]}


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
    if request.query_params.get("again"):
        values["already"] = say("serve.already", lang, when=_when(found.received_at))
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
    """A hand's dispute page (what ``audit explain --format html`` makes), with a way back to its upload, the
    language switch and sign-out."""
    service = get_service(request)
    lang = lang_of(request)
    try:
        found = await club_upload(service, club, sha256)
        data = await service.text(club, found)
    except (HTTPException, AuditError):
        return message_page(request, 404, "serve.not_found")
    signed_in = bool(request.cookies.get(COOKIE)) and club != LOCAL_CLUB
    anonymize = request.query_params.get("anonymize") == "1"
    hidden = "&anonymize=1" if anonymize else ""
    links = {"back": (f"/uploads/{found.sha256}?lang={lang}", say("serve.back_to_upload", lang)),
             "langs": [(f"?lang=en{hidden}", "English", lang == "en"), (f"?lang=es{hidden}", "Español", lang == "es")],
             "signout": (f"/signout?lang={lang}", say("serve.nav_signout", lang)) if signed_in else None,
             "anonymize": (f"?lang={lang}", say("receipt.with_names", lang)) if anonymize
             else (f"?lang={lang}&anonymize=1", say("receipt.share", lang))}

    def seal(receipt: dict[str, Any]) -> dict[str, Any]:
        return service.seal(club, found, receipt)

    try:
        page = await service.in_thread(dispute_page, data, found.name, found.profile, hand, lang, links, anonymize,
                                       seal)
    except AuditError:
        return message_page(request, 409, "serve.cannot_anonymize")
    if page is None:
        return message_page(request, 404, "serve.not_found")
    return HTMLResponse(page, headers={"Content-Security-Policy": dispute_page_csp(page)})


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


@router.get("/signout")
def signout_form(request: Request) -> Response:
    """Sign-out as a page of its own (a hand's page may not send forms): one button."""
    if not request.cookies.get(COOKIE):
        return RedirectResponse(f"/?lang={lang_of(request)}", status_code=303)
    return render(request, "signout.html", say("serve.nav_signout", lang_of(request)))


@router.post("/signout")
def signout(request: Request) -> Response:
    response = RedirectResponse(f"/signin?lang={lang_of(request)}", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
