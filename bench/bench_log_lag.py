"""The transparency log behind the store: its lag at a given spin rate, and the spin path with
the log's follower running, side by side with another tree's (one without the log).

    .venv/bin/python bench/bench_log_lag.py [--rate 1000] [--seconds 20] [--players 32]
                                            [--vs /work/base --pairs 3] [--http-rate 0]

1. Lag: a fresh PostgreSQL database; the service as `serve` composes it (build_application,
   then start_sweeper: the idle-session sweeper and the log's follower, following every 0.5 s
   and signing every 60 s, in background threads of the same process) and PLAYERS threads
   spinning through the application, paced to RATE spins/s in all (each spin due at a fixed
   time). The store is driven directly, not through HTTP: 1,000 spins/s through HTTP needs the
   client, the server and PostgreSQL on these two cores, and the HTTP figures are part 2's.
   Every 10 ms a sampler reads the store's newest notification id and the log's position; the
   lag at that moment is the age of the oldest event the log has not taken in (0 when it has
   them all), so its resolution is the sampling interval. Printed: p50, p99, max, and the rate
   the spins actually reached.
2. With --vs TREE: `bench/bench_http.py --workers 2` of this tree (its `serve` runs the log's
   follower), of this tree with PUMPKIN_LOG_FOLLOW_SECONDS=0 (no follower: what the follower
   costs the spin path) and of TREE's own (no log), in turn, --pairs times: spins/s and server
   CPU per spin, pair by pair ratios and their medians.
"""

from __future__ import annotations

import argparse
import bisect
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
STAKE = 100
FUNDS = 10**11


def _spinner(url: str, keys: str, index: int, players: int, rate: float, start_at: float,
             stop_at: float, follower: bool, results: object) -> None:
    """One process of `serve --workers N`'s share of the spins (its threads paced to `rate`
    in all), with the sweeper and the log's follower as serve starts them (only the lease's
    holder builds the log)."""
    from infrastructure.bootstrap import build_application, start_sweeper
    from infrastructure.settings import Settings

    os.environ.update(PUMPKIN_DATABASE_URL=url, PUMPKIN_LOG_LEVEL="WARNING",
                      PUMPKIN_CHECKPOINT_KEY_FILE=f"{keys}/log.key")
    settings = Settings()
    app = build_application(settings)
    sessions = []
    for i in range(players):
        player_id = f"lag-{index}-{i}"
        app.register_player(player_id)
        app.deposit(player_id, FUNDS, "funds")
        sessions.append(app.open_session(player_id)[0])
    stop_background = start_sweeper(settings, app) if follower else (lambda: None)
    interval = players / rate
    done = [0] * players
    late: list[float] = []

    def player(i: int) -> None:
        due = start_at + interval * i / players
        n = 0
        while (now := time.perf_counter()) < stop_at:
            if due > now:
                time.sleep(due - now)
            n += 1
            app.spin(sessions[i], STAKE, f"lag{n}")
            late.append(time.perf_counter() - due)
            done[i] += 1
            due += interval

    threads = [threading.Thread(target=player, args=(i,)) for i in range(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(1.5 if follower else 0)  # the log's last turn
    stop_background()
    app.close()
    results.put((sum(done), late))  # type: ignore[attr-defined]


def lag(rate: float, seconds: float, players: int, processes: int) -> None:
    import multiprocessing

    from bench.bench_http import fresh_database
    from infrastructure.application import PumpkinApplication
    from infrastructure.store.event_rows import EventRows
    from infrastructure.transparency.log_store import LogStore

    context = multiprocessing.get_context("spawn")
    with fresh_database() as url, tempfile.TemporaryDirectory() as keys:
        reader = PumpkinApplication.from_url(url)
        rows = EventRows(reader)
        log = LogStore(rows)
        log.ensure_tables()
        start_at = time.time() + 8.0  # the processes start, build and open their sessions
        results = context.Queue()
        share = players // processes
        spinners = []
        for i in range(processes):
            spinners.append(context.Process(target=_spin_at, args=(
                url, keys, i, share, rate / processes, start_at, seconds, i == 0, results)))
        for process in spinners:
            process.start()
        times: list[float] = []
        heads: list[int] = []
        lags: list[float] = []
        while time.time() < start_at + seconds:
            now = time.time()
            head = rows.max_notification_id()
            position = log.position()[0]
            times.append(now)
            heads.append(head)
            if now >= start_at + 2.0:  # past the start: the log had its first turns
                # the first sample whose head passed the log's position: the oldest event
                # not in the log was stored at or before it
                first = bisect.bisect_right(heads, position)
                lags.append(0.0 if first >= len(heads) else now - times[first])
            time.sleep(0.01)
        outcomes = [results.get(timeout=120) for _ in spinners]
        for process in spinners:
            process.join(timeout=30)
        reader.close()
    spins = sum(n for n, _ in outcomes)
    late = sorted(x for _, xs in outcomes for x in xs)
    lags.sort()

    def q(values: list[float], quantile: float) -> float:
        if not values:
            return float("nan")
        return values[min(len(values) - 1, int(len(values) * quantile))] * 1000

    print(f"offered {rate:,.0f} spins/s for {seconds:.0f} s through the application "
          f"({processes} processes x {share} threads, as serve --workers {processes}): "
          f"{spins / seconds:,.0f} spins/s done; a spin's lateness from when it was due p50 "
          f"{q(late, 0.5):.1f} ms, p99 {q(late, 0.99):.1f} ms")
    print(f"log lag behind the store ({len(lags)} samples, every 10 ms): p50 "
          f"{q(lags, 0.5):.0f} ms, p99 {q(lags, 0.99):.0f} ms, max {q(lags, 1.0):.0f} ms "
          f"(the follower takes in new events every 0.5 s); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def _spin_at(url: str, keys: str, index: int, players: int, rate: float, start_at: float,
             seconds: float, follower: bool, results: object) -> None:
    """_spinner on the parent's wall clock (perf_counter is per process)."""
    offset = time.perf_counter() - time.time()
    _spinner(url, keys, index, players, rate, start_at + offset, start_at + seconds + offset,
             follower, results)


HTTP_LINE = re.compile(r"HTTP, 2 server processes.*?(\d+) spins/s.*?p99\s+([\d.]+) ms.*?"
                       r"CPU ([\d.]+) ms/spin")


def http_side_by_side(other: str, pairs: int, seconds: float, rate: float) -> None:
    """bench_http.py --workers 2 in turn: this tree (log follower on), this tree with
    PUMPKIN_LOG_FOLLOW_SECONDS=0 (no follower), the other tree."""
    runs = {"this": (HERE, {}), "this, no follower": (HERE, {"PUMPKIN_LOG_FOLLOW_SECONDS": "0"}),
            other: (Path(other).resolve(), {})}
    ratios: dict[str, list[tuple[float, float]]] = {"no follower": [], other: []}
    for n in range(pairs):
        got = {}
        for label, (tree, env) in runs.items():
            command = [sys.executable, "bench/bench_http.py", "--workers", "2", "--seconds",
                       str(seconds)] + (["--rate", str(rate)] if rate else [])
            done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=True,
                                  env={**os.environ, "PYTHONPATH": str(tree), **env})
            found = HTTP_LINE.search(done.stdout)
            if found is None:
                raise SystemExit(f"{label}: no HTTP figure in\n{done.stdout}\n{done.stderr}")
            got[label] = tuple(float(x) for x in found.groups())
        this = got["this"]
        for name, base in (("no follower", got["this, no follower"]), (other, got[other])):
            ratios[name].append((this[0] / base[0], this[2] / base[2]))
        print(f"pair {n + 1}, load {os.getloadavg()[0]:.1f}: " + "; ".join(
            f"{label} {spins:,.0f} spins/s p99 {p99:.1f} ms CPU {cpu:.2f} ms/spin"
            for label, (spins, p99, cpu) in got.items()))
    for name, pairs_of in ratios.items():
        print(f"median over {pairs} (this / {name}): spins/s "
              f"{statistics.median(r for r, _ in pairs_of):.3f}, server CPU per spin "
              f"{statistics.median(c for _, c in pairs_of):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--vs", help="another tree for the HTTP side by side (e.g. /work/base)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--http-seconds", type=float, default=8.0)
    parser.add_argument("--http-rate", type=float, default=0.0,
                        help="offered spins/s for the HTTP runs (0: closed loop)")
    parser.add_argument("--no-lag", action="store_true")
    args = parser.parse_args()
    if not args.no_lag:
        lag(args.rate, args.seconds, args.players, args.processes)
    if args.vs:
        http_side_by_side(args.vs, args.pairs, args.http_seconds, args.http_rate)


if __name__ == "__main__":
    main()
