"""What one `serve` process takes from the network (issue 17, finding 2), against a real server
with raw sockets: an oversized header is refused before it is buffered, a client that never
finishes its headers (or never sends a byte) is closed after the header deadline, one address holds
a bounded number of connections, a process a bounded number past their headers, and /health stays
fast meanwhile. (HTTP only: SQLite.)"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path

import httpx
import pytest

from bench.fault_tools import Server  # noqa: E402

HEADER_TIMEOUT = 1.0
MAX_CONNECTIONS = 16
PER_ADDRESS, HALF_OPEN_PER_ADDRESS = 10, 8


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    where = tmp_path_factory.mktemp("network")
    running = Server(
        f"sqlite:///{where / 'events.db'}",
        where / "serve.log",
        projections=False,
        PUMPKIN_HEADER_TIMEOUT_SECONDS=str(HEADER_TIMEOUT),
        PUMPKIN_MAX_CONNECTIONS_PER_WORKER=str(MAX_CONNECTIONS),
        PUMPKIN_MAX_CONNECTIONS_PER_ADDRESS=str(PER_ADDRESS),
        PUMPKIN_MAX_HALF_OPEN_PER_ADDRESS=str(HALF_OPEN_PER_ADDRESS),
        PUMPKIN_MAX_HEADER_BYTES="16384",
    ).start()
    try:
        yield running
    finally:
        running.stop()


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _health_seconds(server: Server) -> float:
    started = time.perf_counter()
    assert httpx.get(f"{server.base_url}/health", timeout=5).status_code == 200
    return time.perf_counter() - started


def _answer_or_close(conn: socket.socket, wait: float) -> bytes:
    """What the server says before closing (b"" if it just closes); raises if it stays open."""
    conn.settimeout(wait)
    received = b""
    with suppress(ConnectionResetError):
        while chunk := conn.recv(4096):
            received += chunk
    return received


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_oversized_header_is_refused_without_memory_growth(server: Server) -> None:
    assert server.process is not None
    before = _rss_kib(server.process.pid)
    refused = False
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ")
        try:
            for _ in range(32 * 16):  # 32 MB of one header value, in 64 KiB pieces
                conn.sendall(b"a" * 65536)
        except (BrokenPipeError, ConnectionResetError):
            refused = True  # closed on us mid-header
        if not refused:
            answer = _answer_or_close(conn, 10)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 431"), answer[:80]
    grown_mib = (_rss_kib(server.process.pid) - before) / 1024
    assert grown_mib < 8, f"the server grew {grown_mib:.0f} MiB on one header"
    assert _health_seconds(server) < 1


def test_a_slow_header_client_is_closed_after_the_deadline_and_health_stays_fast(
    server: Server,
) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        closed = threading.Event()

        def trickle() -> None:  # one header line every 200 ms, never the blank line
            with suppress(OSError):
                while not closed.is_set() and time.monotonic() - started < 10:
                    conn.sendall(b"X-Slow: 1\r\n")
                    time.sleep(0.2)

        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        assert _health_seconds(server) < 0.5  # another client is served meanwhile
        answer = _answer_or_close(conn, 10)
        closed.set()
        sender.join()
        lasted = time.monotonic() - started
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:80]
    if answer:  # in the API's error shape, as every refusal
        head, _, body = answer.partition(b"\r\n\r\n")
        assert b"content-type: application/json" in head
        assert json.loads(body)["error"]["code"] == "request_timeout"
    assert HEADER_TIMEOUT * 0.8 <= lasted < HEADER_TIMEOUT + 3


def _connect(address: str, port: int) -> socket.socket:
    conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    conn.bind((address, 0))
    conn.settimeout(10)
    conn.connect(("127.0.0.1", port))
    return conn


def _health_from(address: str, server: Server) -> int:
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=server.base_url, timeout=5, transport=transport) as client:
        return client.get("/health").status_code


def test_idle_connections_are_closed_and_one_address_holds_a_bounded_number(
    server: Server,
) -> None:
    with ExitStack() as stack:
        idle = [stack.enter_context(_connect("127.0.0.1", server.port)) for _ in range(16)]
        time.sleep(0.3)  # accepted by the server, the header deadline still ahead
        refused, _, _ = select.select(idle, [], [], 0)  # answered or closed at once
        held = [conn for conn in idle if conn not in refused]
        for conn in refused:
            answer = _answer_or_close(conn, 1)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 429"), answer[:80]
        # the address's share of connections still sending headers is held, the rest refused
        assert len(held) == HALF_OPEN_PER_ADDRESS and len(refused) == 16 - HALF_OPEN_PER_ADDRESS
        assert _health_from("127.0.0.2", server) == 200  # another address is served meanwhile
        started = time.monotonic()
        for conn in held:  # connections that never send a byte are closed at the deadline
            answer = _answer_or_close(conn, HEADER_TIMEOUT + 5)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:80]
        assert time.monotonic() - started < HEADER_TIMEOUT + 3
    assert _health_seconds(server) < 1


def test_a_process_takes_a_bounded_number_of_connections_past_their_headers(
    server: Server,
) -> None:
    with ExitStack() as stack:
        for address in ("127.0.0.3", "127.0.0.4"):  # each within its share: 16 in all
            for _ in range(MAX_CONNECTIONS // 2):
                conn = stack.enter_context(_connect(address, server.port))
                conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                assert conn.recv(4096).startswith(b"HTTP/1.1 200")  # then idle, kept alive
        assert _health_from("127.0.0.5", server) == 503  # one connection too many
    time.sleep(0.2)
    assert _health_from("127.0.0.5", server) == 200
