"""The ASGI application of ``audit serve`` (FastAPI), and running it with uvicorn.

``create_app(settings)`` wires the routers (``routers/api.py``: ``/api/v1``; ``routers/pages.py``: the pages for
people), the guard (``guard.py``: size and time limits, cross-site posts, security headers) and the service
(``service.py``: the database, the writer thread, the audit pool), opened before the first request and closed
after the last. ``run(settings)`` serves it until SIGTERM or SIGINT, then lets the requests in flight finish
(their uploads are stored whole or not at all) and closes the database.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from audit import __version__
from audit.serve.deps import LocalOnly, SignInNeeded, known_club
from audit.serve.guard import Guard
from audit.serve.models import Health
from audit.serve.routers import api, pages, table_pages, tables
from audit.serve.protocol import protocol_class
from audit.serve.service import Busy, Service, Settings

log = logging.getLogger("audit.serve")

DESCRIPTION = """Upload hand histories, audit them against the rules the table agreed on, and settle disputes.

Authenticate with `Authorization: Bearer TOKEN` (a club's token, made with `audit token add CLUB`). With no token
defined, the service answers only clients on its own machine, as club `local`.
"""


def create_app(settings: Settings, service: Service | None = None) -> FastAPI:
    """The application over ``settings.db`` (the service is started here unless ``service`` is given started)."""
    the_service = service or Service(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not the_service.started:  # else its owner (``run``, a test) stops it
            the_service.start()
            try:
                yield
            finally:
                the_service.stop()
        else:
            yield

    app = FastAPI(title="audit", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json")
    app.state.service = the_service
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(tables.router)
    app.include_router(table_pages.router)

    @app.get("/healthz", response_model=Health, tags=["health"],
             responses={503: {"description": "The service cannot do its work now (a worker process died; it is "
                                             "replaced with the next upload)", "model": Health}})
    def healthz() -> Response:
        """200 while the service runs and can audit; 503 with the reason while it cannot."""
        problem = the_service.problem()
        if problem is not None:
            return JSONResponse({"status": "unavailable", "reason": problem}, status_code=503)
        return JSONResponse({"status": "ok"})

    @app.exception_handler(SignInNeeded)
    async def sign_in(request: Request, exc: SignInNeeded) -> Response:
        return RedirectResponse(f"/signin?lang={pages.lang_of(request)}", status_code=303)

    @app.exception_handler(LocalOnly)
    async def local_only(request: Request, exc: LocalOnly) -> Response:
        return pages.message_page(request, 403, "serve.remote_refused")

    @app.exception_handler(Busy)
    async def busy(request: Request, exc: Busy) -> Response:
        headers = {"Retry-After": str(exc.retry_after)}
        if request.url.path.startswith("/api/") or "text/html" not in request.headers.get("accept", ""):
            return JSONResponse({"detail": "too much of this club's slow work (explanations, reports) is in progress; "
                                           "retry later"}, status_code=503, headers=headers)
        response = pages.message_page(request, 503, "serve.busy")
        response.headers.update(headers)
        return response

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "internal error; please report it"}, status_code=500)

    app.add_middleware(Guard, max_body=settings.max_upload, read_timeout=settings.read_timeout,
                       body_deadline=settings.body_deadline, max_requests=settings.max_requests,
                       identify=known_club, club_requests=settings.club_requests,
                       client_requests=settings.client_requests, stranger_requests=settings.stranger_requests,
                       client_strangers=settings.client_strangers, stranger_body=settings.stranger_body,
                       stranger_deadline=settings.stranger_deadline)
    return app


def run(settings: Settings, out: Any = None) -> None:
    """Serve until SIGTERM or SIGINT, then return (``AuditError`` before listening if the database cannot be
    opened): the requests in flight finish, the queued writes are made, the database is closed."""
    import contextlib

    import uvicorn

    out = out or sys.stdout
    service = Service(settings)
    service.start()  # before listening: a database another program holds is one clear line, exit 2

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                ports = [sock.getsockname()[1] for server in self.servers for sock in server.sockets]
                host = settings.host if ":" not in settings.host else f"[{settings.host}]"
                out.write(f"audit serve: http://{host}:{ports[0] if ports else settings.port}/ "
                          f"(database {settings.db}; Ctrl-C stops)\n")
                out.write(f"audit serve: the service's key (Ed25519, GET /api/v1/key): {service.key.public_hex}\n")
                out.flush()

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                yield
                self._captured_signals.clear()  # stopped cleanly: exit 0, not by the signal again

    try:
        # requests in progress are counted by the guard (``max_requests``), not connections: idle connections
        # are closed by the protocol (``header_timeout``) and never make other clients wait
        config = uvicorn.Config(create_app(settings, service), host=settings.host, port=settings.port,
                                log_level="warning", timeout_graceful_shutdown=30, limit_concurrency=None,
                                timeout_keep_alive=5, access_log=False,
                                http=protocol_class(settings.header_timeout, settings.max_connections))
        Server(config).run()
    finally:
        service.stop()
    out.write("audit serve: stopped\n")
    out.flush()
