"""The game kernel compiled (or loaded from numba's cache) before the first request, said in
the log: a first start compiles for about a minute on a small machine, and an operator watching
the log must know the service is busy, not hung.

`engine_compiling` (with `first_start`: no compiled kernel cached beside the source yet), then
`engine_compiling_progress` every PROGRESS_SECONDS while it lasts, then `engine_ready`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from infrastructure.logging import get_logger

log = get_logger("pumpkin")

PROGRESS_SECONDS = 10.0
KERNEL_CACHE = Path(__file__).resolve().parents[1] / "domain" / "game" / "__pycache__"


def kernel_is_cached(cache: Path = KERNEL_CACHE) -> bool:
    """numba's cache index files of the kernel exist (a later start only loads them)."""
    return cache.is_dir() and any(cache.glob("kernel.*.nbi"))


def warm_up_engine(
    warm_up: Callable[[], None] | None = None,
    *,
    cached: bool | None = None,
    progress_seconds: float = PROGRESS_SECONDS,
) -> None:
    if warm_up is None:
        from domain.game.engine import warm_up as play_one_round

        warm_up = play_one_round
    first_start = not (kernel_is_cached() if cached is None else cached)
    log.info(
        "engine_compiling",
        first_start=first_start,
        message="compiling the game kernel: about a minute on a first start, cached after"
        if first_start
        else "loading the compiled game kernel",
    )
    started = time.perf_counter()
    done = threading.Event()

    def progress() -> None:
        while not done.wait(progress_seconds):
            log.info("engine_compiling_progress", seconds=round(time.perf_counter() - started))

    reporter = threading.Thread(target=progress, name="engine-warm-up", daemon=True)
    reporter.start()
    try:
        warm_up()
    finally:
        done.set()
        reporter.join()
    log.info("engine_ready", seconds=round(time.perf_counter() - started, 2))
