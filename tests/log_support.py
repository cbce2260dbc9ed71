"""What the transparency log's tests share: a store with rounds played, the HTTP API with the
operator's log key in a file of the test's own, a checkpoint signed now, and the CLI's
`pumpkin checkpoint` / `pumpkin verify --json` on a store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from http_support import settings_for
from typer.testing import CliRunner

from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.bootstrap import build_http_app
from infrastructure.cli import app as cli


def played(app: PumpkinApplication, player_id: str = "ivy", spins: int = 6) -> str:
    """A new player with a deposit and `spins` rounds in one session; its stream id (hex)."""
    play_session(app, player_id, spins)
    return player_aggregate_id(player_id).hex


def play_session(app: PumpkinApplication, player_id: str, spins: int) -> str:
    """The same; the session's id (its rounds are <player>.1, <player>.2, ...)."""
    app.register_player(player_id)
    app.deposit(player_id, 100_000, f"{player_id}-d1")
    session_id, _ = app.open_session(player_id)
    spin(app, session_id, spins)
    return session_id


def spin(app: PumpkinApplication, session_id: str, n: int) -> None:
    for i in range(n):
        app.spin(session_id, 20, f"{session_id}-{i}-{n}")


def log_client(service: PumpkinApplication, key_file: Path) -> TestClient:
    """The HTTP API around `service`, signing with the log key in `key_file`."""
    settings = settings_for().model_copy(update={"checkpoint_key_file": str(key_file)})
    return TestClient(build_http_app(settings, service), raise_server_exceptions=False)


def sign_now(api: TestClient) -> None:
    log = api.app.state.deps.transparency  # type: ignore[attr-defined]
    log.builder.sign_checkpoint(log.key)


def cli_env(store_url: str, tmp_path: Path) -> dict[str, str]:
    return {"PUMPKIN_DATABASE_URL": store_url, "PUMPKIN_LOG_FORMAT": "json",
            "PUMPKIN_CHECKPOINT_KEY_FILE": str(tmp_path / "operator.key")}


def checkpoint(env: dict[str, str], out: Path) -> str:
    """`pumpkin checkpoint --out FILE`; the log's verifier key it prints."""
    made = CliRunner().invoke(cli, ["checkpoint", "--out", str(out)], env=env)
    assert made.exit_code == 0, made.output
    return made.output.split("log key ")[1].strip()


def verify(env: dict[str, str], *args: str) -> tuple[int, dict[str, Any]]:
    """`pumpkin verify --json ARGS`: (exit code, report)."""
    result = CliRunner().invoke(cli, ["verify", "--json", *args], env=env)
    return result.exit_code, json.loads(result.stdout)


def log_fields(report: dict[str, Any]) -> list[str]:
    """The fields of the report's log_mismatch problems."""
    return [p["field"] for p in report["problems"] if p["kind"] == "log_mismatch"]
