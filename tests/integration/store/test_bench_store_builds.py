"""bench/bench_store.py builds its long player through the application's public save path (it
called a save the application no longer has, and nothing noticed until the benchmark ran)."""

from __future__ import annotations

from bench.bench_store import build_long_player
from domain.ledger.identifiers import player_aggregate_id
from infrastructure.application import PumpkinApplication


def test_the_store_benchmark_builds_a_long_player(store_url: str) -> None:
    with PumpkinApplication.from_url(store_url) as app:
        build_long_player(app, 1_500)
        player = app.store.repository.get(player_aggregate_id("long"))
        assert player.version == 1_500
