"""Version 1's tuning (by simulation), kept as the record of how pumpkin-v1 was made; version 2 is
tuned on the calculator by infrastructure.mathtools.model_v2.

Tunes the math model so that every state's RTP is 96.0%, and writes it as a new model file.

Each state scales one reference set of feature probabilities by a factor k (scatters by the cube
root of k, since Free Spins need three), chosen by simulation so the state's RTP is on target.
Unlocked features and bonus multipliers add value, so k falls as the level and the multipliers
rise: the probabilities of the bonuses and features fall with them, as the rules disclose.

    python -m infrastructure.mathtools.tuning [--spins N]   # rewrites
    domain/game/models/pumpkin-v1.json
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
from pathlib import Path
from typing import Any

import structlog

from domain.game.line_expectation import base_line_rtp
from domain.game.model import UNLOCK_LEVEL, MathModel, all_states, state_key
from infrastructure.mathtools.simulator import simulate, spec_for

TARGET_RTP = 0.96
MODEL_FILE = Path(__file__).resolve().parents[2] / "domain" / "game" / "models" / "pumpkin-v1.json"

REFERENCE = {  # feature probabilities at k = 1, parts per million
    "scatter_ppm": 170_000,
    "activation_ppm": 11_000,
    "wild_reels_ppm": 8_000,
    "clover_ppm": 30_000,
    "collector_ppm": 40_000,
    "booster_ppm": 40_000,
}

log = structlog.get_logger()


def scaled_table(
    level: int, k: float, reference: dict[str, int], cube_root: frozenset[str]
) -> dict[str, int]:
    """A state's probabilities: each reference value times k (times k^(1/3) for those in
    `cube_root`, e.g. the scatters, since Free Spins need three), 0 while locked at `level`."""
    table = {}
    for name, value in reference.items():
        if level < UNLOCK_LEVEL.get(name, 0):
            table[name] = 0
        else:
            table[name] = round(value * (k ** (1 / 3) if name in cube_root else k))
    table["scale_ppm"] = round(k * 1_000_000)  # published: the state's scale, for the PAR sheet
    return table


def state_table(level: int, k: float) -> dict[str, int]:
    return scaled_table(level, k, REFERENCE, frozenset({"scatter_ppm"}))


def with_state(definition: dict[str, Any], key: str, table: dict[str, int]) -> MathModel:
    changed = json.loads(json.dumps(definition))
    changed["states"][key] = table
    return MathModel(changed)


def measure(model: MathModel, level: int, hw: int, fs: int, spins: int, seed: bytes) -> float:
    spec = spec_for(model, level=level, hw_halves=hw, fs_halves=fs, master_seed=seed, spins=spins)
    return float(simulate(spec).summary()["rtp"])


def tune_state(
    definition: dict[str, Any], level: int, hw: int, fs: int, pilot: int, spins: int
) -> tuple[float, float]:
    key = state_key(level, hw, fs)
    seed = secrets.token_bytes(32)
    k_hi, k_lo = 1.0, 0.3
    r_hi = measure(
        with_state(definition, key, state_table(level, k_hi)), level, hw, fs, pilot, seed
    )
    r_lo = measure(
        with_state(definition, key, state_table(level, k_lo)), level, hw, fs, pilot, seed
    )
    slope = (r_hi - r_lo) / (k_hi - k_lo)
    k = max(0.01, k_lo + (TARGET_RTP - r_lo) / slope)
    seed = secrets.token_bytes(32)
    rtp = measure(with_state(definition, key, state_table(level, k)), level, hw, fs, spins, seed)
    k = max(0.01, k + (TARGET_RTP - rtp) / slope)
    log.info("tuned", state=key, k=round(k, 5), slope=round(slope, 4), measured=round(rtp, 5))
    return k, slope


def correct_from_par(definition: dict[str, Any], par: dict[str, Any]) -> list[str]:
    """Refine the k of each state that missed a target in a PAR run, from that run."""
    missed = [
        key
        for key, measured in par["states"].items()
        if not measured.get("checks") or not all(measured["checks"].values())
    ]
    pooled_correction(definition, [par], set(missed))
    return missed


def pooled_correction(
    definition: dict[str, Any], runs: list[dict[str, Any]], keys: set[str]
) -> None:
    """Refine the given states from every run of them so far (PAR result files).

    Each run measured RTP r_i after n_i rounds at scale k_i. With L(k) the exact line RTP at the
    scatter chance of k and the features' part F = r - L proportional to k, the slope is
    b = F / k + L'(k); every run is moved to the current k along it, the moved figures are
    averaged by rounds played, and k goes to where that average meets the target.
    """
    model = MathModel(definition)
    for key in sorted(keys):
        level = int(key[1])
        k0 = definition["states"][key]["scale_ppm"] / 1_000_000
        measured = [
            (
                r["states"][key]["parameters"]["scale_ppm"] / 1e6,
                r["states"][key]["rtp"],
                r["states"][key]["spins"],
            )
            for r in runs
            if "parameters" in r["states"].get(key, {})
        ]

        def line(k: float, level: int = level) -> float:
            return base_line_rtp(model, state_table(level, k)["scatter_ppm"])[0]

        features = sum(n * (r - line(k)) / k for k, r, n in measured) / sum(n for *_, n in measured)
        slope = features + (line(k0 * 1.01) - line(k0 * 0.99)) / (0.02 * k0)
        pooled = sum(n * (r + slope * (k0 - k)) for k, r, n in measured) / sum(
            n for *_, n in measured
        )
        k_new = k0 + (TARGET_RTP - pooled) / slope
        definition["states"][key] = state_table(level, k_new)
        log.info(
            "pooled",
            state=key,
            runs=len(measured),
            pooled_rtp=round(pooled, 5),
            slope=round(slope, 4),
            k=round(k0, 5),
            k_new=round(k_new, 5),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pilot", type=int, default=3_000_000)
    parser.add_argument("--spins", type=int, default=20_000_000)
    parser.add_argument("--only", default="", help="comma-separated state keys to retune")
    parser.add_argument(
        "--correct-from-par",
        type=Path,
        default=None,
        help="refine every state from a PAR results file instead of simulating",
    )
    parser.add_argument(
        "--pool",
        type=Path,
        nargs="*",
        default=None,
        help="with --only: refine those states from every run in these PAR result files",
    )
    args = parser.parse_args()
    definition = json.loads(MODEL_FILE.read_text())
    if args.pool:
        runs = [json.loads(path.read_text()) for path in args.pool]
        pooled_correction(definition, runs, set(filter(None, args.only.split(","))))
        MODEL_FILE.write_text(json.dumps(definition, indent=1, sort_keys=True) + "\n")
        return
    if args.correct_from_par:
        corrected = correct_from_par(definition, json.loads(args.correct_from_par.read_text()))
        MODEL_FILE.write_text(json.dumps(definition, indent=1, sort_keys=True) + "\n")
        log.info("rerun these", only=",".join(corrected))
        return
    only = set(filter(None, args.only.split(",")))
    for level, hw, fs in all_states():
        key = state_key(level, hw, fs)
        if only and key not in only:
            continue
        k, _ = tune_state(definition, level, hw, fs, args.pilot, args.spins)
        definition["states"][key] = state_table(level, k)
        MODEL_FILE.write_text(json.dumps(definition, indent=1, sort_keys=True) + "\n")
    os.sync()


if __name__ == "__main__":
    main()
