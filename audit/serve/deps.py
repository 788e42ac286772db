"""Dependencies of the routes: the service, and the club a request acts for.

With any token defined, a request is some club's by its ``Authorization: Bearer`` token (the API) or the
sign-in cookie (the pages), else 401. The tokens are read when the service starts (``audit token`` cannot change
them while the service holds the database), so no request waits for the database to learn its club. With none, the service answers only clients on this machine (loopback)
whose ``Host`` is a loopback name, as club ``local``; the host check keeps a web page from reaching the service
through a DNS name of its own that points at 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
from collections.abc import MutableMapping
from typing import Any

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param

from audit.serve.db import LOCAL_CLUB
from audit.serve.service import Service, current_club

COOKIE = "audit_token"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})

bearer = HTTPBearer(auto_error=False, description="A club's token, made with `audit token add CLUB`.")


class SignInNeeded(Exception):
    """A page asked for without a valid token: the pages answer with the sign-in form."""


class LocalOnly(Exception):
    """No token is defined and the client is not on this machine."""


def get_service(request: Request) -> Service:
    """The running service."""
    service: Service = request.app.state.service
    return service


def is_loopback(request: Request) -> bool:
    """Whether the client is on this machine and asked for the service by a loopback name."""
    host = request.client.host if request.client else ""
    try:
        local_client = ipaddress.ip_address(host).is_loopback
    except ValueError:
        local_client = False
    name = request.headers.get("host", "").lower()
    name = name.rsplit(":", 1)[0] if not name.endswith("]") else name
    allowed = LOOPBACK_NAMES | {request.app.state.service.settings.host.lower()}
    return local_client and name in allowed


def request_club(request: Request, token: str | None) -> str:
    """The club of the request (``SignInNeeded`` without a valid token, ``LocalOnly`` for a stranger); it is
    also kept for the request's slow work (``service.current_club``: whose turn an explanation takes)."""
    db = get_service(request).db
    if not db.has_tokens():
        if not is_loopback(request):
            raise LocalOnly()
        current_club.set(LOCAL_CLUB)
        return LOCAL_CLUB
    club = db.club_of(token) if token else None
    if club is None:
        raise SignInNeeded()
    current_club.set(club)
    return club


def known_club(scope: MutableMapping[str, Any]) -> str | None:
    """The club a request acts for, from its headers alone, before any route runs (``None``: no valid token, a
    stranger when no token is defined, or the service not started): what the guard counts it against. The
    bearer token wins over the cookie, as for the API."""
    request = Request(scope)
    service = get_service(request)
    if not service.started:
        return None
    db = service.db
    if not db.has_tokens():
        return LOCAL_CLUB if is_loopback(request) else None
    scheme, token = get_authorization_scheme_param(request.headers.get("authorization"))
    if scheme.lower() != "bearer" or not token:
        token = request.cookies.get(COOKIE, "")
    return db.club_of(token) if token else None


async def api_club(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> str:
    """The club of an API request: 401 without a valid token, 403 for a stranger when no token is defined."""
    token = credentials.credentials if credentials is not None else request.cookies.get(COOKIE)
    try:
        return request_club(request, token)
    except SignInNeeded:
        raise HTTPException(401, "a valid token is needed: send 'Authorization: Bearer TOKEN'",
                            headers={"WWW-Authenticate": "Bearer"}) from None
    except LocalOnly:
        raise HTTPException(403, "no token is defined, so the service answers only on this machine; "
                                 "add one with 'audit token add CLUB'") from None


async def page_club(request: Request) -> str:
    """The club of a page request (the sign-in cookie; ``SignInNeeded`` / ``LocalOnly`` become pages)."""
    return request_club(request, request.cookies.get(COOKIE))
