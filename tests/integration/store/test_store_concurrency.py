"""Many writers on PostgreSQL at once: every accepted request is stored once, nothing is lost."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from domain.ledger.player import Player, player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.store.command_runner import ConcurrentUpdate

SHARED = "shared"
SOLO = ("solo1", "solo2", "solo3", "solo4")
SHARED_THREADS = 8
SPINS_PER_THREAD = 12


def test_racing_spins_on_one_player_and_many_players_all_add_up(postgres_url: str) -> None:
    apps = [PumpkinApplication.from_url(postgres_url) for _ in range(2)]  # two "processes"
    sessions: dict[str, str] = {}
    for player_id in (SHARED, *SOLO):
        apps[0].register_player(player_id)
        apps[0].deposit(player_id, 1_000_000, "funding")
        sessions[player_id] = apps[0].open_session(player_id)[0]

    accepted: dict[str, dict[str, Any]] = {}
    replays: list[tuple[str, dict[str, Any]]] = []
    busy: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def play(worker: int, player_id: str) -> None:
        app = apps[worker % 2]
        try:
            for n in range(SPINS_PER_THREAD):
                request_id = f"{player_id}-{worker}-{n}"
                try:
                    answer = app.spin(sessions[player_id], 20, request_id)
                except ConcurrentUpdate:
                    with lock:
                        busy.append(request_id)
                    continue
                again = app.spin(sessions[player_id], 20, request_id)  # a client's retry
                with lock:
                    accepted[request_id] = answer
                    replays.append((request_id, again))
        except BaseException as error:  # noqa: BLE001 - collected and failed below
            with lock:
                failures.append(error)

    threads = [threading.Thread(target=play, args=(w, SHARED)) for w in range(SHARED_THREADS)]
    threads += [
        threading.Thread(target=play, args=(SHARED_THREADS + i, p)) for i, p in enumerate(SOLO)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert len(busy) <= len(accepted) // 10, "losers are retried; giving up must be rare"
    assert all(accepted[request_id] == again for request_id, again in replays)

    with PumpkinApplication.from_url(postgres_url) as reader:
        stored: Counter[str] = Counter()
        for player_id in (SHARED, *SOLO):
            events = list(reader.events.get(player_aggregate_id(player_id)))
            versions = [e.originator_version for e in events]
            assert versions == list(range(1, len(events) + 1)), "no version lost or reused"
            assert reader.check_player_chain(player_id) == []
            placed = [e for e in events if isinstance(e, Player.StakePlaced)]
            settled = [e for e in events if isinstance(e, Player.RoundSettled)]
            stored.update(e.request_id for e in placed)
            wins = sum(e.total_win for e in settled)
            state = reader.player_state(player_id)
            assert state["balance"] == 1_000_000 - 20 * len(placed) + wins
            assert [e.round_id for e in placed] == [
                f"{player_id}.{n}" for n in range(1, len(placed) + 1)
            ]
        assert set(stored) == set(accepted) and max(stored.values()) == 1
        for answer in accepted.values():
            assert reader.round(answer["round_id"]) == answer
    for app in apps:
        app.close()
