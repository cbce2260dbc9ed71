"""The audit trail export cannot exhaust the store (issue 17, finding 1): thirty readers that
stop reading leave the database's connection count where it was, exports past the cap are
refused at once with 429, a stalled reader is dropped after the send timeout, a reader that
disconnects frees its slot at once, and every slot comes back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from http_support import AUDITOR, Journey, bearer, settings_for
from store_kinds_support import PG_ADMIN

from infrastructure.bootstrap import Runtime, build_runtime
from projections.database import is_postgres, postgres_address

CAP = 4
SEND_TIMEOUT = 1.0
READERS = 30


@pytest.fixture
def runtime(store_url: str) -> Iterator[Runtime]:
    settings = settings_for(store_url)
    settings.audit_exports_max = CAP
    settings.audit_send_timeout_seconds = SEND_TIMEOUT
    built = build_runtime(settings, with_projections=True)
    try:
        yield built
    finally:
        built.close()


def _connections(database_url: str) -> int:
    """How many connections the store's database has (PostgreSQL), 0 on SQLite."""
    if not is_postgres(database_url):
        return 0
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
            (postgres_address(database_url).dbname,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def _export_lines(client: TestClient) -> int:
    answer = client.get("/audit/events", headers=bearer(AUDITOR))
    assert answer.status_code == 200, answer.text
    return len(answer.text.splitlines())


async def _reader(app: FastAPI, disconnect_after: float | None = None) -> dict[str, Any]:
    """One GET /audit/events whose client reads the answer's start and then stops reading
    (its every body write waits for ever), or disconnects after `disconnect_after` seconds."""
    seen: dict[str, Any] = {"status": None, "ended": None}
    started = time.monotonic()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/audit/events",
        "raw_path": b"/audit/events",
        "query_string": b"format=jsonl",
        "root_path": "",
        "headers": [(b"host", b"test"), (b"authorization", f"Bearer {AUDITOR}".encode())],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 80),
    }
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        if disconnect_after is not None:
            await asyncio.sleep(disconnect_after)
            return {"type": "http.disconnect"}
        await asyncio.Event().wait()  # connected, silent
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            seen["status"] = message["status"]
        elif seen["status"] == 200:
            await asyncio.Event().wait()  # the reader never reads: the write never completes

    await app(scope, receive, send)  # type: ignore[arg-type]
    seen["ended"] = time.monotonic() - started
    return seen


def test_stalled_readers_cannot_exhaust_the_store(runtime: Runtime) -> None:
    client = TestClient(runtime.http_app, raise_server_exceptions=False)
    j = Journey(client)
    for _ in range(5):
        j.deposit(100)
    deadline = time.monotonic() + 15
    while _export_lines(client) < 7 and time.monotonic() < deadline:
        time.sleep(0.1)
    before = _connections(runtime.settings.database_url)

    async def stall_them_all() -> tuple[list[dict[str, Any]], int]:
        readers = [asyncio.create_task(_reader(runtime.http_app)) for _ in range(READERS)]
        await asyncio.sleep(SEND_TIMEOUT / 2)
        during = await asyncio.to_thread(_connections, runtime.settings.database_url)
        done = await asyncio.wait_for(asyncio.gather(*readers), timeout=SEND_TIMEOUT + 10)
        return done, during

    readers, during = asyncio.run(stall_them_all())
    statuses = sorted(reader["status"] for reader in readers)
    assert statuses == [200] * CAP + [429] * (READERS - CAP)
    assert during - before <= CAP, (before, during)  # not one pool, or connection, per reader
    assert all(r["ended"] < SEND_TIMEOUT + 3 for r in readers if r["status"] == 200)
    assert _export_lines(client) >= 7  # every slot came back

    async def disconnecting() -> list[dict[str, Any]]:
        tasks = [_reader(runtime.http_app, disconnect_after=0.1) for _ in range(CAP)]
        return await asyncio.wait_for(asyncio.gather(*tasks), timeout=SEND_TIMEOUT + 10)

    gone = asyncio.run(disconnecting())
    assert [r["status"] for r in gone] == [200] * CAP
    assert all(r["ended"] < SEND_TIMEOUT / 2 for r in gone)  # ended by the disconnect
    assert _export_lines(client) >= 7
    assert _connections(runtime.settings.database_url) <= before + CAP
