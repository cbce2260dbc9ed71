"""`pumpkin dispute ROUND_ID --out FILE [--json]`: a report a regulator can check by hand, with
no access to the service, and that says plainly when the round does not verify."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_verify_store import feature_rich_model, play
from test_verify_tampering import put_state, rows
from typer.testing import CliRunner

from domain.game import engine as engine_module
from domain.game import model as model_module
from domain.game.board import PAYLINES
from domain.game.model import registry
from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication
from infrastructure.audit.dispute import dispute_report
from infrastructure.audit.dispute_html import render, screen_table
from infrastructure.cli import app


@pytest.fixture
def features(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    model = feature_rich_model("test-disputes")
    model.definition["states"] = {
        key: {**table, "activation_ppm": 200_000} for key, table in
        model.definition["states"].items()
    }
    published = {**registry(), model.version: model}
    monkeypatch.setattr(model_module, "registry", lambda: published)
    monkeypatch.setattr(engine_module, "current_model", lambda: model)
    yield


def a_round_with(service: PumpkinApplication, *kinds: str) -> str:
    """The id of a played round with line wins and steps of these kinds."""
    for n in range(1, 200):
        steps = service.round(f"ivy.{n}")["steps"]
        if {s["kind"] for s in steps} >= set(kinds) and any(s["line_wins"] for s in steps):
            return f"ivy.{n}"
    raise AssertionError("no such round was played")


def dispute(store_url: str, round_id: str, out: Path, *args: str) -> int:
    result = CliRunner().invoke(app, ["dispute", round_id, "--out", str(out), *args],
                                env={"PUMPKIN_DATABASE_URL": store_url})
    return result.exit_code


def test_the_report_lets_a_reader_redo_the_arithmetic(
    service: PumpkinApplication, store_url: str, features: None, tmp_path: Path
) -> None:
    play(service, "ivy", 150)
    round_id = a_round_with(service, "base", "hold_and_win")
    assert dispute(store_url, round_id, tmp_path / "r.json", "--json") == 0
    report: dict[str, Any] = json.loads((tmp_path / "r.json").read_text())
    before, s = report["state_before"], report["settlement"]
    assert report["seed"] == service.round(round_id)["seed"] and len(report["seed"]) == 64
    assert report["model_version"].startswith("test-disputes-")
    assert {"level", "spins_to_next_level", "hold_and_win_multiplier",
            "free_spins_multiplier"} < before.keys()
    assert sum(step["win"] for step in report["steps"]) == s["total_win"]
    assert before["balance"] - report["stake"] + s["total_win"] == s["balance_after"]
    for step in report["steps"]:
        assert len(step["screen"]) == 5 and all(len(reel) == 3 for reel in step["screen"])
        for win in step["line_wins"]:
            assert win["payline"] == list(PAYLINES[win["line"] - 1])
            assert all(step["screen"][reel - 1][row] in (win["symbol"], "WILD")
                       for reel, row in win["cells"][: win["count"]])
    hold_and_win = [st for st in report["steps"] if st["kind"] == "hold_and_win"]
    assert all("respins_left" in st and "collectors" in st for st in hold_and_win)
    verdict = report["verification"]
    assert verdict["round_ok"] and verdict["rederived"]["ok"]
    chain = verdict["chain"]["events"]
    assert chain[0]["event"] == "StakePlaced" and chain[-1]["event"] == "RoundSettled"
    assert all(after["prev_hash"] == before["hash"] for before, after in zip(chain, chain[1:],
                                                                              strict=False))
    assert verdict["chain"]["stream"] == str(player_aggregate_id("ivy"))


def test_the_html_report_draws_screens_and_paylines_and_states_the_verdict(
    service: PumpkinApplication, store_url: str, features: None, tmp_path: Path
) -> None:
    play(service, "ivy", 150)
    round_id = a_round_with(service, "hold_and_win")
    out = tmp_path / "r.html"
    assert dispute(store_url, round_id, out) == 0
    page = out.read_text()
    report = dispute_report(service, round_id)
    assert page.startswith("<!DOCTYPE html>") and "VERIFIED" in page
    assert page.count('<table class="screen">') >= len(report["steps"])
    assert 'class="on"' in page  # a payline's cells are marked
    assert report["settlement"]["equation"] in page
    assert "<script" not in page and "http" not in page.split("<pre>")[0].lower()


def test_a_tampered_round_is_reported_not_verified(
    service: PumpkinApplication, store_url: str, tmp_path: Path
) -> None:
    play(service, "ivy", 5)
    stream = player_aggregate_id("ivy").hex
    version, state = rows(store_url, stream, "RoundSettled")[2]
    put_state(store_url, stream, version, state.replace(b'"total_win":', b'"total_win":9'))
    assert dispute(store_url, "ivy.3", tmp_path / "r.html") == 1
    page = (tmp_path / "r.html").read_text()
    assert "NOT VERIFIED" in page and "RoundSettled.total_win" in page
    assert dispute(store_url, "ivy.2", tmp_path / "ok.html") == 0


def test_without_out_the_report_is_written_to_stdout(
    service: PumpkinApplication, store_url: str, tmp_path: Path
) -> None:
    play(service, "ivy", 2)
    result = CliRunner().invoke(app, ["dispute", "ivy.2", "--json"],
                                env={"PUMPKIN_DATABASE_URL": store_url})
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["round_id"] == "ivy.2" and report["verification"]["round_ok"]
    assert "ivy.2: VERIFIED" in result.stderr


def test_an_unknown_round_is_a_usage_error(store_url: str, tmp_path: Path) -> None:
    assert dispute(store_url, "nobody.1", tmp_path / "r.html") == 2
    assert dispute(store_url, "not a round", tmp_path / "r.html") == 2


def test_every_value_in_the_html_is_escaped() -> None:
    drawn = screen_table([["<script>alert(1)</script>", "A", "K"]] * 5, [[1, 0]])
    assert "<script>" not in drawn and "&lt;script&gt;" in drawn
    report = {
        "report": "<zz-b>x", "round_id": "<zz-i>", "player_id": "p&", "session_id": '"',
        "generated_at": "now", "state_before": {"balance": 1}, "state_after": {"balance": 1},
        "stake": 20, "seed": "<zz-seed>", "model_version": "<zz-m>", "steps": [],
        "settlement": {"sum_of_step_wins": 0, "max_win_cap": 1, "total_win": 0,
                       "max_win_hit": False, "equation": "<zz-eq>", "balance_after": 1,
                       "total_win_agrees": True, "balance_agrees": True},
        "verification": {"round_ok": False, "stream_ok": False, "stream_problems_total": 1,
                         "rederived": None, "problems": [
                             {"kind": "<zz-k>", "version": 1, "field": "<zz-f>",
                              "expected": "<zz-e>", "found": "<zz-x>", "detail": "<zz-d>"}],
                         "chain": {"stream": "<zz-s>", "first_version": 1, "last_version": 1,
                                   "stream_last_version": 1, "events": []}},
        "events": [{"payload": "<zz-p>"}],
    }
    page = render(report)
    assert "<zz-" not in page and page.count("&lt;zz-") >= 12


def test_the_dispute_command_explains_itself() -> None:
    result = CliRunner().invoke(app, ["dispute", "--help"])
    assert result.exit_code == 0
    assert "round_id" in result.output.lower() and "--out" in result.output
    assert "--json" in result.output
