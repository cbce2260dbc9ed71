"""The spin path's cost of player protection: the `uk` profile with limits set, beside `none`.

    .venv/bin/python bench/bench_protection.py [--store postgres|sqlite|memory] [--seconds 2]
        [--rounds 5]

One application on a fresh store (PostgreSQL: a new database on 127.0.0.1:5432, dropped after;
memory: the library's in-memory recorder, so the figure is the spin path's CPU alone).
Alternating blocks, same run: spins/s of players under `none` with no limits, then of players
under `uk` with every limit set (loss per day/week/month, session minutes, max stake; generous
enough never to refuse), ABAB... `rounds` times; prints each block, the medians and their ratio.
The clock is injected: it steps 0.05 s per reading, and each player's spins go round-robin over
64 sessions, so a session's rounds are >= 3.2 s apart (the 2.5 s minimum holds without waiting).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.ledger.protection import PROFILES  # noqa: E402
from infrastructure.application import PumpkinApplication  # noqa: E402
from infrastructure.store.persistence import temporary_postgres_database  # noqa: E402

ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
SESSIONS = 64
LIMITS = {"loss_per_day": 10**10, "loss_per_week": 10**10, "loss_per_month": 10**10,
          "session_minutes": 10**6, "max_stake": 400}


class SteppingClock:
    def __init__(self, step: float) -> None:
        self.now = datetime(2026, 3, 1, tzinfo=UTC)
        self.step = timedelta(seconds=step)

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def block(
    app: PumpkinApplication, profile: str, player_id: str, seconds: float
) -> tuple[float, float]:
    """(spins per wall second, spins per CPU second of this process) of one new player under
    `profile` for `seconds`: CPU time is less disturbed than wall time on a shared machine."""
    app.profile = PROFILES[profile]
    app.register_player(player_id)
    app.deposit(player_id, 10**11, "funding")
    if profile != "none":
        app.set_limits(player_id, LIMITS)
    sessions = [app.open_session(player_id)[0] for _ in range(SESSIONS)]
    spins = 0
    started, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        app.spin(sessions[spins % SESSIONS], 20, f"r{spins}")
        spins += 1
    return spins / (time.perf_counter() - started), spins / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", choices=("postgres", "sqlite", "memory"), default="postgres")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with ExitStack() as stack:
        if args.store == "postgres":
            url = stack.enter_context(temporary_postgres_database("bench_protect", ADMIN))
        elif args.store == "sqlite":
            url = f"sqlite:///{stack.enter_context(tempfile.TemporaryDirectory())}/events.db"
        if args.store == "memory":
            in_memory = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
            app = stack.enter_context(PumpkinApplication(env=in_memory))
        else:
            app = stack.enter_context(PumpkinApplication.from_url(url))
        app.clock = SteppingClock(0.05)
        block(app, "none", "warmup", args.seconds)
        rates: dict[str, list[tuple[float, float]]] = {"none": [], "uk": []}
        for n in range(args.rounds):
            for profile in ("none", "uk"):
                rates[profile].append(block(app, profile, f"{profile}{n}", args.seconds))
                wall, cpu = rates[profile][-1]
                print(f"block {n} {profile:5} {wall:8.0f} spins/s {cpu:8.0f} spins/CPU s",
                      flush=True)
        for index, unit in ((0, "spins/s"), (1, "spins/CPU s")):
            none = statistics.median(r[index] for r in rates["none"])
            uk = statistics.median(r[index] for r in rates["uk"])
            print(f"{args.store}: median none {none:.0f}, uk + limits {uk:.0f} {unit}; "
                  f"uk / none = {uk / none:.3f}")


if __name__ == "__main__":
    main()
