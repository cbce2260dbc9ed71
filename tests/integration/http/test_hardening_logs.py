"""The log cannot be blinded or fooled (issue 17, finding 11): tracebacks are redacted like
any other text, the access log names the client's address, the request id is the server's own,
and one bad read cannot use up the warning of a real read-model outage."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import structlog
from http_support import client_for

from infrastructure.audit.read_models_access import ReadYourWritesRounds, WriteSideRounds
from infrastructure.logging import WarnEvery, configure_logging, get_logger


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("logger", ["structlog", "stdlib"])
def test_a_traceback_is_redacted_after_it_is_formatted(
    logger: str, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("json", "INFO")
    try:
        raise RuntimeError("could not reach postgresql://app:hunter2-pw@db/x with Bearer s3cr3t")
    except RuntimeError:
        if logger == "structlog":
            get_logger("test").exception("defect")
        else:  # as uvicorn logs "Exception in ASGI application"
            logging.getLogger("uvicorn.error").exception("Exception in ASGI application")
    text = capsys.readouterr().err
    assert "Traceback" in text and "RuntimeError" in text
    assert "hunter2-pw" not in text and "s3cr3t" not in text


def test_the_access_log_names_the_client_and_the_request_id_is_the_servers(
    service: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("json", "INFO")
    try:
        with client_for(service) as client:
            answer = client.get("/health", headers={"X-Request-ID": "forged-id"})
            spoofed = client.get("/health", headers={"X-Request-ID": "a b<script>"})
    finally:
        structlog.contextvars.clear_contextvars()
    assert answer.headers["x-request-id"] != "forged-id"
    assert spoofed.headers["x-request-id"] != "a b<script>"
    logged = _json_lines(capsys.readouterr().err)
    lines = [line for line in logged if line["event"] == "http_request"]
    assert [line["client"] for line in lines] == ["testclient", "testclient"]
    assert all(line["request_id"] != "forged-id" for line in lines)
    assert lines[0]["client_request_id"] == "forged-id"  # kept, apart from the server's id
    assert "client_request_id" not in lines[1]  # not a plain token: not logged at all


class _FailingProjection:
    """A read model that fails one way for a malformed round id, another way in an outage."""

    def __init__(self) -> None:
        self.failure: type[Exception] = ValueError

    def player_rounds(self, player_id: str, limit: int, before: str | None) -> list[Any]:
        raise self.failure("no")

    def round(self, round_id: str) -> dict[str, Any] | None:
        raise self.failure("no")


class _NoRounds(WriteSideRounds):
    def __init__(self) -> None:
        super().__init__(None)

    def round(self, round_id: str) -> dict[str, Any] | None:
        return None


def test_a_bad_round_id_does_not_use_up_the_read_model_outage_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("json", "INFO")
    projection = _FailingProjection()
    rounds = ReadYourWritesRounds(projection, _NoRounds())
    rounds.round("bad\x00id")  # the attacker's request: the read model fails on it
    projection.failure = ConnectionError  # then the read model's store goes away
    rounds.round("ann.1")
    rounds.round("ann.2")
    warnings = [
        line["error"]
        for line in _json_lines(capsys.readouterr().err)
        if line["event"] == "rounds_read_model_unavailable"
    ]
    assert warnings == ["ValueError", "ConnectionError"]  # each kind said, and said once


def test_a_recurring_warning_is_due_again_after_its_interval() -> None:
    now = [0.0]
    warnings = WarnEvery(60.0, clock=lambda: now[0])
    assert warnings.due("OperationalError")
    assert not warnings.due("OperationalError")
    now[0] = 61.0
    assert warnings.due("OperationalError")
