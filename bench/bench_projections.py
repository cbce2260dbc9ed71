"""Projection throughput (events/s) and lag (commit -> view row) at 500 spins/s, on PostgreSQL.

    .venv/bin/python bench/bench_projections.py [--rate 500] [--seconds 15] [--corpus 5000]

1. Writes a corpus of rounds, then times a replay of the whole store into the four views,
   beside the same-run baseline of only reading and decoding those events (the floor).
2. Follows the store (LISTEN/NOTIFY, as `pumpkin serve` does) while a separate writer process
   plays `--rate` spins/s; each round's lag is the time from its events' timestamp (taken just
   before the commit, so the figure slightly overstates) to its rounds-view row being committed.
Target: lag p99 < 1 s at 500 spins/s. Runs in well under 2 minutes.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from eventsourcing.persistence import Tracking

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from infrastructure.application import PumpkinApplication  # noqa: E402
from infrastructure.store.persistence import temporary_postgres_database  # noqa: E402
from projections.events import RecordedEvent  # noqa: E402
from projections.runner import ProjectionsRunner  # noqa: E402

PLAYERS = 200
STAKE = 20


def setup_players(app: PumpkinApplication) -> list[str]:
    sessions = []
    for n in range(PLAYERS):
        player_id = f"bench-{n}"
        app.register_player(player_id)
        app.deposit(player_id, 10**11, f"{player_id}-in")
        sessions.append(app.open_session(player_id)[0])
    return sessions


def play(url: str, rate: float, seconds: float, threads: int, tag: str) -> tuple[int, float]:
    """Spins paced at `rate` per second (0: as fast as possible); (spins done, elapsed)."""
    app = PumpkinApplication.from_url(url)
    sessions = [app.open_session(f"bench-{n}")[0] for n in range(PLAYERS)]
    total = int(rate * seconds) if rate else int(seconds)
    counter = itertools.count()
    lock = threading.Lock()
    start = time.monotonic()

    def worker(offset: int) -> None:
        while True:
            with lock:
                i = next(counter)
            if i >= total:
                return
            if rate:
                delay = start + i / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            # Each thread keeps to its own players: no two threads race on one stream.
            session = sessions[(i % (PLAYERS // threads)) * threads + offset]
            app.spin(session, STAKE, f"{tag}-{i}")

    workers = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.monotonic() - start
    app.close()
    return total, elapsed


class TimedRunner(ProjectionsRunner):
    """Notes, for every round settled, the time from its event to its view row's commit."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.lags: list[float] = []

    def project(self, events: Sequence[RecordedEvent], tracking: Tracking) -> None:
        super().project(events, tracking)
        now = datetime.now(UTC)
        self.lags.extend(
            (now - e.timestamp).total_seconds() for e in events if e.name == "RoundSettled"
        )


def throughput(url: str, corpus: int) -> None:
    app = PumpkinApplication.from_url(url)
    setup_players(app)
    app.close()
    spins, elapsed = play(url, 0, corpus, threads=8, tag="corpus")
    print(f"corpus: {spins} spins written in {elapsed:.1f}s ({spins / elapsed:.0f} spins/s)")

    runner = ProjectionsRunner(url)
    end = runner.app.recorder.max_notification_id()
    started = time.perf_counter()
    position = 0
    while position < end:
        chunk = runner.app.recorder.select_notifications(
            start=position, limit=2000, inclusive_of_start=False
        )
        runner.decode(chunk)
        position = chunk[-1].id
    floor = time.perf_counter() - started
    started = time.perf_counter()
    runner.catch_up()
    projected = time.perf_counter() - started
    runner.stop()
    print(f"baseline, read + decode only: {end / floor:,.0f} events/s")
    print(f"projection into 4 views:      {end / projected:,.0f} events/s "
          f"({end} events, {end / spins:.1f} per spin, {projected:.2f}s)")


def lag(url: str, rate: float, seconds: float) -> None:
    runner = TimedRunner(url)
    runner.catch_up()
    runner.lags.clear()
    runner.start()
    writer = subprocess.run(
        [sys.executable, __file__, "--write", url, "--rate", str(rate), "--seconds", str(seconds)],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    end = runner.app.recorder.max_notification_id()
    caught_up = runner.wait_for(end, timeout=30)
    runner.stop()
    lags = sorted(runner.lags)
    p50 = statistics.median(lags)
    p99 = lags[int(len(lags) * 0.99) - 1]
    print(writer.stdout.strip())
    print(f"lag commit -> view row over {len(lags)} rounds: p50 {p50 * 1000:.1f} ms, "
          f"p99 {p99 * 1000:.1f} ms, max {lags[-1] * 1000:.1f} ms "
          f"({'caught up' if caught_up else 'NOT caught up'}; target p99 < 1000 ms: "
          f"{'met' if p99 < 1.0 else 'MISSED'})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=500)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--corpus", type=int, default=5000)
    parser.add_argument("--write", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        spins, elapsed = play(args.write, args.rate, args.seconds, threads=16, tag="paced")
        print(f"writer: {spins} spins in {elapsed:.1f}s = {spins / elapsed:.0f} spins/s "
              f"(asked {args.rate:.0f})")
        return
    with temporary_postgres_database("bench_projections") as url:
        throughput(url, args.corpus)
        lag(url, args.rate, args.seconds)


if __name__ == "__main__":
    main()
