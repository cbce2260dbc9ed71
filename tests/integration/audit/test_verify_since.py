"""`pumpkin verify --since FILE --log-key VKEY`, the daily check: FILE's signature and its
consistency with the log now, then only the events after it (their chains from the player as it
stood, their rounds, snapshots written since). A past rewritten before FILE and re-signed is
caught by the consistency with FILE; a changed event after FILE by its chain; a FILE that is
not a checkpoint is a clear error (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from log_support import checkpoint, cli_env, log_fields, played, spin, verify
from store_support import run_sql
from typer.testing import CliRunner

from infrastructure.application import PumpkinApplication
from infrastructure.audit.checkpoints import load_signing_key
from infrastructure.cli import app as cli
from infrastructure.transparency.log_builder import LogBuilder, log_verifier
from infrastructure.transparency.log_store import CHECKPOINTS, LEAVES, NODES, POSITION


@pytest.fixture
def env(store_url: str, tmp_path: Path) -> dict[str, str]:
    return cli_env(store_url, tmp_path)


def a_day(store_url: str, env: dict[str, str], kept: Path) -> str:
    """Yesterday's rounds, the checkpoint the regulator kept, then today's; the log key."""
    with PumpkinApplication.from_url(store_url) as app:
        played(app, "ivy", 4)
        played(app, "bo", 2)
    vkey = checkpoint(env, kept)
    with PumpkinApplication.from_url(store_url) as app:
        session_id, _ = app.open_session("ivy")
        spin(app, session_id, 3)
        played(app, "cy", 2)
    checkpoint(env, kept.with_suffix(".today"))
    return vkey


def test_an_untouched_store_passes_and_only_the_events_after_file_are_checked(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    vkey = a_day(store_url, env, tmp_path / "kept.note")
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key", vkey)
    assert code == 0, report["problems"]
    assert report["checkpoints"] == "anchored" and report["log"]["since"]
    assert report["rounds_rederived"] == 5  # ivy's 3 today and cy's 2, not yesterday's 6
    assert report["streams_checked"] >= 2
    whole = verify(env)[1]
    assert report["events_checked"] < whole["events_checked"]
    assert report["log"]["tree_size"] == whole["log"]["tree_size"]
    text = CliRunner().invoke(cli, ["verify", "--since", str(tmp_path / "kept.note"),
                                    "--log-key", vkey], env=env)
    assert text.exit_code == 0 and "only the events after FILE" in text.output


def test_a_session_open_across_file_has_every_round_checked_at_its_reveal(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        played(app, "ivy", 1)
        session_id, _ = app.open_session("ivy")
        spin(app, session_id, 2)
    vkey = checkpoint(env, tmp_path / "kept.note")
    with PumpkinApplication.from_url(store_url) as app:
        spin(app, session_id, 3)
        app.close_session(session_id)
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key", vkey)
    assert code == 0, report["problems"]
    assert report["fair_sessions"]["sessions_verified"] == 1
    assert report["fair_sessions"]["rounds_checked"] == 5  # 2 before FILE, 3 after


def test_a_past_rewritten_before_file_and_resigned_fails_the_consistency_with_file(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    vkey = a_day(store_url, env, tmp_path / "kept.note")
    stream = run_sql(store_url, "SELECT originator_id FROM {TABLE} WHERE originator_version = 2 "
                     "ORDER BY originator_id LIMIT 1")[0][0]
    [(state,)] = run_sql(store_url, "SELECT state FROM {TABLE} WHERE originator_id = %s AND "
                         "originator_version = 2", (stream,))
    changed = json.loads(bytes(state))
    changed["amount"] = changed.get("amount", 0) + 1_000_000
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND "
            "originator_version = 2", (json.dumps(changed).encode(), stream))
    # The insider holds the operator's key too: the log is rebuilt and re-signed.
    for table in (CHECKPOINTS, LEAVES, NODES, POSITION):
        run_sql(store_url, f"DELETE FROM {table}")  # noqa: S608 - the test's own table names
    checkpoint(env, tmp_path / "forged.note")
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key", vkey)
    assert code == 1 and "log.root" in log_fields(report)
    assert report["rounds_rederived"] == 0  # nothing after FILE is trusted to check


def test_an_event_changed_after_file_is_caught_by_its_chain(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    vkey = a_day(store_url, env, tmp_path / "kept.note")
    with PumpkinApplication.from_url(store_url) as app:
        point = LogBuilder(app).store.notification_at(
            int((tmp_path / "kept.note").read_text().split("\n")[1]) - 1)
    assert point is not None
    column = "rowid" if store_url.startswith("sqlite:") else "notification_id"
    [(stream, version, state)] = run_sql(
        store_url, f"SELECT originator_id, originator_version, state FROM {{TABLE}} "  # noqa: S608
        f"WHERE {column} = %s", (point + 2,))
    changed = json.loads(bytes(state))
    changed["timestamp"] = changed.get("timestamp", "") + "x" if isinstance(
        changed.get("timestamp"), str) else "2030-01-01T00:00:00+00:00"
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND "
            "originator_version = %s", (json.dumps(changed).encode(), stream, version))
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key", vkey)
    kinds = {p["kind"] for p in report["problems"]}
    assert code == 1 and kinds & {"broken_link", "undecodable", "log_mismatch"}, kinds
    assert "log.root" in log_fields(report)  # its leaf is not the one the log took in


def test_a_file_not_signed_by_the_pinned_key_is_log_mismatch(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    a_day(store_url, env, tmp_path / "kept.note")
    other = load_signing_key(tmp_path / "other.pem")
    assert other is not None
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key",
                          log_verifier(other).vkey())
    assert code == 1 and "checkpoint.signature" in log_fields(report)


def test_emptied_log_tables_after_file_are_log_mismatch(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    vkey = a_day(store_url, env, tmp_path / "kept.note")
    for table in (LEAVES, NODES, POSITION):
        run_sql(store_url, f"DELETE FROM {table}")  # noqa: S608
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key", vkey)
    assert code == 1 and "log.size" in log_fields(report)


@pytest.mark.parametrize("content", ["", "not a note\n", '{"format": "pumpkin-checkpoint/1"}',
                                     "origin\n12\nnot-base64!\n\n\u2014 origin AAAA\n"])
def test_a_file_that_is_not_a_checkpoint_is_a_clear_error(
    store_url: str, env: dict[str, str], tmp_path: Path, content: str
) -> None:
    vkey = a_day(store_url, env, tmp_path / "kept.note")
    bad = tmp_path / "bad.note"
    bad.write_text(content)
    for args in (["--since", str(bad), "--log-key", vkey],
                 ["--since", str(tmp_path / "missing.note"), "--log-key", vkey],
                 ["--since", str(tmp_path / "kept.note")],
                 ["--since", str(tmp_path / "kept.note"), "--log-key", "garbage"]):
        result = CliRunner().invoke(cli, ["verify", *args], env=env)
        assert result.exit_code == 2, (args, result.output)
        assert "pumpkin verify --since:" in result.output and "Traceback" not in result.output


def snapshot_table(store_url: str) -> str:
    return "stored_snapshots" if store_url.startswith("sqlite:") else "pumpkin_snapshots"


def test_a_long_stream_starts_from_its_snapshot_and_a_snapshot_written_since_is_compared(
    store_url: str, env: dict[str, str], tmp_path: Path
) -> None:
    from domain.ledger.player import player_aggregate_id
    from infrastructure.audit.stream_start import player_before

    with PumpkinApplication.from_url(store_url) as app:
        played(app, "ivy", 130)  # past one snapshot (every 500 events), session still open
    vkey = checkpoint(env, tmp_path / "kept.note")
    stream = str(player_aggregate_id("ivy"))
    with PumpkinApplication.from_url(store_url) as app:
        first_new = int(run_sql(store_url, "SELECT MAX(originator_version) FROM {TABLE} "
                                "WHERE originator_id = %s", (player_aggregate_id("ivy").hex,)
                                )[0][0]) + 1
        start = player_before(app, stream, first_new)
        assert start is not None and 500 <= start.version < first_new
        session, _ = app.open_session("ivy")  # closes nothing: a second session
        spin(app, session, 130)  # past the next snapshot
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key", vkey)
    assert code == 0, report["problems"]
    assert report["rounds_rederived"] == 130
    table = snapshot_table(store_url)
    [(version, state)] = run_sql(
        store_url, f"SELECT originator_version, state FROM {table} WHERE originator_id = %s "  # noqa: S608
        "ORDER BY originator_version DESC LIMIT 1", (player_aggregate_id("ivy").hex,))
    assert version >= first_new  # written since FILE
    forged = json.loads(bytes(state))
    forged["state"]["balance"] += 1_000
    run_sql(store_url, f"UPDATE {table} SET state = %s WHERE originator_id = %s AND "  # noqa: S608
            "originator_version = %s",
            (json.dumps(forged, separators=(",", ":")).encode(), player_aggregate_id("ivy").hex,
             version))
    code, report = verify(env, "--since", str(tmp_path / "kept.note"), "--log-key", vkey)
    assert code == 1
    assert [(p["kind"], p["field"]) for p in report["problems"]] == [
        ("snapshot_mismatch", "snapshot.balance")]
