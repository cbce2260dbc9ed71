"""Runs the live engine's kernel over many rounds, in parallel worker processes.

Each worker plays a disjoint range of round indices of the same master seed (see
domain.game.simulation), so a run with W workers plays exactly the same rounds as one with 1 worker,
and the integer totals merge exactly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from domain.game import simulation as S
from domain.game.model import MathModel, load_definition
from domain.game.statistics import RunTotals

CHUNK = 1_000_000


@dataclass(frozen=True)
class RunSpec:
    model_json: str  # the model's full definition, so workers need no registry look-up
    level: int
    hw_halves: int
    fs_halves: int
    master_seed: bytes
    spins: int
    curve_every: int = 0
    first: int = 0  # the index of the run's first round: a run extends an earlier one exactly


def spec_for(model: MathModel, **kwargs: object) -> RunSpec:
    return RunSpec(json.dumps(model.definition, sort_keys=True), **kwargs)  # type: ignore[arg-type]


@lru_cache(maxsize=8)
def _model(model_json: str) -> MathModel:
    return load_definition(model_json)


def run_chunk(spec: RunSpec, first: int, count: int) -> RunTotals:
    return _run_chunk(_model(spec.model_json), spec, first, count)


def _run_chunk(model: MathModel, spec: RunSpec, first: int, count: int) -> RunTotals:
    params = model.params(spec.level, spec.hw_halves, spec.fs_halves)
    key = np.frombuffer(spec.master_seed, dtype="<u4").astype(np.int64)
    acc = np.zeros(S.N_ACC, dtype=np.int64)
    buckets = np.zeros(S.N_BUCKETS, dtype=np.int64)
    every = spec.curve_every
    points = count // every if every else 0
    curve = np.zeros(max(points, 1), dtype=np.int64)
    S.run_rounds(
        key,
        first,
        count,
        params,
        spec.level,
        spec.hw_halves,
        spec.fs_halves,
        acc,
        buckets,
        curve,
        every,
    )
    totals = RunTotals([int(x) for x in acc], [int(x) for x in buckets])
    totals.curve = [(first + (k + 1) * every, int(curve[k])) for k in range(points)]
    return totals


def chunks_of(spec: RunSpec) -> list[tuple[int, int]]:
    """The run's rounds in chunks (first index, count): the unit of work on any executor."""
    end = spec.first + spec.spins
    return [(first, min(CHUNK, end - first)) for first in range(spec.first, end, CHUNK)]


def merged(parts: list[RunTotals]) -> RunTotals:
    """The chunks' integer totals merged, in chunk order (exact, whoever played them)."""
    total = RunTotals()
    for part in parts:
        total.merge(part)
    total.curve = _cumulative_curve(parts)
    return total


def simulate(
    spec: RunSpec,
    workers: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> RunTotals:
    """Play spec.spins rounds; `on_progress(rounds_done)` after each finished chunk."""
    workers = workers or (os.cpu_count() or 1)
    chunks = chunks_of(spec)
    parts: list[RunTotals] = []
    if workers == 1 or len(chunks) == 1:
        for first, count in chunks:
            part = run_chunk(spec, first, count)
            parts.append(part)
            if on_progress:
                on_progress(count)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(run_chunk, spec, first, count) for first, count in chunks]
            for (_, count), future in zip(chunks, futures, strict=True):
                parts.append(future.result())
                if on_progress:
                    on_progress(count)
    return merged(parts)


def _cumulative_curve(parts: list[RunTotals]) -> list[tuple[int, int]]:
    curve: list[tuple[int, int]] = []
    won_before = 0
    for part in parts:
        curve.extend((rounds, won_before + won) for rounds, won in part.curve)
        won_before += part.acc[S.A_WIN]
    return curve
