"""A first start says it is compiling the game kernel, and keeps saying so while it lasts
(issue 27 item 14: about 50 s of silence after the keys were logged)."""

from __future__ import annotations

import time
from pathlib import Path

from structlog.testing import capture_logs

from infrastructure.engine_warm_up import kernel_is_cached, warm_up_engine


def test_a_first_start_says_it_compiles_and_reports_progress_until_ready() -> None:
    with capture_logs() as logs:
        warm_up_engine(lambda: time.sleep(0.35), cached=False, progress_seconds=0.1)
    events = [entry["event"] for entry in logs]
    assert events[0] == "engine_compiling"
    assert logs[0]["first_start"] is True
    assert "about a minute" in logs[0]["message"]
    assert events.count("engine_compiling_progress") >= 2
    assert events[-1] == "engine_ready"


def test_a_later_start_says_it_loads_the_cached_kernel() -> None:
    with capture_logs() as logs:
        warm_up_engine(lambda: None, cached=True)
    assert [entry["event"] for entry in logs] == ["engine_compiling", "engine_ready"]
    assert logs[0]["first_start"] is False


def test_the_cache_is_found_by_numbas_index_files(tmp_path: Path) -> None:
    assert not kernel_is_cached(tmp_path / "missing")
    assert not kernel_is_cached(tmp_path)
    (tmp_path / "kernel.play-106.py311.nbi").write_bytes(b"")
    assert kernel_is_cached(tmp_path)
