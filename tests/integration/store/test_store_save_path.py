"""The application's one save path (collect -> record -> snapshot -> notify), blocking and from
the event loop: both snapshot a player at the same marks and pass the recordings to the hook
after recording."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from test_store_async_spins import funded_session, submissions

from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.store import es_compat, event_store
from infrastructure.store.event_store import PumpkinStore

EVERY = 10


class HookedStore(PumpkinStore):
    """A store implementing the library's hook after recording."""

    name = "Pumpkin"  # the same tables (the library names a subclass's after the class)

    def _notify(self, recordings: list[Any]) -> None:
        notified: list[int] = vars(self).setdefault("notified", [])
        notified.append(len(recordings))


def hooked(store_url: str) -> PumpkinApplication:
    return PumpkinApplication(store=HookedStore.from_url(store_url))


@pytest.mark.parametrize("in_loop", [False, True])
def test_a_player_is_snapshotted_each_time_its_version_crosses_a_mark(
    store_url: str, in_loop: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(event_store, "SNAPSHOT_EVERY", EVERY)
    with hooked(store_url) as app:
        player_id, session_id = funded_session(app)
        submitted = submissions(app, monkeypatch)
        notified: list[int] = []
        app.store.notified = notified  # type: ignore[attr-defined]

        async def spins() -> None:
            for n in range(8):
                await app.spin_async(session_id, 20, f"r{n}")

        if in_loop:
            asyncio.run(spins())
        else:
            for n in range(8):
                app.spin(session_id, 20, f"r{n}")
        if in_loop and store_url.startswith("postgresql"):
            assert len(submitted) == 8  # every spin saved from the loop
        assert len(notified) == 8 and all(notified)  # each save's recordings, passed on
        version = _version(app, player_id)
        assert app.snapshots is not None
        newest = list(app.snapshots.get(player_aggregate_id(player_id), desc=True, limit=1))
        assert newest and newest[0].originator_version // EVERY == version // EVERY
        fresh = PumpkinApplication.from_url(store_url)  # loads from that snapshot
        try:
            assert fresh.player_state(player_id) == app.player_state(player_id)
        finally:
            fresh.close()


def _version(app: PumpkinApplication, player_id: str) -> int:
    player: Any = app.load_player(player_id)  # noqa: SLF001 - the aggregate's version
    return int(player.version)


def test_a_save_from_the_loop_builds_no_recordings_when_no_hook_takes_them(
    postgres_url: str,
) -> None:
    with PumpkinApplication.from_url(postgres_url) as app:
        assert not es_compat.hooked_after_recording(app.store)
        player_id, session_id = funded_session(app)
        asyncio.run(app.spin_async(session_id, 20, "warm"))  # the player is in memory now
        balance = app.player_state(player_id)["balance"]

        async def saved() -> list[Any]:
            player = app.load_player(player_id)  # noqa: SLF001
            player.deposit(5, "d2", datetime.now(UTC))
            return await app.store.save_in_loop(player)

        assert asyncio.run(saved()) == []
        assert app.player_state(player_id)["balance"] == balance + 5
    with hooked(postgres_url) as hooked_app:
        assert es_compat.hooked_after_recording(hooked_app.store)
