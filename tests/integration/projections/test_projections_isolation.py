"""One failing view never holds the others back (CONTRACT.md "The operator's seamless wallet"):
a view that raises on a batch is set apart and retried alone, its pauses doubling up to 60 s,
while the others follow the store; so it goes after the runner starts again too, and the view
rejoins once it works. Its failure is recorded for /health, /metrics and the console."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from test_projections_views import play_scenario
from view_support import dump_views
from wallet_kinds_support import Table

from projections.queries import RecallReader
from projections.rounds import RoundsView
from projections.runner import MAX_RETRY_SECONDS, ProjectionsRunner, rebuild, retry_pause


class FrozenClock:
    """The runner's clock (monotonic seconds), moved only by the test."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


class BrokenRounds:
    """RoundsView.apply raising, counting its tries, until `fixed`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tries = 0
        self.monkeypatch = monkeypatch
        monkeypatch.setattr(RoundsView, "apply", self.apply)

    def apply(self, *_: object) -> None:
        self.tries += 1
        raise RuntimeError("a bug in the rounds view")

    def fix(self) -> None:
        self.monkeypatch.undo()


def until(check: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


def positions(runner: ProjectionsRunner) -> dict[str, int]:
    return {p.name: p.position for p in runner.projections}


@pytest.fixture
def reader(store_url: str) -> Iterator[RecallReader]:
    opened = RecallReader(store_url)
    try:
        yield opened
    finally:
        opened.close()


def test_a_failing_views_pauses_double_up_to_a_minute() -> None:
    assert [retry_pause(n) for n in range(1, 9)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert MAX_RETRY_SECONDS == 60


def test_a_failing_view_is_retried_alone_with_backoff_while_the_others_follow(
    table: Table, store_url: str, reader: RecallReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_scenario(table, players=2, spins=6)
    end = table.app.recorder.max_notification_id()
    broken = BrokenRounds(monkeypatch)
    runner = ProjectionsRunner(store_url, max_batch=10)  # many batches: the others go on
    clock = FrozenClock()
    runner.clock = clock
    runner.start()
    try:
        until(lambda: all(n == end for v, n in positions(runner).items() if v != "rounds"))
        until(lambda: "rounds" in reader.views_health().failing)
        assert positions(runner)["rounds"] == 0 and broken.tries == 1  # tried once, then waits
        assert reader.views_health().failing["rounds"]["position"] == 0
        assert "a bug in the rounds view" in reader.views_health().failing["rounds"]["error"]
        clock.now += 1  # its first pause is over: tried again, then twice as long
        until(lambda: reader.views_health().errors.get("rounds") == 2)
        clock.now += 1.5
        time.sleep(0.3)
        assert broken.tries == 2  # not yet: it waits 2 s now
        clock.now += 0.5
        until(lambda: reader.views_health().errors.get("rounds") == 3)
        assert broken.tries == 3
        table.register("later")  # the others keep following the store
        end = table.app.recorder.max_notification_id()
        until(lambda: positions(runner)["balances"] == end)
        broken.fix()
        clock.now += 4
        until(lambda: positions(runner)["rounds"] == end)
        assert runner.apart == {}  # caught up: back on the feed
        assert reader.views_health().failing == {}
        assert reader.views_health().errors["rounds"] == 3  # a counter: it stays
    finally:
        runner.stop()
    followed = dump_views(store_url)
    rebuild(store_url)
    assert dump_views(store_url) == followed


def test_a_view_still_failing_after_a_restart_holds_nobody_back_and_rejoins_once_fixed(
    table: Table, store_url: str, reader: RecallReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_scenario(table, players=1, spins=5)
    broken = BrokenRounds(monkeypatch)
    first = ProjectionsRunner(store_url, max_batch=10).start()
    try:
        end = table.app.recorder.max_notification_id()
        until(lambda: positions(first)["audit"] == end and "rounds" in first.failing)
    finally:
        first.stop()
    table.register("later")  # more rounds, while no runner follows
    table.fund("later", 1_000, "later-in")
    session_id = table.open_session("later")
    for spin in range(4):
        table.spin(session_id, 20, f"later-{spin}")
    table.settle()
    end = table.app.recorder.max_notification_id()
    again = ProjectionsRunner(store_url, max_batch=10)
    clock = FrozenClock()
    again.clock = clock
    again.start()
    try:
        until(lambda: all(n == end for v, n in positions(again).items() if v != "rounds"))
        assert positions(again)["rounds"] == 0
        assert set(reader.views_health().failing) == {"rounds"}
        broken.fix()
        clock.now += MAX_RETRY_SECONDS
        until(lambda: positions(again)["rounds"] == end)
        assert reader.views_health().failing == {}
    finally:
        again.stop()
    rows = dump_views(store_url)
    rebuild(store_url)
    assert dump_views(store_url) == rows


def test_a_view_fixed_before_a_restart_is_no_longer_said_to_fail(
    table: Table, store_url: str, reader: RecallReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_scenario(table, players=1, spins=3)
    broken = BrokenRounds(monkeypatch)
    runner = ProjectionsRunner(store_url)
    try:
        with pytest.raises(Exception, match="read model rounds failed"):
            runner.catch_up()
    finally:
        runner.stop()
    assert set(reader.views_health().failing) == {"rounds"}
    broken.fix()  # a release with the fix: the next runner's first batch works
    runner = ProjectionsRunner(store_url)
    try:
        assert runner.catch_up() == table.app.recorder.max_notification_id()
    finally:
        runner.stop()
    assert reader.views_health().failing == {}
