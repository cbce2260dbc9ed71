"""Features on forced models: collectors, the Pumpkin limit, the Grand, the cap, multipliers."""

from __future__ import annotations

import itertools

from game_support import model_with, state_progress

from domain.game.engine import RoundOutcome, resolve_round
from domain.game.facts import Fact

STAKE = 100
COIN_HEAVY = model_with(
    base_weights=[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3],
    states={
        "activation_ppm": 1_000_000,
        "scatter_ppm": 0,
        "wild_reels_ppm": 0,
        "collector_ppm": 0,
        "booster_ppm": 0,
        "clover_ppm": 0,
    },
)


def facts_named(outcome: RoundOutcome, name: str) -> list[Fact]:
    return [f for f in outcome.facts if f.name == name]


def coins_on_every_reel(level: int) -> RoundOutcome:
    for i in itertools.count():
        outcome = resolve_round(COIN_HEAVY, state_progress(level), STAKE, i.to_bytes(32, "little"))
        landed = facts_named(outcome, "SymbolsLanded")[0].payload["screen"]
        if all(any(c.startswith("COIN") for c in reel) for reel in landed):
            return outcome
    raise AssertionError("unreachable")


def test_before_jackpots_unlock_at_most_four_pumpkins_activate() -> None:
    outcome = coins_on_every_reel(level=3)
    base = [f for f in facts_named(outcome, "PumpkinActivated") if f.payload["phase"] == "base"]
    assert len(base) == 4
    for prizes in facts_named(outcome, "PrizesCollected"):
        assert len(prizes.payload["collectors"]) <= 4
    assert not facts_named(outcome, "JackpotWon")


def test_with_jackpots_unlocked_five_pumpkins_award_the_grand_and_end_the_feature() -> None:
    outcome = coins_on_every_reel(level=4)
    grand = [f for f in facts_named(outcome, "JackpotWon") if f.payload["tier"] == "GRAND"]
    assert len(grand) == 1
    assert grand[0].payload["amount"] == 2500 * STAKE
    names = [f.name for f in outcome.facts]
    assert names[names.index("JackpotWon") + 1] == "HoldAndWinEnded"
    assert not facts_named(outcome, "PrizesCollected")  # ended at once: no respin


def test_every_collector_collects_every_coin_of_the_triggering_screen() -> None:
    outcome = coins_on_every_reel(level=3)
    start = facts_named(outcome, "HoldAndWinStarted")[0].payload
    coin_total = sum(c["value"] for c in start["coins"])
    assert start["collected"] == coin_total * len(start["collectors"]) == coin_total * 4


def test_collections_count_each_coin_once_per_collector_and_each_jackpot_once() -> None:
    for seed in range(40):
        outcome = resolve_round(COIN_HEAVY, state_progress(4), STAKE, seed.to_bytes(32, "big"))
        for p in (f.payload for f in facts_named(outcome, "PrizesCollected")):
            coins = sum(c["value"] for c in p["coins"]) * len(p["collectors"])
            jackpots = sum(j["value"] for j in p["jackpots"])
            grand = sum(
                f.payload["amount"]
                for f in facts_named(outcome, "JackpotWon")
                if f.payload["tier"] == "GRAND" and f.payload["step"] == p["step"]
            )
            assert p["collected"] == coins + jackpots + grand


def test_the_round_stops_at_ten_thousand_times_the_stake() -> None:
    wild_free_spins = model_with(
        free_spin_weights=[0] * 9 + [1],
        free_spins_scatter_ppm=0,
        states={
            "scatter_ppm": 1_000_000,
            "activation_ppm": 0,
            "wild_reels_ppm": 0,
            "booster_ppm": 0,
        },
    )
    outcome = resolve_round(wild_free_spins, state_progress(5, 3, 6), STAKE, bytes(32))
    assert outcome.max_win_hit
    assert outcome.total_win == 10_000 * STAKE
    assert facts_named(outcome, "MaxWinReached")
    ended = facts_named(outcome, "FreeSpinsEnded")[0].payload
    assert ended["spins_played"] < 10  # the rest of the feature is forfeited
    assert outcome.progress_after.free_spins_halves == 3  # the multiplier was used: back to 1.5


def test_free_spins_wins_are_multiplied_by_the_free_spins_multiplier() -> None:
    model = model_with(states={"scatter_ppm": 1_000_000, "activation_ppm": 0, "booster_ppm": 0})
    outcome = resolve_round(model, state_progress(5, 3, 5), STAKE, bytes(32))
    for p in (f.payload for f in facts_named(outcome, "SpinCompleted")):
        if p["kind"] == "free_spin":
            assert p["multiplier_halves"] == 5  # x2.5
            assert p["win"] * 2 == sum(w["win"] for w in p["line_wins"]) * 5


def test_a_booster_raises_its_bonus_multiplier_by_a_half_and_never_past_three() -> None:
    model = model_with(states={"booster_ppm": 1_000_000, "scatter_ppm": 0, "activation_ppm": 0})
    seen = set()
    for seed in range(200):
        outcome = resolve_round(model, state_progress(5, 6, 4), STAKE, seed.to_bytes(32, "big"))
        boosters = facts_named(outcome, "BoosterLanded")
        for b in boosters:
            assert b.payload["bonus"] == "FS"  # Hold & Win is already at x3
            assert b.payload["multiplier_halves"] == 5  # x2.5
            assert outcome.progress_after.free_spins_halves == 5
            seen.add(b.payload["bonus"])
    assert seen == {"FS"}


def test_no_booster_lands_when_both_multipliers_are_at_three() -> None:
    model = model_with(states={"booster_ppm": 1_000_000})
    for seed in range(100):
        outcome = resolve_round(model, state_progress(5, 6, 6), STAKE, seed.to_bytes(32, "big"))
        assert not facts_named(outcome, "BoosterLanded")


def test_the_normal_game_collector_pays_every_coin_on_the_screen() -> None:
    model = model_with(states={"collector_ppm": 1_000_000, "wild_reels_ppm": 0})
    for seed in range(50):
        outcome = resolve_round(model, state_progress(3), STAKE, seed.to_bytes(32, "big"))
        for f in facts_named(outcome, "NormalGameCollectorCollected"):
            assert f.payload["win"] == sum(c["value"] for c in f.payload["coins"])
