"""Simulated rounds per second through the live engine's kernel, with 2 worker processes,
beside two same-run baselines: 1 worker, and the raw ChaCha20 stream alone (the RNG floor).

    .venv/bin/python bench/bench_engine.py [--spins 40000000] [--level 0] [--ray]

--ray also plays the same rounds on a local Ray (2 CPUs) and prints its overhead ratio.

Target (issue 2): 500,000 rounds/s with --workers 2; aim 2,000,000.
"""

from __future__ import annotations

import argparse
import logging
import os
import time

from domain.game.model import current_model
from domain.game.rng import keystream
from infrastructure.mathtools.simulator import simulate, spec_for

SEED = os.urandom(32)  # one master seed: the 2-worker and the Ray run play the same rounds


def rounds_per_second(
    spins: int, workers: int, level: int, hw: int, fs: int, on_ray: bool = False
) -> float:
    spec = spec_for(current_model(), level=level, hw_halves=hw, fs_halves=fs,
                    master_seed=SEED, spins=spins)
    warm = spec_for(current_model(), level=level, hw_halves=hw, fs_halves=fs,
                    master_seed=os.urandom(32), spins=1000)
    if on_ray:
        from infrastructure.mathtools.ray_simulator import simulate_on_ray

        simulate_on_ray(warm)  # start Ray and load the kernel on its workers once
        start = time.perf_counter()
        simulate_on_ray(spec)
        return spins / (time.perf_counter() - start)
    simulate(warm, workers=1)  # compile/load once
    start = time.perf_counter()
    simulate(spec, workers=workers)
    return spins / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spins", type=int, default=40_000_000)
    parser.add_argument("--level", type=int, default=0)
    parser.add_argument("--hw", type=int, default=2, help="Hold & Win multiplier in halves")
    parser.add_argument("--fs", type=int, default=2, help="Free Spins multiplier in halves")
    parser.add_argument("--ray", action="store_true", help="also the same rounds on a local Ray")
    args = parser.parse_args()
    keystream(os.urandom(32), 64)
    start = time.perf_counter()
    keystream(os.urandom(32), 256_000_000)
    blocks = 256_000_000 / 64 / (time.perf_counter() - start)
    one = rounds_per_second(args.spins // 2, 1, args.level, args.hw, args.fs)
    two = rounds_per_second(args.spins, 2, args.level, args.hw, args.fs)
    print(f"state level {args.level}, HW halves {args.hw}, FS halves {args.fs}")
    print(f"baseline: ChaCha20 stream alone   {blocks:>12,.0f} blocks/s (64 bytes each, 1 core)")
    print(f"baseline: engine, 1 worker         {one:>12,.0f} rounds/s")
    print(f"engine, 2 workers                  {two:>12,.0f} rounds/s  "
          f"({two / one:.2f}x the 1-worker figure; target 500,000, aim 2,000,000)")
    if args.ray:
        import ray

        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
        on_ray = rounds_per_second(args.spins, 2, args.level, args.hw, args.fs, on_ray=True)
        ray.shutdown()
        print(f"same rounds on a local Ray (2 CPUs) {on_ray:>12,.0f} rounds/s  "
              f"({two / on_ray:.2f}x the time of 2 worker processes)")


if __name__ == "__main__":
    main()
