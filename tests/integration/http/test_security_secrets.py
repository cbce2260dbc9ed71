"""Secrets: keys are compared in constant time, and no key, token or database password ever
reaches a log line, whatever the requests (good, refused, throttled, oversized, store down)."""

from __future__ import annotations

import ast
import inspect
import io
import json
import logging
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg
import pytest
import structlog
from fastapi.testclient import TestClient
from http_support import (
    AUDITOR,
    OPERATOR,
    Journey,
    ServiceDouble,
    bearer,
    client_for,
    settings_for,
    unique,
)
from store_kinds_support import fresh_postgres_database

from infrastructure.application import PumpkinApplication
from infrastructure.bootstrap import build_http_app
from infrastructure.http import auth
from infrastructure.logging import configure_logging

DB_PASSWORD = "db-pass-never-logged-7f3a"


def test_keys_are_compared_in_constant_time_and_never_with_equals() -> None:
    tree = ast.parse(inspect.getsource(auth))
    digests = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compare_digest"
    ]
    assert len(digests) >= 2, "operator and auditor keys must go through hmac.compare_digest"
    secret_names = {"secret", "token", "operator_key", "auditor_key", "credentials", "key"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops
        ):
            names = {
                n.id if isinstance(n, ast.Name) else n.attr
                for n in ast.walk(node)
                if isinstance(n, ast.Name | ast.Attribute)
            }
            assert not names & secret_names, f"a secret compared with == : {ast.unparse(node)}"


@pytest.fixture
def captured_logs() -> Iterator[io.StringIO]:
    """Everything the service logs, as production configures it (JSON lines, DEBUG)."""
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    saved_structlog = structlog.get_config()
    stream = io.StringIO()
    import sys

    real_stderr = sys.stderr
    sys.stderr = stream  # configure_logging binds its handler to sys.stderr
    try:
        configure_logging("json", "DEBUG")
    finally:
        sys.stderr = real_stderr
    try:
        yield stream
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        structlog.configure(**saved_structlog)


@pytest.fixture(params=["sqlite", "postgres"])
def store_with_password(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A store URL; on PostgreSQL it carries a password (trust auth ignores it)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'events.db'}"
        return
    with fresh_postgres_database() as url:
        yield url.replace("postgres@", f"postgres:{DB_PASSWORD}@", 1)


def _journey(client: TestClient) -> list[str]:
    """A busy day: everything a client can do, right and wrong. The tokens it saw."""
    op, aud = bearer(OPERATOR), bearer(AUDITOR)
    a, b = Journey(client), Journey(client)
    tokens = [a.token, b.token]
    for _ in range(3):
        assert a.spin(100).status_code == 200
    round_id = a.spin(100, request_id="fixed").json()["round_id"]
    a.spin(200, request_id="fixed")  # reused id, other body
    client.get(f"/players/{a.player_id}", headers=bearer(a.token))
    client.get(f"/players/{b.player_id}", headers=bearer(a.token))  # forbidden
    client.get(f"/players/{a.player_id}/rounds", headers=aud)
    client.get(f"/rounds/{round_id}", headers=bearer(b.token))  # forbidden
    client.get(f"/audit/players/{a.player_id}/verify", headers=aud)
    client.get(f"/audit/players/{a.player_id}/verify", headers=op)  # forbidden
    client.post(f"/players/{a.player_id}/deposits", json={"amount": 5}, headers=op)  # invalid
    client.post(
        f"/players/{a.player_id}/withdrawals",
        json={"amount": 10**12, "request_id": "w"},
        headers=op,
    )
    client.post("/players", json={"player_id": a.token}, headers=op)  # a token where an id goes
    client.post("/players", content=b"x" * 100_000, headers=op)  # too large
    client.get("/players/x", headers={"Authorization": f"Basic {OPERATOR}"})
    client.get("/players/x", headers=bearer(OPERATOR + "-guess"))
    client.get("/players/x", headers=bearer(a.token[::-1]))
    client.post(f"/sessions/{a.session_id}/close", headers=bearer(a.token))
    client.get(f"/players/{a.player_id}", headers=bearer(a.token))  # closed: 401
    a.spin(100)  # closed: 409
    client.get("/metrics")
    return tokens


def _assert_no_secret(text: str, secrets: list[str]) -> None:
    assert text.strip(), "nothing was logged: the test proves nothing"
    for line in text.splitlines():
        for secret in secrets:
            assert secret not in line, f"a secret reached the log: {line[:300]}"


def test_no_key_token_or_password_is_ever_logged(
    captured_logs: io.StringIO, store_with_password: str
) -> None:
    with ExitStack() as stack:
        application = PumpkinApplication.from_url(store_with_password)
        stack.callback(application.close)
        app = build_http_app(settings_for(store_with_password), application)
        client = stack.enter_context(TestClient(app, raise_server_exceptions=False))
        tokens = _journey(client)
        throttled = build_http_app(settings_for(store_with_password, rate_limit=3), application)
        flooded = stack.enter_context(TestClient(throttled, raise_server_exceptions=False))
        for secret in (OPERATOR, AUDITOR, tokens[1]):
            for _ in range(8):
                flooded.get(f"/players/{unique('p')}", headers=bearer(secret))
    text = captured_logs.getvalue()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert any(line.get("status") == 429 for line in lines), "the flood was not throttled"
    assert any(line.get("status") == 413 for line in lines)
    _assert_no_secret(text, [OPERATOR, AUDITOR, DB_PASSWORD, *tokens])


class _StoreDown(ServiceDouble):
    """A service whose store connection fails with the URL (and password) in the message.
    (Tokens never reach the store: only their SHA-256 does, so no store error can hold one.)"""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def player_state(self, player_id: str) -> dict[str, Any]:
        raise psycopg.OperationalError(f"connection to {self.url} failed: refused")

    def session_for_token(self, token: str) -> None:
        raise psycopg.OperationalError(f"connection to {self.url} failed")


def test_a_store_outage_logs_no_password_or_token(captured_logs: io.StringIO) -> None:
    url = f"postgresql://postgres:{DB_PASSWORD}@db.example:5432/pumpkin"
    with client_for(_StoreDown(url)) as client:
        assert client.get("/players/x", headers=bearer(OPERATOR)).status_code == 503
        token = "player-token-that-must-not-be-logged"
        assert client.get("/players/x", headers=bearer(token)).status_code == 503
    _assert_no_secret(captured_logs.getvalue(), [OPERATOR, DB_PASSWORD, token])
