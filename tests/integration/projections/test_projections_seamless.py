"""On the operator's wallet, the read models count every round exactly as with the built-in one:
the wallet's own facts (DebitRecorded, CreditOwed, RollbackOwed... each naming a round) are not
taken for a round's events (CONTRACT.md "The operator's seamless wallet")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from wallet_kinds_support import SECRET
from wallet_support import WalletPlayer, settle, wallet_service

from infrastructure.wallet.reference import ReferenceWallet
from projections.database import dialect_of, open_datastore
from projections.queries import RecallReader
from projections.recorders import Sql
from projections.runner import ProjectionsRunner


@pytest.fixture
def wallet() -> Iterator[ReferenceWallet]:
    with ReferenceWallet(SECRET) as running:
        yield running


def counts(url: str) -> dict[str, int]:
    datastore = open_datastore(url, pool_size=1)
    try:
        with datastore.transaction(commit=False) as cursor:
            db = Sql(cursor, dialect_of(datastore))

            def one(statement: str) -> int:
                row = db.one(statement)
                assert row is not None
                return int(next(iter(row.values())) or 0)

            return {
                "rounds": one("SELECT COUNT(*) AS n FROM view_rounds"),
                "stats_rounds": one("SELECT SUM(rounds) AS n FROM view_stats"),
                "parked": one("SELECT COUNT(*) AS n FROM view_rounds_pending")
                + one("SELECT COUNT(*) AS n FROM view_stats_pending"),
            }
    finally:
        datastore.close()


def test_every_view_counts_every_round_played_on_the_operators_wallet(
    store_url: str, wallet: ReferenceWallet
) -> None:
    with wallet_service(store_url, wallet) as (client, service, clock):
        players = [WalletPlayer(client, wallet, balance=100_000) for _ in range(3)]
        for n, player in enumerate(players):
            for _ in range(7 + n):
                assert player.spin(100).status_code == 200
        wallet.inject("fail_before", "debit")  # a debit that is rolled back: no round
        assert players[0].spin(100).status_code == 503
        wallet.inject("fail_before", "credit")  # a round whose credit stays owed for a while
        assert players[1].spin(100).json()["settlement"] == "pending"
        settle(service, clock)
        played = {p.player_id: service.round_ids(p.player_id) for p in players}
    runner = ProjectionsRunner(store_url, max_batch=7)  # batches end mid-round
    try:
        runner.catch_up()
    finally:
        runner.stop()
    total = sum(len(ids) for ids in played.values())
    assert total == 7 + 8 + 9 + 1  # the rolled-back debit played none
    found = counts(store_url)
    assert found["rounds"] == found["stats_rounds"] == total
    assert found["parked"] == 0
    reader = RecallReader(store_url)
    try:
        for ids in played.values():
            for round_id in ids:
                recalled: dict[str, Any] | None = reader.round(round_id)
                assert recalled is not None and recalled["round_id"] == round_id
    finally:
        reader.close()
