"""The odds of the max win (10,000 x stake) in every state, by importance sampling of the live
kernel (domain.game.importance) with tilts refined by the cross-entropy method
(domain.game.tilts).

    python -m infrastructure.mathtools.max_win [--model PATH] [--rounds N] [--only KEY ...]

Per state: the two starting tilts (Hold & Win, Free Spins) are each refined on fixed-seed pilot
rounds; then a fresh fixed-seed run draws its rounds from the mixture of the model itself (the
defensive share) and the two refined tilts, each weighted by p / (mixture), and estimates
P(win >= t) for the max win and a few lower thresholds, with standard errors. Every seed derives
from SHA-256("pumpkin-max-win:" + model version + ":" + state key): the same command gives the
same figures. The figures are written beside the model as domain/game/models/<name>.max_win.json,
which `pumpkin math`, the PAR report and the rules document read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import structlog

from domain.game import importance as I
from domain.game import tilts as T
from domain.game.board import MAX_WIN_X_STAKE
from domain.game.draws import TALLY_WORDS
from domain.game.model import MathModel, all_states, current_model, load_definition, state_key
from domain.game.state_vector import UNITS_PER_STAKE
from domain.game.statistics import Z99

ROOT = Path(__file__).resolve().parents[2]
log = structlog.get_logger()

Z99_ONE_SIDED = 2.3263478740408408
CAP_UNITS = MAX_WIN_X_STAKE * UNITS_PER_STAKE
TAIL_X_STAKE = (500, 1000, 2500, 5000, MAX_WIN_X_STAKE)
DEFAULT_ROUNDS = 400_000  # the final run, per state
PILOT_ROUNDS = 20_000  # each cross-entropy iteration, per route
PILOT_ITERATIONS = 20
ELITE_SHARE = 0.02
DEFENSIVE_SHARE = 0.1  # of the final run's rounds drawn from the model itself
MIN_ELITE = 20
RELIABLE_EFFECTIVE_HITS = 30  # fewer effective hits: the interval is stated as unreliable


def state_seed(model: MathModel, key: str) -> bytes:
    return hashlib.sha256(f"pumpkin-max-win:{model.version}:{key}".encode()).digest()


def _phase_key(seed: bytes, phase: str) -> np.ndarray:
    digest = hashlib.sha256(seed + phase.encode()).digest()
    return np.frombuffer(digest, dtype="<u4").astype(np.int64)


def _play(
    P: np.ndarray,
    state: tuple[int, int, int],
    key: np.ndarray,
    tilts: list[np.ndarray],
    shares: list[float],
    counts: list[int],
    indices: np.ndarray | None = None,
    keep_tallies: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rounds 0..sum(counts)-1 of the run keyed by `key` (or `indices` of it), counts[j] of them
    from tilts[j]; their wins, log weights against the mixture `shares`, and tallies."""
    n = sum(counts)
    components = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    if indices is None:
        indices = np.arange(n, dtype=np.int64)
    else:
        components = components[indices]
    stacked = np.ascontiguousarray(np.stack(tilts))
    coefficients = np.ascontiguousarray(np.stack([I.log_ratio_coefficients(P, Q) for Q in tilts]))
    log_shares = np.log(np.array(shares, dtype=np.float64))
    m = indices.shape[0]
    wins = np.zeros(m, dtype=np.int64)
    log_weights = np.zeros(m)
    tallies = np.zeros((m if keep_tallies else 0, TALLY_WORDS), dtype=np.int64)
    level, hw, fs = state
    I.run_tilted(
        key,
        indices,
        components,
        I.coded(P),
        stacked,
        coefficients,
        log_shares,
        level,
        hw,
        fs,
        wins,
        log_weights,
        tallies,
    )
    return wins, log_weights, tallies


def refine(
    P: np.ndarray,
    state: tuple[int, int, int],
    seed: bytes,
    route: str,
    rounds: int,
    target_units: int = CAP_UNITS,
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """The route's starting tilt refined by multilevel cross-entropy on pilot rounds."""
    Q = T.starting_tilt(P, route)
    history: list[dict[str, Any]] = []
    for iteration in range(PILOT_ITERATIONS):
        key = _phase_key(seed, f":pilot:{route}:{iteration}")
        wins, log_weights, _ = _play(P, state, key, [Q], [1.0], [rounds])
        ranked = np.sort(wins)[::-1]
        level_units = int(
            min(target_units, max(1, ranked[max(MIN_ELITE, int(ELITE_SHARE * rounds))]))
        )
        elite = np.flatnonzero(wins >= level_units)
        history.append(
            {
                "iteration": iteration,
                "level_x_stake": level_units / UNITS_PER_STAKE,
                "elite": int(elite.size),
                "at_target": int((wins >= target_units).sum()),
            }
        )
        _, elite_log_weights, tallies = _play(
            P, state, key, [Q], [1.0], [rounds], indices=elite.astype(np.int64), keep_tallies=True
        )
        Q = T.cross_entropy_update(P, Q, tallies, T.tempered(elite_log_weights))
    return Q, history


def _log10_figure(x: float) -> float | None:
    return None if math.isinf(x) else round(x, 4)


def _tail_entry(estimate: I.TailEstimate) -> dict[str, Any]:
    return {
        "log10_probability": _log10_figure(estimate.log10_estimate),
        "relative_standard_error": None
        if math.isinf(estimate.relative_error)
        else estimate.relative_error,
        "log10_ci99": [
            _log10_figure(estimate.log10_lower(Z99)),
            _log10_figure(estimate.log10_bound(Z99)),
        ],
        "log10_upper_bound_99": _log10_figure(estimate.log10_bound(Z99_ONE_SIDED)),
        "hits": estimate.hits,
        "effective_hits": round(estimate.effective_hits, 2),
        "largest_weight_share": round(estimate.largest_share, 4),
    }


def method_text(rounds: int, pilot: int) -> str:
    return (
        f"importance sampling of the live kernel: {rounds:,} rounds drawn from a mixture of the "
        f"model itself ({DEFENSIVE_SHARE:.0%}) and two tilts (Hold & Win, Free Spins) refined by "
        f"the cross-entropy method on {pilot:,}-round pilots, each weighted by its exact "
        "likelihood ratio; 99% interval = estimate +- 2.576 standard errors, one-sided 99% "
        "bound = estimate + 2.326 standard errors; fixed seeds from the model version and state"
    )


def estimate_state(
    model: MathModel,
    state: tuple[int, int, int],
    rounds: int = DEFAULT_ROUNDS,
    pilot_rounds: int = PILOT_ROUNDS,
    target_x_stake: int = MAX_WIN_X_STAKE,
) -> dict[str, Any]:
    """The odds of a round win of `target_x_stake` or more (the max win unless told) in one
    state, with the tail at the thresholds of TAIL_X_STAKE and the run's diagnostics."""
    target_units = target_x_stake * UNITS_PER_STAKE
    started = time.process_time()
    key = state_key(*state)
    P = model.params(*state)
    seed = state_seed(model, key)
    refined = {
        route: refine(P, state, seed, route, pilot_rounds, target_units) for route in T.ROUTES
    }
    tilts = [P, *(refined[route][0] for route in T.ROUTES)]
    defensive = max(1, round(DEFENSIVE_SHARE * rounds))
    each = (rounds - defensive) // len(T.ROUTES)
    counts = [defensive, *([each] * len(T.ROUTES))]
    n = sum(counts)
    shares = [c / n for c in counts]
    wins, log_weights, _ = _play(P, state, _phase_key(seed, ":final"), tilts, shares, counts)
    tail = {
        str(x): _tail_entry(I.tail_estimate(wins, log_weights, x * UNITS_PER_STAKE))
        for x in TAIL_X_STAKE
    }
    top = I.tail_estimate(wins, log_weights, target_units)
    mean, mean_se = I.weight_mean(log_weights)
    w = np.exp(log_weights)
    return {
        "state": key,
        "x_stake": target_x_stake,
        **_tail_entry(top),
        "log10_one_in": _log10_figure(-top.log10_estimate),
        "log10_one_in_at_least": _log10_figure(-top.log10_bound(Z99_ONE_SIDED)),
        "reliable": top.effective_hits >= RELIABLE_EFFECTIVE_HITS,
        "rounds": n,
        "rounds_per_tilt": dict(zip(("model", *T.ROUTES), counts, strict=True)),
        "pilot_rounds": pilot_rounds * sum(len(refined[r][1]) for r in T.ROUTES),
        "effective_sample_size": round(float(w.sum() ** 2 / (w * w).sum()), 1),
        "weight_mean": mean,
        "weight_mean_standard_error": mean_se,
        "tail": tail,
        "cross_entropy": {route: refined[route][1] for route in T.ROUTES},
        "seed": seed.hex(),
        "cpu_seconds": round(time.process_time() - started, 1),
        "method": method_text(n, pilot_rounds),
    }


def _job(args: tuple[str, tuple[int, int, int], int, int]) -> dict[str, Any]:
    model_json, state, rounds, pilot = args
    return estimate_state(load_definition(model_json), state, rounds, pilot)


def estimate_all(
    model: MathModel,
    rounds: int = DEFAULT_ROUNDS,
    pilot_rounds: int = PILOT_ROUNDS,
    workers: int = 2,
    only: list[str] | None = None,
) -> dict[str, Any]:
    states = [s for s in all_states() if not only or state_key(*s) in only]
    model_json = json.dumps(model.definition)
    jobs = [(model_json, s, rounds, pilot_rounds) for s in states]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = {}
        for figures in pool.map(_job, jobs):
            results[figures["state"]] = figures
            log.info(
                "max_win_odds",
                state=figures["state"],
                log10_one_in=figures["log10_one_in"],
                relative_error=figures["relative_standard_error"],
                effective_hits=figures["effective_hits"],
                cpu_seconds=figures["cpu_seconds"],
            )
    return {
        "model_version": model.version,
        "x_stake": MAX_WIN_X_STAKE,
        "rounds_per_state": rounds,
        "pilot_rounds": pilot_rounds,
        "method": method_text(rounds, pilot_rounds),
        "states": results,
    }


def published_path(model: MathModel) -> Path:
    return ROOT / "domain" / "game" / "models" / f"{model.name}.max_win.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, default=None, help="a model file (default: current)")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--pilot", type=int, default=PILOT_ROUNDS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="state keys")
    parser.add_argument("--out", type=Path, default=None, help="default: beside the model")
    args = parser.parse_args()
    model = load_definition(args.model.read_text()) if args.model else current_model()
    results = estimate_all(model, args.rounds, args.pilot, args.workers, args.only)
    out = args.out or published_path(model)
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    log.info("written", path=str(out))


if __name__ == "__main__":
    main()
