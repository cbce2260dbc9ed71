"""`pumpkin simulate --ray`: the same run on a Ray cluster.

The same chunks of round indices as the local simulator (infrastructure.mathtools.simulator),
each played by the same kernel on a Ray worker; the chunks' integer totals come back and merge in
chunk order, so the figures equal those of `--workers` for the same seed and spins, exactly.

Ray is optional: `pip install -e '.[ray]'`; without it `--ray` says so (RayMissing).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from domain.game.statistics import RunTotals
from infrastructure.mathtools.simulator import RunSpec, chunks_of, merged, run_chunk

LOCAL = "local"
INSTALL_HINT = "pip install -e '.[ray]'"


class RayMissing(RuntimeError):
    """`--ray` was asked for where the Ray extra is not installed."""

    def __init__(self) -> None:
        super().__init__(f"--ray needs the Ray extra, which is not installed: {INSTALL_HINT}")


def ray_module() -> Any:
    """The `ray` package, or RayMissing saying how to install it."""
    try:
        import ray
    except ModuleNotFoundError as missing:
        if missing.name != "ray":
            raise
        raise RayMissing from None
    return ray


def connect(address: str | None) -> Any:
    """Join the cluster at `address` (`auto`: the one this node belongs to) or, for None or
    "local", start a local one; an already connected process stays connected."""
    ray = ray_module()

    if not ray.is_initialized():
        if address in (None, "", LOCAL):
            ray.init(include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    return ray


def simulate_on_ray(
    spec: RunSpec,
    address: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> RunTotals:
    ray = connect(address)
    play = ray.remote(run_chunk)
    chunks = chunks_of(spec)
    spec_ref = ray.put(spec)
    refs = [play.remote(spec_ref, first, count) for first, count in chunks]
    parts: list[RunTotals] = []
    for (_, count), ref in zip(chunks, refs, strict=True):
        parts.append(ray.get(ref))
        if on_progress:
            on_progress(count)
    return merged(parts)
