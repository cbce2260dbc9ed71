"""The math model as data: paytable, cell weights, and each state's feature probabilities.

A model is a JSON document under domain/game/models/. Its version is its name plus the first 16 hex
digits of the SHA-256 of its canonical form, so any change to any number is a new version.
Every model ever published stays in that folder, so any recorded round can be re-derived.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import Any

import numpy as np

from domain.errors import UnknownModelVersion
from domain.game import state_vector as L
from domain.game.board import BOOSTER_LEVEL, CLOVER_LEVEL, COLLECTOR_LEVEL, WILD_REELS_LEVEL
from domain.game.progress import X1, X1_5, X3, multiplier_of
from domain.game.symbols import PAYING

STATE_KEYS = (
    "scatter_ppm",
    "activation_ppm",
    "wild_reels_ppm",
    "clover_ppm",
    "collector_ppm",
    "booster_ppm",
)
# Triggering probabilities inside the features: one value for every state in version 1, set
# state by state from version 2 on.
FEATURE_KEYS = (
    "free_spins_scatter_ppm",
    "free_spins_wild_reels_ppm",
    "free_spins_clover_ppm",
    "hold_and_win_activation_ppm",
)
_STATE_SLOTS = {
    "scatter_ppm": L.P_SCATTER,
    "activation_ppm": L.P_ACTIVATION,
    "wild_reels_ppm": L.P_WILD_REELS,
    "clover_ppm": L.P_CLOVER,
    "collector_ppm": L.P_COLLECTOR,
    "booster_ppm": L.P_BOOSTER,
}
_TABLES = (
    ("base_weights", L.P_BASE_W, 11),
    ("free_spin_weights", L.P_FS_W, 10),
    ("coin_value_weights", L.P_COIN_W, 6),
    ("hold_and_win_coin_value_weights", L.P_HW_COIN_W, 6),
    ("wild_reels_count_weights", L.P_WR_COUNT_W, 4),
    ("clover_symbol_weights", L.P_CLOVER_W, 9),
    ("hold_and_win_cell_weights", L.P_HW_CELL_W, 3),
    ("jackpot_weights", L.P_JACKPOT_W, 4),
)
WEIGHT_TABLES = _TABLES  # (name, first parameter slot, size): the weighted draws' tables
# The level that unlocks each feature: below it its probabilities are 0.
UNLOCK_LEVEL = {
    "wild_reels_ppm": WILD_REELS_LEVEL,
    "free_spins_wild_reels_ppm": WILD_REELS_LEVEL,
    "clover_ppm": CLOVER_LEVEL,
    "free_spins_clover_ppm": CLOVER_LEVEL,
    "collector_ppm": COLLECTOR_LEVEL,
    "booster_ppm": BOOSTER_LEVEL,
}
_SCALARS = tuple(
    zip(
        FEATURE_KEYS,
        (L.P_FS_SCATTER, L.P_FS_WILD_REELS, L.P_FS_CLOVER, L.P_HW_ACTIVATION),
        strict=True,
    )
)


def state_key(level: int, hw_halves: int, fs_halves: int) -> str:
    return f"L{level}/HW{multiplier_of(hw_halves):g}/FS{multiplier_of(fs_halves):g}"


def all_states() -> list[tuple[int, int, int]]:
    """The 21 round-starting states: levels 0-4, then level 5 with each multiplier pair."""
    states = [(level, X1, X1) for level in range(5)]
    states += [(5, hw, fs) for hw in range(X1_5, X3 + 1) for fs in range(X1_5, X3 + 1)]
    return states


@dataclass(frozen=True)
class MathModel:
    definition: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.definition["name"])

    @cached_property
    def version(self) -> str:
        """Computed once: the definition is never changed after the model is made."""
        canonical = json.dumps(self.definition, sort_keys=True, separators=(",", ":"))
        return f"{self.name}-{hashlib.sha256(canonical.encode()).hexdigest()[:16]}"

    @property
    def paytable(self) -> dict[str, list[int]]:
        return {s: list(self.definition["paytable"][s]) for s in PAYING}

    def state(self, level: int, hw_halves: int, fs_halves: int) -> dict[str, int]:
        return dict(self.definition["states"][state_key(level, hw_halves, fs_halves)])

    def probabilities(self, level: int, hw_halves: int, fs_halves: int) -> dict[str, int]:
        """Every triggering probability of a state (ppm), the features' own included."""
        table = self.state(level, hw_halves, fs_halves)
        for name in FEATURE_KEYS:
            if name not in table:  # version 1: one value for every state
                table[name] = self.definition[name]
        table.pop("scale_ppm", None)
        return table

    def params(self, level: int, hw_halves: int, fs_halves: int) -> np.ndarray:
        """The kernel's parameter vector for a round starting in this state."""
        key = (self.version, state_key(level, hw_halves, fs_halves))
        if key not in _PARAMS:
            _PARAMS[key] = _params(self.definition, key[1])
        return _PARAMS[key]


_PARAMS: dict[tuple[str, str], np.ndarray] = {}


def _params(d: dict[str, Any], key: str) -> np.ndarray:
    p = np.zeros(L.N_PARAMS, dtype=np.int64)
    for i, symbol in enumerate(PAYING):
        p[L.P_PAY + 3 * i : L.P_PAY + 3 * i + 3] = d["paytable"][symbol]
    for name, offset, size in _TABLES:
        values = d[name]
        if len(values) != size or min(values) < 0 or sum(values) <= 0:
            raise ValueError(f"{name}: {size} non-negative weights expected")
        p[offset : offset + size] = values
    state = d["states"][key]
    for name, offset in _SCALARS:
        p[offset] = state.get(name, d.get(name))  # version 2 sets them state by state
    p[L.P_KERNEL] = d["engine"]["kernel"]
    for name, offset in _STATE_SLOTS.items():
        p[offset] = state[name]
    p.setflags(write=False)
    return p


def load_definition(text: str) -> MathModel:
    return MathModel(json.loads(text))


_BESIDE_MODELS = (".par.json", ".math.json", ".max_win.json")  # figures published beside a model


@cache
def registry() -> dict[str, MathModel]:
    """Every published model, by version."""
    models: dict[str, MathModel] = {}
    for entry in resources.files("domain.game.models").iterdir():
        if entry.name.endswith(".json") and not entry.name.endswith(_BESIDE_MODELS):
            model = load_definition(entry.read_text())
            models[model.version] = model
    return models


CURRENT_MODEL_NAME = "pumpkin-v2"


@cache
def current_model() -> MathModel:
    for model in registry().values():
        if model.name == CURRENT_MODEL_NAME:
            return model
    raise UnknownModelVersion(CURRENT_MODEL_NAME)


def model_for(version: str) -> MathModel:
    try:
        return registry()[version]
    except KeyError:
        raise UnknownModelVersion(f"no published math model {version!r}") from None
