"""`pumpkin witness`: a regulator's own key and state; it cosigns a checkpoint only if the
log's pinned key signed it and it extends the last one the witness cosigned, and refuses a
wrongly signed (`bad_signature`) or inconsistent (`inconsistent`) one; its cosignature is then
served with the checkpoint, and verify can require it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient
from http_support import AUDITOR
from log_support import log_client, play_session, sign_now, spin

from infrastructure.application import PumpkinApplication
from infrastructure.transparency.log_builder import log_verifier
from infrastructure.transparency.notes import Checkpoint, parse_vkey, split_note, verifies
from infrastructure.transparency.witness import (
    STATE_FILE,
    WitnessRefusal,
    load_key,
    new_key,
    witness_once,
)


@pytest.fixture
def journey(service: PumpkinApplication, tmp_path: Path):  # type: ignore[no-untyped-def]
    session_id = play_session(service, "ivy", 2)
    with log_client(service, tmp_path / "log.key") as api:
        sign_now(api)
        yield api, session_id


def test_the_witness_cosigns_consistent_checkpoints_and_its_line_is_served(
    service: PumpkinApplication, journey: tuple[TestClient, str], tmp_path: Path
) -> None:
    api, session_id = journey
    witness = new_key(tmp_path / "w.key", "regulator.example/w1")
    assert load_key(tmp_path / "w.key").name == "regulator.example/w1"
    vkey = api.get("/log/key").text.strip()
    state = tmp_path / "state"
    first = witness_once(api, vkey, witness, state, AUDITOR, now=1_700_000_000)
    spin(service, session_id, 3)
    sign_now(api)
    second = witness_once(api, vkey, witness, state, AUDITOR, now=1_700_000_060)
    assert second.size > first.size
    text, lines = split_note(api.get("/log/checkpoint").text)
    assert any(verifies(text, line, witness.verifier()) for line in lines)
    assert parse_vkey(witness.verifier().vkey()) == witness.verifier()


def test_a_checkpoint_signed_by_another_key_is_refused_as_bad_signature(
    journey: tuple[TestClient, str], tmp_path: Path
) -> None:
    api, _ = journey
    witness = new_key(tmp_path / "w.key", "regulator.example/w1")
    other = log_verifier(Ed25519PrivateKey.generate()).vkey()
    with pytest.raises(WitnessRefusal) as refused:
        witness_once(api, other, witness, tmp_path / "state", AUDITOR)
    assert refused.value.kind == "bad_signature"
    assert not (tmp_path / "state" / STATE_FILE).exists()


def test_a_checkpoint_that_does_not_extend_the_last_cosigned_is_refused_as_inconsistent(
    service: PumpkinApplication, journey: tuple[TestClient, str], tmp_path: Path
) -> None:
    api, session_id = journey
    witness = new_key(tmp_path / "w.key", "regulator.example/w1")
    vkey = api.get("/log/key").text.strip()
    state = tmp_path / "state"
    witness_once(api, vkey, witness, state, AUDITOR)
    kept = (state / STATE_FILE).read_text()
    head = Checkpoint(kept.split("\n")[0], int(kept.split("\n")[1]), bytes(32))
    (state / STATE_FILE).write_text(head.text())  # what it saw was another history (a fork)
    spin(service, session_id, 2)
    sign_now(api)
    with pytest.raises(WitnessRefusal) as refused:
        witness_once(api, vkey, witness, state, AUDITOR)
    assert refused.value.kind == "inconsistent"
    assert (state / STATE_FILE).read_text() == head.text()  # nothing cosigned, nothing moved


def test_new_key_prints_the_verifier_key_alone_on_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from infrastructure.cli import app as cli

    made = CliRunner().invoke(cli, ["witness", "--new-key", str(tmp_path / "w.key"),
                                    "--name", "regulator.example/w1"])
    assert made.exit_code == 0, made.output
    [line] = made.stdout.splitlines()
    assert parse_vkey(line) == load_key(tmp_path / "w.key").verifier()
    missing = CliRunner().invoke(cli, ["witness", "--log", "http://127.0.0.1:9"])
    assert missing.exit_code == 2
