"""The spin path with the operator's seamless wallet on loopback, beside the built-in wallet,
in the same run.

    .venv/bin/python bench/bench_wallet.py [--seconds 10] [--players 32] [--rounds 2]

Each round measures `pumpkin serve --no-projections` (one process) on a fresh PostgreSQL
database twice: with the built-in wallet, then with PUMPKIN_WALLET_URL pointing at the
reference wallet (infrastructure/wallet/reference.py) in its own process on 127.0.0.1. The
load is bench_http.py's: 32 clients spinning back to back on keep-alive connections. A wallet
spin is a debit and a credit (two loopback round trips) and three store transactions (the
debit recorded, the round with its credit owed, the acknowledgement) where a built-in spin has
one. The machine's two cores are shared by the client, the server, the wallet and PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_http import drive_http, free_port, fresh_database, run_client, server  # noqa: E402

SECRET = "bench-wallet-secret"
FUNDS = 10**11


def start_wallet(
    secret: str, balance: int, output: Any = None, hub88_keys: tuple[str, str] | None = None,
) -> tuple[str, subprocess.Popen[bytes]]:
    """The reference wallet in its own process (every unknown player starts with `balance`),
    answering; its URL and process. With `hub88_keys` (the supplier's public key file, the
    wallet's own private key file), the Hub88 reference wallet."""
    port = free_port()
    protocol = (["infrastructure.wallet.reference", "--secret", secret] if hub88_keys is None
                else ["infrastructure.wallet.hub88_reference", "--supplier-public-key",
                      hub88_keys[0], "--private-key", hub88_keys[1]])
    process = subprocess.Popen(
        [sys.executable, "-m", *protocol, "--port", str(port), "--balance", str(balance)],
        cwd=Path(__file__).resolve().parent.parent, stdout=output, stderr=output,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.get(f"{url}/_control/state", timeout=1)
            return url, process
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the reference wallet did not start")


@contextmanager
def reference_wallet() -> Iterator[str]:
    url, process = start_wallet(SECRET, FUNDS)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def measure(label: str, players: int, seconds: float, wallet: bool) -> str:
    with fresh_database() as url:
        if not wallet:
            with server(url, False, 1) as (base, pid):
                return run_client(drive_http(base, pid, players, seconds, 2.0, label))
        with reference_wallet() as wallet_url, server(
            url, False, 1, PUMPKIN_WALLET_URL=wallet_url, PUMPKIN_WALLET_SECRET=SECRET
        ) as (base, pid):
            return run_client(drive_http(base, pid, players, seconds, 2.0, label, fund=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"{args.players} concurrent players, {args.seconds:.0f} s each, PostgreSQL, "
          f"{os.cpu_count()} cores (shared), load average {os.getloadavg()[0]:.1f}")
    for n in range(args.rounds):
        print(measure(f"built-in wallet #{n + 1}", args.players, args.seconds, False), flush=True)
        print(measure(f"seamless wallet #{n + 1}", args.players, args.seconds, True), flush=True)
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
