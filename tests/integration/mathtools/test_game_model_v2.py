"""Model version 2: every triggering probability falling with the level and the multipliers, no
silent no-ops, on target in every state by computation, and version 1 still re-deriving its
rounds exactly."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from game_support import state_progress

from domain.game import state_vector as L
from domain.game.calculator import state_math
from domain.game.engine import play_round
from domain.game.facts import Fact
from domain.game.kernel import land_base
from domain.game.model import (
    FEATURE_KEYS,
    STATE_KEYS,
    UNLOCK_LEVEL,
    MathModel,
    all_states,
    current_model,
    model_for,
    registry,
    state_key,
)
from domain.game.progress import multiplier_of
from domain.game.rng import new_generator
from domain.game.rules_document import computed_figures, rules_document
from domain.game.symbols import NGC, SCATTER

V1 = "pumpkin-v1-4af96d8ef079b16a"


def _no_higher_multipliers(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """b is a state of a lower level, or of the same level with no higher multipliers."""
    return b[0] < a[0] or (b[0] == a[0] and b[1] <= a[1] and b[2] <= a[2])


def v2() -> MathModel:
    model = current_model()
    assert model.name == "pumpkin-v2"
    return model


def test_version_2_is_current_and_version_1_stays_published() -> None:
    assert model_for(V1).name == "pumpkin-v1"
    assert v2().definition["engine"]["kernel"] == 2
    assert {model.name for model in registry().values()} == {"pumpkin-v1", "pumpkin-v2"}


def test_every_triggering_probability_is_no_higher_than_in_any_lower_state() -> None:
    model = v2()
    states = all_states()
    tables = {s: model.probabilities(*s) for s in states}
    keys = set(tables[states[0]])
    assert keys == {*STATE_KEYS, *FEATURE_KEYS}
    for a in states:
        for b in states:
            if a == b or not _no_higher_multipliers(a, b):
                continue
            for key in keys:
                if b[0] < UNLOCK_LEVEL.get(key, 0):
                    continue  # compared from the level that unlocks it on
                assert tables[a][key] <= tables[b][key], (key, state_key(*a), state_key(*b))
    for s in states:  # a locked feature never triggers
        for key, unlock in UNLOCK_LEVEL.items():
            if s[0] < unlock:
                assert tables[s][key] == 0, (key, s)


def test_every_state_computes_to_96_00_percent_and_meets_the_frequency_targets() -> None:
    figures = computed_figures(v2().version)
    assert len(figures["states"]) == 21
    for key, state in figures["states"].items():
        assert abs(state["rtp"] - 0.96) <= 0.0001, key
        assert 0.25 <= state["hit_frequency"] <= 0.40, key
    level0 = figures["states"]["L0/HW1/FS1"]
    assert 120 <= level0["free_spins_one_in"] <= 300
    assert 80 <= level0["hold_and_win_one_in"] <= 250


def test_the_published_figures_are_the_calculators() -> None:
    model = current_model()
    published = computed_figures(model.version)
    assert published, "no computed figures published beside the current model"
    mine = state_math(model, 2, 2, 2, screens=published["screens"]).as_dict()
    theirs = published["states"]["L2/HW1/FS1"]  # from level 2 with Clover Moon Swap
    assert mine["rtp"] == pytest.approx(theirs["rtp"], abs=1e-12)
    assert mine["hit_frequency"] == pytest.approx(theirs["hit_frequency"], abs=1e-12)
    assert mine["sd"] == pytest.approx(theirs["sd"], abs=1e-12)


def test_the_rules_document_shows_the_computed_figures_and_the_max_win_method() -> None:
    document = rules_document()
    for state in document["states"]:
        assert state["rtp_method"] == "computed"
        assert state["sd"] and state["volatility_index"] == pytest.approx(1.645 * state["sd"])
    odds = document["max_win"]["odds"]
    assert any(m in odds["method"] for m in ("Cantelli", "Clopper-Pearson", "importance sampling"))
    assert "Cantelli" in odds["statement"]


def test_from_kernel_2_the_rules_document_discloses_the_collector_and_the_swap_rules() -> None:
    document = rules_document(v2())
    assert any("never covers a Scatter" in d for d in document["disclosures"])
    assert any("always makes a win" in d for d in document["disclosures"])
    assert not any("never covers" in d for d in rules_document(model_for(V1))["disclosures"])


def test_the_collector_never_covers_a_scatter_from_kernel_2() -> None:
    params = v2().params(3, 2, 2).copy()
    params[L.P_SCATTER] = 1_000_000  # a scatter on reels 1, 3 and 5 on every screen
    params[L.P_COLLECTOR] = 1_000_000
    cells = np.empty(15, dtype=np.int64)
    vals = np.empty(15, dtype=np.int64)
    rng = new_generator(bytes(32))
    for _ in range(500):
        land_base(rng, params, 3, 2, 2, cells, vals)
        reels = {i // 3 for i in range(15) if cells[i] == NGC}
        assert reels <= {1, 3}
        assert sum(1 for c in cells if c == SCATTER) == 3


def test_version_1_rounds_re_derive_exactly_as_before_version_2() -> None:
    """3,000 version-1 rounds over every state, hashed: the same digest as before kernel 2."""
    digest = hashlib.sha256()
    for i in range(3000):
        level = i % 6
        hw, fs = (3 + i % 4, 3 + (i // 4) % 4) if level == 5 else (2, 2)
        seed = hashlib.sha256(f"golden-{i}".encode()).digest()
        out = play_round(state_progress(level, hw, fs), 100, seed, V1)
        facts = tuple(as_first_recorded(fact) for fact in out.facts)
        digest.update(repr((facts, out.total_win, out.progress_after)).encode())
    assert digest.hexdigest() == "923eea0f5aa6a1033d62b6e904ad9f9df2b26b7d22819fe5f602b7d78b793506"


def as_first_recorded(fact: Fact) -> Fact:
    """The fact as the digest's release wrote it: a step's multiplier as a number, in its place
    (facts carry halves since; docs/EVENTS.md), so the same play hashes the same."""
    payload = {
        ("multiplier" if key == "multiplier_halves" else key): (
            multiplier_of(value) if key == "multiplier_halves" else value
        )
        for key, value in fact.payload.items()
    }
    return Fact(fact.name, payload)
