"""Soak: many players spinning through `pumpkin serve` on a fresh PostgreSQL database, with
faults on request, then a check that the store holds exactly what the clients saw accepted.

    .venv/bin/python bench/soak.py [--minutes 2] [--players 64] [--faults] [--restart-postgres]

Loopback only. The API runs in a subprocess (`pumpkin serve --no-projections`) beside a
`pumpkin projections run` subprocess, as deployed; both reach PostgreSQL through a local TCP
proxy (bench/fault_tools.py) so the database can be cut without touching the real server.

With --faults, in the middle of the run, one after the other:
  (a) the API is SIGKILLed under load and started again;
  (b) the database connection is cut for --outage-seconds (the proxy resets every connection
      and refuses new ones): the API must answer 503 + Retry-After, then recover by itself;
  (c) the projections process is SIGKILLed and started again;
  and during the whole run (d) some clients give up after 30 ms and retry with the same
  request_id, and (e) some sessions have two clients racing on them.
--restart-postgres additionally restarts the REAL PostgreSQL server once
(`pg_ctlcluster --skip-systemctl-redirect 15 main restart`): it disturbs everyone using it.

At the end every session is closed and the check (bench/fault_load.py: mismatches) replays each
player in a fresh application and compares the aggregate balance, the balance view, every round
view and every session summary with the ledger of accepted answers; then `pumpkin verify` checks
every hash chain and re-derives every round. Exit 0 only if all agree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fault_load import Load, mismatches  # noqa: E402
from fault_tools import (  # noqa: E402
    OPERATOR,
    ProjectionsProcess,
    Server,
    TcpProxy,
    fresh_postgres_database,
    service_env,
)

FUNDS = 10**11


def restart_real_postgres() -> float:
    started = time.monotonic()
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", "15", "main", "restart"], check=True
    )
    return time.monotonic() - started


async def inject_faults(
    args: argparse.Namespace,
    server: Server,
    projections: ProjectionsProcess,
    proxy: TcpProxy,
    load: Load,
    log: list[str],
) -> None:
    seconds = args.minutes * 60
    step = seconds / (5 if args.restart_postgres else 4)

    def note(text: str) -> None:
        stamp = f"{time.strftime('%H:%M:%S')} {text}"
        log.append(stamp)
        print(stamp, file=sys.stderr, flush=True)

    await asyncio.sleep(step)
    note("(a) SIGKILL the API under load")
    server.kill()
    await asyncio.sleep(1.0)
    started = time.monotonic()
    await asyncio.to_thread(server.start)
    note(f"(a) API restarted, healthy after {time.monotonic() - started:.1f} s")

    await asyncio.sleep(step)
    note(f"(b) database cut for {args.outage_seconds} s")
    before = sum(v for k, v in load.stats.outcomes.items() if k.startswith("503 store"))
    proxy.cut()
    await asyncio.sleep(args.outage_seconds)
    during = sum(v for k, v in load.stats.outcomes.items() if k.startswith("503 store"))
    during -= before
    proxy.restore()
    note(f"(b) database back; {during} answers were 503 + Retry-After while it was away")

    await asyncio.sleep(step)
    note("(c) SIGKILL the projections runner (the supervisor starts it again)")
    projections.kill()

    if args.restart_postgres:
        await asyncio.sleep(step)
        note("(b') restarting the REAL PostgreSQL server")
        took = await asyncio.to_thread(restart_real_postgres)
        note(f"(b') PostgreSQL restarted in {took:.1f} s")


def pumpkin_verify(database_url: str, workdir: Path) -> dict[str, Any]:
    """`pumpkin verify` on the whole store: hash chains, players rebuilt, rounds re-derived."""
    started = time.monotonic()
    with (workdir / "verify.log").open("w") as log:
        done = subprocess.run(
            [sys.executable, "-c", "from infrastructure.cli import main; main()", "verify"],
            env=service_env(database_url),
            stdout=log,
            stderr=subprocess.STDOUT,
            timeout=1800,
        )
    return {"exit": done.returncode, "seconds": round(time.monotonic() - started, 1)}


async def supervise(projections: ProjectionsProcess, stop: asyncio.Event, log: list[str]) -> None:
    """Restart the projections process whenever it exits, as docker-compose's restart policy
    does (it exits when the store refuses it at start, e.g. no free connection slots)."""
    while not stop.is_set():
        process = projections.process
        if process is not None and process.poll() is not None:
            stamp = time.strftime("%H:%M:%S")
            log.append(f"{stamp} projections process exited ({process.returncode}); restarted")
            projections.start()
        await asyncio.sleep(0.5)


async def soak(args: argparse.Namespace, database_url: str, workdir: Path) -> dict[str, Any]:
    proxy = TcpProxy()
    # Without faults the service reaches PostgreSQL directly (the proxy would cost throughput).
    served_url = proxy.url_for(database_url) if args.faults else database_url
    server = Server(
        served_url, workdir / "serve.log", projections=False, PUMPKIN_WORKERS=str(args.workers)
    )
    projections = ProjectionsProcess(served_url, workdir / "projections.log")
    fault_log: list[str] = []
    try:
        server.start()
        projections.start()
        load = Load(server.base_url, OPERATOR, timeout=10.0, prefix="soak")
        await load.setup(args.players, FUNDS)
        if args.faults:
            for ledger in load.players[: max(1, args.players // 8)]:
                ledger.timeout = 0.03  # (d) impatient clients: retry with the same request_id
            for ledger in load.players[-max(1, args.players // 8) :]:
                ledger.racers = 2  # (e) two clients racing on one session
        stop_supervising = asyncio.Event()
        supervisor = asyncio.create_task(supervise(projections, stop_supervising, fault_log))
        tasks = [load.run(args.minutes * 60, stake=args.stake)]
        if args.faults:
            tasks.append(inject_faults(args, server, projections, proxy, load, fault_log))
        results = await asyncio.gather(*tasks)
        seconds = float(results[0])
        summaries = await load.close_sessions()
        await load.aclose()
        problems = await asyncio.to_thread(mismatches, load, database_url, summaries, 120.0)
        verified = await asyncio.to_thread(pumpkin_verify, database_url, workdir)
        stop_supervising.set()
        await supervisor
        stats = load.stats
        spins = len(stats.latencies)
        rounds = sum(len(p.rounds) for p in load.players)
        return {
            "load_average_at_end": [round(x, 1) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
            "store": "postgresql 15 (fresh database, 127.0.0.1:5432"
            + (", through a loopback TCP proxy)" if args.faults else ")"),
            "players": args.players,
            "api_workers": args.workers,
            "seconds": round(seconds, 1),
            "spins_accepted": rounds,
            "spins_per_second": round(rounds / seconds, 1),
            "p50_ms": round(stats.percentile(0.50), 1),
            "p99_ms": round(stats.percentile(0.99), 1),
            "max_ms": round(stats.percentile(1.0), 1),
            "latency_of": f"{spins} spins of patient clients (retries included)",
            "retries": stats.retries,
            "outcomes": dict(stats.outcomes),
            "faults": fault_log,
            "sessions_checked": len(summaries),
            "pumpkin_verify": verified,
            "problems": problems,
        }
    finally:
        projections.stop()
        server.stop()
        proxy.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--stake", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1, help="API server processes")
    parser.add_argument("--faults", action="store_true", help="inject faults (a)-(e)")
    parser.add_argument("--outage-seconds", type=float, default=5.0)
    parser.add_argument(
        "--restart-postgres",
        action="store_true",
        help="also restart the REAL PostgreSQL server once (disturbs everyone using it)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    if args.restart_postgres:
        args.faults = True
    tmp = tempfile.mkdtemp(prefix="pumpkin-soak-")  # kept: the logs are the evidence
    with fresh_postgres_database("pumpkin_soak") as url:
        report = asyncio.run(soak(args, url, Path(tmp)))
        serve_log = (Path(tmp) / "serve.log").read_text()
        report["serve_5xx_defects"] = serve_log.count('"event": "defect"')
        report["logs"] = tmp
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"soak: {report['players']} players, {report['seconds']} s on {report['store']}\n"
            f"  {report['spins_per_second']} spins/s accepted ({report['spins_accepted']} rounds)"
            f"   p50 {report['p50_ms']} ms   p99 {report['p99_ms']} ms"
            f"   max {report['max_ms']} ms\n"
            f"  outcomes {report['outcomes']}   retries {report['retries']}\n"
            f"  faults: {report['faults'] or 'none'}\n"
            f"  pumpkin verify: {report['pumpkin_verify']}\n"
            f"  sessions checked {report['sessions_checked']}, "
            f"defects logged {report['serve_5xx_defects']}\n"
            f"  logs in {report['logs']}\n"
            f"  problems (lost or doubled): {report['problems'] or 'NONE'}"
        )
    verify_failed = report["pumpkin_verify"]["exit"] != 0
    return 1 if report["problems"] or report["serve_5xx_defects"] or verify_failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
