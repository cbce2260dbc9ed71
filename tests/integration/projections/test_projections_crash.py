"""A projection runner killed with SIGKILL anywhere resumes exactly once: no double counts,
no gaps, the same rows as a runner that never stopped (on SQLite and PostgreSQL, on both
wallets: the `table` fixture, conftest.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest
from repo_paths import REPO
from test_projections_views import play_scenario
from view_support import dump_views
from wallet_kinds_support import WALLETS, Table, table_on

from projections.queries import RecallReader
from projections.runner import ProjectionsRunner, rebuild
from projections.views import all_views

ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
ROOT = REPO
FOLLOWER = (
    "import sys, threading\n"
    "from projections.runner import ProjectionsRunner\n"
    "ProjectionsRunner(sys.argv[1], max_batch=3).start()\n"  # tiny batches: many commits
    "threading.Event().wait()\n"
)


def start_follower(url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", FOLLOWER, url],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def kill_when_past(process: subprocess.Popen[bytes], reader: RecallReader, target: int) -> int:
    """SIGKILL the follower once its views are past `target`; where they were."""
    deadline = time.monotonic() + 60
    while reader.position() <= target and time.monotonic() < deadline:
        assert process.poll() is None, "the follower died by itself"
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    return reader.position()


def test_a_runner_killed_mid_stream_resumes_with_the_rows_of_one_that_never_stopped(
    table: Table, store_url: str
) -> None:
    play_scenario(table, players=4, spins=40)
    end = table.app.recorder.max_notification_id()
    reader = RecallReader(store_url)
    try:
        reached = 0
        for fraction in (0.2, 0.5, 0.8):
            follower = start_follower(store_url)
            reached = kill_when_past(follower, reader, max(int(end * fraction), reached))
            assert reached < end, "killed too late to prove anything"
    finally:
        reader.close()

    resumed = ProjectionsRunner(store_url)
    try:
        assert resumed.catch_up() == end
    finally:
        resumed.stop()
    after_kills = dump_views(store_url)

    assert rebuild(store_url) == end
    never_stopped = dump_views(store_url)
    assert after_kills == never_stopped
    assert len(after_kills["view_audit"]) == end
    assert after_kills["view_rounds_pending"] == []
    rounds = sum(len(table.app.round_ids(f"player-{n}")) for n in range(4))
    assert len(after_kills["view_rounds"]) == rounds


def test_two_runners_following_one_store_at_once_still_count_every_event_once(
    table: Table, store_url: str
) -> None:
    # `pumpkin serve` runs the projections in-process; an operator may also start
    # `pumpkin projections run`. They take turns per batch and never project an event twice.
    first = ProjectionsRunner(store_url, max_batch=3).start()
    second = ProjectionsRunner(store_url, max_batch=5).start()
    try:
        play_scenario(table, players=3, spins=20)
        end = table.app.recorder.max_notification_id()
        assert first.wait_for(end, timeout=60) or second.wait_for(end, timeout=60)
        reader = RecallReader(store_url)
        try:
            assert reader.wait_for(end, timeout=60)
        finally:
            reader.close()
    finally:
        first.stop()
        second.stop()
    together = dump_views(store_url)
    assert rebuild(store_url) == end
    assert dump_views(store_url) == together


def test_a_batch_overlapping_what_another_runner_projected_adds_only_the_new_events(
    table: Table, store_url: str
) -> None:
    play_scenario(table, players=2, spins=10)
    end = table.app.recorder.max_notification_id()
    notifications = table.app.recorder.select_notifications(start=1, limit=end)
    ahead = ProjectionsRunner(store_url)
    behind = ProjectionsRunner(store_url)  # still believes every view is at 0
    try:
        ahead.process(notifications[: end // 2])
        behind.process(notifications)  # overlaps the first half
        assert [p.position for p in behind.projections] == [end] * len(all_views())
    finally:
        ahead.stop()
        behind.stop()
    overlapped = dump_views(store_url)
    assert rebuild(store_url) == end
    assert dump_views(store_url) == overlapped


@pytest.mark.parametrize("wallet", WALLETS)
def test_a_follower_survives_its_database_connections_being_cut(
    postgres_url: str, wallet: str
) -> None:
    with table_on(wallet, postgres_url) as table:
        play_scenario(table, players=1, spins=5)
    runner = ProjectionsRunner(postgres_url).start()
    try:
        dbname = postgres_url.rsplit("/", 1)[1]
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (dbname,),
            )
        with table_on(wallet, postgres_url) as table:
            table.register("after-the-cut")
            table.fund("after-the-cut", 500, "after-the-cut-in")
            table.open_session("after-the-cut")
            end = table.app.recorder.max_notification_id()
        assert runner.wait_for(end, timeout=30)
    finally:
        runner.stop()
    followed = dump_views(postgres_url)
    assert rebuild(postgres_url) == end
    assert dump_views(postgres_url) == followed
