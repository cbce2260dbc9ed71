"""A worker that keeps failing at start is started again later and later, not once a second
forever (issue 17, finding 12). Time is a fake clock the tests move."""

from __future__ import annotations

from dataclasses import dataclass

from infrastructure.http.restart_backoff import RestartBackoff
from infrastructure.http.workers import tend


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FailingWorker:
    """Dies as soon as it is started (a bad deploy, a store it cannot reach)."""

    exitcode: int | None = 3

    def is_alive(self) -> bool:
        return False


def test_the_wait_doubles_with_each_failure_up_to_the_cap() -> None:
    clock = Clock()
    backoff = RestartBackoff(first=1.0, cap=60.0, clock=clock)
    waits = []
    for _ in range(9):
        backoff.started(0)
        clock.now += 0.2  # it dies at once
        waits.append(backoff.died(0))
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_a_worker_that_served_a_while_starts_its_count_again() -> None:
    clock = Clock()
    backoff = RestartBackoff(first=1.0, cap=60.0, healthy_after=30.0, clock=clock)
    for _ in range(4):
        backoff.started(0)
        waits = backoff.died(0)
    assert waits == 8
    backoff.started(0)
    clock.now += 3600  # an hour of serving, then a crash
    assert backoff.died(0) == 1


def test_the_supervisor_starts_a_failing_worker_at_growing_intervals() -> None:
    clock = Clock()
    backoff = RestartBackoff(first=1.0, cap=8.0, clock=clock)
    starts: list[float] = []

    def start(index: int) -> FailingWorker:
        starts.append(clock.now)
        backoff.started(index)
        return FailingWorker()

    workers = [start(0)]
    for _ in range(120):  # a minute of the supervisor's half-second ticks
        clock.now += 0.5
        tend(workers, start, backoff)
    intervals = [round(b - a, 1) for a, b in zip(starts, starts[1:], strict=False)]
    assert intervals[:4] == [1.5, 2.5, 4.5, 8.5]  # the wait, plus the tick that saw the death
    assert set(intervals[4:]) == {8.5}  # capped
    assert len(starts) < 12  # not one start a second (was 60 in this minute)


def test_each_worker_has_its_own_count() -> None:
    clock = Clock()
    backoff = RestartBackoff(first=1.0, cap=60.0, clock=clock)
    for _ in range(3):
        backoff.started(0)
        backoff.died(0)
    backoff.started(1)
    assert backoff.died(1) == 1
