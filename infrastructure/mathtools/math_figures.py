"""`pumpkin math`: the computed (not simulated) figures of one state or of all 21."""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from domain.game.calculator import state_math
from domain.game.calculator.state import DEFAULT_SCREENS
from domain.game.model import MathModel, all_states, current_model
from infrastructure.mathtools.commands import UsageError, state_halves


def default_workers() -> int:
    """Every core of the machine (the states are independent)."""
    return max(1, os.cpu_count() or 1)


def computed_states(
    model: MathModel, states: list[tuple[int, int, int]], screens: int, workers: int
) -> list[dict[str, Any]]:
    """Each state's computed figures, in the order asked, on `workers` processes. A state's
    figures do not depend on where they are computed (its sampled screens have a fixed seed).
    The slow level-5 states go first, so the last ones to finish are short."""
    jobs = [(model, state, screens) for state in states]
    if workers <= 1 or len(jobs) <= 1:
        return [_computed(job) for job in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -states[i][0])  # stable: level 5 first
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        done = list(pool.map(_computed, [jobs[i] for i in order]))
    answered: list[dict[str, Any]] = [{} for _ in jobs]
    for i, figures in zip(order, done, strict=True):
        answered[i] = figures
    return answered


def _computed(job: tuple[MathModel, tuple[int, int, int], int]) -> dict[str, Any]:
    model, state, screens = job
    return state_math(model, *state, screens=screens).as_dict()


def figures(
    model: MathModel, states: list[tuple[int, int, int]], screens: int, workers: int = 1
) -> dict[str, Any]:
    return {
        "model_version": model.version,
        "states": computed_states(model, states, screens, workers),
    }


def math_command(
    level: int | None,
    hw_mult: float,
    fs_mult: float,
    json_out: bool,
    screens: int = DEFAULT_SCREENS,
    workers: int | None = None,
) -> int:
    try:
        if screens < 1000:
            raise UsageError("--screens must be at least 1000")
        if workers is not None and workers < 1:
            raise UsageError("--workers must be at least 1")
        states = (
            all_states() if level is None else [(level, *state_halves(level, hw_mult, fs_mult))]
        )
    except UsageError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    result = figures(current_model(), states, screens, workers or default_workers())
    if json_out:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(_text(result))
    return 0


def _text(result: dict[str, Any]) -> str:
    lines = [
        f"model {result['model_version']} (computed figures, exact; the sd's Clover Moon Swap "
        "term from sampled screens, with its standard error)",
        "",
    ]
    lines.append(
        f"{'state':16} {'RTP':>10} {'lines':>7} {'NGC':>6} {'clover':>7} {'H&W':>7} "
        f"{'FS':>6} {'hit':>7} {'FS 1 in':>8} {'HW 1 in':>8} {'sd':>6} {'+-se':>5} {'VI':>6}"
    )
    for s in result["states"]:
        p = s["rtp_parts"]
        lines.append(
            f"{s['state']:16} {s['rtp']:10.5%} "
            f"{p['base_lines']:7.2%} {p['normal_game_collector']:6.2%} "
            f"{p['clover_moon_swap']:7.2%} {p['hold_and_win']:7.2%} {p['free_spins']:6.2%} "
            f"{s['hit_frequency']:7.2%} {s['free_spins_one_in']:8.1f} "
            f"{s['hold_and_win_one_in']:8.1f} {s['sd']:6.2f} {s['sd_standard_error']:5.2f} "
            f"{s['volatility_index']:6.2f}"
        )
    lines += ["", "max win (10,000 x stake):"]
    lines += [f"{s['state']:16} {s['max_win_odds']['statement']}" for s in result["states"]]
    return "\n".join([*lines, ""])
