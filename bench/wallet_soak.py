"""Wallet soak: players spin (paid and free rounds) through `pumpkin serve` on the operator's
seamless wallet while the wallet misbehaves and the service is SIGKILLed mid-run; then the
wallet's ledger is reconciled with the rounds in the event store, and every read model with
both.

    .venv/bin/python bench/wallet_soak.py [--seconds 60] [--players 12] [--kills 2]
        [--protocol pumpkin|hub88|both] [--store postgres|sqlite|both]

One run per protocol and store (default: all four), loopback only, a fresh database each. The
reference wallet of the protocol (infrastructure/wallet/reference.py, hub88_reference.py) runs
in its own process, so it outlives the service's kills, with faults at random on every kind of
call: 500 (Hub88: RS_ERROR_UNKNOWN) before or after applying, a time-out past the service's
0.5 s, a refusal, a dropped connection, a kept-alive connection closed unanswered, a 202, a
balance of 2^70, `true` or -1, a 1 MiB answer. Clients resend the same request_id after a 503
or a broken connection (a 503 is no result; a crash is unknown to them). After the run the
faults stop, the outbox is given time to finish (a debit left open by a kill becomes stale after
the timeout + 10 s and is rolled back), and then:

- every recorded round has exactly one net debit of its stake (none for a free round) and
  exactly one credit of its total win (with its campaign for a free round);
- every debit the wallet applied without a round is rolled back;
- no transaction id was applied twice, no round credited twice, nothing is left owed;
- each wallet balance = start - stakes of paid rounds + wins of all rounds;
- no debit reached the wallet twice (a debit is sent once, never resent by a transport);
- every read model counts every round: each player's rounds view, `/audit/stats` (paid rounds
  in its buckets, free rounds under `free_rounds`) and `/health` not degraded;
- `pumpkin verify` passes (hash chains, players rebuilt, every round re-derived).
Exit 0 only if all hold in every run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_wallet import start_wallet  # noqa: E402
from fault_tools import AUDITOR, OPERATOR, Server, fresh_postgres_database  # noqa: E402
from soak import pumpkin_verify  # noqa: E402

from infrastructure.wallet.hub88 import public_file, write_key_pair  # noqa: E402

SECRET = "wallet-soak-secret-0123456789"
START = 10_000_000
STAKE = 100
FREE_ROUNDS = 10
START_TIMEOUT = 300.0  # a first start compiles the game kernel: minutes on a loaded machine
FAULTS = [  # (call, fault, rate)
    ("debit", "fail_before", 0.02), ("debit", "fail_after", 0.02), ("debit", "timeout", 0.01),
    ("debit", "drop", 0.01), ("debit", "refuse", 0.01), ("debit", "close_unanswered", 0.01),
    ("debit", "accepted", 0.01), ("debit", "huge_balance", 0.01),
    ("debit", "bool_balance", 0.005), ("debit", "negative_balance", 0.005),
    ("debit", "oversized", 0.003),
    ("credit", "fail_before", 0.03), ("credit", "fail_after", 0.03),
    ("credit", "timeout", 0.01), ("credit", "drop", 0.01), ("credit", "close_unanswered", 0.01),
    ("credit", "accepted", 0.01), ("credit", "huge_balance", 0.01),
    ("credit", "bool_balance", 0.005), ("credit", "oversized", 0.003),
    ("rollback", "fail_before", 0.05), ("rollback", "fail_after", 0.05),
    ("rollback", "accepted", 0.02), ("rollback", "huge_balance", 0.02),
    ("rollback", "close_unanswered", 0.02),
]


def note(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)


class Wallet:
    """The reference wallet in its own process, driven through its control endpoints."""

    def __init__(self, workdir: Path, protocol: str) -> None:
        self.log = (workdir / "wallet.log").open("w")
        self.service_env: dict[str, str] = {"PUMPKIN_WALLET_SECRET": SECRET}
        keys = None
        if protocol == "hub88":
            supplier, hub88 = workdir / "supplier.pem", workdir / "hub88.pem"
            write_key_pair(supplier)
            write_key_pair(hub88)
            keys = (str(public_file(supplier)), str(hub88))
            self.service_env = {
                "PUMPKIN_WALLET_PROTOCOL": "hub88",
                "PUMPKIN_WALLET_PRIVATE_KEY_FILE": str(supplier),
                "PUMPKIN_WALLET_PUBLIC_KEY_FILE": str(public_file(hub88)),
            }
        self.url, self.process = start_wallet(SECRET, START, self.log, hub88_keys=keys)

    def control(self, what: str, body: dict[str, Any]) -> None:
        httpx.post(f"{self.url}/_control/{what}", json=body, timeout=5).raise_for_status()

    def state(self) -> dict[str, Any]:
        found: dict[str, Any] = httpx.get(f"{self.url}/_control/state", timeout=30).json()
        return found

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


class Player:
    def __init__(self, player_id: str, session_id: str, token: str) -> None:
        self.player_id, self.session_id, self.token = player_id, session_id, token
        self.free_left = FREE_ROUNDS
        self.answers: Counter[int] = Counter()
        self.retried = 0


async def play(server: Server, player: Player, stop_at: float, rng: random.Random) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10) as client:
        n = 0
        while time.monotonic() < stop_at:
            n += 1
            free = player.free_left > 0 and rng.random() < 0.2
            body: dict[str, Any] = {"request_id": f"{player.player_id}-{n}"}
            if free:
                body["free_round"] = "soak"
            else:
                body["stake"] = STAKE
            for _attempt in range(50):  # the same request until it has a result
                try:
                    answer = await client.post(
                        f"/sessions/{player.session_id}/spins", json=body,
                        headers={"Authorization": f"Bearer {player.token}"},
                    )
                except httpx.TransportError:  # the service was killed: unknown, send again
                    player.retried += 1
                    await asyncio.sleep(0.5)
                    continue
                if answer.status_code == 503:
                    player.retried += 1
                    await asyncio.sleep(0.05)
                    continue
                player.answers[answer.status_code] += 1
                if answer.status_code == 200 and free:
                    player.free_left -= 1
                if answer.status_code == 409 and free:
                    player.free_left = 0  # used up (a retried free round was already played)
                break


async def kill_and_restart(server: Server, at: list[float], log: list[str]) -> None:
    for moment in at:
        await asyncio.sleep(max(0.0, moment - time.monotonic()))
        await asyncio.to_thread(server.kill)
        note("service SIGKILLed")
        log.append("kill")
        await asyncio.sleep(0.5)
        await asyncio.to_thread(server.start, START_TIMEOUT)
        note("service started again")


def reconcile(
    database_url: str, players: list[Player], wallet: dict[str, Any]
) -> tuple[list[str], dict[str, Any]]:
    """The problems found, and the figures: totals and each player's rounds in the store."""
    from infrastructure.application import PumpkinApplication

    problems: list[str] = []
    app = PumpkinApplication.from_url(database_url)
    transactions = wallet["transactions"]
    by_call: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for tx in transactions.values():
        by_call[tx["call"]].append(tx)
    applied_debits = {t["transaction_id"]: t for t in by_call["debit"] if t["status"] == 200}
    rolled_back = {t["debit_transaction_id"] for t in by_call["rollback"] if t["status"] == 200}
    credits_by_round: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for credit in by_call["credit"]:
        if credit["status"] == 200:
            credits_by_round[credit["round_id"]].append(credit)
    debits_with_a_round: set[str] = set()
    totals: dict[str, Any] = {"rounds": 0, "free": 0, "staked": 0, "won": 0, "by_player": {}}
    for player in players:
        staked = won = 0
        round_ids = app.round_ids(player.player_id)
        totals["by_player"][player.player_id] = len(round_ids)
        for round_id in round_ids:
            played = app.round(round_id)
            free = played.get("free_round")
            totals["rounds"] += 1
            totals["free"] += bool(free)
            credits = credits_by_round.get(round_id, [])
            if len(credits) != 1:
                problems.append(f"{round_id}: {len(credits)} credits")
                continue
            [credit] = credits
            if credit["amount"] != played["total_win"]:
                problems.append(f"{round_id}: credit {credit['amount']} != {played['total_win']}")
            if free:
                if credit["debit_transaction_id"] is not None or credit["free_round"] != free:
                    problems.append(f"{round_id}: a free round's credit names a debit")
            else:
                debit_id = credit["debit_transaction_id"]
                debit = applied_debits.get(debit_id)
                if debit is None or debit_id in rolled_back or debit["amount"] != played["stake"]:
                    problems.append(f"{round_id}: no net debit of its stake")
                debits_with_a_round.add(debit_id)
                staked += played["stake"]
            won += played["total_win"]
        totals["staked"] += staked
        totals["won"] += won
        balance = wallet["balances"].get(player.player_id, START)
        if balance != START - staked + won:
            problems.append(f"{player.player_id}: wallet {balance} != {START} - {staked} + {won}")
    for debit_id in applied_debits.keys() - debits_with_a_round:
        if debit_id not in rolled_back:
            problems.append(f"debit {debit_id} applied without a round and not rolled back")
    resent = {key: n for key, n in wallet.get("received", {}).items()
              if key.startswith("debit ") and n > 1}
    problems.extend(f"{key} reached the wallet {n} times" for key, n in resent.items())
    totals["debits_received"] = sum(1 for key in wallet.get("received", {})
                                    if key.startswith("debit "))
    totals["rolled_back"] = len(rolled_back)
    app.close()
    note(f"reconciled {totals['rounds']} rounds ({totals['free']} free), staked "
         f"{totals['staked']}, won {totals['won']}; wallet transactions: "
         + ", ".join(f"{call} {len(txs)}" for call, txs in sorted(by_call.items()))
         + f"; debits rolled back {len(rolled_back)}")
    return problems, totals


def views_problems(base_url: str, totals: dict[str, Any]) -> list[str]:
    """Every read model counts every round: each player's rounds view, /audit/stats, /health."""
    problems: list[str] = []
    auditor = {"Authorization": f"Bearer {AUDITOR}"}
    with httpx.Client(base_url=base_url, headers=auditor, timeout=60) as c:
        for player_id, expected in totals["by_player"].items():
            seen, before = 0, None
            while True:
                params: dict[str, Any] = {"limit": 100, **({"before": before} if before else {})}
                page = c.get(f"/players/{player_id}/rounds", params=params).json()["rounds"]
                seen += len(page)
                if len(page) < 100:
                    break
                before = page[-1]["round_id"]
            if seen != expected:
                problems.append(f"{player_id}: the rounds view shows {seen} of {expected}")
        stats = c.get("/audit/stats").json()
        paid = sum(int(b["rounds"]) for b in stats.get("buckets", []))
        free = sum(int(f["played"]) for f in stats.get("free_rounds", []))
        if (paid, free) != (totals["rounds"] - totals["free"], totals["free"]):
            problems.append(f"/audit/stats counts {paid} paid and {free} free rounds of "
                            f"{totals['rounds'] - totals['free']} and {totals['free']}")
        health = c.get("/health").json()
        if health.get("status") not in (None, "ok"):
            problems.append(f"/health: {health}")
    return problems


async def views_caught_up(base_url: str, totals: dict[str, Any], seconds: float) -> list[str]:
    """The views' problems once they have had up to `seconds` to catch up."""
    deadline = time.monotonic() + seconds
    while True:
        problems = await asyncio.to_thread(views_problems, base_url, totals)
        if not problems or time.monotonic() > deadline:
            return problems
        await asyncio.sleep(2)


async def run(
    args: argparse.Namespace, protocol: str, store: str, workdir: Path
) -> dict[str, Any]:
    """One soak on one protocol and store: its figures and problems."""
    if store == "postgres":
        with fresh_postgres_database("pumpkin_wallet_soak") as url:
            return await run_on(args, protocol, url, workdir)
    return await run_on(args, protocol, f"sqlite:///{workdir / 'soak.db'}", workdir)


async def run_on(
    args: argparse.Namespace, protocol: str, url: str, workdir: Path
) -> dict[str, Any]:
    wallet = Wallet(workdir, protocol)
    server = Server(
        url, workdir / "serve.log", projections=True, PUMPKIN_WALLET_URL=wallet.url,
        PUMPKIN_WALLET_TIMEOUT_SECONDS="0.5", **wallet.service_env,
    )
    figures: dict[str, Any] = {}
    problems: list[str] = []
    try:
        server.start(timeout=START_TIMEOUT)
        operator = {"Authorization": f"Bearer {OPERATOR}"}
        players = []
        with httpx.Client(base_url=server.base_url, headers=operator, timeout=30) as c:
            for i in range(args.players):
                player_id = f"soak-{i}"
                c.post("/players", json={"player_id": player_id}).raise_for_status()
                c.post(f"/players/{player_id}/free-rounds", json={
                    "campaign_id": "soak", "rounds": FREE_ROUNDS, "stake": STAKE,
                    "request_id": "grant"}).raise_for_status()
                opened = c.post(f"/players/{player_id}/sessions", json={}).json()
                players.append(Player(player_id, opened["session_id"], opened["token"]))
        for call, fault, rate in FAULTS:
            wallet.control("faults", {"call": call, "fault": fault, "rate": rate, "delay": 1.0})
        note(f"{args.players} players, {args.seconds:.0f} s, {args.kills} kills, faults on")
        started = time.monotonic()
        stop_at = started + args.seconds
        kills = [started + args.seconds * (k + 1) / (args.kills + 1) for k in range(args.kills)]
        log: list[str] = []
        rng = random.Random(7)
        await asyncio.gather(
            kill_and_restart(server, kills, log),
            *(play(server, p, stop_at, rng) for p in players),
        )
        wallet.control("reset", {})
        note("faults off; waiting for the outbox to settle everything")
        deadline = time.monotonic() + 120
        owed: list[Any] = []
        auditor = {"Authorization": f"Bearer {AUDITOR}"}
        while time.monotonic() < deadline:
            owed = httpx.get(f"{server.base_url}/audit/wallet?status=owed", headers=auditor,
                             timeout=30).json()["owed"]
            if not owed:
                break
            await asyncio.sleep(1)
        settle_seconds = 120 - (deadline - time.monotonic())
        answers: Counter[int] = Counter()
        for p in players:
            answers.update(p.answers)
        resent = sum(p.retried for p in players)
        note(f"answers {dict(answers)}, resent after 503 or a kill {resent}, "
             f"owed left {len(owed)} after {settle_seconds:.0f} s")
        if owed:
            problems.append(f"{len(owed)} items still owed")
        state = wallet.state()
        found, totals = reconcile(url, players, state)
        problems += found
        problems += await views_caught_up(server.base_url, totals, 120)
        figures = {
            "rounds": totals["rounds"], "free": totals["free"], "answers": dict(answers),
            "resent": resent, "settle_seconds": round(settle_seconds), "owed_left": len(owed),
            "debits_received": totals["debits_received"], "rolled_back": totals["rolled_back"],
            "wallet_calls": state["calls"], "kills": len(log),
        }
    finally:
        server.stop()
        wallet.stop()
    verified = pumpkin_verify(url, workdir)
    note(f"pumpkin verify exit {verified['exit']} in {verified['seconds']} s")
    if verified["exit"] != 0:
        problems.append("pumpkin verify failed")
    for problem in problems[:20]:
        note(f"PROBLEM {problem}")
    note("OK: reconciled" if not problems else f"FAILED: {len(problems)} problems")
    return {**figures, "problems": problems}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--kills", type=int, default=2)
    parser.add_argument("--protocol", choices=["pumpkin", "hub88", "both"], default="both")
    parser.add_argument("--store", choices=["postgres", "sqlite", "both"], default="both")
    args = parser.parse_args()
    protocols = ["pumpkin", "hub88"] if args.protocol == "both" else [args.protocol]
    stores = ["postgres", "sqlite"] if args.store == "both" else [args.store]
    results = []
    for protocol in protocols:
        for store in stores:
            workdir = Path(tempfile.mkdtemp(prefix=f"wallet-soak-{protocol}-{store}-"))
            note(f"== {protocol} protocol on {store}; logs in {workdir}")
            results.append((protocol, store, asyncio.run(run(args, protocol, store, workdir))))
    note("protocol | store | rounds (free) | kills | debits sent | rolled back | "
         "wallet calls | settled in | problems")
    for protocol, store, r in results:
        note(f"{protocol} | {store} | {r.get('rounds')} ({r.get('free')}) | {r.get('kills')} | "
             f"{r.get('debits_received')} | {r.get('rolled_back')} | {r.get('wallet_calls')} | "
             f"{r.get('settle_seconds')} s | {len(r['problems'])}")
    return 0 if all(not r["problems"] for _p, _s, r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
