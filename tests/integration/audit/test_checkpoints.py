"""Signed checkpoints anchor every stream's head: a deletion at the end of a stream, a rewritten
head and a checkpoint signed by another key are each caught and named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fair_support import funded_session
from store_support import run_sql

from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.audit.checkpoints import (
    check_document,
    latest_checkpoint,
    make_checkpoint,
    public_key_hex,
    record_checkpoint,
    verify_checkpoint,
)
from infrastructure.store.event_rows import EventRows

KEY = Ed25519PrivateKey.generate()


def played(app: PumpkinApplication) -> str:
    session_id = funded_session(app, "lee")
    for n in range(3):
        app.spin(session_id, 20, f"r{n}")
    app.withdraw("lee", 10, "w")
    return player_aggregate_id("lee").hex


def last_version(store_url: str, stream: str) -> int:
    return int(run_sql(store_url, "SELECT MAX(originator_version) FROM {TABLE} WHERE "
                       "originator_id = %s", (stream,))[0][0])


def kinds(problems: list[dict[str, object]]) -> set[str]:
    return {str(p["kind"]) for p in problems}


def test_a_fresh_checkpoint_verifies_and_later_events_do_not_disturb_it(
    service: PumpkinApplication,
) -> None:
    played(service)
    document = record_checkpoint(service, KEY)
    assert latest_checkpoint(service) == document
    service.deposit("lee", 5, "later")  # streams grow: their recorded heads stay
    assert verify_checkpoint(document, EventRows(service), public_key_hex(KEY)) == []


def checkpointed(app: PumpkinApplication, store_url: str) -> tuple[str, dict[str, Any], int]:
    """A played store, its checkpoint, and the player stream's head version."""
    stream = played(app)
    document = record_checkpoint(app, KEY)
    return stream, document, last_version(store_url, stream)


def test_a_deleted_last_event_is_named_truncated(
    service: PumpkinApplication, store_url: str
) -> None:
    stream, document, version = checkpointed(service, store_url)
    run_sql(store_url, "DELETE FROM {TABLE} WHERE originator_id = %s AND originator_version = %s",
            (stream, version))
    problems = verify_checkpoint(document, EventRows(service), public_key_hex(KEY))
    assert [(p["kind"], p["version"]) for p in problems] == [("truncated", version)]


def test_a_rewritten_head_is_named_head_mismatch(
    service: PumpkinApplication, store_url: str
) -> None:
    stream, document, version = checkpointed(service, store_url)
    [(state,)] = run_sql(store_url, "SELECT state FROM {TABLE} WHERE originator_id = %s AND "
                         "originator_version = %s", (stream, version))
    value = json.loads(bytes(state))
    value["amount"] = 1
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND "
            "originator_version = %s", (json.dumps(value).encode(), stream, version))
    problems = verify_checkpoint(document, EventRows(service), public_key_hex(KEY))
    assert [(p["kind"], p["version"]) for p in problems] == [("head_mismatch", version)]


def test_a_checkpoint_signed_by_another_key_is_named(service: PumpkinApplication) -> None:
    played(service)
    forged = record_checkpoint(service, Ed25519PrivateKey.generate())
    assert kinds(check_document(forged, public_key_hex(KEY))) == {"unknown_signer"}
    assert check_document(forged, None) == []  # its own signature holds: only the key tells
    tampered = dict(forged, merkle_root="0" * 64)
    assert kinds(check_document(tampered, None)) == {"bad_signature"}
    resigned = dict(forged, heads=dict(forged["heads"]))
    resigned["heads"].pop(next(iter(resigned["heads"])))
    assert "merkle_mismatch" in kinds(check_document(resigned, None))


def test_pumpkin_verify_checks_the_store_against_a_checkpoint_file(
    store_url: str, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from infrastructure.cli import app as cli

    env = {"PUMPKIN_DATABASE_URL": store_url, "PUMPKIN_LOG_FORMAT": "json",
           "PUMPKIN_CHECKPOINT_KEY_FILE": str(tmp_path / "operator.key")}
    with PumpkinApplication.from_url(store_url) as app:
        stream = played(app)
    runner = CliRunner()
    out = tmp_path / "checkpoint.json"  # a file the earlier release's `pumpkin checkpoint` wrote
    with PumpkinApplication.from_url(store_url) as app:
        out.write_text(json.dumps(make_checkpoint(EventRows(app).heads(), KEY)))
    document = json.loads(out.read_text())
    assert document["public_key"] and document["signature"]
    ok = runner.invoke(cli, ["verify", "--checkpoint", str(out)], env=env)
    assert ok.exit_code == 0, ok.output
    run_sql(store_url, "DELETE FROM {TABLE} WHERE originator_id = %s AND originator_version = %s",
            (stream, last_version(store_url, stream)))
    caught = runner.invoke(cli, ["verify", "--checkpoint", str(out)], env=env)
    assert caught.exit_code == 1 and "PROBLEM truncated" in caught.output
    other = runner.invoke(cli, ["verify", "--checkpoint", str(out), "--public-key",
                                public_key_hex(Ed25519PrivateKey.generate())], env=env)
    assert "PROBLEM unknown_signer" in other.output
