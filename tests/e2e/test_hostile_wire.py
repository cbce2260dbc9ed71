"""Garbage on the wire, against a real `pumpkin serve` (uvicorn): malformed request lines,
conflicting lengths, smuggling attempts, pipelining, oversized URLs and headers. Each gets a 4xx
or a closed connection, never a 5xx, and the server keeps serving. (About HTTP, not the store:
SQLite only.)"""

from __future__ import annotations

import socket
from pathlib import Path

import httpx

from bench.fault_tools import OPERATOR, Server  # noqa: E402

RAW = [
    b"GARBAGE\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /health HTTP/1.1\r\n\r\n",  # no Host
    b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST /players HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
    b"POST /players HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
    b"0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /players HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
    b"GET /players/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\n\r\n",
    b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS hello on the plain port
]


def _status_line(raw: bytes, port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(raw)
        try:
            return conn.recv(64).split(b"\r\n", 1)[0]
        except (TimeoutError, ConnectionResetError):
            return b""  # closed or silent: also a refusal


def test_garbage_on_the_wire_is_refused_and_the_server_keeps_serving(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'events.db'}", tmp_path / "serve.log").start()
    try:
        for raw in RAW:
            line = _status_line(raw, server.port)
            if line:
                status = int(line.split()[1])
                assert status < 500 and (status >= 400 or raw.startswith(b"GET /health")), (
                    raw[:60],
                    line,
                )
        with httpx.Client(base_url=server.base_url, timeout=5) as client:
            assert client.get("/health").status_code == 200
            created = client.post(
                "/players",
                json={"player_id": "after-garbage"},
                headers={"Authorization": f"Bearer {OPERATOR}"},
            )
            assert created.status_code == 201
    finally:
        server.stop()
    assert '"event": "defect"' not in (tmp_path / "serve.log").read_text()
