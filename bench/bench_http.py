"""Spins per second and latency through HTTP, beside the application layer without HTTP.

    .venv/bin/python bench/bench_http.py [--seconds 12] [--players 32] [--workers 1 2]
                                         [--rate SPINS_PER_S] [--projections]

All figures come from the same run on fresh PostgreSQL databases (127.0.0.1:5432, user
postgres): first the application object called directly from 32 threads (the ceiling the HTTP
layer can reach), then `pumpkin serve --workers N` in a subprocess (uvicorn) driven over loopback
by 32 concurrent clients on one uvloop event loop (keep-alive connections on plain asyncio
streams: see Connection for why not httpx), one player and session each. Without --rate each
client spins back to back (the most the server does); with --rate the spins are offered at that
rate in all, and latency runs from when a spin was due. The API runs with
PUMPKIN_LOG_LEVEL=WARNING (no per-request log line) and, unless --projections, without the
in-process projections (the deployment runs `pumpkin projections run` beside it). The client
shares the machine's two cores with the server and PostgreSQL, so the HTTP figures are lower
bounds.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import httpx

from infrastructure.store.persistence import temporary_postgres_database

PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
OPERATOR = "bench-operator-key"
STAKE = 100
FUNDS = 10**11


def fresh_database() -> AbstractContextManager[str]:
    return temporary_postgres_database("pumpkin_bench", PG_ADMIN)


def summary(
    label: str, latencies: list[float], seconds: float, errors: int, cpu_seconds: float
) -> str:
    latencies.sort()
    n = len(latencies)

    def ms(quantile: float) -> float:
        return latencies[min(n - 1, int(n * quantile))] * 1000 if n else float("nan")

    within = sum(1 for x in latencies if x <= 0.05) / n if n else float("nan")
    cpu_ms = cpu_seconds / max(n, 1) * 1000
    return (
        f"{label:<26} {n / seconds:>6.0f} spins/s   p50 {ms(0.5):6.1f} ms   p99 {ms(0.99):6.1f} ms"
        f"   p99.9 {ms(0.999):6.1f} ms   max {ms(1.0):6.1f} ms   {within:6.1%} within 50 ms"
        f"   CPU {cpu_ms:4.2f} ms/spin   ({n} spins, {errors} errors)"
    )


def bench_application(players: int, seconds: float) -> str:
    """The application layer alone: `players` threads, each spinning its own session."""
    from infrastructure.application import PumpkinApplication
    from infrastructure.bootstrap import settle_heap

    with fresh_database() as url:
        app = PumpkinApplication.from_url(url)
        settle_heap()  # as `pumpkin serve` does before it serves
        sessions = []
        for i in range(players):
            player_id = f"app-{i}"
            app.register_player(player_id)
            app.deposit(player_id, FUNDS, "funds")
            sessions.append(app.open_session(player_id)[0])
        latencies: list[list[float]] = [[] for _ in range(players)]
        errors = [0] * players
        start = threading.Barrier(players + 1)
        stop = threading.Event()

        def player(index: int) -> None:
            start.wait()
            n = 0
            while not stop.is_set():
                n += 1
                began = time.perf_counter()
                try:
                    app.spin(sessions[index], STAKE, f"s{n}")
                except Exception:  # noqa: BLE001 - counted and reported
                    errors[index] += 1
                latencies[index].append(time.perf_counter() - began)

        threads = [threading.Thread(target=player, args=(i,)) for i in range(players)]
        for t in threads:
            t.start()
        start.wait()
        began, cpu_began = time.perf_counter(), time.process_time()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
        elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu_began
        app.close()
    flat = [x for xs in latencies for x in xs]
    return summary("application, no HTTP", flat, elapsed, sum(errors), cpu)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def process_tree_cpu(pid: int) -> float:
    """CPU seconds used so far by a process and its children (the uvicorn workers)."""
    total = 0.0
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        children = open(f"/proc/{pid}/task/{pid}/children").read().split()
    except OSError:
        return total
    return total + sum(process_tree_cpu(int(child)) for child in children)


@contextmanager
def server(
    url: str, projections: bool, workers: int, **extra_env: str
) -> Iterator[tuple[str, int]]:
    port = free_port()
    env = {
        **os.environ,
        "PUMPKIN_DATABASE_URL": url,
        "PUMPKIN_OPERATOR_KEY": OPERATOR,
        "PUMPKIN_AUDITOR_KEY": "bench-auditor-key-0123456789",
        "PUMPKIN_PORT": str(port),
        "PUMPKIN_LOG_LEVEL": "WARNING",
        "PUMPKIN_LOG_FORMAT": "json",
        "PUMPKIN_RATE_LIMIT_PER_SECOND": "0",
        "PUMPKIN_AUTH_FAILURES_PER_MINUTE": "0",
        "PUMPKIN_ANONYMOUS_PER_SECOND": "0",
        **extra_env,
    }
    command = [
        sys.executable,
        "-c",
        "from infrastructure.cli import main; main()",
        "serve",
        "--projections" if projections else "--no-projections",
        "--workers",
        str(workers),
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        yield base, process.pid
    finally:
        process.terminate()
        process.wait(timeout=15)


class Connection:
    """One keep-alive HTTP/1.1 connection, as plain asyncio streams.

    The load generator must be much cheaper than the server it measures on the same two cores:
    httpx.AsyncClient with 32 concurrent requests managed under 100 GET /health a second here,
    so it would have measured itself. This client parses only what it needs (status, length)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: dict[str, object], token: str) -> tuple[int, bytes]:
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        payload = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) != b"\r\n":
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def open_sessions(
    base: str, players: int, prefix: str, fund: bool = True
) -> list[tuple[str, str]]:
    """fund: deposit into the built-in wallet (the operator's wallet holds its own funds)."""
    operator = {"Authorization": f"Bearer {OPERATOR}"}
    sessions = []
    with httpx.Client(base_url=base, headers=operator, timeout=30) as client:
        for i in range(players):
            player_id = f"{prefix}-{i}"
            client.post("/players", json={"player_id": player_id}).raise_for_status()
            if fund:
                client.post(
                    f"/players/{player_id}/deposits",
                    json={"amount": FUNDS, "request_id": "funds"},
                ).raise_for_status()
            opened = client.post(f"/players/{player_id}/sessions", json={}).json()
            sessions.append((opened["session_id"], opened["token"]))
    return sessions


async def drive_http(
    base: str,
    server_pid: int,
    players: int,
    seconds: float,
    warmup: float,
    label: str,
    rate: float = 0.0,
    fund: bool = True,
) -> str:
    """Spins back to back (rate 0: the most the server does), or offered at `rate` spins/s in
    all: each player's spins are due at fixed times, and a spin's latency runs from the time it
    was due, so a queue behind a slow answer is counted too (no coordinated omission)."""
    sessions = open_sessions(base, players, "http", fund)
    run = os.urandom(4).hex()  # request ids unique to this drive: a repeated id is a replay
    host, port = base.removeprefix("http://").split(":")
    latencies: list[float] = []
    errors = 0
    # Every time is time.perf_counter(): uvloop's loop.time() is libuv's clock, in whole
    # milliseconds and cached once per loop iteration, so latencies read from it are rounded.
    clock = time.perf_counter
    measure_from = clock() + warmup
    stop_at = measure_from + seconds
    cpu_at: list[float] = []

    async def sample_cpu() -> None:
        await asyncio.sleep(measure_from - clock())
        cpu_at.append(process_tree_cpu(server_pid))
        await asyncio.sleep(stop_at - clock())
        cpu_at.append(process_tree_cpu(server_pid))

    interval = players / rate if rate else 0.0

    async def player(index: int, session_id: str, token: str) -> None:
        nonlocal errors
        connection = Connection(host, int(port))
        n = 0
        due = clock() + interval * index / players
        try:
            while (now := clock()) < stop_at:
                n += 1
                if interval:
                    if due > now:
                        await asyncio.sleep(due - now)
                    began, due = due, due + interval
                else:
                    began = now
                status, _ = await connection.post(
                    f"/sessions/{session_id}/spins",
                    {"stake": STAKE, "request_id": f"{run}-{n}"},
                    token,
                )
                if began >= measure_from:
                    latencies.append(clock() - began)
                    errors += status != 200
        finally:
            connection.close()

    await asyncio.gather(
        sample_cpu(), *(player(i, s, t) for i, (s, t) in enumerate(sessions))
    )
    return summary(label, latencies, seconds, errors, cpu_at[-1] - cpu_at[0])


def run_client(drive: Coroutine[Any, Any, str]) -> str:
    """The load generator on uvloop (installed with uvicorn[standard]): it shares the two cores
    with the server and PostgreSQL, so the less CPU it takes, the less it skews the figure. Its
    start-up heap is frozen as the server's is (bootstrap.settle_heap): a full collection of it
    held the client's loop for 20 ms, and the spins due meanwhile were counted late."""
    gc.collect()
    gc.freeze()
    try:
        import uvloop
    except ImportError:
        return asyncio.run(drive)
    return uvloop.run(drive)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1, 2],
        help="server process counts to measure (pumpkin serve --workers)",
    )
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument(
        "--rate", type=float, default=0.0,
        help="offered spins/s in all, paced (0: back to back, the most the server does)",
    )
    parser.add_argument(
        "--projections", action="store_true", help="run the projections inside the API process too"
    )
    args = parser.parse_args()
    print(
        f"{args.players} concurrent players, stake {STAKE}, {args.seconds:.0f} s each, "
        f"PostgreSQL, {os.cpu_count()} cores"
    )
    baseline = bench_application(args.players, args.seconds)
    print(baseline, flush=True)
    for workers in args.workers:
        label = f"HTTP, {workers} server process{'es' if workers > 1 else ''}"
        with fresh_database() as url, server(url, args.projections, workers) as (base, pid):
            if args.rate:
                label += f", offered {args.rate:.0f}/s"
            run = drive_http(base, pid, args.players, args.seconds, 2.0, label, args.rate)
            print(run_client(run), flush=True)
    print(
        f"load average after {os.getloadavg()[0]:.1f}. CPU = CPU time of the measured process(es)"
        " per spin (PostgreSQL's own CPU not included), a figure other load does not skew."
    )


if __name__ == "__main__":
    main()
