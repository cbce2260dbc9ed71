"""The PAR run: its seeds fixed by the model's name before any round, and a stopped run going on
where it stopped, exactly as one uninterrupted run."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from domain.game.model import MathModel, current_model, model_for, state_key
from domain.game.statistics import RunTotals
from infrastructure.mathtools import par_report
from infrastructure.mathtools.par_report import (
    MODELS,
    default_master_seed,
    misses_allowed,
    simulate_states,
    state_seed,
    verdict,
)
from infrastructure.mathtools.simulator import simulate, spec_for

V1 = "pumpkin-v1-4af96d8ef079b16a"
STATES = frozenset({"L0/HW1/FS1", "L5/HW3/FS2"})


def test_a_run_stopped_and_resumed_plays_exactly_the_rounds_of_one_run(tmp_path: Path) -> None:
    model = model_for(V1)
    master = hashlib.sha256(b"a test master seed").digest()
    progress = tmp_path / "progress.json"
    simulate_states(model, master, 1_000, 1, progress, only=STATES)
    resumed = simulate_states(model, master, 3_000, 1, progress, step=1_000, only=STATES)
    for level, hw, fs in ((0, 2, 2), (5, 6, 4)):
        key = state_key(level, hw, fs)
        spec = spec_for(
            model,
            level=level,
            hw_halves=hw,
            fs_halves=fs,
            master_seed=state_seed(master, key),
            spins=3_000,
        )
        whole = simulate(spec, workers=1)
        assert resumed[key].rounds == 3_000
        assert resumed[key].acc == whole.acc and resumed[key].buckets == whole.buckets


def test_the_published_report_is_regenerated_from_its_totals_without_playing_a_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New computed figures are published beside the same simulations: with no progress file,
    the run goes on from the published report's totals, which are already complete."""
    model = current_model()
    published = json.loads((MODELS / f"{model.name}.par.json").read_text())

    def no_rounds(*_: object) -> RunTotals:
        raise AssertionError("a round was played")

    monkeypatch.setattr(par_report, "_simulate", no_rounds)
    totals = simulate_states(
        model, default_master_seed(model), published["spins_per_state"], 1, tmp_path / "none.json"
    )
    assert set(totals) == set(published["states"])
    for key, state in published["states"].items():
        assert totals[key].acc == state["totals"]["acc"]
        assert totals[key].summary()["rtp"] == state["rtp"]
    assert not (tmp_path / "none.json").exists()


def test_a_state_whose_probabilities_changed_starts_again_from_round_zero(tmp_path: Path) -> None:
    model = model_for(V1)
    master = bytes(32)
    progress = tmp_path / "progress.json"
    simulate_states(model, master, 2_000, 1, progress, only=frozenset({"L0/HW1/FS1"}))
    retuned = dict(model.definition)
    retuned["states"] = {**model.definition["states"]}
    retuned["states"]["L0/HW1/FS1"] = {**retuned["states"]["L0/HW1/FS1"], "scatter_ppm": 1}

    again = simulate_states(
        MathModel(retuned), master, 1_000, 1, progress, only=frozenset({"L0/HW1/FS1"})
    )
    assert again["L0/HW1/FS1"].rounds == 1_000


def test_the_master_seed_is_the_recorded_one_else_fixed_by_the_model_name() -> None:
    v1 = model_for(V1)
    recorded = default_master_seed(v1)
    assert len(recorded) == 32
    unpublished = dict(v1.definition, name="pumpkin-test-unpublished")

    assert (
        default_master_seed(MathModel(unpublished))
        == hashlib.sha256(b"pumpkin-par:pumpkin-test-unpublished").digest()
    )


def test_as_many_99_percent_intervals_may_miss_as_chance_allows_at_the_1_percent_level() -> None:
    assert misses_allowed(84) == 4  # P(more than 3 of 84 miss) = 1.05%, of more than 4: 0.15%
    assert misses_allowed(1) == 1


def test_a_missed_target_fails_the_report_whatever_the_intervals() -> None:
    on_target = {"computed_rtp_96.00_pm_0.01%": True, "ci99_contains_computed_rtp": True}
    states = {f"S{i}": {"checks": dict(on_target)} for i in range(21)}
    assert verdict(states)["all_pass"]
    states["S3"]["checks"]["ci99_contains_computed_rtp"] = False
    assert verdict(states)["all_pass"] and verdict(states)["ci99_misses"] == [
        "S3: ci99_contains_computed_rtp"
    ]
    states["S4"]["checks"]["computed_rtp_96.00_pm_0.01%"] = False
    assert not verdict(states)["all_pass"]
