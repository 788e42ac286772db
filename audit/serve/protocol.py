"""uvicorn's HTTP/1.1 protocol (h11), with a time limit on a request's head and a cap on open connections.

uvicorn closes a kept-alive connection that stays quiet after a response, but waits forever for the first request
of a new connection, or for the rest of a head that stopped half-way: idle sockets would pile up until every
client is refused. Here a connection must send a whole request head (its line and headers) within
``header_timeout`` seconds of opening, or of the first byte of its next request; else it is closed. Past
``max_connections`` open connections, the oldest one still waiting for a head is closed to make room.

Only requests in progress count against the service's limit (``Guard``'s ``max_requests``): an idle connection
costs a socket, never a turn.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def protocol_class(header_timeout: float, max_connections: int) -> type[H11Protocol]:
    """The protocol uvicorn runs for each connection, with these limits."""

    class Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.limit_concurrency = None  # the guard counts requests in progress; idle connections do not count
            self.head_timer: asyncio.TimerHandle | None = None
            self.waiting_since: float | None = None  # when the wait for a request head began (None: not waiting)

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._wait_for_head()
            if len(self.connections) > max_connections:
                self._make_room()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.is_closing():
                self._stop_waiting()
            elif self.conn.their_state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
                if self.head_timer is None:
                    self._wait_for_head()  # part of a head: the rest must follow in time
            else:
                self._stop_waiting()  # a whole head arrived: the request's own limits apply now

        def on_response_complete(self) -> None:
            super().on_response_complete()  # a quiet connection now falls to uvicorn's keep-alive timeout
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self.waiting_since = self.loop.time()  # and may make room for others

        def _wait_for_head(self) -> None:
            self._stop_waiting()
            self.waiting_since = self.loop.time()
            self.head_timer = self.loop.call_later(header_timeout, self._head_too_late)

        def _stop_waiting(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
            self.head_timer = None
            self.waiting_since = None

        def _head_too_late(self) -> None:
            self.head_timer = None
            if self.conn.their_state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
                self._close()

        def _close(self) -> None:
            self._stop_waiting()
            if not self.transport.is_closing():
                try:
                    self.conn.send(h11.ConnectionClosed())
                except h11.LocalProtocolError:
                    pass
                self.transport.close()

        def _make_room(self) -> None:
            waiting = [c for c in self.connections if isinstance(c, Protocol) and c.waiting_since is not None
                       and not c.transport.is_closing()]
            if waiting:
                min(waiting, key=lambda c: c.waiting_since or 0.0)._close()
            else:
                self._close()  # every other connection has a request in progress: this one waits for nothing

    return Protocol
