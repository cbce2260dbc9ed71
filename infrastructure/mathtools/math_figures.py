"""`pumpkin math`: the computed (not simulated) figures of one state or of all 21."""

from __future__ import annotations

import json
import sys
from typing import Any

from domain.game.calculator import state_math
from domain.game.calculator.state import DEFAULT_SCREENS
from domain.game.model import MathModel, all_states, current_model
from infrastructure.mathtools.commands import UsageError, state_halves


def figures(model: MathModel, states: list[tuple[int, int, int]], screens: int) -> dict[str, Any]:
    return {
        "model_version": model.version,
        "states": [state_math(model, *state, screens=screens).as_dict() for state in states],
    }


def math_command(
    level: int | None,
    hw_mult: float,
    fs_mult: float,
    json_out: bool,
    screens: int = DEFAULT_SCREENS,
) -> int:
    try:
        if screens < 1000:
            raise UsageError("--screens must be at least 1000")
        states = (
            all_states() if level is None else [(level, *state_halves(level, hw_mult, fs_mult))]
        )
    except UsageError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    result = figures(current_model(), states, screens)
    if json_out:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(_text(result))
    return 0


def _text(result: dict[str, Any]) -> str:
    lines = [
        f"model {result['model_version']} (computed figures: exact but the sd, which is from "
        "sampled screens with its standard error)",
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
