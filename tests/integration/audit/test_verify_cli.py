"""`pumpkin verify` and GET /audit/players/{id}/verify: exit 0 / ok only when all agrees, and a
report that names what does not."""

from __future__ import annotations

import json

from http_support import AUDITOR, bearer, client_for, settings_for
from test_verify_tampering import played, put_state, rows
from typer.testing import CliRunner

from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_command, verify_store
from infrastructure.cli import app


def verify(store_url: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["verify", *args], env={"PUMPKIN_DATABASE_URL": store_url})
    return result.exit_code, result.stdout


def break_a_link(store_url: str, stream: str) -> int:
    version, state = rows(store_url, stream, "Deposited")[0]
    put_state(store_url, stream, version, state.replace(b'"amount":100000', b'"amount":900000'))
    return version + 1


def test_verify_exits_0_on_a_clean_store_and_says_so(
    service: PumpkinApplication, store_url: str
) -> None:
    played(service)
    code, out = verify(store_url)
    assert code == 0, out
    assert "OK" in out and "rounds re-derived  12" in out
    code, out = verify(store_url, "--player", "ivy", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["rounds_rederived"] == 12


def test_verify_exits_1_and_names_stream_version_and_field_of_a_tampered_store(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    broken = break_a_link(store_url, stream)
    code, out = verify(store_url)
    assert code == 1
    assert f"PROBLEM broken_link: stream {service.player_events('ivy').__next__().stream}" in out
    assert f"version {broken} (player ivy) field prev_hash" in out and "FAILED" in out
    code, out = verify(store_url, "--json")
    assert code == 1 and json.loads(out)["problems"][0]["version"] == broken


def test_verify_of_an_unknown_player_is_a_usage_error(store_url: str) -> None:
    assert verify(store_url, "--player", "nobody")[0] == 2


def test_worker_processes_find_what_one_process_finds(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    for n in range(5):
        service.register_player(f"other{n}")
        service.deposit(f"other{n}", 100, "d")
    break_a_link(store_url, stream)
    alone = verify_store(service)
    parallel = verify_store(service, workers=2, database_url=store_url)
    assert parallel == alone and not alone["ok"]
    assert verify_command(settings_for(store_url), None, True, workers=2) == 1


def test_the_auditor_gets_the_same_verification_over_http(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    client = client_for(service)
    clean = client.get("/audit/players/ivy/verify", headers=bearer(AUDITOR))
    assert clean.status_code == 200
    assert clean.json()["ok"] and clean.json()["rounds_rederived"] == 12
    broken = break_a_link(store_url, stream)
    report = client.get("/audit/players/ivy/verify", headers=bearer(AUDITOR)).json()
    assert not report["ok"]
    assert {(p["kind"], p["version"], p["player_id"]) for p in report["problems"]} == {
        ("broken_link", broken, "ivy")}
