"""`bench_verify.py --since`: `pumpkin verify --since FILE` after a day's traffic against a full
verify of the same store, CPU seconds side by side in one process, in turn.

A fresh PostgreSQL database: PLAYERS players play DAYS days of ROUNDS rounds each (one session
a day, decided and saved as bench_verify.py does), the log is built and a checkpoint signed
(FILE, what the regulator kept yesterday), then one more day of the same traffic and the
checkpoint the service signs after it. Then verify_since(FILE) and the full verify_store run
in turn, --pairs times; printed: each one's CPU seconds, events and rounds checked, and the
median ratio. The full verify costs DAYS + 1 days of rounds; --since one day's, plus at most
one snapshot interval (500 events) per player before its first new event.
"""

from __future__ import annotations

import os
import resource
import statistics
from typing import Any
from uuid import uuid4

import psycopg
from psycopg import sql

SAVE_EVERY = 50


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def play_day(app: Any, players: int, rounds: int, day: int) -> None:
    from bench.bench_verify import _decide_spin
    from domain.ledger.player import player_aggregate_id

    decide = _decide_spin(app)
    for p in range(players):
        player_id = f"bench{p}"
        if day == 0:
            app.register_player(player_id)
            app.deposit(player_id, 10**11, "d")
        session_id, _ = app.open_session(player_id)
        player = app.repository.get(player_aggregate_id(player_id))
        for n in range(rounds):
            decide(player, session_id, 100, f"day{day}-{n}")
            if (n + 1) % SAVE_EVERY == 0 or n + 1 == rounds:
                app.store.save(player)
        app.close_session(session_id)


def since_vs_full(players: int, rounds: int, days: int, pairs: int) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bench.bench_verify import ADMIN, drop
    from domain.game.engine import play_round
    from domain.game.progress import NEW_PLAYER
    from infrastructure.application import PumpkinApplication
    from infrastructure.audit.since_check import verify_since
    from infrastructure.audit.verification import verify_store
    from infrastructure.transparency.log_builder import LogBuilder, log_verifier

    name = f"pumpkin_bench_since_{uuid4().hex[:12]}"
    url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        app = PumpkinApplication.from_url(url)
        key = Ed25519PrivateKey.generate()
        builder = LogBuilder(app)
        for day in range(days):
            play_day(app, players, rounds, day)
        kept = builder.sign_checkpoint(key)
        assert kept is not None
        play_day(app, players, rounds, days)
        builder.sign_checkpoint(key)
        vkey = log_verifier(key).vkey()
        play_round(NEW_PLAYER, 100, bytes(32))
        print(f"store {name}: {players} players x {rounds} rounds x {days + 1} days; FILE "
              f"before the last day")
        full_cpu, since_cpu = [], []
        for n in range(pairs):
            cpu = _cpu()
            since = verify_since(app, kept, vkey)
            since_cpu.append(_cpu() - cpu)
            cpu = _cpu()
            full = verify_store(app)
            full_cpu.append(_cpu() - cpu)
            if not (since["ok"] and full["ok"]):
                raise SystemExit(f"verify failed: {since['problems'][:2]} {full['problems'][:2]}")
            print(f"pair {n + 1}: --since {since_cpu[-1]:.2f} CPU-s ({since['events_checked']:,} "
                  f"events, {since['rounds_rederived']:,} rounds), full {full_cpu[-1]:.2f} CPU-s "
                  f"({full['events_checked']:,} events, {full['rounds_rederived']:,} rounds): "
                  f"ratio {since_cpu[-1] / full_cpu[-1]:.3f}; load {os.getloadavg()[0]:.1f}")
        ratios = [s / f for s, f in zip(since_cpu, full_cpu, strict=True)]
        print(f"median: --since {statistics.median(since_cpu):.2f} CPU-s, full "
              f"{statistics.median(full_cpu):.2f} CPU-s, ratio {statistics.median(ratios):.3f} "
              f"(a day of {days + 1}: {1 / (days + 1):.3f} would be the events' share)")
        app.close()
    finally:
        drop(name)
