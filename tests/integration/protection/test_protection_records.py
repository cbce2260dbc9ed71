"""Protection's events reach the audit trail, the statistics and the dispute report."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from protection_support import protected_session

from domain.errors import RealityCheckDue, StakeLimit
from infrastructure.application import PumpkinApplication
from infrastructure.audit.dispute import dispute_report
from projections.export import audit_rows
from projections.queries import RecallReader
from projections.runner import ProjectionsRunner


def test_protection_events_are_in_the_audit_trail_statistics_and_dispute_report(
    store_url: str,
) -> None:
    app = PumpkinApplication.from_url(store_url)
    try:
        clock, player_id, session_id = protected_session(app, "uk", 15)
        app.set_limits(player_id, {"loss_per_day": 10_000})
        with pytest.raises(StakeLimit):
            app.spin(session_id, 2000, "big")
        clock.move(seconds=3)
        played = app.spin(session_id, 100, "r1")
        report = dispute_report(app, played["round_id"])
        assert [e["event"] for e in report["protection"]] == [
            "SessionProtected", "LimitsChanged", "ProtectionRefused"
        ]
        assert report["protection"][-1]["payload"]["rule"] == "stake_limit"
    finally:
        app.close()
    runner = ProjectionsRunner(store_url)
    try:
        runner.catch_up()
    finally:
        runner.stop()
    names = [row["name"] for row in audit_rows(store_url, player_id)]
    assert {"SessionProtected", "LimitsChanged", "ProtectionRefused"} <= set(names)
    reader = RecallReader(store_url)
    try:
        protection = reader.stats()["protection"]
    finally:
        reader.close()
    assert {(row["event"], row["rule"], row["count"]) for row in protection} == {
        ("SessionProtected", "", 1), ("LimitsChanged", "", 1),
        ("ProtectionRefused", "stake_limit", 1),
    }


def test_a_fresh_process_reads_and_verifies_a_stream_with_protection_events(
    store_url: str,
) -> None:
    app = PumpkinApplication.from_url(store_url)
    try:
        clock, player_id, session_id = protected_session(app, "uk", 30)
        app.spin(session_id, 100, "r1")
        app.set_limits(player_id, {"max_stake": 100, "session_minutes": 60})
        clock.move(minutes=30)
        with pytest.raises(RealityCheckDue):
            app.spin(session_id, 100, "r2")
        app.reality_check(session_id, True)
        app.exclude(player_id, None, "for good")
    finally:
        app.close()
    verified = subprocess.run(
        [sys.executable, "-c", "from infrastructure.cli import app; app()", "verify",
         "--player", player_id],
        env={**os.environ, "PUMPKIN_DATABASE_URL": store_url},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
