"""A serving process freezes its start-up heap, so the collector's full pass does not stall spins.

Before, each full pass walked some 170,000 start-up objects and held a worker's event loop for
130 ms, every few seconds at 1,000 spins/s (bench/RESULTS.md, "HTTP, third pass").
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

from infrastructure.cli import app

_WORKER_HEAP = """
import gc, json
from infrastructure.bootstrap import worker_http_app
worker_http_app()
print(json.dumps({"frozen": gc.get_freeze_count(), "watched": len(gc.get_objects())}))
"""


def _serving_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PUMPKIN_OPERATOR_KEY": "k" * 32, "PUMPKIN_AUDITOR_KEY": "a" * 32}
    env["PUMPKIN_DATABASE_URL"] = f"sqlite:///{tmp_path / 'pumpkin.db'}"
    return env


def test_a_serve_worker_is_built_with_its_start_up_heap_frozen(tmp_path: Path) -> None:
    # worker_http_app is what uvicorn calls in each `serve --workers N` process
    done = subprocess.run(
        [sys.executable, "-c", _WORKER_HEAP],
        cwd=tmp_path, env=_serving_env(tmp_path), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    heap = json.loads(done.stdout.splitlines()[-1])
    assert heap["frozen"] > 50 * max(heap["watched"], 1)  # nearly all of it out of the search


def test_a_single_process_serve_freezes_its_heap_before_it_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, int] = {}

    def run(http_app: Any, **options: Any) -> None:  # stands in for uvicorn serving
        seen["frozen"] = gc.get_freeze_count()
        seen["watched"] = len(gc.get_objects())

    monkeypatch.setattr(uvicorn, "run", run)
    try:
        result = CliRunner().invoke(app, ["serve", "--no-projections"], env=_serving_env(tmp_path))
    finally:
        gc.unfreeze()  # this test process goes on collecting as before
    assert result.exit_code == 0, result.output
    assert seen["frozen"] > seen["watched"] > 0
