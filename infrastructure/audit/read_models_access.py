"""What the HTTP API reads besides the write side: the auditor's verification and the rounds
read model (imports are lazy: they are heavy, and the CLI's
other commands do not need them)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from domain.errors import RoundNotFound
from infrastructure.logging import WarnEvery, get_logger

T = TypeVar("T")
log = get_logger("pumpkin.reads")
WARN_INTERVAL_SECONDS = 60.0


def player_verifier(application: Any) -> Callable[[str], dict[str, Any]]:
    """infrastructure.audit.verification.verify_player bound to the application."""
    from infrastructure.audit.verification import verify_player as verify

    def verify_player(player_id: str) -> dict[str, Any]:
        report: dict[str, Any] = verify(application, player_id)
        return report

    return verify_player


class RoundSource(Protocol):
    def player_rounds(
        self, player_id: str, limit: int, before: str | None
    ) -> list[dict[str, Any]]: ...

    def round(self, round_id: str) -> dict[str, Any] | None: ...


class ReadYourWritesRounds:
    """Rounds from the read model, never behind the caller's own writes: a round the projection
    does not hold yet (just played) is read from the write side, and a first page whose newest
    round is not the player's newest is waited for briefly, then built from the write side."""

    def __init__(
        self,
        projection: RoundSource | None,
        write_side: WriteSideRounds,
        wait_seconds: float = 0.25,
    ) -> None:
        self.projection = projection
        self.write_side = write_side
        self.wait_seconds = wait_seconds
        self._warnings = WarnEvery(WARN_INTERVAL_SECONDS)

    def player_rounds(self, player_id: str, limit: int, before: str | None) -> list[dict[str, Any]]:
        if self.projection is None:
            return self.write_side.player_rounds(player_id, limit, before)
        newest = self.write_side.newest_round_id(player_id) if before is None else None
        deadline = time.monotonic() + self.wait_seconds
        while True:
            page = self._projected(lambda p: p.player_rounds(player_id, limit, before))
            if page is None:
                break
            if newest is None or (page and page[0]["round_id"] == newest):
                return page
            if time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        return self.write_side.player_rounds(player_id, limit, before)

    def round(self, round_id: str) -> dict[str, Any] | None:
        found = self._projected(lambda p: p.round(round_id))
        return found if found is not None else self.write_side.round(round_id)

    def _projected(self, read: Callable[[RoundSource], T]) -> T | None:
        """The read model's answer; None if there is none or it fails (no views yet)."""
        if self.projection is None:
            return None
        try:
            return read(self.projection)
        except Exception as exc:  # noqa: BLE001 - the write side can always answer instead
            # Once a minute per kind of error, not every request (a store without views would
            # say it every time), and not once for good: a bad round id that fails one way must
            # not silence the warning of an outage that fails another.
            if self._warnings.due(type(exc).__name__):
                log.warning("rounds_read_model_unavailable", error=type(exc).__name__)
            return None


def round_summary(played: dict[str, Any]) -> dict[str, Any]:
    """One history line of a round, in the read model's shape (the write side has no time)."""
    return {
        "round_id": played["round_id"],
        "time": None,
        "stake": played["stake"],
        "total_win": played["total_win"],
        "level_before": played["level_before"],
        "level_after": played["level_after"],
        "features": _features(played.get("events", [])),
        "max_win_hit": played["max_win_hit"],
    }


def _features(event_names: list[str]) -> list[str]:
    from domain.ledger.round_features import round_features

    return list(round_features(event_names))


class WriteSideRounds:
    """Rounds read back from the players' streams (slower than the read model, always current)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    def round(self, round_id: str) -> dict[str, Any] | None:
        try:
            played: dict[str, Any] = self.application.round(round_id)
        except RoundNotFound:
            return None
        return played

    def newest_round_id(self, player_id: str) -> str | None:
        ids: list[str] = self.application.round_ids(player_id)
        return ids[0] if ids else None

    def player_rounds(self, player_id: str, limit: int, before: str | None) -> list[dict[str, Any]]:
        ids: list[str] = self.application.round_ids(player_id)
        if before is not None:
            ids = ids[ids.index(before) + 1 :] if before in ids else []
        return [round_summary(self.application.round(round_id)) for round_id in ids[:limit]]
