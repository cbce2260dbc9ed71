"""One builder of the transparency log per store: of the followers `serve --workers N` starts,
the one holding the lease builds and signs, the others only read, and one takes over when the
holder is gone. The follower and the idle-session sweeper share one background loop, which logs
a failed turn and goes on."""

from __future__ import annotations

import threading

from log_support import play_session, spin

from infrastructure.application import PumpkinApplication
from infrastructure.background import Background
from infrastructure.transparency.log_builder import LogBuilder
from infrastructure.transparency.log_follower import LogFollower
from infrastructure.transparency.log_lease import LogLease


def test_only_the_lease_holder_builds_the_log_and_another_takes_over_when_it_is_gone(
    service: PumpkinApplication, store_url: str
) -> None:
    session_id = play_session(service, "ivy", 2)
    signed: list[str] = []
    first = LogFollower(LogBuilder(service), lambda: signed.append("first"), 0,
                        LogLease(store_url))
    second = LogFollower(LogBuilder(service), lambda: signed.append("second"), 0,
                         LogLease(store_url))
    assert first.turn() > 0 and first.leads()
    spin(service, session_id, 3)
    assert second.turn() == 0 and not second.leads()  # it only reads
    assert first.turn() > 0
    assert first.lease is not None
    first.lease.release()  # the holder is gone (its process ended)
    spin(service, session_id, 4)
    assert not second.leads()  # it asks again only every few seconds
    assert second.lease is not None
    second.lease.ask_now()
    assert second.leads() and second.turn() > 0
    assert LogBuilder(service).store.position()[0] == LogBuilder(service).rows.max_notification_id()
    assert second.lease is not None
    second.lease.release()


def test_an_in_memory_store_always_leads() -> None:
    assert LogLease("sqlite:///:memory:").held()


def test_the_background_loop_logs_a_failed_turn_and_goes_on() -> None:
    turns = threading.Semaphore(0)
    calls = []
    stopped = threading.Event()

    def step() -> None:
        calls.append(1)
        turns.release()
        if len(calls) == 1:
            raise RuntimeError("the store is down")

    loop = Background("pumpkin-test", 0.01, step, "test_turn_failed", on_stop=stopped.set)
    loop.start()
    assert turns.acquire(timeout=5) and turns.acquire(timeout=5)  # a second turn came
    loop.stop()
    assert stopped.is_set() and len(calls) >= 2


def test_serve_builds_the_log_only_when_asked_to_follow(
    service: PumpkinApplication, store_url: str, tmp_path: object
) -> None:
    from http_support import settings_for

    from infrastructure.bootstrap import start_sweeper

    settings = settings_for().model_copy(update={
        "database_url": store_url, "log_follow_seconds": 0,
        "checkpoint_key_file": f"{tmp_path}/log.key"})
    stop = start_sweeper(settings, service)
    try:
        assert "pumpkin-log" not in {t.name for t in threading.enumerate()}
    finally:
        stop()
    stop = start_sweeper(settings.model_copy(update={"log_follow_seconds": 0.5}), service)
    try:
        assert "pumpkin-log" in {t.name for t in threading.enumerate()}
    finally:
        stop()


def test_the_log_follows_where_the_read_models_run_never_beside_a_worker_that_answers(
    store_url: str, tmp_path: object
) -> None:
    """A `serve` process without its projections (a worker of `--workers N`, or one beside a
    `pumpkin projections run`) answers spins and builds no log: the parent process, or the
    projections' process, does (start_log_on_its_own)."""
    from http_support import settings_for

    from infrastructure.bootstrap import build_runtime, start_log_on_its_own

    settings = settings_for().model_copy(update={
        "database_url": store_url, "log_follow_seconds": 0.5,
        "checkpoint_key_file": f"{tmp_path}/log.key"})
    runtime = build_runtime(settings, with_projections=False)
    try:
        assert "pumpkin-log" not in {t.name for t in threading.enumerate()}
    finally:
        runtime.close()
    stop = start_log_on_its_own(settings)
    try:
        assert "pumpkin-log" in {t.name for t in threading.enumerate()}
    finally:
        stop()
    assert "pumpkin-log" not in {t.name for t in threading.enumerate()}


def test_processes_creating_the_log_tables_at_once_do_not_collide(store_url: str) -> None:
    """A replay page asking for a proof while the follower first creates the log's tables (two
    CREATE TABLE IF NOT EXISTS at once collide in PostgreSQL's catalog: the page answered 503)."""
    from concurrent.futures import ThreadPoolExecutor

    from infrastructure.store.event_rows import EventRows
    from infrastructure.transparency.log_store import LogStore

    with PumpkinApplication.from_url(store_url) as app:
        stores = [LogStore(EventRows(app.store)) for _ in range(6)]
        with ThreadPoolExecutor(6) as pool:
            assert list(pool.map(lambda s: s.position(), stores)) == [(0, 0)] * 6
