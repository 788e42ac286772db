"""What every request passes before a route sees it, and every response on its way out (one ASGI middleware).

- **Size:** a body over the limit is refused with 413, from its ``Content-Length`` before a byte is read, or as
  soon as the bytes received pass the limit.
- **Time:** a client that pauses longer than the read timeout while sending its body, or takes longer than the
  body deadline in all, gets 408; the writer never waits for a client (an upload is queued only once it has
  arrived and been audited).
- **Strangers** (a request with no valid token; with no token defined, one not from this machine): its body may
  hold ``stranger_body`` bytes and must arrive within ``stranger_deadline`` seconds (413, 408). Only the sign-in
  form is read before the club is known, so a larger ``Content-Length`` there is refused before a byte is read;
  the other routes answer a stranger without reading its body. The club is known from the headers alone (the
  ``Authorization: Bearer`` token, else the sign-in cookie), as the routes know it.
- **Cross-site posts:** a request that changes something (not GET, HEAD or OPTIONS) and comes from a page of
  another site (its ``Origin``, or else its ``Referer``, is not this server) is refused with 403. The sign-in
  cookie is also ``SameSite=Strict``.
- **A client that goes away** in the middle of its body: nothing was stored, nothing is answered.
- **Requests in progress:** past ``max_requests`` at once, a request is answered 503 with ``Retry-After`` (only
  ``/healthz`` is always answered); connections that have not sent a whole request do not count (``protocol.py``
  closes them). Within that limit, one club has at most ``club_requests`` in progress, one client address
  (``X-Forwarded-For`` behind the proxy) ``client_requests``, strangers ``stranger_requests`` in all and
  ``client_strangers`` from one address; past its own limit a request is answered 503 too, and the others never
  notice. ``client_requests`` is above ``club_requests + client_strangers``, so one club and the strangers of
  an address together still leave room for another club at that address (a proxy on this machine, the tests).
- **Headers:** a Content-Security-Policy on every response (the routes that send the dispute page set their own,
  with the hashes of its inline style and script), and ``nosniff``, ``Referrer-Policy``, ``X-Frame-Options``.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from audit.words import language, say

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
            "frame-ancestors 'none'; base-uri 'none'")
"""The policy of the service's own pages: its one style sheet, no script at all, forms only to itself."""


def dispute_page_csp(page: str) -> str:
    """The policy of a dispute page (``audit explain --format html``): only its own inline ``<style>`` and
    ``<script>`` elements run, allowed by their SHA-256 (the page is autoescaped, so a name in the log can never
    make such an element); ``style`` attributes place the seats; nothing is fetched."""
    def hashes(tag: str) -> str:
        found = re.findall(rf"<{tag}>(.*?)</{tag}>", page, re.S)
        return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(x.encode()).digest()).decode()}'"
                        for x in found) or "'none'"
    return (f"default-src 'none'; style-src {hashes('style')}; style-src-attr 'unsafe-inline'; "
            f"script-src {hashes('script')}; img-src data:; form-action 'none'; frame-ancestors 'none'; "
            "base-uri 'none'")


class BodyRefused(Exception):
    """The body broke the size limit or the time limits (the guard answers for the route)."""


STRANGER_BODY_PATHS = frozenset({"/signin"})
"""The routes that read a body before they know the club (the sign-in form)."""


class Guard:
    """The middleware: limits on the body and on the requests in progress, the cross-site check, security
    headers. ``identify(scope)`` is the club a request acts for, from its headers (``None``: a stranger)."""

    def __init__(self, app: ASGIApp, max_body: int, read_timeout: float, body_deadline: float,
                 max_requests: int = 200, identify: Callable[[Scope], str | None] | None = None,
                 club_requests: int = 50, client_requests: int = 64, stranger_requests: int = 32,
                 client_strangers: int = 8, stranger_body: int = 4096, stranger_deadline: float = 10.0) -> None:
        self.app = app
        self.max_body = max_body
        self.read_timeout = read_timeout
        self.body_deadline = body_deadline
        self.max_requests = max_requests
        self.identify = identify or (lambda scope: None)
        self.club_requests = club_requests
        self.client_requests = client_requests
        self.stranger_requests = stranger_requests
        self.client_strangers = client_strangers
        self.stranger_body = stranger_body
        self.stranger_deadline = stranger_deadline
        self.in_progress = 0
        self.counts: dict[tuple[str, str], int] = {}
        """Requests in progress by ``("club", name)``, ``("client", address)``, ``("stranger", address)`` and
        ``("strangers", "")``."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path") == "/healthz":
            await self._guarded(scope, receive, send, "")
            return
        club = self.identify(scope)
        client = str((scope.get("client") or ("",))[0])
        keys = [("client", client)]
        keys += [("club", club)] if club is not None else [("stranger", client), ("strangers", "")]
        refusal = self._refusal(keys)
        if refusal is not None:
            await refuse(scope, send, 503, "", refusal, retry_after=1)
            return
        self.in_progress += 1
        for key in keys:
            self.counts[key] = self.counts.get(key, 0) + 1
        try:
            await self._guarded(scope, receive, send, club)
        finally:
            self.in_progress -= 1
            for key in keys:
                self.counts[key] -= 1
                if not self.counts[key]:
                    del self.counts[key]

    def _refusal(self, keys: list[tuple[str, str]]) -> str | None:
        """Why a request with these counts may not start now (``None``: it may)."""
        if self.in_progress >= self.max_requests:
            return "the service is answering too many requests at once; retry later"
        limits = {"client": (self.client_requests, "from this address"),
                  "club": (self.club_requests, "of this club"),
                  "stranger": (self.client_strangers, "without a valid token from this address"),
                  "strangers": (self.stranger_requests, "without a valid token")}
        for key in keys:
            limit, whose = limits[key[0]]
            if self.counts.get(key, 0) >= limit:
                return f"too many requests {whose} are in progress at once; retry later"
        return None

    async def _guarded(self, scope: Scope, receive: Receive, send: Send, club: str | None) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        method = scope["method"]
        if method not in SAFE_METHODS and not same_origin(scope, headers):
            await refuse(scope, send, 403, "serve.cross_site")
            return
        stranger = club is None
        max_body = self.stranger_body if stranger else self.max_body
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                await refuse(scope, send, 400, "", "Content-Length is not a number")
                return
            if int(length) > self.max_body or (stranger and scope.get("path") in STRANGER_BODY_PATHS
                                               and int(length) > max_body):
                await refuse(scope, send, 413, "serve.too_large", limit=size_words(max_body))
                return
        deadline = min(self.body_deadline, self.stranger_deadline) if stranger else self.body_deadline
        await _Exchange(self, scope, receive, send, max_body, deadline).run()


class _Exchange:
    """One request through the guard."""

    def __init__(self, guard: Guard, scope: Scope, receive: Receive, send: Send, max_body: int,
                 body_deadline: float) -> None:
        self.guard = guard
        self.max_body = max_body
        self.scope = scope
        self._receive = receive
        self._send = send
        self.received = 0
        self.body_done = False
        self.refusal: tuple[int, str, dict[str, Any]] | None = None
        self.started = False
        self.replaced = False
        self.deadline = asyncio.get_running_loop().time() + body_deadline

    async def run(self) -> None:
        from starlette.requests import ClientDisconnect

        try:
            await self.guard.app(self.scope, self.receive, self.send)
        except (BodyRefused, ClientDisconnect):
            pass
        except Exception:
            if self.refusal is None:
                raise
        if self.refusal is not None and not self.started:
            await self.answer_refusal()

    async def receive(self) -> Message:
        if self.body_done:
            return await self._receive()
        loop = asyncio.get_running_loop()
        wait = min(self.guard.read_timeout, self.deadline - loop.time())
        try:
            message = await asyncio.wait_for(self._receive(), timeout=max(wait, 0.001))
        except asyncio.TimeoutError:
            self.refusal = (408, "", {"text": "the request body did not arrive in time"})
            raise BodyRefused() from None
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.max_body:
                self.refusal = (413, "serve.too_large", {"limit": size_words(self.max_body)})
                raise BodyRefused()
            if not message.get("more_body", False):
                self.body_done = True
        else:
            self.body_done = True  # http.disconnect: the client went away
        return message

    async def send(self, message: Message) -> None:
        if self.replaced:
            return
        if message["type"] == "http.response.start":
            self.started = True
            if self.refusal is not None:  # the route turned the refused body into an answer of its own
                self.replaced = True
                await self.answer_refusal()
                return
            message["headers"] = with_security_headers(list(message.get("headers", [])))
        await self._send(message)

    async def answer_refusal(self) -> None:
        assert self.refusal is not None
        status, key, params = self.refusal
        self.started = True
        text = params.pop("text", "")
        await refuse(self.scope, self._send, status, key, text, **params)


def with_security_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The response's headers with the security headers it does not set itself."""
    present = {k.lower() for k, _ in headers}
    extra = [(b"content-security-policy", PAGE_CSP.encode()), (b"x-content-type-options", b"nosniff"),
             (b"referrer-policy", b"same-origin"), (b"x-frame-options", b"DENY")]
    return headers + [(k, v) for k, v in extra if k not in present]


def same_origin(scope: Scope, headers: dict[str, str]) -> bool:
    """Whether a request comes from this server's own pages, or from no page at all (a script, ``curl``):
    its ``Origin`` (else the origin of its ``Referer``) must be this server's scheme and host."""
    origin = headers.get("origin")
    if origin is None:
        referer = headers.get("referer")
        if referer is None:
            return True
        parts = urlsplit(referer)
        origin = f"{parts.scheme}://{parts.netloc}"
    return origin == f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"


def size_words(n: int) -> str:
    """``52428800`` → ``50 MB``."""
    mb = n / (1024 * 1024)
    return f"{mb:g} MB" if mb >= 1 else f"{n:,} bytes"


def request_lang(scope: Scope, headers: dict[str, str] | None = None) -> str:
    """The language a page is asked in: ``?lang=``, else the browser's first choice we have, else English."""
    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang")
    if asked:
        return language(asked[0])
    accept = (headers or {}).get("accept-language", "")
    for part in accept.split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in ("en", "es"):
            return code
    return "en"


async def refuse(scope: Scope, send: Send, status: int, key: str, text: str = "", retry_after: int | None = None,
                 **params: Any) -> None:
    """Answer ``status`` without the route: JSON ``{"detail": …}`` for the API, a short page for people."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    lang = request_lang(scope, headers)
    message = say(key, lang, **params) if key else text
    if scope.get("path", "").startswith("/api/") or "text/html" not in headers.get("accept", ""):
        body = json.dumps({"detail": say(key, "en", **params) if key else text}).encode()
        kind = b"application/json"
    else:
        body = (f'<!DOCTYPE html><html lang="{lang}"><meta charset="utf-8"><meta name="viewport" '
                f'content="width=device-width, initial-scale=1"><title>{status}</title>'
                f'<p>{html.escape(message)}</p><p><a href="/">{html.escape(say("serve.back", lang))}</a></p>'
                "</html>").encode()
        kind = b"text/html; charset=utf-8"
    extra = [(b"retry-after", str(retry_after).encode())] if retry_after is not None else []
    await send({"type": "http.response.start", "status": status,
                "headers": with_security_headers([(b"content-type", kind),
                                                  (b"content-length", str(len(body)).encode()),
                                                  (b"connection", b"close"), *extra])})
    await send({"type": "http.response.body", "body": body})
