"""Rounds re-derived and verified per second on PostgreSQL (`pumpkin verify` of a whole store),
beside same-run baselines: reading the rows alone, and decoding them with the hash chain checked
(no replay, no re-derivation).

    .venv/bin/python bench/bench_verify.py [--players 40] [--rounds 500] [--workers 2]
    .venv/bin/python bench/bench_verify.py --vs /work/base [--pairs 5]   # CPU side by side
    .venv/bin/python bench/bench_verify.py --since [--days 7]            # verify --since

Builds a fresh PostgreSQL database of PLAYERS x ROUNDS rounds (played by the real Player
aggregate, saved 50 rounds per transaction to build it fast), measures, and drops it.
Target (issue 6): 5,000 rounds/s. Each figure is also given per CPU-second of this process
and its workers, which stays meaningful on a machine shared with other jobs (wall time then
mostly measures the wait for a core).
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from typing import Any
from uuid import uuid4

import psycopg
from psycopg import sql

from domain.game.engine import play_round
from domain.game.progress import NEW_PLAYER
from domain.ledger.hashchain import event_digest, event_state
from domain.ledger.player import Player, player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_store
from infrastructure.store.event_rows import EventRows

ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
SAVE_EVERY = 50


def _decide_spin(app: Any) -> Any:
    """A spin decided on a given copy of the player: this tree's spin handler, or an older
    checkout's application method."""
    if not hasattr(app, "spins"):
        from infrastructure.application import SpinAttempt  # type: ignore[attr-defined]

        return lambda player, sid, stake, rid: app.decide_spin(
            player, sid, stake, rid, SpinAttempt(""))
    from infrastructure.rounds.spins import SpinAttempt as Attempt
    from infrastructure.store.command_runner import Work
    from infrastructure.wallet.port import SpinOrder

    return lambda player, sid, stake, rid: app.spins.decide(
        Work.on(app.runner, player), SpinOrder(sid, stake, rid), Attempt(""))


def build(url: str, players: int, rounds: int) -> int:
    app = PumpkinApplication.from_url(url)
    try:
        for p in range(players):
            player_id = f"bench{p}"
            app.register_player(player_id)
            app.deposit(player_id, 10**11, "d")
            session_id, _ = app.open_session(player_id)
            player: Player = app.repository.get(player_aggregate_id(player_id))
            decide = _decide_spin(app)
            save = app.store.save if hasattr(app, "store") else app.save
            for n in range(rounds):  # decided as the service decides (a committed seed each)
                decide(player, session_id, 100, f"s{n}")
                if (n + 1) % SAVE_EVERY == 0 or n + 1 == rounds:
                    save(player)
        return EventRows(app).max_notification_id()
    finally:
        app.close()


def read_rows(url: str) -> tuple[float, float, int]:
    app = PumpkinApplication.from_url(url)
    try:
        rows = EventRows(app)
        cpu = _cpu_seconds()
        start = time.perf_counter()
        count = sum(1 for stream in rows.streams() for _ in rows.rows(stream))
        return time.perf_counter() - start, _cpu_seconds() - cpu, count
    finally:
        app.close()


def decode_and_chain(url: str) -> tuple[float, float]:
    app = PumpkinApplication.from_url(url)
    try:
        rows = EventRows(app)
        cpu = _cpu_seconds()
        start = time.perf_counter()
        from eventsourcing.persistence import StoredEvent

        for stream in rows.streams():
            for row in rows.rows(stream):
                event = app.mapper.to_domain_event(
                    StoredEvent(row.stream, row.version, row.topic, row.state))
                event_digest(row.stream, row.version, row.topic, event_state(event))
        return time.perf_counter() - start, _cpu_seconds() - cpu
    finally:
        app.close()


def verify(url: str, workers: int) -> tuple[float, float, dict[str, Any]]:
    """(wall seconds, CPU seconds of this process and its workers, report)."""
    app = PumpkinApplication.from_url(url)
    try:
        cpu = _cpu_seconds()
        start = time.perf_counter()
        report = verify_store(app, workers=workers, database_url=url)
        return time.perf_counter() - start, _cpu_seconds() - cpu, report
    finally:
        app.close()


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def check(report: dict[str, Any], rounds: int) -> None:
    if not report["ok"] or report["rounds_rederived"] != rounds:
        first = report["problems"][:3]
        raise SystemExit(f"verification failed: {report['problems_total']} problems, e.g. {first}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="Keep the database (its name is "
                        "printed) to measure it again with --database.")
    parser.add_argument("--database", help="Measure this existing bench database instead.")
    parser.add_argument("--vs", metavar="TREE", help="Side by side with another checkout "
                        "(e.g. /work/base): each tree builds its own store, then verify (1 "
                        "process) runs in each in turn, --pairs times; CPU seconds per round.")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--since", action="store_true", help="verify --since after a day's "
                        "traffic against a full verify of the same store (bench/bench_since.py)")
    parser.add_argument("--days", type=int, default=7, help="--since: days of history before "
                        "the kept checkpoint (each of --players x --rounds rounds)")
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--verify-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.vs:
        from bench.bench_verify_pairs import side_by_side

        side_by_side(args.vs, args.players, args.rounds, args.pairs)
        return
    if args.since:
        from bench.bench_since import since_vs_full

        since_vs_full(args.players, args.rounds, args.days, args.pairs)
        return
    name = args.database or f"pumpkin_bench_verify_{uuid4().hex[:12]}"
    url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    if args.verify_only:  # one measurement for --vs, as JSON
        import json

        play_round(NEW_PLAYER, 100, bytes(32))
        wall, cpu, report = verify(url, 1)
        print(json.dumps({"wall": wall, "cpu": cpu, "rounds": report["rounds_rederived"],
                          "ok": report["ok"]}))
        return
    if not args.database:
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    if args.build_only:
        build(url, args.players, args.rounds)
        print(name)
        return
    try:
        started = time.perf_counter()
        if args.database:
            with psycopg.connect(f"host=127.0.0.1 port=5432 user=postgres dbname={name}") as conn:
                total = int(conn.execute("SELECT COUNT(*) FROM pumpkin_events WHERE topic = "
                                         "'domain.player:Player.StakePlaced'").fetchone()[0])
        else:
            events = build(url, args.players, args.rounds)
            total = args.players * args.rounds
            print(f"store {name}: {total:,} rounds, {events:,} events, built in "
                  f"{time.perf_counter() - started:.1f}s")
        play_round(NEW_PLAYER, 100, bytes(32))  # load the compiled kernel before timing
        seconds, cpu, count = read_rows(url)
        print(f"baseline: read rows only          {count / seconds:>10,.0f} events/s"
              f"  ({total / seconds:>8,.0f} rounds/s; {total / cpu:,.0f} per CPU-second)")
        seconds, cpu = decode_and_chain(url)
        print(f"baseline: decode + hash chain     {count / seconds:>10,.0f} events/s"
              f"  ({total / seconds:>8,.0f} rounds/s; {total / cpu:,.0f} per CPU-second)")
        one, one_cpu, report = verify(url, 1)
        check(report, total)
        print(f"verify, 1 process                 {count / one:>10,.0f} events/s"
              f"  ({total / one:>8,.0f} rounds/s; {total / one_cpu:,.0f} per CPU-second)")
        many, many_cpu, report = verify(url, args.workers)
        check(report, total)
        print(f"verify, {args.workers} worker processes        {count / many:>10,.0f} events/s"
              f"  ({total / many:>8,.0f} rounds/s re-derived and verified; target 5,000)")
        print(f"   CPU: {many_cpu:.1f}s in all = {total / many_cpu:,.0f} rounds per CPU-second "
              f"(incl. starting the workers); load average now {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores")
    finally:
        if not (args.keep or args.database):
            drop(name)


def drop(name: str) -> None:
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


if __name__ == "__main__":
    main()
