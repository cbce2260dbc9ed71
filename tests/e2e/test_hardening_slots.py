"""Connection slots (issue 27, item 1), against a real `pumpkin serve` with raw sockets: one
address holding more connections than the whole connection cap, none of them ever finishing its
headers, takes no slot another address's requests need. Loopback has many addresses: the
attacker's sockets come from 127.0.0.1, the player's from 127.0.0.2. (HTTP only: SQLite.)"""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress

import httpx
import pytest

from bench.fault_tools import OPERATOR, Server

HALF_OPEN = 1_100  # more than PUMPKIN_MAX_CONNECTIONS_PER_WORKER's default 1,000
ATTACKER, PLAYER = "127.0.0.1", "127.0.0.2"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, 4 * HALF_OPEN))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))  # the server inherits it too
    where = tmp_path_factory.mktemp("slots")
    # Every limit at its default: the 1,000-connection cap and the 10 s header deadline (which
    # frees no slot within the test).
    running = Server(f"sqlite:///{where / 'events.db'}", where / "serve.log", projections=False)
    try:
        yield running.start()
    finally:
        running.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _from(address: str, base_url: str) -> httpx.Client:
    return httpx.Client(
        base_url=base_url,
        timeout=10,
        transport=httpx.HTTPTransport(local_address=address),
        headers={"Authorization": f"Bearer {OPERATOR}"},
    )


def _session_token(base_url: str) -> tuple[str, str]:
    with _from(PLAYER, base_url) as operator:
        assert operator.post("/players", json={"player_id": "slots-p1"}).status_code == 201
        funded = operator.post(
            "/players/slots-p1/deposits", json={"amount": 100_000, "request_id": "slots-d1"}
        )
        assert funded.status_code == 201
        opened = operator.post("/players/slots-p1/sessions", json={})
        assert opened.status_code == 201
        return opened.json()["session_id"], opened.json()["token"]


def _half_open(stack: ExitStack, port: int, count: int) -> list[socket.socket]:
    """`count` connections from ATTACKER, each sending a request line and a header but never the
    blank line that ends the headers."""
    held = []
    for _ in range(count):
        conn = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        conn.bind((ATTACKER, 0))
        conn.settimeout(5)
        conn.connect(("127.0.0.1", port))
        with suppress(OSError):  # the server may already have refused it
            conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        held.append(conn)
    return held


def test_half_open_connections_from_one_address_leave_every_slot_another_needs(
    server: Server,
) -> None:
    session_id, token = _session_token(server.base_url)
    with ExitStack() as stack:
        _half_open(stack, server.port, HALF_OPEN)
        time.sleep(0.5)  # all accepted (or refused) by the server, none finished
        started = time.monotonic()
        with _from(PLAYER, server.base_url) as player:
            statuses = [
                player.post(
                    f"/sessions/{session_id}/spins",
                    json={"stake": 100, "request_id": f"slots-spin-{n}"},
                    headers={"Authorization": f"Bearer {token}"},
                ).status_code
                for n in range(20)
            ]
        lasted = time.monotonic() - started
    assert statuses == [200] * 20
    assert lasted < 3.0, f"20 spins took {lasted:.1f} s"
