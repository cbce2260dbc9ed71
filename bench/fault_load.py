"""A load generator that keeps a ledger of everything the service ACCEPTED, and the check that
the store agrees with it afterwards (shared by bench/soak.py and the reliability tests).

Every request carries a request_id. A request whose answer never arrived (timeout, connection
reset, the server killed, 503 while the store is down) is uncertain: it may or may not have been
applied. It is retried with the SAME request_id until it gets a definite answer, so the ledger is
exact: the contract's exactly-once promise is what makes that possible, and the final check
(balances, round views, session summaries, and no round the ledger does not know) is what proves
it held.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

STAKES = (20, 40, 60, 80, 100, 200, 400, 600, 800, 1000, 2000, 5000, 10000)
RETRY_STATUSES = {503}
_ids = itertools.count()


NOT_IN_VIEW = ("excluded", "excluded_until")  # the player state's protection, not a balance

def _error_code(answer: httpx.Response) -> str:
    if answer.status_code < 400:
        return ""
    try:
        return str(answer.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return "not-the-error-shape"


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


@dataclass
class PlayerLedger:
    player_id: str
    session_id: str = ""
    token: str = ""
    timeout: float | None = None  # a client that gives up early (then retries the same id)
    racers: int = 1  # clients spinning on this one session at the same time
    deposited: int = 0
    withdrawn: int = 0
    rounds: dict[str, dict[str, Any]] = field(default_factory=dict)
    sessions: dict[str, list[int]] = field(default_factory=dict)  # sid -> [spins, staked, won]

    @property
    def expected_balance(self) -> int:
        played = sum(r["total_win"] - r["stake"] for r in self.rounds.values())
        return self.deposited - self.withdrawn + played

    def accept_round(self, played: dict[str, Any]) -> None:
        round_id = played["round_id"]
        known = self.rounds.get(round_id)
        assert known is None or known == played, f"round {round_id} answered twice differently"
        if known is None:
            self.rounds[round_id] = played
            spins, staked, won = self.sessions.setdefault(played["session_id"], [0, 0, 0])
            self.sessions[played["session_id"]] = [
                spins + 1,
                staked + played["stake"],
                won + played["total_win"],
            ]


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    retries: int = 0

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


class Load:
    """Players, their sessions and every accepted answer; drives spins against `base_url`."""

    def __init__(
        self, base_url: str, operator_key: str, timeout: float = 10.0, prefix: str = "load"
    ) -> None:
        self.base_url = base_url
        self.operator = bearer(operator_key)
        self.timeout = timeout
        self.prefix = prefix
        self.players: list[PlayerLedger] = []
        self.stats = Stats()
        self.client = self._new_client(64)
        # One small client per player: httpcore's pool scans every connection for every
        # request, so one shared pool of 64+ connections made the CLIENT the bottleneck.
        self._clients: dict[str, httpx.AsyncClient] = {}

    def _new_client(self, connections: int) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url,
            timeout=self.timeout,
            limits=httpx.Limits(
                max_connections=connections, max_keepalive_connections=connections
            ),
        )

    def client_of(self, ledger: PlayerLedger) -> httpx.AsyncClient:
        client = self._clients.get(ledger.player_id)
        if client is None:
            client = self._clients[ledger.player_id] = self._new_client(ledger.racers + 1)
        return client

    async def aclose(self) -> None:
        for client in [self.client, *self._clients.values()]:
            await client.aclose()

    def new_request_id(self, kind: str) -> str:
        return f"{self.prefix}-{kind}-{next(_ids)}-{time.monotonic_ns()}"

    async def exactly_once(
        self,
        method: str,
        path: str,
        body: Any,
        headers: dict[str, str],
        give_up_at: float,
        timeout: float | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> httpx.Response:
        """Send until a definite answer. Not definite: a transport error or timeout (it may have
        been applied), 503 (the store is away) and 409 concurrent_update (it lost a race, maybe
        against an earlier attempt of this very request still in flight): all retried with the
        same body and request_id, which the contract makes safe."""
        pause = 0.05
        wait = timeout or self.timeout  # an impatient client waits twice as long each retry
        while True:
            try:
                answer = await (client or self.client).request(
                    method, path, json=body, headers=headers, timeout=wait
                )
                code = _error_code(answer)
                if answer.status_code not in RETRY_STATUSES and code != "concurrent_update":
                    return answer
                self.stats.outcomes[f"{answer.status_code} {code} (retried)"] += 1
                if answer.status_code == 503:
                    assert code == "store_unavailable", answer.text
                    assert answer.headers.get("Retry-After"), "503 without Retry-After"
            except httpx.TransportError as error:
                self.stats.outcomes[f"{type(error).__name__} (retried)"] += 1
            self.stats.retries += 1
            wait = min(wait * 2, self.timeout)
            if time.monotonic() > give_up_at:
                raise TimeoutError(f"{method} {path} never got a definite answer")
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)

    async def setup(self, players: int, funds: int, give_up_after: float = 120.0) -> None:
        give_up_at = time.monotonic() + give_up_after
        created = [
            PlayerLedger(f"{self.prefix}-{i}-{time.monotonic_ns() % 10**9}") for i in range(players)
        ]

        async def one(ledger: PlayerLedger) -> None:
            answer = await self.exactly_once(
                "POST", "/players", {"player_id": ledger.player_id}, self.operator, give_up_at
            )
            assert answer.status_code in (201, 409), answer.text
            await self.deposit(ledger, funds, give_up_at)
            await self.open_session(ledger, give_up_at)

        await asyncio.gather(*(one(ledger) for ledger in created))
        self.players.extend(created)

    async def deposit(self, ledger: PlayerLedger, amount: int, give_up_at: float) -> None:
        body = {"amount": amount, "request_id": self.new_request_id("dep")}
        answer = await self.exactly_once(
            "POST", f"/players/{ledger.player_id}/deposits", body, self.operator, give_up_at
        )
        assert answer.status_code == 201, answer.text
        ledger.deposited += amount

    async def open_session(self, ledger: PlayerLedger, give_up_at: float) -> None:
        # Opening a session has no request id: a lost answer leaves an unused open session,
        # which changes no money. We only keep the one whose token we received.
        answer = await self.exactly_once(
            "POST", f"/players/{ledger.player_id}/sessions", {}, self.operator, give_up_at
        )
        assert answer.status_code == 201, answer.text
        ledger.session_id = answer.json()["session_id"]
        ledger.token = answer.json()["token"]

    async def spin(self, ledger: PlayerLedger, stake: int, give_up_at: float) -> None:
        body = {"stake": stake, "request_id": self.new_request_id("spin")}
        started = time.perf_counter()
        answer = await self.exactly_once(
            "POST",
            f"/sessions/{ledger.session_id}/spins",
            body,
            bearer(ledger.token),
            give_up_at,
            ledger.timeout,
            self.client_of(ledger),
        )
        if ledger.timeout is None:  # impatient clients' waits are their own choice
            self.stats.latencies.append(time.perf_counter() - started)
        self.stats.outcomes[str(answer.status_code)] += 1
        assert answer.status_code == 200, answer.text
        ledger.accept_round(answer.json())

    @property
    def accepted(self) -> int:
        return sum(len(ledger.rounds) for ledger in self.players)

    async def wait_accepted(self, count: int, timeout: float = 60.0) -> None:
        """Until `count` rounds in all were accepted (faults are timed by progress, not clock)."""
        deadline = time.monotonic() + timeout
        while self.accepted < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {self.accepted} of {count} rounds accepted in time")
            await asyncio.sleep(0.02)

    async def run_until(self, stop: asyncio.Event, stake: int = 100, grace: float = 120.0) -> None:
        """Every player spins back to back until `stop` is set (then in-flight ones finish)."""

        async def player_loop(ledger: PlayerLedger) -> None:
            while not stop.is_set():
                await self.spin(ledger, stake, time.monotonic() + grace)

        await asyncio.gather(
            *(player_loop(ledger) for ledger in self.players for _ in range(ledger.racers))
        )

    async def run(self, seconds: float, stake: int = 100, grace: float = 120.0) -> float:
        """Every player spins back to back for `seconds`; the wall time taken."""
        started = time.monotonic()
        stop_at = started + seconds
        give_up_at = stop_at + grace

        async def player_loop(ledger: PlayerLedger) -> None:
            while time.monotonic() < stop_at:
                await self.spin(ledger, stake, give_up_at)

        await asyncio.gather(
            *(player_loop(ledger) for ledger in self.players for _ in range(ledger.racers))
        )
        return time.monotonic() - started

    async def close_sessions(self) -> dict[str, dict[str, Any]]:
        """Close every session; the summaries the service answered."""
        give_up_at = time.monotonic() + 60

        async def close(ledger: PlayerLedger) -> tuple[str, dict[str, Any]]:
            answer = await self.exactly_once(
                "POST", f"/sessions/{ledger.session_id}/close", {}, self.operator, give_up_at
            )
            assert answer.status_code == 200, answer.text
            return ledger.session_id, answer.json()

        return dict(await asyncio.gather(*(close(ledger) for ledger in self.players)))


def mismatches(
    load: Load,
    database_url: str,
    summaries: dict[str, dict[str, Any]] | None = None,
    projections_timeout: float = 60.0,
) -> list[str]:
    """Everything in the store that disagrees with the ledger (empty: nothing lost or doubled).

    Replays each player from the store in a FRESH application (no cache), reads the balance
    view and every round view once the projections caught up, and compares session summaries.
    """
    from infrastructure.application import PumpkinApplication
    from projections.queries import RecallReader

    problems: list[str] = []
    application = PumpkinApplication.from_url(database_url)
    reader = RecallReader(database_url)
    try:
        end = application.recorder.max_notification_id() or 0
        if not reader.wait_for(end, timeout=projections_timeout):
            problems.append(f"projections stuck at {reader.position()} of {end}")
        for ledger in load.players:
            state = application.player_state(ledger.player_id)
            if state["balance"] != ledger.expected_balance:
                problems.append(
                    f"{ledger.player_id}: aggregate balance {state['balance']} "
                    f"!= accepted {ledger.expected_balance}"
                )
            stored_rounds = set(application.round_ids(ledger.player_id))
            if stored_rounds != set(ledger.rounds):
                problems.append(
                    f"{ledger.player_id}: {len(stored_rounds)} rounds stored, "
                    f"{len(ledger.rounds)} accepted "
                    f"(extra {sorted(stored_rounds - set(ledger.rounds))[:3]}, "
                    f"missing {sorted(set(ledger.rounds) - stored_rounds)[:3]})"
                )
            try:
                view = reader.balance(ledger.player_id)
            except Exception as error:  # noqa: BLE001 - reported as a problem, not a crash
                problems.append(f"balance view unreadable: {error}")
                break
            if view is None or view["balance"] != ledger.expected_balance:
                problems.append(
                    f"{ledger.player_id}: balance view {view and view['balance']} "
                    f"!= accepted {ledger.expected_balance}"
                )
            elif {k: view[k] for k in state if k not in NOT_IN_VIEW} != {
                k: v for k, v in state.items() if k not in NOT_IN_VIEW
            }:
                problems.append(f"{ledger.player_id}: balance view {view} != aggregate {state}")
            # One query per player (the reader's own SQL helper; one round at a time is slow).
            rows = reader._all(
                "SELECT round_id, record FROM view_rounds WHERE player_id = :p",
                {"p": ledger.player_id},
            )
            viewed = {row["round_id"]: json.loads(row["record"]) for row in rows}
            if set(viewed) != set(ledger.rounds):
                problems.append(f"{ledger.player_id}: round view ids != accepted round ids")
            for round_id, played in ledger.rounds.items():
                if viewed.get(round_id) != played:
                    problems.append(f"round view {round_id} differs from the accepted answer")
            if summaries is not None:
                for session_id, (spins, staked, won) in ledger.sessions.items():
                    expected = {
                        "session_id": session_id,
                        "spins": spins,
                        "staked": staked,
                        "won": won,
                        "net": won - staked,
                    }
                    summary = summaries.get(session_id) or {}
                    if {key: summary.get(key) for key in expected} != expected:
                        problems.append(
                            f"session {session_id}: summary {summaries.get(session_id)} "
                            f"!= accepted {expected}"
                        )
    finally:
        reader.close()
        application.close()
    return problems
