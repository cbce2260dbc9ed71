"""Wallet soak: players spin (paid and free rounds) through `pumpkin serve` on the operator's
seamless wallet while the wallet misbehaves and the service is SIGKILLed mid-run; then the
wallet's ledger is reconciled with the rounds in the event store.

    .venv/bin/python bench/wallet_soak.py [--seconds 60] [--players 12] [--kills 2]

Loopback only, a fresh PostgreSQL database. The reference wallet (infrastructure/wallet/
reference.py) runs in its own process, so it outlives the service's kills, with faults at
random on every kind of call: 500 before or after applying, a time-out past the service's
0.5 s, a refusal, a dropped connection. Clients resend the same request_id after a 503 or a
broken connection (a 503 is no result; a crash is unknown to them). After the run the faults
stop, the outbox is given time to finish (a debit left open by a kill becomes stale after the
timeout + 10 s and is rolled back), and then:

- every recorded round has exactly one net debit of its stake (none for a free round) and
  exactly one credit of its total win (with its campaign for a free round);
- every debit the wallet applied without a round is rolled back;
- no transaction id was applied twice, no round credited twice, nothing is left owed;
- each wallet balance = start - stakes of paid rounds + wins of all rounds;
- `pumpkin verify` passes (hash chains, players rebuilt, every round re-derived).
Exit 0 only if all hold.
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

SECRET = "wallet-soak-secret-0123456789"
START = 10_000_000
STAKE = 100
FREE_ROUNDS = 10
FAULTS = [  # (call, fault, rate)
    ("debit", "fail_before", 0.02), ("debit", "fail_after", 0.02), ("debit", "timeout", 0.01),
    ("debit", "drop", 0.01), ("debit", "refuse", 0.01),
    ("credit", "fail_before", 0.03), ("credit", "fail_after", 0.03),
    ("credit", "timeout", 0.01), ("credit", "drop", 0.01),
    ("rollback", "fail_before", 0.05), ("rollback", "fail_after", 0.05),
]


def note(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)


class Wallet:
    """The reference wallet in its own process, driven through its control endpoints."""

    def __init__(self, workdir: Path) -> None:
        self.log = (workdir / "wallet.log").open("w")
        self.url, self.process = start_wallet(SECRET, START, self.log)

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
        await asyncio.to_thread(server.start)
        note("service started again")


def reconcile(database_url: str, players: list[Player], wallet: dict[str, Any]) -> list[str]:
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
    totals = {"rounds": 0, "free": 0, "staked": 0, "won": 0}
    for player in players:
        staked = won = 0
        for round_id in app.round_ids(player.player_id):
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
    app.close()
    note(f"reconciled {totals['rounds']} rounds ({totals['free']} free), staked "
         f"{totals['staked']}, won {totals['won']}; wallet transactions: "
         + ", ".join(f"{call} {len(txs)}" for call, txs in sorted(by_call.items()))
         + f"; debits rolled back {len(rolled_back)}")
    return problems


async def run(args: argparse.Namespace, workdir: Path) -> int:
    with fresh_postgres_database("pumpkin_wallet_soak") as url:
        wallet = Wallet(workdir)
        server = Server(
            url, workdir / "serve.log", projections=False, PUMPKIN_WALLET_URL=wallet.url,
            PUMPKIN_WALLET_SECRET=SECRET, PUMPKIN_WALLET_TIMEOUT_SECONDS="0.5",
        )
        try:
            server.start()
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
                wallet.control("faults", {"call": call, "fault": fault, "rate": rate,
                                          "delay": 1.0})
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
        finally:
            server.stop()
        state = wallet.state()
        wallet.stop()
        problems = reconcile(url, players, state)
        if owed:
            problems.append(f"{len(owed)} items still owed")
        verified = pumpkin_verify(url, workdir)
        note(f"pumpkin verify exit {verified['exit']} in {verified['seconds']} s")
        if verified["exit"] != 0:
            problems.append("pumpkin verify failed")
        for problem in problems[:20]:
            note(f"PROBLEM {problem}")
        note("OK: reconciled" if not problems else f"FAILED: {len(problems)} problems")
        return 0 if not problems else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--kills", type=int, default=2)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="wallet-soak-"))
    note(f"logs in {workdir}")
    return asyncio.run(run(args, workdir))


if __name__ == "__main__":
    sys.exit(main())
