"""Every line a request logs carries its request id (and player id), and no secret ever."""

from __future__ import annotations

import json
from typing import Any

import pytest
import structlog
from http_support import OPERATOR, Journey, bearer, client_for

from infrastructure.logging import configure_logging


def test_request_lines_carry_ids_and_never_a_key_or_token(
    service: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("json", "INFO")
    try:
        with client_for(service) as client:
            j = Journey(client)
            j.spin()
            client.get(f"/players/{j.player_id}", headers=bearer(j.token))
            client.get("/players/x", headers=bearer("wrong-" + OPERATOR))
    finally:
        structlog.contextvars.clear_contextvars()
    text = capsys.readouterr().err
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line["event"] == "http_request"]
    assert len(requests) >= 6
    assert all(line.get("request_id") for line in requests)
    player_lines = [line for line in requests if line.get("role") == "player"]
    assert player_lines and all(line["player_id"] == j.player_id for line in player_lines)
    assert OPERATOR not in text and j.token not in text
