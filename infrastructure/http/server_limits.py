"""What one `serve` process accepts from the network: header size, slow and idle clients, and
how many connections it takes at once.

uvicorn already has most of it, and it is used as is: `timeout_keep_alive` closes idle keep-alive
connections, `limit_concurrency` answers 503 past a number of connections or requests per process,
and `h11_max_incomplete_event_size` bounds the headers h11 buffers. What uvicorn lacks:

- A header size limit with its fast parser, httptools (installed with uvicorn[standard] and
  picked by `http="auto"`): httptools buffers a header of any size (a 256 MB one was taken,
  worker memory 198 -> 695 MB). Switching to h11 would bound it, but h11 parses in Python and
  costs the spin path more CPU per request than httptools.
- A deadline for a request's headers: uvicorn starts no timer until a response has been sent, so
  a client that connects and never finishes its headers (slowloris), or never sends a byte, holds
  its connection for ever.

- A share of the connection cap per client address: `limit_concurrency` counts every open
  connection, so one address holding 1,000 that never finish their headers made every other
  client's request 503 (connection_slots.py).

So one small subclass of uvicorn's own httptools protocol adds them: bytes received while a
request's headers are incomplete are counted (beyond `max_header_bytes`: 431 and the connection
closed, before the parser buffers more), a timer armed when a connection opens or a request
begins closes the connection (408) unless its headers are complete within
`header_timeout_seconds`, a connection beyond its address's share is refused as it opens (429
`too_many_connections`, closed), and the cap's 503 counts only connections past their headers.

And one thing uvicorn does in two writes is done in one: a response whose length is known
(every JSON answer) goes out as status line, headers and body together (OneWriteCycle), where
uvicorn writes the headers alone first. The bytes are the same; one send instead of two, one
segment, and the reader is woken once, not twice. Everything else is uvicorn's unchanged.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import (
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)
from uvicorn.server import ServerState

from infrastructure.http.connection_slots import ConnectionSlots
from infrastructure.http.errors import error_response
from infrastructure.settings import Settings

_header_timeout_seconds = 10.0
_DEFAULT_LIMIT = 16 * 1024  # h11's own default, when uvicorn is given none
# Per address: connections, and of those still sending headers; the proxies with no share.
_shares: tuple[int, int, tuple[str, ...]] = (250, 100, ())
_slots: weakref.WeakKeyDictionary[ServerState, ConnectionSlots] = weakref.WeakKeyDictionary()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn options of a `serve` process under `settings` (picklable: workers get them).
    Also sets this process's header deadline (each worker calls it with the same settings)."""
    global _header_timeout_seconds, _shares  # noqa: PLW0603 - one value per process, set first
    _header_timeout_seconds = settings.header_timeout_seconds
    _shares = (
        settings.max_connections_per_address,
        settings.max_half_open_per_address,
        tuple(settings.trusted_proxy_list()),
    )
    return {
        "http": f"{__name__}:GuardedHttpToolsProtocol",
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": settings.max_connections_per_worker,
        # Proxy headers believed only from the operator's proxies (uvicorn's own default trusts
        # 127.0.0.1): nobody else can choose their address or scheme with a header.
        "proxy_headers": bool(settings.trusted_proxy_list()),
        "forwarded_allow_ips": settings.trusted_proxy_list() or "",
    }


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header size limit, a header deadline and a share of
    the connection cap per client address."""

    _header_bytes = 0
    _awaiting_headers = False  # counted half-open in the server's slots while True
    _admitted = False
    _header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.limit_concurrency = None  # uvicorn's 503 counts half-open connections: ours does not
        slots = _slots.get(self.server_state)
        if slots is None:
            slots = _slots[self.server_state] = ConnectionSlots(*_shares)
        self._slots = slots
        self._address = self.client[0] if self.client else None
        if not slots.admit(self._address):
            self.connections.discard(self)  # it takes no slot while it closes
            self._refuse(
                "too_many_connections",
                "this address holds its share of the server's connections",
                {"Retry-After": "1"},
            )
            return
        self._admitted = True
        self._expect_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_deadline()
        self._headers_done()
        if self._admitted:
            self._admitted = False
            self._slots.release(self._address)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self._awaiting_headers or self.transport.is_closing():
            return
        self._header_bytes += len(data)
        if self._header_bytes > (self.config.h11_max_incomplete_event_size or _DEFAULT_LIMIT):
            self._refuse("headers_too_large", "the request line and headers are too large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._expect_headers()

    def on_headers_complete(self) -> None:
        self._headers_done()
        self._cancel_header_deadline()
        limit = self.config.limit_concurrency
        if limit is not None and (
            self._slots.busy(len(self.connections)) > limit or len(self.tasks) >= limit
        ):  # (this connection counted in: `limit` taken at once, 503 beyond)
            self.logger.warning("Exceeded concurrency limit.")
            app, self.app = self.app, service_unavailable  # uvicorn's own 503, as before
            try:
                super().on_headers_complete()
            finally:
                self.app = app
        else:
            super().on_headers_complete()
        cycle = self.cycle
        if type(cycle) is RequestResponseCycle:  # just made for this request, not yet started
            cycle.__class__ = OneWriteCycle

    def _expect_headers(self) -> None:
        if not self._awaiting_headers and self._admitted:
            self._awaiting_headers = True
            self._slots.begin_headers(self._address)
        self._header_bytes = 0
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(
                _header_timeout_seconds, self._headers_too_slow
            )

    def _headers_done(self) -> None:
        if self._awaiting_headers:
            self._awaiting_headers = False
            self._slots.end_headers(self._address)

    def _cancel_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if self._awaiting_headers and not self.transport.is_closing():
            self._refuse("request_timeout", "the request headers were not received in time")

    def _refuse(self, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        """Answer before any route, as the API's one error mapping answers `code`, and close the
        connection."""
        self._cancel_header_deadline()
        self._headers_done()
        answer = error_response(code, message, headers)
        self.transport.write(
            b"".join(
                [
                    STATUS_LINE[answer.status_code],
                    *(name + b": " + value + b"\r\n" for name, value in answer.raw_headers),
                    b"connection: close\r\n\r\n",
                    bytes(answer.body),
                ]
            )
        )
        self.transport.close()


class OneWriteCycle(RequestResponseCycle):
    """uvicorn's request-response cycle, but the head of a response whose length is known
    (Content-Length, so not chunked) is held until the body's write, and both go out in one
    write. The app sends the body right after the head (Starlette's Response does, in the same
    step), so nothing waits. A chunked (streamed) response's head is written at once, as
    uvicorn writes it; a held head is written before the connection is closed, whatever closes
    it, and after a body that writes nothing (HEAD)."""

    async def send(self, message: Any) -> None:
        current: Any = self.transport
        held = current if isinstance(current, _HeadHeld) else _HeadHeld(current)
        self.transport = held  # type: ignore[assignment]
        await super().send(message)
        if message["type"] != "http.response.start" or self.chunked_encoding is not False:
            held.flush()


class _HeadHeld:
    """The connection's transport for one cycle: its first write (the response's head) is held
    and goes out in front of the next write, or on flush or close."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self._holding = True
        self._held = b""

    def write(self, data: bytes) -> None:
        if self._holding:
            self._holding = False
            self._held = data
            return
        held, self._held = self._held, b""
        self.transport.write(held + data if held else data)

    def flush(self) -> None:
        self._holding = False
        held, self._held = self._held, b""
        if held:
            self.transport.write(held)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)
