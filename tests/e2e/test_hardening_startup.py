"""`pumpkin serve` refuses to start rather than serve badly: keys too short or equal (issue 17,
finding 9), a port another server already holds (finding 6), or a jurisdiction its model cannot
play (`de` without a no-jackpot model, issue 26)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from repo_paths import REPO

GOOD_OPERATOR = "operator-key-0123456789"
GOOD_AUDITOR = "auditor-key-0123456789"


def _serve(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`pumpkin serve` in tmp_path (SQLite there); a server that starts instead of refusing is
    stopped by the timeout and fails the test."""
    environment = {
        **os.environ,
        "PUMPKIN_OPERATOR_KEY": GOOD_OPERATOR,
        "PUMPKIN_AUDITOR_KEY": GOOD_AUDITOR,
        "PUMPKIN_LOG_FORMAT": "json",
        **env,
    }
    environment.pop("PUMPKIN_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-c", "from infrastructure.cli import main; main()", "serve", *args],
        cwd=tmp_path,
        env={**environment, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=30,
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.parametrize(
    ("operator", "auditor", "complaint"),
    [
        ("k" * 15, GOOD_AUDITOR, "PUMPKIN_OPERATOR_KEY is shorter than 16"),
        (GOOD_OPERATOR, "a" * 15, "PUMPKIN_AUDITOR_KEY is shorter than 16"),
        (GOOD_OPERATOR, GOOD_OPERATOR, "are the same key"),
    ],
)
def test_serve_refuses_short_or_equal_keys(
    tmp_path: Path, operator: str, auditor: str, complaint: str
) -> None:
    try:
        result = _serve(
            tmp_path,
            "--port",
            str(_free_port()),
            PUMPKIN_OPERATOR_KEY=operator,
            PUMPKIN_AUDITOR_KEY=auditor,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("serve started with keys it must refuse")
    assert result.returncode == 2
    assert complaint in result.stderr
    assert auditor[:15] not in result.stderr + result.stdout  # the refusal prints no key


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="SO_REUSEPORT: POSIX")
def test_serve_refuses_a_port_another_server_holds(tmp_path: Path) -> None:
    port = _free_port()
    with socket.socket() as other_instance:  # what a running `serve --workers N` worker holds
        other_instance.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other_instance.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other_instance.bind(("127.0.0.1", port))
        other_instance.listen(8)
        try:
            result = _serve(tmp_path, "--port", str(port), "--workers", "2")
        except subprocess.TimeoutExpired:
            pytest.fail("a second serve shared the port instead of refusing it")
    assert result.returncode == 3
    assert f"127.0.0.1:{port} is already in use" in result.stderr


def test_serve_refuses_de_while_the_model_in_force_plays_jackpots(tmp_path: Path) -> None:
    try:
        result = _serve(tmp_path, "--port", str(_free_port()), PUMPKIN_JURISDICTION="de")
    except subprocess.TimeoutExpired:
        pytest.fail("serve started de with a model that plays jackpots")
    assert result.returncode == 2
    assert "PUMPKIN_JURISDICTION=de" in result.stderr
    assert "no jackpot round may be served" in result.stderr
