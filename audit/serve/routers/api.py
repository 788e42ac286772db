"""``/api/v1``: uploads, their findings, a hand explained, a check that stores nothing, the reports."""

from __future__ import annotations

import logging
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse

from audit.errors import AuditError
from audit.serve.bodies import OPENAPI_BODY, read_logs
from audit.serve.db import (
    REPORT_INT_MAX, Upload, report_arguments, report_files, report_named, report_text, unknown_report,
)
from audit.serve.deps import api_club, get_service
from audit.serve.disputes import hand_json, hand_page
from audit.serve.guard import dispute_page_csp
from audit.serve.models import (
    CheckResult, FindingOut, ReportInfo, UploadInfo, UploadsResult, errors,
)
from audit.serve.service import Service, check_profile

router = APIRouter(prefix="/api/v1", tags=["api"])
log = logging.getLogger("audit.serve")

NameQuery = Query(None, max_length=1000, description="The log's name, for a text/plain body")
ProfileQuery = Query(None, max_length=100, description="Rule profile for logs without a 'Profile:' line")
Sha = str
Lang = Literal["en", "es"]
HandPath = Path(description="The hand's id as the log writes it (percent-encoded: an id may hold '/')")
ReportName = Path(description="A report of `reports/` (GET /api/v1/reports lists them)",
                  json_schema_extra={"enum": sorted(report_files())})


async def _logs(request: Request, service: Service, name: str | None, profile: str | None) -> tuple[Any, str]:
    logs = await read_logs(request, name, service.settings.max_files, service.settings.max_upload)
    try:
        return logs, check_profile(logs.profile or profile)
    except AuditError as exc:
        raise HTTPException(400, str(exc)) from None


@router.post("/uploads", response_model=UploadsResult, openapi_extra=OPENAPI_BODY,
             responses=errors(400, 401, 403, 408, 413, 415))
async def upload(request: Request, club: str = Depends(api_club), name: str | None = NameQuery,
                 profile: str | None = ProfileQuery) -> dict[str, Any]:
    """Audit and store one or more logs for the club (each in one transaction, as `audit ingest` does)."""
    service = get_service(request)
    logs, chosen = await _logs(request, service, name, profile)
    results = [await service.upload(club, n, data, chosen) for n, data in logs.files]
    return {"uploads": [r.as_dict() for r in results]}


@router.post("/check", response_model=CheckResult, openapi_extra=OPENAPI_BODY,
             responses=errors(400, 401, 403, 408, 413, 415))
async def check(request: Request, club: str = Depends(api_club), name: str | None = NameQuery,
                profile: str | None = ProfileQuery) -> dict[str, Any]:
    """Audit the logs and answer their findings; nothing is stored."""
    service = get_service(request)
    logs, chosen = await _logs(request, service, name, profile)
    findings: list[dict[str, Any]] = []
    unreadable: list[dict[str, str]] = []
    for n, data in logs.files:
        found, problem = await service.check(n, data, chosen)
        findings.extend(found)
        if problem is not None:
            unreadable.append({"name": n, "message": problem})
    return {"findings": findings, "unreadable": unreadable}


@router.get("/uploads", response_model=list[UploadInfo], responses=errors(401, 403))
async def uploads(request: Request, club: str = Depends(api_club)) -> list[dict[str, Any]]:
    """The club's logs, newest first."""
    service = get_service(request)
    return [u.as_dict() for u in await service.in_thread(service.db.uploads, club)]


async def club_upload(service: Service, club: str, sha256: str) -> Upload:
    """The club's log with these bytes, else 404 (another club's log is not found either)."""
    found = await service.in_thread(service.db.upload, club, sha256)
    if found is None:
        raise HTTPException(404, "no such upload")
    return found


@router.get("/uploads/{sha256}/findings", response_model=list[FindingOut], responses=errors(401, 403, 404))
async def findings(request: Request, sha256: Sha, club: str = Depends(api_club)) -> list[dict[str, Any]]:
    """The log's findings, as `audit check --format json` gives them."""
    service = get_service(request)
    found = await club_upload(service, club, sha256)
    return await service.in_thread(service.db.findings, found)


@router.get("/uploads/{sha256}/hands/{hand:path}/explain", response_class=Response,
            responses={200: {"description": "The dispute page (html) or the hand's object (json), as "
                                            "`audit explain` gives them",
                             "content": {"text/html": {"schema": {"type": "string"}},
                                         "application/json": {"schema": {"type": "object"}}}},
                       **errors(401, 403, 404)})
async def explain(request: Request, sha256: Sha, hand: str = HandPath, club: str = Depends(api_club),
                  format: Literal["html", "json"] = "html", lang: Lang = "en",
                  anonymize: bool = Query(False, description="Players as Player A, Player B …")) -> Response:
    """One hand replayed step by step for a dispute, with the verdict first and its signed receipt."""
    service = get_service(request)
    return await explained_hand(service, club, sha256, hand, format, lang, anonymize)


async def explained_hand(service: Service, club: str, sha256: str, hand: str, fmt: str, lang: str,
                         anonymize: bool = False) -> Response:
    """The hand's dispute page or JSON object (shared with the page route), 404 when there is none."""
    found = await club_upload(service, club, sha256)
    try:
        data = await service.text(club, found)
    except AuditError as exc:
        raise HTTPException(404, str(exc)) from None

    def seal(receipt: dict[str, Any]) -> dict[str, Any]:
        return service.seal(club, found, receipt)

    try:
        if fmt == "json":
            obj = await service.in_thread(hand_json, data, found.name, found.profile, hand, anonymize, seal)
            if obj is None:
                raise HTTPException(404, f"no hand {hand!r} in this upload")
            return JSONResponse(obj)
        page = await service.in_thread(hand_page, data, found.name, found.profile, hand, lang, None, anonymize,
                                       seal)
    except AuditError as exc:  # names that cannot be hidden without changing the verdict
        raise HTTPException(409, str(exc)) from None
    if page is None:
        raise HTTPException(404, f"no hand {hand!r} in this upload")
    return HTMLResponse(page, headers={"Content-Security-Policy": dispute_page_csp(page)})


@router.get("/chain/head", tags=["trust"], responses=errors(401, 403))
async def chain_head(request: Request, club: str = Depends(api_club)) -> dict[str, Any]:
    """The club's chain head, signed by the service: `{"club", "position", "hash", "at", "signature"}` (Ed25519
    over the canonical JSON of the other fields; position 0 before the club's first link)."""
    service = get_service(request)
    return await service.in_thread(service.chain_head, club)


@router.get("/key", tags=["trust"])
async def key(request: Request) -> dict[str, str]:
    """The service's public key: `{"algorithm": "Ed25519", "key": hex, "pem"}` (what `audit verify-receipt
    --key` reads). Anyone may ask: it is public."""
    return get_service(request).key.public()


@router.get("/reports", response_model=list[ReportInfo], responses=errors(401, 403))
async def reports(club: str = Depends(api_club)) -> list[dict[str, Any]]:
    """The reports of `reports/` (run one with /api/v1/reports/{name}), with the parameters each takes."""
    return [{"name": r.name, "title": r.title, "description": r.description,
             "params": [{"name": p.name, "type": p.type, "description": p.help} for p in r.params]}
            for r in report_files().values()]


@router.get("/reports/{name}", response_class=Response,
            responses={200: {"description": "The report's rows over the club's own data: a JSON array of "
                                            "objects, or CSV with a header line",
                             "content": {"application/json": {"schema": {"type": "array",
                                                                         "items": {"type": "object"}}},
                                         "text/csv": {"schema": {"type": "string"}}}},
                       **errors(400, 401, 403, 404)})
async def report(request: Request, name: str = ReportName, club: str = Depends(api_club),
                 format: Literal["json", "csv"] = "json",
                 from_date: str | None = Query(None, max_length=10, description="The first day of play (YYYY-MM-DD)"),
                 to_date: str | None = Query(None, max_length=10, description="The last day of play (YYYY-MM-DD)"),
                 profile: str | None = Query(None, max_length=100, description="Only hands audited under it"),
                 table_name: str | None = Query(None, max_length=200, description="Only this table's hands"),
                 limit: int | None = Query(None, ge=0, le=REPORT_INT_MAX, description="At most this many rows, for the "
                                           "reports that take it (disputed-hands)"),
                 ) -> Response:
    """Run one report over the club's own logs only. It takes the parameters `audit report` takes (listed by
    /api/v1/reports): from_date, to_date, profile, table_name, and any of its own (`?limit=10`). A parameter
    the report does not take, or a value it cannot take (a date that is not YYYY-MM-DD, a whole number out of
    0 to 2147483647), is refused with 400 (or 422) and a `detail` saying why."""
    service = get_service(request)
    chosen = report_named(name)
    if chosen is None:
        raise HTTPException(404, unknown_report(name, "GET /api/v1/reports lists them"))
    given: dict[str, object] = {k: v for k, v in request.query_params.items() if k != "format"}
    for key, value in (("from_date", from_date), ("to_date", to_date), ("profile", profile),
                       ("table_name", table_name), ("limit", limit)):
        if value is not None:
            given[key] = value
    try:
        bound = report_arguments(chosen, given)
    except AuditError as exc:
        raise HTTPException(400, str(exc)) from None
    try:
        table = await service.in_thread(service.db.report, club, chosen.sql, bound)
    except AuditError as exc:  # the parameters were checked: say it, and keep the details in the service's log
        log.error("report %s failed for club %s: %s", name, club, exc)
        raise HTTPException(400, f"the report {name} could not run with these parameters") from None
    if format == "csv":
        return Response(report_text(table, "csv"), media_type="text/csv; charset=utf-8")
    return Response(report_text(table, "json"), media_type="application/json")
