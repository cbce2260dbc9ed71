"""The RTP growth read model: running totals per state kept at log-spaced checkpoints."""

from __future__ import annotations

from http_support import Journey, served_client
from pages_support import eventually

from infrastructure.pages.rtp import state_rtps
from infrastructure.pages.svg import rtp_chart
from infrastructure.wallet.reference import ReferenceWallet
from projections.queries import RecallReader
from projections.rtp_growth import is_checkpoint


def test_checkpoints_are_every_round_to_ten_then_a_dozen_per_tenfold() -> None:
    found = [n for n in range(1, 1001) if is_checkpoint(n)]
    assert found[:12] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15]
    assert found[-4:] == [700, 800, 900, 1000]
    assert sum(is_checkpoint(n) for n in range(1000, 10_000)) == 12
    assert not is_checkpoint(0) and is_checkpoint(2_500_000) and not is_checkpoint(2_500_001)


def test_actual_rtp_is_kept_as_rounds_grow_and_drawn_against_its_band(
    store_url: str, operator_wallet: ReferenceWallet | None
) -> None:
    with served_client(store_url, operator_wallet) as client:
        j = Journey(client)
        played = [j.spin().json() for _ in range(12)]  # 10 at level 0, then level 1 unlocks
        reader = RecallReader(store_url)
        try:
            growth = eventually(
                reader.rtp_growth, lambda g: sum(p[-1][0] for p in g.values()) == 12
            )
        finally:
            reader.close()
    first, then = sorted(growth, key=lambda key: key[0])
    assert first[0] == "L0/HW1/FS1" and then[0].startswith("L1/")
    assert [n for n, _ in growth[first]] == list(range(1, 11))
    assert [n for n, _ in growth[then]] == [1, 2]
    level_0 = played[:10]
    staked, won = sum(r["stake"] for r in level_0), sum(r["total_win"] for r in level_0)
    assert growth[first][-1][1] == won / staked
    assert growth[first][0][1] == level_0[0]["total_win"] / level_0[0]["stake"]
    bucket = {
        "state": first[0],
        "model_version": first[1],
        "level": 0,
        "rounds": 10,
        "staked": staked,
        "won": won,
        "theoretical_rtp": 0.96,
    }
    (state,) = state_rtps([bucket], growth)
    assert state.growth == growth[first]
    assert rtp_chart(state).count("<polyline") == 1
