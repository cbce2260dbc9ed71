"""The application's one save path (collect -> record -> snapshot -> notify), blocking and from
the event loop: both snapshot a player at the same marks and call the hook after recording."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_store_async_spins import funded_session, submissions

from domain.player import player_aggregate_id
from infrastructure import application
from infrastructure.application import PumpkinApplication

EVERY = 10


@pytest.mark.parametrize("in_loop", [False, True])
def test_a_player_is_snapshotted_each_time_its_version_crosses_a_mark(
    store_url: str, in_loop: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(application, "SNAPSHOT_EVERY", EVERY)
    with PumpkinApplication.from_url(store_url) as app:
        player_id, session_id = funded_session(app)
        submitted = submissions(app, monkeypatch)
        notified: list[int] = []
        monkeypatch.setattr(app, "_notify", lambda recordings: notified.append(len(recordings)))

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
        assert len(notified) == 8 and all(notified)
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
    player: Any = app._player(player_id)  # noqa: SLF001 - the aggregate's version
    return int(player.version)
