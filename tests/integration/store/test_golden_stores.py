"""Stores written by an earlier release (tests/golden, made at commit aa48bb4 by make_golden.py)
keep verifying, read as they did, and keep playing, on SQLite and on PostgreSQL."""

from __future__ import annotations

import gzip
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repo_paths import GOLDEN
from store_kinds_support import STORES, fresh_postgres_database
from typer.testing import CliRunner

from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_store
from infrastructure.cli import app as cli
from infrastructure.store.database_url import postgres_address

EXPECTED: dict[str, Any] = json.loads((GOLDEN / "expected.json").read_text())


@pytest.fixture(params=STORES)
def golden_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A private copy of the golden store of one kind (the checked-in files are never written)."""
    if request.param == "sqlite":
        path = tmp_path / "golden.sqlite"
        path.write_bytes(gzip.decompress((GOLDEN / "store.sqlite.gz").read_bytes()))
        yield f"sqlite:///{path}"
        return
    with fresh_postgres_database() as url:
        subprocess.run(
            ["psql", "-q", "-v", "ON_ERROR_STOP=1", postgres_address(url).conninfo()],
            input=gzip.decompress((GOLDEN / "store.sql.gz").read_bytes()),
            check=True, capture_output=True,
        )
        yield url


def verify(url: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["verify", "--json"], env={"PUMPKIN_DATABASE_URL": url})
    assert result.exit_code == 0, result.stdout
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_pumpkin_verify_passes_on_a_store_written_by_the_earlier_release(golden_url: str) -> None:
    report = verify(golden_url)
    assert report["ok"] and report["problems"] == []
    assert report["events_checked"] == EXPECTED["verify"]["events_checked"]
    assert report["rounds_rederived"] == EXPECTED["verify"]["rounds_rederived"]


def test_every_balance_level_meter_round_and_session_reads_as_before(golden_url: str) -> None:
    with PumpkinApplication.from_url(golden_url) as app:
        for player_id, expected in EXPECTED["players"].items():
            # Protection came later: a player of an older store is simply not excluded.
            assert app.player_state(player_id) == {
                **expected["state"], "excluded": False, "excluded_until": None
            }
            assert app.round_ids(player_id)[:1] == (
                [f"{player_id}.{expected['round_count']}"] if expected["round_count"] else []
            )
            for round_id, view in expected["rounds"].items():
                assert app.round(round_id) == view
            player = app.load_player(player_id)
            assert player.version == expected["version"]
            for session_id, summary in expected["sessions"].items():
                # The aggregate keeps open sessions only: read as GET /sessions/{sid} does.
                session = app.session(session_id)
                assert {key: session[key] for key in summary} == summary
                assert session["seed_commitment"] is None  # opened before commitments
                # Closed before the closer was recorded: said so, never null.
                assert session["closed_by"] == (None if summary["open"] else "unknown")


def test_players_of_the_earlier_release_play_on_and_still_verify(golden_url: str) -> None:
    before = EXPECTED["players"]["dee"]["state"]
    open_session = next(s for s, v in EXPECTED["players"]["dee"]["sessions"].items() if v["open"])
    with PumpkinApplication.from_url(golden_url) as app:
        answer = app.spin(open_session, 20, "golden-play-on-1")
        assert answer["round_id"] == f"dee.{EXPECTED['players']['dee']['round_count'] + 1}"
        assert answer["level_before"] == 5
        assert answer["balance_before"] == before["balance"]
        assert app.deposit("dee", 1_000, "golden-deposit-1") == answer["balance_after"] + 1_000
        session_id, _token = app.open_session("cy")
        app.spin(session_id, 40, "golden-play-on-2")
        assert app.close_session(session_id)["closed_by"] == "operator"
        app.register_player("latecomer")
        app.deposit("latecomer", 500, "golden-deposit-2")
        assert app.player_state("dee")["level"] == 5
        report = verify_store(app)
    assert report["ok"], report["problems"][:3]
    assert report["events_checked"] > EXPECTED["verify"]["events_checked"]
    assert verify(golden_url)["rounds_rederived"] == EXPECTED["verify"]["rounds_rederived"] + 2
