"""Helpers for the game tests: screens from names, and models with some numbers changed."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from domain.game.board import BOOSTER_LEVEL, LEVEL_SPINS, MAX_LEVEL
from domain.game.model import FEATURE_KEYS, MathModel, current_model
from domain.game.progress import X1, X1_5, X3, Progress
from domain.game.symbols import BOOSTER, COIN, EMPTY, NGC, PAYING, SCATTER, WILD

_CODES = {name: i for i, name in enumerate(PAYING)} | {
    "WILD": WILD,
    "SCATTER": SCATTER,
    "NGC": NGC,
    "EMPTY": EMPTY,
}


def cells_of(reels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Cells and values from 5 reels written top to bottom, e.g. "WITCH A COIN:5"."""
    cells = np.zeros(15, dtype=np.int64)
    vals = np.zeros(15, dtype=np.int64)
    for r, reel in enumerate(reels):
        for row, name in enumerate(reel.split()):
            if name.startswith("COIN:"):
                cells[r * 3 + row], vals[r * 3 + row] = COIN, int(name[5:])
            elif name.startswith("BOOSTER:"):
                cells[r * 3 + row], vals[r * 3 + row] = BOOSTER, ("HW", "FS").index(name[8:])
            else:
                cells[r * 3 + row] = _CODES[name]
    return cells, vals


def model_with(name: str = "test-model", **changes: Any) -> MathModel:
    """The current model with top-level numbers changed; `states` entries apply to every state."""
    definition = json.loads(json.dumps(current_model().definition))
    state_changes = changes.pop("states", {})
    # from version 2 the features' own probabilities are set state by state
    state_changes = {
        **{k: changes.pop(k) for k in FEATURE_KEYS if k in changes and k not in definition},
        **state_changes,
    }
    definition.update(changes)
    for table in definition["states"].values():
        table.update(state_changes)
    definition["name"] = name
    return MathModel(definition)


def state_progress(level: int, hw_halves: int = X1, fs_halves: int = X1) -> Progress:
    """A round-starting state (for the simulator and the rules document): meter not due."""
    if not 0 <= level <= MAX_LEVEL:
        raise ValueError(f"level must be 0..{MAX_LEVEL}")
    if level < BOOSTER_LEVEL:
        if (hw_halves, fs_halves) != (X1, X1):
            raise ValueError("bonus multipliers are x1 below level 5")
        return Progress(level, LEVEL_SPINS[level], X1, X1)
    for halves in (hw_halves, fs_halves):
        if not X1_5 <= halves <= X3:
            raise ValueError("level-5 multipliers are 1.5, 2, 2.5 or 3")
    return Progress(level, None, hw_halves, fs_halves)
