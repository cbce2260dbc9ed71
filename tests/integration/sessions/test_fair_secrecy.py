"""Before the close, the server seed cannot be read anywhere: not in any table of the store (the
events, snapshots, read models, checkpoints), not in any log line, not in any answer; found in
the clear only once the session closes (so the scan itself is shown to see it)."""

from __future__ import annotations

import base64
import json
import sqlite3
import time

import psycopg
import pytest
import structlog
from fair_support import unrevealed_seed
from http_support import OPERATOR, Journey, bearer, served_client

from infrastructure.logging import configure_logging
from infrastructure.store.persistence import postgres_address, sqlite_path


def every_stored_value(store_url: str) -> bytes:
    """Every cell of every table, as bytes (text UTF-8 encoded), joined."""
    cells: list[bytes] = []
    if store_url.startswith("sqlite:"):
        with sqlite3.connect(sqlite_path(store_url)) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master "
                                                 "WHERE type = 'table'")]
            for table in tables:
                for row in conn.execute(f'SELECT * FROM "{table}"'):  # noqa: S608 - test
                    cells.extend(_bytes(v) for v in row)
        return b"\n".join(cells)
    with psycopg.connect(postgres_address(store_url).conninfo(), autocommit=True) as conn:
        tables = conn.execute(
            "SELECT table_schema, table_name FROM information_schema.tables WHERE "
            "table_schema NOT IN ('pg_catalog', 'information_schema')").fetchall()
        for schema, table in tables:
            for row in conn.execute(f'SELECT * FROM "{schema}"."{table}"'):  # noqa: S608
                cells.extend(_bytes(v) for v in row)
    return b"\n".join(cells)


def _bytes(value: object) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return str(value).encode()


def spellings(seed: bytes) -> list[bytes]:
    return [
        seed,
        seed.hex().encode(),
        seed.hex().upper().encode(),
        base64.b64encode(seed),
        base64.urlsafe_b64encode(seed),
        base64.b64encode(seed).rstrip(b"="),
        base64.urlsafe_b64encode(seed).rstrip(b"="),
    ]


def test_no_table_log_line_or_answer_holds_an_open_sessions_seed(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("json", "DEBUG")
    answers: list[bytes] = []
    try:
        with served_client(store_url) as client:
            j = Journey(client)
            app = client.app.state.deps.service  # type: ignore[attr-defined]
            for n in range(5):
                answers.append(j.spin(request_id=f"r{n}").content)
            answers.append(client.get(f"/sessions/{j.session_id}",
                                      headers=bearer(OPERATOR)).content)
            answers.append(client.get("/sessions/current", headers=bearer(j.token)).content)
            seed = unrevealed_seed(app, j.player_id, j.session_id)
            deadline = time.monotonic() + 30  # the read models follow the store on their own
            while time.monotonic() < deadline:
                rounds = client.get(f"/audit/rounds?player_id={j.player_id}",
                                    headers=bearer("auditor-key-for-tests")).json()
                if len(rounds.get("rounds", [])) == 5:
                    break
                time.sleep(0.1)
            stored = every_stored_value(store_url)
            logged = capsys.readouterr().err.encode()
            for spelling in spellings(seed):
                assert spelling not in stored
                assert spelling not in logged
                assert not any(spelling in answer for answer in answers)
            closed = client.post(f"/sessions/{j.session_id}/close", json={},
                                 headers=bearer(j.token))
            assert closed.json()["server_seed"] == seed.hex()
            assert seed.hex().encode() in every_stored_value(store_url)  # the scan can see it
    finally:
        structlog.contextvars.clear_contextvars()
    assert json.loads(answers[0])["seed_commitment"]
