"""The running service never lets a snapshot lift an exclusion or add free rounds (issue 23):
it trusts only the snapshots it sealed itself, bound to their stream's chain, and replays from
the events past any other (infrastructure/store/snapshot_seal.py)."""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repo_paths import GOLDEN
from store_support import run_sql

from domain.errors import NoFreeRounds, PlayerExcluded
from domain.ledger.free_rounds import free_round_stake
from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.sessions.seed_vault import SeedVault
from infrastructure.store import event_store
from infrastructure.store.snapshot_seal import SealedSnapshot, SnapshotSeal

SEED_KEY = bytes.fromhex("5eed" * 16)  # the service's key: kept outside the database


def service(url: str) -> PumpkinApplication:
    """The service as a restart builds it, with its own keys and nothing in memory."""
    return PumpkinApplication.from_url(
        url, seed_vault=SeedVault(SEED_KEY), seal=SnapshotSeal.from_seed_key(SEED_KEY)
    )


def snapshot_table(url: str) -> str:
    return "stored_snapshots" if url.startswith("sqlite:") else "pumpkin_snapshots"


@pytest.fixture
def excluded_with_a_snapshot(store_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An excluded player whose newest snapshot stands after the exclusion."""
    monkeypatch.setattr(event_store, "SNAPSHOT_EVERY", 10)
    with service(store_url) as app:
        app.register_player("eve")
        app.deposit("eve", 10**6, "d")
        session_id, _ = app.open_session("eve")
        for n in range(3):
            app.spin(session_id, 20, f"s{n}")
        app.exclude("eve", None, "for good")
        n = 0
        while app.load_player("eve").version % 10 != 1:  # past the next mark: a snapshot
            app.withdraw("eve", 1, f"w{n}")
            n += 1
    yield store_url


def newest_snapshot(url: str) -> tuple[int, dict[str, Any]]:
    [(version, state)] = run_sql(
        url, f"SELECT originator_version, state FROM {snapshot_table(url)} "  # noqa: S608
        "WHERE originator_id = %s ORDER BY originator_version DESC LIMIT 1",
        (player_aggregate_id("eve").hex,),
    )
    return int(version), json.loads(bytes(state))


def rewrite_snapshot(url: str, version: int, stored: dict[str, Any], topic: str | None) -> None:
    """Write the snapshot row as an insider with write access to the database would."""
    where = "WHERE originator_id = %s AND originator_version = %s"
    row = (player_aggregate_id("eve").hex, version)
    table = snapshot_table(url)
    state = json.dumps(stored).encode()
    if topic is None:
        run_sql(url, f"UPDATE {table} SET state = %s {where}", (state, *row))  # noqa: S608
    else:
        run_sql(url, f"UPDATE {table} SET state = %s, topic = %s {where}",  # noqa: S608
                (state, topic, *row))


@pytest.mark.parametrize("forged", ["sealed_topic_kept", "as_an_unsealed_snapshot"])
def test_a_rewritten_snapshot_neither_lifts_an_exclusion_nor_adds_free_rounds(
    excluded_with_a_snapshot: str, forged: str, caplog: pytest.LogCaptureFixture
) -> None:
    url = excluded_with_a_snapshot
    version, stored = newest_snapshot(url)
    assert stored["state"]["guard"]["_data_"]["excluded"] == [None]  # the exclusion, as stored
    # The insider's edit: the exclusion removed, a campaign of 1,000 free rounds added, the
    # chain head left right.
    stored["state"]["guard"]["_data_"]["excluded"] = None
    stored["state"]["free_rounds"] = {
        "gift": {"_type_": "pumpkin_campaign", "_data_": [1_000, 20, None, ""]}
    }
    topic = None
    if forged == "as_an_unsealed_snapshot":
        stored.pop("seal")
        topic = "eventsourcing.domain:Snapshot"
    rewrite_snapshot(url, version, stored, topic)
    with caplog.at_level(logging.INFO), service(url) as app:
        state = app.player_state("eve")
        assert state["excluded"] is True
        assert app.live_free_rounds("eve") == []
        with pytest.raises(PlayerExcluded):
            app.open_session("eve")
        assert "gift" not in app.load_player("eve").free_rounds
        with pytest.raises(NoFreeRounds):  # nor can a spin find the campaign
            free_round_stake(app.load_player("eve").free_rounds, "gift", None)
    logged = {record.getMessage() for record in caplog.records}
    assert logged & {"snapshot_rejected_replaying_events", "unsealed_snapshot_ignored"}


def test_the_services_own_snapshot_is_trusted(excluded_with_a_snapshot: str) -> None:
    url = excluded_with_a_snapshot
    version, stored = newest_snapshot(url)
    with service(url) as app:
        cache = app.players.cache
        snapshot = cache._trusted_snapshot(player_aggregate_id("eve"))  # noqa: SLF001
        assert isinstance(snapshot, SealedSnapshot) and snapshot.originator_version == version
        assert app.player_state("eve")["excluded"] is True


def test_a_snapshot_of_another_service_is_not_trusted(excluded_with_a_snapshot: str) -> None:
    """Sealed under another key (another service, or a key made up by whoever wrote it)."""
    url = excluded_with_a_snapshot
    stranger = SnapshotSeal.from_seed_key(b"\x01" * 32)
    with PumpkinApplication.from_url(url, seal=stranger) as app:
        cache = app.players.cache
        assert cache._trusted_snapshot(player_aggregate_id("eve")) is None  # noqa: SLF001
        assert app.player_state("eve")["excluded"] is True  # replayed from the events


def test_snapshots_written_before_seals_are_replaced_by_sealed_ones(tmp_path: Path) -> None:
    path = tmp_path / "golden.sqlite"
    path.write_bytes(gzip.decompress((GOLDEN / "store.sqlite.gz").read_bytes()))
    url = f"sqlite:///{path}"
    with service(url) as app:
        before = app.player_state("cy")
    with service(url) as app:  # a restart: loads from the sealed snapshot written then
        cache = app.players.cache
        snapshot = cache._trusted_snapshot(player_aggregate_id("cy"))  # noqa: SLF001
        assert isinstance(snapshot, SealedSnapshot)
        assert app.player_state("cy") == before
