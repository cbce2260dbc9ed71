"""A response of known length goes out in one write (server_limits.OneWriteCycle), and the bytes
on the wire are uvicorn's own, byte for byte, for every kind of answer: JSON, HEAD, streamed
(chunked), an app that fails before or after its head, keep-alive and `Connection: close`."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.http.flow_control import FlowControl

from infrastructure.http.server_limits import OneWriteCycle


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    path = scope["path"]
    if path == "/stream":
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain")]})
        for part in (b"one,", b"two,", b"three"):
            await asyncio.sleep(0.01)
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    if path == "/fails-before":
        raise RuntimeError("before the head")
    body = b'{"answer":42}'
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    if path == "/fails-after":
        raise RuntimeError("after the head")
    await send({"type": "http.response.body", "body": body})


@contextmanager
def serving(protocol: str) -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, http=protocol, log_config=None,
                            access_log=False, server_header=False, date_header=False,
                            lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def exchange(port: int, raw: bytes) -> bytes:
    """Everything the server sends until it closes, or stays quiet for a moment."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(raw)
        conn.settimeout(0.5)
        received = b""
        while True:
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                return received
            if not chunk:
                return received
            received += chunk


REQUESTS = [
    b"GET /json HTTP/1.1\r\nHost: x\r\n\r\n",
    b"HEAD /json HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /fails-before HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /fails-after HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"GET /json HTTP/1.0\r\nHost: x\r\n\r\n",
    b"GET /json HTTP/1.1\r\nHost: x\r\n\r\nGET /stream HTTP/1.1\r\nHost: x\r\n\r\n"
    b"HEAD /json HTTP/1.1\r\nHost: x\r\n\r\n",
]


def test_the_wire_carries_uvicorns_own_bytes_for_every_kind_of_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent: list[str] = []
    original = OneWriteCycle.send

    async def counted(self: OneWriteCycle, message: Any) -> None:
        sent.append(message["type"])
        await original(self, message)

    monkeypatch.setattr(OneWriteCycle, "send", counted)
    logging.getLogger("uvicorn.error").disabled = True  # the failing app is expected
    try:
        with serving("httptools") as theirs, serving(
            "infrastructure.http.server_limits:GuardedHttpToolsProtocol"
        ) as ours:
            for raw in REQUESTS:
                expected = exchange(theirs, raw)
                assert expected, raw
                assert exchange(ours, raw) == expected, raw
        assert "http.response.start" in sent  # our server's cycles were OneWriteCycle
    finally:
        logging.getLogger("uvicorn.error").disabled = False


class Transport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def cycle(transport: Transport, method: str = "GET") -> OneWriteCycle:
    return OneWriteCycle(
        scope={"type": "http", "method": method, "path": "/", "headers": []},  # type: ignore[typeddict-item]
        transport=transport,  # type: ignore[arg-type]
        flow=FlowControl(transport),  # type: ignore[arg-type]
        logger=logging.getLogger("test"),
        access_logger=logging.getLogger("test"),
        access_log=False,
        default_headers=[],
        message_event=asyncio.Event(),
        expect_100_continue=False,
        keep_alive=True,
        on_response=lambda: None,
    )


START = {"type": "http.response.start", "status": 200,
         "headers": [(b"content-length", b"2")]}


def test_a_response_of_known_length_is_one_write() -> None:
    transport = Transport()
    answer = cycle(transport)
    asyncio.run(answer.send(START))
    assert transport.writes == []
    asyncio.run(answer.send({"type": "http.response.body", "body": b"{}"}))
    assert transport.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]


def test_a_held_head_is_written_before_a_close_and_after_a_head_request() -> None:
    transport = Transport()
    answer = cycle(transport)
    asyncio.run(answer.send(START))
    answer.transport.close()  # as uvicorn closes when the app fails after its head
    assert transport.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"]
    assert transport.closed

    transport = Transport()
    answer = cycle(transport, "HEAD")
    asyncio.run(answer.send(START))
    asyncio.run(answer.send({"type": "http.response.body", "body": b""}))
    assert transport.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"]
