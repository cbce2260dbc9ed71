"""Spins for an event loop (PumpkinApplication.spin_async) and the saves they submit to the group
commit without blocking: every round recorded once, races and refusals as the blocking spin has
them, on SQLite (where spin_async is the blocking spin in a thread) and PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from uuid import uuid4

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from store_kinds_support import stored

from domain.errors import InsufficientFunds, SessionClosed
from infrastructure.application import PumpkinApplication
from infrastructure.store.async_commit import AsyncGroupCommit
from infrastructure.store.persistence import GroupCommitRecorder

FUNDS = 10**9


def funded_session(app: PumpkinApplication, funds: int = FUNDS) -> tuple[str, str]:
    player_id = f"p{uuid4().hex[:12]}"
    app.register_player(player_id)
    if funds:
        app.deposit(player_id, funds, "funds")
    session_id, _ = app.open_session(player_id)
    return player_id, session_id


def test_saves_from_the_loop_and_blocking_saves_all_commit_and_a_conflict_fails_alone(
    group_commit_recorder: GroupCommitRecorder,
) -> None:
    recorder = group_commit_recorder
    contested = uuid4()
    blocking: list[list[int]] = []

    def save() -> None:
        ids = recorder.insert_events([stored(uuid4(), 1)])
        blocking.append(list(ids or []))

    async def from_the_loop() -> tuple[list[int], list[int]]:
        commit = AsyncGroupCommit(recorder)
        threads = [threading.Thread(target=save) for _ in range(8)]
        for thread in threads:
            thread.start()
        saves = [commit.save([stored(uuid4(), 1), stored(uuid4(), 1)]) for _ in range(20)]
        rivals = [commit.save([stored(contested, 1)]) for _ in range(2)]
        found = await asyncio.gather(*saves)
        outcomes = await asyncio.gather(*rivals, return_exceptions=True)
        for thread in threads:
            thread.join()
        commit.close()
        refused = [o for o in outcomes if isinstance(o, IntegrityError)]
        kept = [len(o) for o in outcomes if isinstance(o, list)]
        assert len(refused) == 1 and kept == [1]  # one rival recorded, the other refused
        return [i for ids in found for i in ids], kept

    ids, _ = asyncio.run(from_the_loop())
    ids += [i for found in blocking for i in found]
    assert len(ids) == 48 and len(set(ids)) == 48
    assert all(len(found) == 1 for found in blocking)


def test_a_lost_connection_fails_its_saves_and_the_next_save_reconnects(
    postgres_url: str, group_commit_recorder: GroupCommitRecorder
) -> None:
    recorder = group_commit_recorder

    async def scenario() -> None:
        commit = AsyncGroupCommit(recorder)
        assert await commit.save([stored(uuid4(), 1)])
        assert commit._connection is not None
        backend = commit._connection.info.backend_pid
        with psycopg.connect(postgres_url, autocommit=True) as admin:  # the server drops it
            admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
        with pytest.raises(psycopg.OperationalError):
            await commit.save([stored(uuid4(), 1)])
        assert await commit.save([stored(uuid4(), 1)])  # a new connection
        commit.close()

    asyncio.run(scenario())


def submissions(app: PumpkinApplication, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the saves committed by the event loop's group commit (PostgreSQL only)."""
    counted: list[int] = []
    save = AsyncGroupCommit.save

    async def counting(self: AsyncGroupCommit, events: list[StoredEvent]) -> list[int]:
        counted.append(len(events))
        return await save(self, events)

    monkeypatch.setattr(AsyncGroupCommit, "save", counting)
    return counted


def test_async_spins_racing_on_one_session_are_each_recorded_once(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        player_id, session_id = funded_session(app)
        submitted = submissions(app, monkeypatch)

        async def race() -> list[dict[str, object]]:
            spins = [app.spin_async(session_id, 100, f"r{n}") for n in range(24)]
            return list(await asyncio.gather(*spins))

        rounds = asyncio.run(race())
        if store_url.startswith("postgresql"):
            assert submitted  # decided in the loop and committed without a thread
        round_ids = [str(r["round_id"]) for r in rounds]
        assert len(set(round_ids)) == 24
        assert sorted(app.round_ids(player_id)) == sorted(round_ids)
        won = sum(int(str(r["total_win"])) for r in rounds)
        assert app.player_state(player_id)["balance"] == FUNDS - 2400 + won
        fresh = PumpkinApplication.from_url(store_url)  # nothing cached: replayed from the store
        try:
            assert fresh.player_state(player_id)["balance"] == FUNDS - 2400 + won
        finally:
            fresh.close()


def test_the_same_async_spin_sent_at_once_is_played_once(store_url: str) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        player_id, session_id = funded_session(app)

        async def same() -> list[dict[str, object]]:
            spins = [app.spin_async(session_id, 200, "one") for _ in range(6)]
            return list(await asyncio.gather(*spins))

        answers = asyncio.run(same())
        assert all(answer == answers[0] for answer in answers)
        assert app.round_ids(player_id) == [answers[0]["round_id"]]


@pytest.mark.parametrize("closed", [False, True])
def test_a_refused_async_spin_changes_nothing(store_url: str, closed: bool) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        player_id, session_id = funded_session(app, funds=0 if not closed else FUNDS)
        if closed:
            app.close_session(session_id)
        before = app.player_state(player_id)
        with pytest.raises(SessionClosed if closed else InsufficientFunds):
            asyncio.run(app.spin_async(session_id, 100, "refused"))
        assert app.player_state(player_id) == before
        assert app.round_ids(player_id) == []
