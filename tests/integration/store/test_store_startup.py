"""Several processes starting on one new PostgreSQL database at once (serve --workers 2, a
projection runner beside the API) all come up: table creation is serialised."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def start_application(url: str) -> str:
    from infrastructure.application import PumpkinApplication

    application = PumpkinApplication.from_url(url)
    application.close()
    return "started"


def test_processes_starting_together_on_a_new_database_all_start(postgres_url: str) -> None:
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(4, mp_context=spawn) as pool:
        assert list(pool.map(start_application, [postgres_url] * 4)) == ["started"] * 4
