"""The `pumpkin` command line: every command explains itself, and `serve` is a whole service."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from infrastructure.cli import app

COMMANDS = (
    ["serve"],
    ["simulate"],
    ["rules"],
    ["rng"],
    ["verify"],
    ["projections", "run"],
    ["projections", "rebuild"],
)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_explains_itself(command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output and len(result.output.splitlines()) > 4


def test_simulate_and_rng_take_the_contracts_options() -> None:
    simulate = CliRunner().invoke(app, ["simulate", "--help"]).output
    for option in (
        "--spins",
        "--level",
        "--hw-mult",
        "--fs-mult",
        "--seed",
        "--workers",
        "--json",
        "--report",
    ):
        assert option in simulate
    rng = CliRunner().invoke(app, ["rng", "--help"]).output
    assert "--seed" in rng and "--bytes" in rng


def test_a_bad_database_url_is_a_clear_configuration_error() -> None:
    result = CliRunner().invoke(
        app, ["projections", "rebuild"], env={"PUMPKIN_DATABASE_URL": "mysql://nope"}
    )
    assert result.exit_code == 2
    assert "PUMPKIN_DATABASE_URL" in result.output


def test_projections_rebuild_replays_the_store(store_url: str) -> None:
    result = CliRunner().invoke(
        app, ["projections", "rebuild"], env={"PUMPKIN_DATABASE_URL": store_url}
    )
    assert result.exit_code == 0, result.output
    assert "rebuilt" in result.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_alone_is_a_working_service_and_logs_its_generated_keys_once(
    tmp_path: Path, workers: int
) -> None:
    port = _free_port()
    env = {**os.environ, "PUMPKIN_PORT": str(port), "PUMPKIN_LOG_FORMAT": "json"}
    for name in ("PUMPKIN_OPERATOR_KEY", "PUMPKIN_AUDITOR_KEY", "PUMPKIN_DATABASE_URL"):
        env.pop(name, None)
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log_file:
        server = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from infrastructure.cli import main; main()",
                "serve",
                "--workers",
                str(workers),
            ],
            cwd=tmp_path,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(base)
        lines = [
            json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")
        ]
        keys = [line for line in lines if line["event"] == "generated_keys_for_this_run"]
        assert len(keys) == 1
        operator = {"Authorization": f"Bearer {keys[0]['operator_key']}"}
        for name in ("ann", "bob", "cy", "dee"):  # with 2 workers, both answer to the key
            created = httpx.post(f"{base}/players", json={"player_id": name}, headers=operator)
            assert created.status_code == 201
        assert (tmp_path / "pumpkin.db").exists()
    finally:
        server.terminate()
        server.wait(timeout=10)
    text = log_path.read_text()
    assert text.count(keys[0]["operator_key"]) == 1


def test_serve_on_an_unreachable_store_says_so_in_one_line() -> None:
    result = CliRunner().invoke(
        app, ["serve"], env={"PUMPKIN_DATABASE_URL": "postgresql://postgres@127.0.0.1:1/nowhere"}
    )
    assert result.exit_code == 3
    assert "cannot use the store postgresql://postgres@127.0.0.1:1/nowhere" in result.output


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(child) for child in listing.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_healthy(base: str) -> None:
    for _ in range(1200):  # up to a minute: a first start compiles the game kernel
        try:
            if httpx.get(f"{base}/health").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.05)


@contextlib.contextmanager
def _serving_two_workers(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`pumpkin serve --workers 2` on SQLite in tmp_path, healthy; stopped (and any worker it
    left behind killed) on exit."""
    port = _free_port()
    env = {**os.environ, "PUMPKIN_PORT": str(port), "PUMPKIN_OPERATOR_KEY": "k" * 32}
    env["PUMPKIN_AUDITOR_KEY"] = "a" * 32
    env.pop("PUMPKIN_DATABASE_URL", None)
    server = subprocess.Popen(
        [sys.executable, "-c", "from infrastructure.cli import main; main()", "serve",
         "--workers", "2"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    workers: list[int] = []
    try:
        _wait_healthy(base)
        workers = _children(server.pid)
        yield server, base
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=30)
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_workers_end_when_serve_is_killed_outright(tmp_path: Path) -> None:
    with _serving_two_workers(tmp_path) as (server, base):
        workers = _children(server.pid)
        assert workers
        server.kill()  # SIGKILL: the supervisor gets no chance to stop its workers
        server.wait(timeout=10)
        deadline = time.monotonic() + 20
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers)
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{base}/health", timeout=2)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads connections with ss")
def test_serve_spreads_connections_over_its_workers(tmp_path: Path) -> None:
    with _serving_two_workers(tmp_path) as (_, base):
        clients = [httpx.Client(base_url=base) for _ in range(24)]
        try:
            for client in clients:  # one keep-alive connection each, opened in a burst
                assert client.get("/health").status_code == 200
            port = base.rsplit(":", 1)[1]
            listed = subprocess.run(
                ["ss", "-tnpH", "state", "established", f"( sport = :{port} )"],
                capture_output=True, text=True, check=True,
            ).stdout
            owners = {line.split("pid=")[1].split(",")[0] for line in listed.splitlines()}
            assert len(owners) == 2  # both workers took connections from the burst
        finally:
            for client in clients:
                client.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_that_dies_is_started_again_on_its_socket(tmp_path: Path) -> None:
    with _serving_two_workers(tmp_path) as (server, base):
        workers = [pid for pid in _children(server.pid) if _alive(pid)]
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = [pid for pid in _children(server.pid) if _alive(pid)]
            if len(now) >= 2 and workers[0] not in now:
                break
            time.sleep(0.2)
        assert workers[0] not in now and len(now) >= 2
        for _ in range(20):  # every connection is answered, whichever socket it lands on
            assert httpx.get(f"{base}/health", timeout=30).status_code == 200
