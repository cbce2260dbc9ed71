"""Faults under load, each followed by the proof that nothing was lost or counted twice.

A real `pumpkin serve` subprocess is driven by an asyncio httpx load that keeps a ledger of every
accepted answer and retries every uncertain request with the same request_id
(bench/fault_load.py). Afterwards every player is replayed in a fresh application and the
aggregate balance, the balance view, every round view and every session summary must equal the
ledger. The real PostgreSQL server is never touched: outages go through a loopback TCP proxy.
(The long versions are in bench/soak.py.)
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx

from bench.fault_load import Load, bearer, mismatches  # noqa: E402
from bench.fault_tools import OPERATOR, ProjectionsProcess, Server, TcpProxy  # noqa: E402

FUNDS = 10**9


def test_the_api_and_the_projections_runner_killed_under_load_lose_and_double_nothing(
    store_url: str, tmp_path: Path
) -> None:
    server = Server(store_url, tmp_path / "serve.log", projections=False)
    projections = ProjectionsProcess(store_url, tmp_path / "projections.log")

    async def scenario() -> tuple[Load, dict[str, dict[str, object]]]:
        load = Load(server.base_url, OPERATOR, timeout=5.0, prefix="kill")
        await load.setup(8, FUNDS)
        stop = asyncio.Event()

        async def faults() -> None:
            try:
                await load.wait_accepted(24)
                server.kill()  # SIGKILL with requests in flight
                await asyncio.to_thread(server.start)
                await load.wait_accepted(load.accepted + 24)
                projections.kill()
                projections.start()
                await load.wait_accepted(load.accepted + 24)
            finally:
                stop.set()

        await asyncio.gather(load.run_until(stop), faults())
        summaries = await load.close_sessions()
        await load.aclose()
        return load, summaries

    try:
        server.start()
        projections.start()
        load, summaries = asyncio.run(scenario())
        assert projections.process is not None and projections.process.poll() is None
        problems = mismatches(load, store_url, summaries)
    finally:
        projections.stop()
        server.stop()
    assert load.stats.retries > 0, "the kill hit no request in flight: it proved nothing"
    assert problems == []
    assert '"event": "defect"' not in (tmp_path / "serve.log").read_text()


def test_a_database_outage_is_503_with_retry_after_and_the_api_recovers_by_itself(
    postgres_url: str, tmp_path: Path
) -> None:
    """PostgreSQL only: SQLite is a file in the API's own process and cannot go away alone."""
    proxy = TcpProxy()
    server = Server(proxy.url_for(postgres_url), tmp_path / "serve.log", projections=True)
    seen: dict[str, object] = {}

    async def scenario() -> tuple[Load, dict[str, dict[str, object]]]:
        load = Load(server.base_url, OPERATOR, timeout=30.0, prefix="outage")
        await load.setup(8, FUNDS)
        stop = asyncio.Event()

        async def outage() -> None:
            try:
                await load.wait_accepted(24)
                proxy.cut()
                try:
                    started = time.monotonic()
                    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as client:
                        player = load.players[0].player_id
                        answer = await client.get(f"/players/{player}", headers=bearer(OPERATOR))
                        seen["probe"] = (answer.status_code, answer.json(), dict(answer.headers))
                        seen["probe_seconds"] = time.monotonic() - started
                        seen["health"] = (await client.get("/health")).status_code
                finally:
                    proxy.restore()
                # Recovers by itself: more rounds are accepted with nothing restarted.
                await load.wait_accepted(load.accepted + 24)
            finally:
                stop.set()

        await asyncio.gather(load.run_until(stop), outage())
        summaries = await load.close_sessions()
        await load.aclose()
        return load, summaries

    try:
        server.start()
        load, summaries = asyncio.run(scenario())
        problems = mismatches(load, postgres_url, summaries)
    finally:
        server.stop()
        proxy.close()
    status, body, headers = seen["probe"]  # type: ignore[misc]
    assert status == 503, body
    assert body == {"error": {"code": "store_unavailable", "message": body["error"]["message"]}}
    assert headers["retry-after"].isdigit()
    assert seen["probe_seconds"] < 20, "an outage is answered, not hung (it was ~100 s)"
    assert seen["health"] == 200  # the process itself is alive
    outage_answers = sum(v for k, v in load.stats.outcomes.items() if k.startswith("503"))
    assert outage_answers > 0, load.stats.outcomes
    assert not any(k.startswith("5") and "503" not in k for k in load.stats.outcomes)
    assert problems == []
    assert '"event": "defect"' not in (tmp_path / "serve.log").read_text()


def test_an_impatient_client_retrying_with_the_same_request_id_is_served_exactly_once(
    store_url: str, tmp_path: Path
) -> None:
    """Clients that give up long before the answer and send the same request again at once,
    while the first is still being served."""
    server = Server(store_url, tmp_path / "serve.log", projections=True)

    async def scenario() -> tuple[Load, dict[str, dict[str, object]]]:
        load = Load(server.base_url, OPERATOR, timeout=5.0, prefix="impatient")
        await load.setup(4, FUNDS)
        for ledger in load.players:
            ledger.timeout = 0.001  # every first attempt gives up; retries wait longer
        stop = asyncio.Event()

        async def enough() -> None:
            try:
                await load.wait_accepted(40)
            finally:
                stop.set()

        await asyncio.gather(load.run_until(stop), enough())
        summaries = await load.close_sessions()
        await load.aclose()
        return load, summaries

    try:
        server.start()
        load, summaries = asyncio.run(scenario())
        problems = mismatches(load, store_url, summaries)
    finally:
        server.stop()
    assert any("Timeout" in k for k in load.stats.outcomes), load.stats.outcomes
    assert problems == []
