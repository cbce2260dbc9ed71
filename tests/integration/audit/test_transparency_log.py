"""The transparency log: every stored event a leaf in the store's order, built behind the write
and recomputable from the events alone; checkpoints signed notes; verify against what the
regulator kept (--checkpoint FILE --log-key VKEY) names `log_mismatch` for a changed past, an
emptied log or checkpoint table and a history re-signed with the operator's own key, and says
"unanchored" when nothing kept outside the store was checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from log_support import checkpoint, cli_env, log_fields, played, verify
from store_support import run_sql
from typer.testing import CliRunner

from domain.ledger.merkle import leaf_hash, root_from_inclusion, root_hash
from infrastructure.application import PumpkinApplication
from infrastructure.audit.checkpoints import load_signing_key
from infrastructure.cli import app as cli
from infrastructure.transparency.log_builder import LogBuilder, log_verifier
from infrastructure.transparency.log_store import CHECKPOINTS, LEAVES, NODES, POSITION
from infrastructure.transparency.notes import open_note, parse_checkpoint


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> dict[str, str]:
    return cli_env(store_url, tmp_path)


def test_every_event_is_a_leaf_in_the_stores_order_and_proofs_lead_to_the_signed_root(
    service: PumpkinApplication, tmp_path: Path
) -> None:
    played(service)
    builder = LogBuilder(service)
    added = builder.follow()
    assert added == builder.rows.max_notification_id() > 0
    assert builder.follow() == 0  # resumed exactly where it stopped
    key = load_signing_key(tmp_path / "k.pem")
    assert key is not None
    signed = builder.sign_checkpoint(key)
    assert signed is not None and builder.sign_checkpoint(key) is None  # the tree did not grow
    text, _ = open_note(signed, log_verifier(key))
    head = parse_checkpoint(text)
    assert head.size == added and head.root == root_hash(added, builder.store.node)
    found = builder.store.leaf_for_round("ivy.3")
    assert found is not None
    index, leaf = found
    assert json.loads(leaf)["round_id"] == "ivy.3" and json.loads(leaf)["version"] > 0
    from domain.ledger.merkle import inclusion_proof

    proof = inclusion_proof(index, head.size, builder.store.node)
    assert root_from_inclusion(index, head.size, leaf_hash(leaf.encode()), proof) == head.root


def test_a_second_writer_cannot_take_the_same_leaves(service: PumpkinApplication) -> None:
    played(service)
    first, second = LogBuilder(service), LogBuilder(service)
    position = second.store.position()
    first.follow()
    with pytest.raises(Exception):  # noqa: B017 - the store refuses it, whichever way it says
        second.store.append(position, 1, [(0, 1, None, "{}")], [(0, 0, b"x" * 32)])
    assert first.follow() == 0


def test_verify_against_the_kept_checkpoint_is_anchored_and_later_events_do_not_disturb_it(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        played(app)
    kept = tmp_path / "kept.note"
    vkey = checkpoint(env, kept)
    with PumpkinApplication.from_url(store_url) as app:
        played(app, "bo", 3)  # after the checkpoint
    code, report = verify(env, "--checkpoint", str(kept), "--log-key", vkey)
    assert code == 0, report["problems"]
    assert report["checkpoints"] == "anchored"
    plain = CliRunner().invoke(cli, ["verify"], env=env)
    assert plain.exit_code == 0 and "unanchored" in plain.output
    assert verify(env)[1]["checkpoints"] == "unanchored"


def test_a_deleted_past_event_is_log_mismatch(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        stream = played(app)
    kept = tmp_path / "kept.note"
    vkey = checkpoint(env, kept)
    run_sql(store_url, "DELETE FROM {TABLE} WHERE originator_id = %s AND "
            "originator_version = 3", (stream,))
    code, report = verify(env, "--checkpoint", str(kept), "--log-key", vkey)
    assert code == 1 and "log.size" in log_fields(report)  # fewer leaves than were signed


def test_emptied_log_and_checkpoint_tables_are_log_mismatch(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        played(app)
    kept = tmp_path / "kept.note"
    vkey = checkpoint(env, kept)
    for table in (CHECKPOINTS, LEAVES, NODES, POSITION):
        run_sql(store_url, f"DELETE FROM {table}")  # noqa: S608 - the test's own table names
    code, report = verify(env, "--checkpoint", str(kept), "--log-key", vkey)
    assert code == 1
    assert {"checkpoint_table", "log.size"} <= set(log_fields(report))


def test_a_history_rewritten_and_resigned_with_the_operators_key_is_log_mismatch(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        stream = played(app)
    kept = tmp_path / "kept.note"
    vkey = checkpoint(env, kept)
    # The insider holds the database and the operator's key: a past deposit is changed, the
    # log and its checkpoints are thrown away, rebuilt from the new history and signed again.
    [(state,)] = run_sql(store_url, "SELECT state FROM {TABLE} WHERE originator_id = %s AND "
                         "originator_version = 2", (stream,))
    changed = json.loads(bytes(state))
    changed["amount"] = 1_000_000
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND "
            "originator_version = 2", (json.dumps(changed).encode(), stream))
    for table in (CHECKPOINTS, LEAVES, NODES, POSITION):
        run_sql(store_url, f"DELETE FROM {table}")  # noqa: S608
    checkpoint(env, tmp_path / "forged.note")
    code, report = verify(env, "--checkpoint", str(kept), "--log-key", vkey)
    assert code == 1 and "log.root" in log_fields(report)


def test_a_checkpoint_not_signed_by_the_pinned_key_is_log_mismatch(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        played(app)
    kept = tmp_path / "kept.note"
    checkpoint(env, kept)
    other = load_signing_key(tmp_path / "other.pem")
    assert other is not None
    code, report = verify(env, "--checkpoint", str(kept), "--log-key",
                          log_verifier(other).vkey())
    assert code == 1 and "checkpoint.signature" in log_fields(report)


def test_verify_requires_the_pinned_witness_cosignature_when_given(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from infrastructure.transparency.notes import (
        COSIGNATURE_V1,
        Verifier,
        cosign,
        note,
        raw_public,
        split_note,
    )

    with PumpkinApplication.from_url(store_url) as app:
        played(app)
    kept = tmp_path / "kept.note"
    vkey = checkpoint(env, kept)
    witness = Ed25519PrivateKey.generate()
    wvkey = Verifier("regulator.example/w1", COSIGNATURE_V1, raw_public(witness)).vkey()
    code, report = verify(env, "--checkpoint", str(kept), "--log-key", vkey,
                          "--witness-key", wvkey)
    assert code == 1 and "checkpoint.cosignature" in log_fields(report)
    text, lines = split_note(kept.read_text())
    kept.write_text(note(text, [*lines, cosign(text, "regulator.example/w1", witness, 1)]))
    code, report = verify(env, "--checkpoint", str(kept), "--log-key", vkey,
                          "--witness-key", wvkey)
    assert code == 0, report["problems"]


def test_the_fast_leaf_from_stored_bytes_is_the_leaf_of_the_decoded_event(
    service: PumpkinApplication,
) -> None:
    from infrastructure.store.event_rows import EventRows
    from infrastructure.transparency.leaves import fast_leaf, leaf_of_row

    played(service, "ivy", 40)
    service.withdraw("ivy", 5, "w")
    rows = EventRows(service)
    taken = total = 0
    for row in rows.rows_after(0, 10_000):
        total += 1
        slow = leaf_of_row(service.mapper.to_domain_event, row)
        fast = fast_leaf(row, service.mapper.transcoder)
        if fast is not None:
            taken += 1
            assert fast == slow
    # the product's own events take the fast way (how many a round emits is the seed's luck)
    assert taken > 100 and taken * 10 >= total * 9, (taken, total)


def test_a_row_that_names_its_own_digest_is_not_believed(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    """An insider changes a deposit and writes the old digest beside it: the digest is computed,
    never read from the row, so the change breaks the chain."""
    from uuid import UUID

    from eventsourcing.persistence import StoredEvent

    from domain.ledger.hashchain import digest_of
    from infrastructure.store.event_rows import EventRows

    with PumpkinApplication.from_url(store_url) as app:
        stream = played(app)
        row = EventRows(app).row_at(str(UUID(stream)), 2)
        assert row is not None
        event = app.mapper.to_domain_event(StoredEvent(UUID(stream), 2, row.topic, row.state))
        old_digest = digest_of(event, row.topic)
    changed = json.loads(row.state)
    changed["amount"] = 1_000_000
    changed["_stored_digest"] = old_digest
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND "
            "originator_version = 2", (json.dumps(changed).encode(), stream))
    code, report = verify(env)
    assert code == 1 and "broken_link" in {p["kind"] for p in report["problems"]}
