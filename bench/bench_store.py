"""Spins per second through the application on PostgreSQL, beside raw psycopg writing the same rows.

    .venv/bin/python bench/bench_store.py [--seconds 6] [--events 100000]

Makes a fresh database on 127.0.0.1:5432 (user postgres) and drops it afterwards. Prints:
- application spins/s with 1 thread (1 player) and 16 threads (16 players, one each), and
  with 2 processes x 8 threads (as 2 HTTP workers would);
- the same-run baseline: raw psycopg inserting the same rows (the stored rows of a real spin: its
  round's events and its request key; same table shape) in one transaction per spin, with and
  without the recorder's table lock;
- the load time of a player with --events events behind it (snapshots) vs a fresh player,
  and the same player replayed without snapshots.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eventsourcing.application import Repository  # noqa: E402

from domain.ledger.player import Player, player_aggregate_id  # noqa: E402
from infrastructure.application import PumpkinApplication  # noqa: E402
from infrastructure.store.persistence import temporary_postgres_database  # noqa: E402
from infrastructure.store.request_keys import RequestKey, request_key_id  # noqa: E402

ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
RAW_TABLE = "raw_events"


def timed_threads(threads: int, seconds: float, work: Callable[[int], None]) -> float:
    """Run work(worker) in a loop on each thread for `seconds`; operations per second."""
    counts = [0] * threads
    stop = threading.Event()
    errors: list[BaseException] = []

    def loop(worker: int) -> None:
        try:
            while not stop.is_set():
                work(worker)
                counts[worker] += 1
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
            stop.set()

    pool = [threading.Thread(target=loop, args=(w,)) for w in range(threads)]
    started = time.perf_counter()
    for thread in pool:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in pool:
        thread.join()
    if errors:
        raise errors[0]
    return sum(counts) / (time.perf_counter() - started)


def bench_application(app: PumpkinApplication, threads: int, seconds: float, tag: str) -> float:
    sessions = []
    for worker in range(threads):
        player_id = f"{tag}{worker}"
        app.register_player(player_id)
        app.deposit(player_id, 10**11, "funding")
        sessions.append(app.open_session(player_id)[0])
    counters = [0] * threads

    def spin(worker: int) -> None:
        counters[worker] += 1
        app.spin(sessions[worker], 20, f"r{counters[worker]}")

    return timed_threads(threads, seconds, spin)


def _process_rate(url: str, threads: int, seconds: float, tag: str) -> float:
    with PumpkinApplication.from_url(url) as app:
        return bench_application(app, threads, seconds, tag)


def bench_processes(url: str, processes: int, threads: int, seconds: float) -> float:
    """Spins/s summed over several processes (as several HTTP workers would run)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(processes, mp_context=context) as pool:
        rates = pool.map(
            _process_rate, [url] * processes, [threads] * processes, [seconds] * processes,
            [f"proc{n}x" for n in range(processes)],
        )
        return sum(rates)


def sample_round_rows(app: PumpkinApplication) -> list[tuple[str, bytes]]:
    """(topic, state) of the rows one recorded spin wrote (the first of player one0): its
    round's events, then its durable request key, written in the same transaction."""
    rows = app.recorder.select_events(player_aggregate_id("one0"), gt=3, limit=100)
    first_round = []
    for row in rows:
        first_round.append((row.topic, row.state))
        if row.topic.endswith("RoundSettled"):
            break
    [key] = app.recorder.select_events(request_key_id("one0", "r1"), limit=1)
    first_round.append((key.topic, key.state))
    return first_round


def bench_raw(conninfo: str, rows: list[tuple[str, bytes]], threads: int, seconds: float,
              lock_table: bool) -> float:
    insert = sql.SQL(
        "INSERT INTO {} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)"
    ).format(sql.Identifier(RAW_TABLE))
    lock = sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(sql.Identifier(RAW_TABLE))
    conns = [psycopg.connect(conninfo) for _ in range(threads)]
    ids = [uuid4() for _ in range(threads)]
    versions = [0] * threads

    def write(worker: int) -> None:
        conn = conns[worker]
        base = versions[worker]
        versions[worker] += len(rows)
        values = [
            # a request key is a stream of its own (a new id, version 1), the rest the player's
            (uuid4(), 1, topic, state) if topic == RequestKey.Issued.TOPIC
            else (ids[worker], base + n, topic, state)
            for n, (topic, state) in enumerate(rows, 1)
        ]
        with conn.transaction(), conn.cursor() as cursor:
            if lock_table:
                cursor.execute(lock)
            cursor.executemany(insert, values)

    try:
        return timed_threads(threads, seconds, write)
    finally:
        for conn in conns:
            conn.close()


def build_long_player(app: PumpkinApplication, events: int) -> None:
    """A player with `events` events behind it (deposits in batches of 1,000 per save)."""
    app.register_player("long")
    done = 1
    while done < events:
        player: Player = app.repository.get(player_aggregate_id("long"))
        for _ in range(min(1_000, events - done)):
            done += 1
            player.deposit(1, f"d{done}", datetime.now(UTC))
        app.store.save(player)


def median_load_ms(load: Callable[[], object], times: int) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        load()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--events", type=int, default=100_000)
    args = parser.parse_args()

    with temporary_postgres_database("bench_pumpkin") as url:
        conninfo = url  # psycopg takes the URL as it is
        app = PumpkinApplication.from_url(url)
        one = bench_application(app, 1, args.seconds, "one")
        sixteen = bench_application(app, 16, args.seconds, "many")
        two_processes = bench_processes(url, 2, 8, args.seconds)
        rows = sample_round_rows(app)
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(
                sql.SQL(
                    "CREATE TABLE {} (originator_id uuid NOT NULL, originator_version bigint "
                    "NOT NULL, topic text, state bytea, notification_id bigserial, "
                    "PRIMARY KEY (originator_id, originator_version))"
                ).format(sql.Identifier(RAW_TABLE))
            )
        raw_one = bench_raw(conninfo, rows, 1, args.seconds, lock_table=False)
        raw_sixteen = bench_raw(conninfo, rows, 16, args.seconds, lock_table=False)
        locked_sixteen = bench_raw(conninfo, rows, 16, args.seconds, lock_table=True)
        size = sum(len(state) for _, state in rows)
        print(f"one round = {len(rows)} rows, {size} bytes of state")
        print(f"{'':38}{'1 thread':>12}{'16 threads':>12}")
        print(f"{'application spins/s':38}{one:12.0f}{sixteen:12.0f}")
        print(f"{'raw psycopg, 1 tx per spin':38}{raw_one:12.0f}{raw_sixteen:12.0f}")
        print(f"{'raw psycopg + LOCK TABLE EXCLUSIVE':38}{'':12}{locked_sixteen:12.0f}")
        print(f"{'application, 2 processes x 8 threads':38}{'':12}{two_processes:12.0f}")
        print(f"application / raw at 16 threads: {sixteen / raw_sixteen:.0%} "
              f"(2 processes: {two_processes / raw_sixteen:.0%})")

        if not args.events:
            return
        app.register_player("fresh")
        app.deposit("fresh", 100, "d1")
        started = time.perf_counter()
        build_long_player(app, args.events)
        built = time.perf_counter() - started
        app.close()
        with PumpkinApplication.from_url(url) as cold:
            cold.repository.cache = None  # measure loading from the store, not the cache
            long_ms = median_load_ms(lambda: cold.repository.get(player_aggregate_id("long")), 9)
            fresh_ms = median_load_ms(lambda: cold.repository.get(player_aggregate_id("fresh")), 9)
            no_snapshots = Repository(event_store=cold.events)
            replay_ms = median_load_ms(lambda: no_snapshots.get(player_aggregate_id("long")), 1)
        print(f"player with {args.events} events (built in {built:.0f}s): load {long_ms:.1f} ms "
              f"with snapshots, {replay_ms:.0f} ms by full replay; fresh player {fresh_ms:.1f} ms")


if __name__ == "__main__":
    main()
