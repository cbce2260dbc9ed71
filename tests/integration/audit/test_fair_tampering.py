"""A store edited behind the service's back: every provably fair record that no longer holds is
caught and named by verify (edits made straight in the database, as an attacker would)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fair_support import funded_session
from store_support import run_sql

from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_store


def closed_session(app: PumpkinApplication) -> str:
    session_id = funded_session(app, "kim")
    for n in range(4):
        app.spin(session_id, 20, f"r{n}", f"client-{n}")
    app.close_session(session_id)
    return player_aggregate_id("kim").hex


def rewrite(store_url: str, stream: str, topic_end: str, nth: int, change: Any) -> int:
    """Edit the nth stored event whose topic ends with `topic_end`; its version."""
    found = run_sql(store_url, "SELECT originator_version, topic, state FROM {TABLE} WHERE "
                    "originator_id = %s ORDER BY originator_version", (stream,))
    version, _, state = [row for row in found if str(row[1]).endswith(topic_end)][nth]
    value = json.loads(bytes(state))
    change(value)
    run_sql(store_url, "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND "
            "originator_version = %s",
            (json.dumps(value, separators=(",", ":")).encode(), stream, version))
    return int(version)


def kinds(report: dict[str, Any]) -> set[tuple[str, int]]:
    return {(p["kind"], p["version"]) for p in report["problems"]}


@pytest.mark.parametrize(
    ("topic_end", "change", "named"),
    [
        ("StakePlaced", lambda s: s.__setitem__("nonce", 7), "nonce_out_of_sequence"),
        ("StakePlaced", lambda s: s.__setitem__("nonce", 7), "seed_mismatch"),
        ("StakePlaced", lambda s: s.__setitem__("client_seed", "other"), "seed_mismatch"),
        ("StakePlaced", lambda s: s.__setitem__("seed_commitment", "0" * 64),
         "commitment_mismatch"),
        ("SessionOpened", lambda s: s.__setitem__("seed_commitment", "0" * 64),
         "commitment_mismatch"),
        ("SeedRevealed", lambda s: s.__setitem__("server_seed", "1" * 64),
         "commitment_mismatch"),
    ],
)
def test_a_changed_fair_record_is_caught_and_named(
    service: PumpkinApplication, store_url: str, topic_end: str, change: Any, named: str
) -> None:
    stream = closed_session(service)
    assert verify_store(service)["ok"]
    version = rewrite(store_url, stream, topic_end, 1 if topic_end == "StakePlaced" else 0,
                      change)
    report = verify_store(service)
    assert not report["ok"]
    found = {kind for kind, _ in kinds(report)}
    assert named in found, report["problems"]
    if topic_end == "StakePlaced":  # named at the round (a session's, at its reveal)
        assert any(v == version for k, v in kinds(report) if k == named)


def test_a_session_closed_without_its_reveal_is_named(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = closed_session(service)
    last = run_sql(store_url, "SELECT MAX(originator_version) FROM {TABLE} WHERE "
                   "originator_id = %s", (stream,))[0][0]
    run_sql(store_url, "DELETE FROM {TABLE} WHERE originator_id = %s AND originator_version = %s",
            (stream, last))  # the SeedRevealed, the stream's last event
    report = verify_store(service)
    assert "seed_not_revealed" in {kind for kind, _ in kinds(report)}
