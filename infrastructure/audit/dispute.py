"""`pumpkin dispute ROUND_ID --out FILE [--json]`: everything about one round, for a regulator
with no access to the service: the state before, the stake, the seed and model version, every
step with its screen, line wins with their paylines, collections and feature states, the
settlement arithmetic, and the verdict (re-derivation by the engine, and the round's place in
its stream's hash chain). HTML by default (infrastructure.audit.dispute_html), JSON with --json.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer

from domain.errors import RoundNotFound
from domain.game.board import MAX_WIN_X_STAKE, PAYLINES
from domain.game.progress import multiplier_of
from domain.ledger.player import parse_round_id, player_aggregate_id
from domain.ledger.recall import round_view
from infrastructure.audit.dispute_fair import fairness_section
from infrastructure.audit.dispute_protection import protection_before
from infrastructure.audit.round_check import RecordedEvent, RoundRecord
from infrastructure.audit.stream_check import StreamResult
from infrastructure.audit.verification import check_stream
from infrastructure.store.event_rows import EventRows
from infrastructure.transparency.log_service import inclusion_of
from infrastructure.transparency.log_store import LogStore

# The state before and after, shown as the player state shows it (multipliers as numbers);
# the events record the multipliers in halves (domain.ledger.recorded_progress).
SHOWN_HALVES = (("hold_and_win_multiplier", "hold_and_win_halves"),
                ("free_spins_multiplier", "free_spins_halves"))


def dispute_report(application: Any, round_id: str) -> dict[str, Any]:
    """The whole report of one round as a JSON-ready dict."""
    parsed = parse_round_id(round_id)
    if parsed is None:
        raise RoundNotFound(f"no round {round_id!r}")
    stream = str(player_aggregate_id(parsed[0]))
    result = check_stream(application, EventRows(application), stream, capture_round=round_id)
    record = result.captured
    if record is None or record.settled is None:
        raise RoundNotFound(
            f"no complete round {round_id!r} in a stream that replays up to it "
            "(run `pumpkin verify --player` for the reasons)"
        )
    events = [record.stake_placed, *record.facts, record.settled]
    played = round_view((e.name, e.payload) for e in events)
    return {
        "report": "Pumpkin RGS dispute report",
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "round_id": round_id,
        "player_id": parsed[0],
        "state_before": {
            "balance": played["balance_before"], **_state(record.stake_placed.payload),
        },
        "state_after": {"balance": played["balance_after"], **_state(record.settled.payload)},
        "stake": played["stake"],
        "seed": played["seed"],
        "model_version": played["model_version"],
        "session_id": played["session_id"],
        "fairness": fairness_section(application, played),
        "steps": [_step(i, step) for i, step in enumerate(played["steps"])],
        "settlement": settlement(played),
        "verification": _verdict(result, record, events),
        "round": played,
        "events": [_event(e) for e in events],
        "protection": protection_before(
            application, parsed[0], played["session_id"], record.stake_placed.version
        ),
        "transparency": transparency_section(application, round_id),
    }


def transparency_section(application: Any, round_id: str) -> dict[str, Any]:
    """The round's inclusion proof in the transparency log, and how to check it
    (docs/TRANSPARENCY.md), or why there is none yet."""
    proof = inclusion_of(LogStore(EventRows(application)), round_id)
    if proof is None:
        return {"included": False, "note": "no signed checkpoint covers this round yet: ask "
                "GET /rounds/{id}/proof again after the next checkpoint (every 60 s)"}
    return {"included": True, **proof, "how_to_check": CHECK_PROOF_STEPS}


CHECK_PROOF_STEPS = (
    "1. The checkpoint's signature holds with the log key you pinned (GET /log/key). "
    "2. Its third line, base64-decoded, is root_hash. "
    "3. leaf_hash = SHA-256(0x00 || leaf). "
    "4. Walk the inclusion hashes (RFC 9162 section 2.1.3.2): with fn = leaf_index and "
    "sn = tree_size - 1, for each hash p: if fn is odd or fn = sn, r = SHA-256(0x01 || p || r) "
    "and, while fn is even and not 0, halve fn and sn; else r = SHA-256(0x01 || r || p); then "
    "halve fn and sn. At the end sn is 0 and r is root_hash (docs/TRANSPARENCY.md has it in "
    "Python)."
)


def _state(payload: dict[str, Any]) -> dict[str, Any]:
    """Level, meter and multipliers a StakePlaced or RoundSettled recorded (a field a damaged
    event lacks reads as None; one that is not halves is shown as found)."""
    state = {name: payload.get(name) for name in ("level", "spins_to_next_level")}
    for shown, recorded in SHOWN_HALVES:
        halves = payload.get(recorded)
        is_halves = isinstance(halves, int) and not isinstance(halves, bool)
        state[shown] = multiplier_of(halves) if isinstance(halves, int) and is_halves else halves
    return state


def _step(index: int, step: dict[str, Any]) -> dict[str, Any]:
    shown = dict(step)
    shown["index"] = index
    shown["line_wins"] = [
        {**win, "payline": list(PAYLINES[int(win["line"]) - 1]),
         "cells": [[reel + 1, row] for reel, row in enumerate(PAYLINES[int(win["line"]) - 1])]}
        for win in step.get("line_wins", [])
    ]
    return shown


def settlement(played: dict[str, Any]) -> dict[str, Any]:
    """The arithmetic a reader can redo: steps' wins summed (capped), then the balance."""
    step_wins = [int(step.get("win", 0)) for step in played["steps"]]
    summed = sum(step_wins)
    cap = MAX_WIN_X_STAKE * int(played["stake"])
    capped = min(summed, cap)
    before, stake, total = played["balance_before"], played["stake"], played["total_win"]
    expected_after = before - stake + total
    return {
        "balance_before": before,
        "stake": stake,
        "step_wins": step_wins,
        "sum_of_step_wins": summed,
        "sum_expression": f"{' + '.join(map(str, step_wins)) or '0'} = {summed}",
        "max_win_cap": cap,
        "total_win": total,
        "max_win_hit": played["max_win_hit"],
        "balance_after": played["balance_after"],
        "total_win_agrees": total == capped,
        "balance_agrees": played["balance_after"] == expected_after,
        "equation": f"{before} - {stake} + {total} = {expected_after}",
    }


def _verdict(
    result: StreamResult, record: RoundRecord, events: list[RecordedEvent]
) -> dict[str, Any]:
    versions = {e.version for e in events}
    mine = [p for p in result.problems
            if p["round_id"] == record.round_id or p["version"] in versions]
    broken = {p["version"] for p in mine if p["kind"] in ("broken_link", "version_gap")}
    return {
        "round_ok": not mine,
        "stream_ok": not result.problems,
        "stream_problems_total": len(result.problems),
        "rederived": record.rederived,
        "problems": mine,
        "chain": {
            "stream": result.stream,
            "first_version": events[0].version,
            "last_version": events[-1].version,
            "stream_last_version": result.last_version,
            "events": [
                {"version": e.version, "event": e.name, "prev_hash": e.prev_hash, "hash": e.hash,
                 "link_ok": e.version not in broken}
                for e in events
            ],
        },
    }


def _event(event: RecordedEvent) -> dict[str, Any]:
    return {"version": event.version, "event": event.name, "prev_hash": event.prev_hash,
            "hash": event.hash, "payload": event.payload}


def dispute_command(settings: Any, round_id: str, out: Path | None, json_out: bool) -> int:
    """Write the report (to `out`, else to stdout, the verdict then on stderr); exit 0 if the
    round verifies, 1 if it does not, 2 if there is none."""
    from infrastructure.application import PumpkinApplication
    from infrastructure.audit.dispute_html import render

    application = PumpkinApplication.from_url(settings.database_url)
    try:
        report = dispute_report(application, round_id)
    except RoundNotFound as exc:
        typer.echo(f"pumpkin dispute: {exc}", err=True)
        return 2
    finally:
        application.close()
    text = json.dumps(report, indent=2, default=str) if json_out else render(report)
    verdict = "VERIFIED" if report["verification"]["round_ok"] else "NOT VERIFIED"
    if out is None:
        typer.echo(text)
        typer.echo(f"{round_id}: {verdict}", err=True)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"{round_id}: {verdict}; report written to {out}")
    return 0 if report["verification"]["round_ok"] else 1
