"""The balances view (projections) against the players rebuilt by replay.

A player is compared only when the view has projected exactly the last event read from its
stream; a view behind the store is reported as such (not as a problem). A view AHEAD of the
stream, with no newer event in the store, saw events that are gone: deleted from the store's
tail, where the hash chain alone cannot see it. So is a player the view knows with no stream.
"""

from __future__ import annotations

from typing import Any

from infrastructure.audit.stream_check import StreamResult
from infrastructure.store.event_rows import EventRows

VIEW_FIELDS = ("balance", "level", "spins_to_next_level", "hold_and_win_multiplier",
               "free_spins_multiplier")


def _problem(result_stream: str, player_id: str | None, version: int, field: str,
             expected: Any, found: Any, kind: str, detail: str) -> dict[str, Any]:
    return {"kind": kind, "stream": result_stream, "player_id": player_id, "version": version,
            "round_id": None, "field": field, "expected": expected, "found": found,
            "detail": detail}


def compare_balance_view(
    rows: EventRows, results: list[StreamResult], single: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(what was compared, problems found)."""
    players = [r for r in results if r.player_id is not None]
    view = rows.balance_rows([str(r.player_id) for r in players] if single else None)
    if view is None:
        return {"compared": 0, "behind": len(players), "caught_up": False,
                "note": "no balances view in this store: the projections have not run"}, []
    problems: list[dict[str, Any]] = []
    compared = behind = 0
    for result in players:
        row = view.get(str(result.player_id))
        position = int(row["position"]) if row is not None else 0
        if row is None or position < result.last_notification:
            behind += 1
        elif position > result.last_notification:
            if not rows.has_events_after(result.stream, result.last_notification):
                problems.append(_problem(
                    result.stream, result.player_id, result.last_version + 1,
                    "view_balances.position", result.last_notification, position,
                    "missing_events", "the balances view projected an event of this stream "
                    "that is no longer in the store: events were deleted from its end"))
        elif result.player_state is not None:
            compared += 1
            problems.extend(_differences(result, row))
    if not single:
        known = {str(r.player_id) for r in players}
        for player_id, row in view.items():
            if player_id not in known:
                problems.append(_problem(
                    str(row["stream_id"]), player_id, 1, "stream", "the player's events",
                    None, "missing_events",
                    "the balances view knows this player but the store has no stream for it"))
    note = "all compared" if not behind else (
        f"{behind} player(s) not compared: the projections have not caught up with them")
    return {"compared": compared, "behind": behind, "caught_up": behind == 0,
            "note": note}, problems


def _differences(result: StreamResult, row: dict[str, Any]) -> list[dict[str, Any]]:
    state = result.player_state or {}
    found_problems = []
    for name in VIEW_FIELDS:
        found = float(row[name]) if name.endswith("multiplier") else row[name]
        if found != state.get(name):
            found_problems.append(_problem(
                result.stream, result.player_id, result.last_version, f"view_balances.{name}",
                state.get(name), found, "balance_view_mismatch",
                "the balances view differs from the player rebuilt by replay"))
    return found_problems
