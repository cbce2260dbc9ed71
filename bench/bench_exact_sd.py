"""The calculator's exact standard deviation against a large plain simulation of the live kernel.

    .venv/bin/python bench/bench_exact_sd.py [--spins 20000000] [--workers 2] [--states KEY ...]

For each state: the computed sd (domain/game/calculator, E[W^2] exact but Clover Moon Swap's
second moment, sampled with its standard error) beside the simulated one, with the simulation's
99% interval for the sd by batch means: the run is cut into chunks of 1,000,000 rounds, each
chunk's mean square win is one observation, and the interval for E[W^2] is mean +- t(0.995, k-1)
standard errors (the chunks are independent: disjoint round indices of one fixed master seed),
then sd = sqrt(E[W^2] - RTP^2) at the interval's ends (the simulated RTP). Exit 1 if a computed
sd is outside its simulation's 99% interval.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from domain.game import simulation as S
from domain.game.calculator import state_math
from domain.game.model import all_states, current_model, state_key
from domain.game.state_vector import UNITS_PER_STAKE
from domain.game.statistics import RunTotals
from infrastructure.mathtools.simulator import chunks_of, run_chunk, spec_for

DEFAULT_STATES = ("L0/HW1/FS1", "L2/HW1/FS1", "L5/HW1.5/FS1.5", "L5/HW3/FS3")
# t(0.995, k - 1) for k chunks (a two-sided 99% interval); the normal 2.576 from 120
_T995 = {4: 5.841, 9: 3.250, 19: 2.861, 29: 2.756, 39: 2.708, 49: 2.680, 99: 2.626}


def _t995(dof: int) -> float:
    for d in sorted(_T995):
        if dof <= d:
            return _T995[d]
    return 2.576


def _moments(part: RunTotals) -> tuple[float, float]:
    n = part.rounds
    square = (part.acc[S.A_WIN_SQ_HI] << 32) + part.acc[S.A_WIN_SQ_LO]
    return part.acc[S.A_WIN] / n / UNITS_PER_STAKE, square / n / UNITS_PER_STAKE**2


def check(key: str, spins: int, workers: int) -> bool:
    state = next(s for s in all_states() if state_key(*s) == key)
    model = current_model()
    started = time.perf_counter()
    computed = state_math(model, *state)
    computed_seconds = time.perf_counter() - started
    seed = bytes(f"exact-sd:{key}".encode()).ljust(32, b".")[:32]
    spec = spec_for(
        model, level=state[0], hw_halves=state[1], fs_halves=state[2], master_seed=seed,
        spins=spins,
    )
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run_chunk, spec, first, count) for first, count in chunks_of(spec)]
        parts = [f.result() for f in futures]
    simulated_seconds = time.perf_counter() - started
    total = RunTotals()
    for part in parts:
        total.merge(part)
    mean, square = _moments(total)
    squares = [_moments(p)[1] for p in parts]
    k = len(squares)
    spread = math.sqrt(sum((x - square) ** 2 for x in squares) / (k - 1))
    half = _t995(k - 1) * spread / math.sqrt(k)
    low = math.sqrt(max(0.0, square - half - mean * mean))
    high = math.sqrt(square + half - mean * mean)
    sd = math.sqrt(square - mean * mean)
    inside = low <= computed.sd <= high
    print(
        f"{key:16} computed sd {computed.sd:8.4f} (+- {computed.sd_standard_error:.4f}, "
        f"{computed_seconds:5.1f} s) | simulated {sd:8.4f}, 99% [{low:.4f}, {high:.4f}] "
        f"over {spins:,} rounds in {k} chunks ({simulated_seconds:.0f} s) | RTP computed "
        f"{computed.rtp:.5f} simulated {mean:.5f} | {'inside' if inside else 'OUTSIDE'}",
        flush=True,
    )
    return inside


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spins", type=int, default=20_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--states", nargs="*", default=list(DEFAULT_STATES))
    args = parser.parse_args()
    results = [check(key, args.spins, args.workers) for key in args.states]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
