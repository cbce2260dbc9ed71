"""Configuration from the environment, and logs that never carry a secret."""

from __future__ import annotations

import json
import logging

import pytest
import structlog

from infrastructure.logging import configure_logging, get_logger, redact_secrets
from infrastructure.settings import Settings


def test_the_defaults_are_the_contracts(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "OPERATOR_KEY", "AUDITOR_KEY", "HOST", "PORT"):
        monkeypatch.delenv(f"PUMPKIN_{name}", raising=False)
    settings = Settings()
    assert settings.database_url == "sqlite:///./pumpkin.db"
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.keys_were_generated == (True, True)
    assert settings.operator_key.get_secret_value() != settings.auditor_key.get_secret_value()
    assert len(settings.operator_key.get_secret_value()) >= 32


def test_keys_and_store_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUMPKIN_OPERATOR_KEY", "op-secret")
    monkeypatch.setenv("PUMPKIN_AUDITOR_KEY", "")  # empty means "not set": a random one
    monkeypatch.setenv("PUMPKIN_DATABASE_URL", "postgresql://u:pw@db:5432/pumpkin")
    monkeypatch.setenv("PUMPKIN_PORT", "9000")
    settings = Settings()
    assert settings.operator_key.get_secret_value() == "op-secret"
    assert settings.keys_were_generated == (False, True)
    assert settings.auditor_key.get_secret_value()
    assert settings.port == 9000
    assert settings.database_url_for_log == "postgresql://u:***@db:5432/pumpkin"
    assert "op-secret" not in repr(settings)


def test_an_unknown_store_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUMPKIN_DATABASE_URL", "mysql://x")
    with pytest.raises(ValueError, match="PUMPKIN_DATABASE_URL"):
        Settings()


def test_the_redaction_processor_masks_secrets_wherever_they_appear() -> None:
    event = redact_secrets(
        None,
        "info",
        {
            "event": "x",
            "token": "t0k",
            "operator_key": "k",
            "Authorization": "Bearer abc",
            "note": "sent Bearer abc.def",
            "url": "postgresql://u:pw@h/db",
            "player_id": "ann",
        },
    )
    assert event["token"] == event["operator_key"] == event["Authorization"] == "***"
    assert event["note"] == "sent Bearer ***"
    assert event["url"] == "postgresql://u:***@h/db"
    assert event["player_id"] == "ann"


def test_logs_are_json_lines_with_the_bound_request_context(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("json", "INFO")
    try:
        structlog.contextvars.bind_contextvars(request_id="r-1", player_id="ann")
        get_logger("test").info("spun", token="secret-token")
        logging.getLogger("uvicorn.error").info("from the standard library")
    finally:
        structlog.contextvars.clear_contextvars()
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [line["event"] for line in lines] == ["spun", "from the standard library"]
    assert all(line["request_id"] == "r-1" and line["player_id"] == "ann" for line in lines)
    assert "secret-token" not in json.dumps(lines)
