"""What the HTTP API reads besides the write side: the rules document, the auditor's
verification and the rounds read model. Each prefers the module that owns the job and falls
back to a minimal honest version while that module is absent (imports are lazy on purpose).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol

from domain import board


def _optional(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def rules_document() -> dict[str, Any]:
    """domain.rules_document.rules_document(), or the board's facts while it is absent."""
    full = _optional("domain.rules_document", "rules_document")
    if full is not None:
        document: dict[str, Any] = full()
        return document
    from domain.engine import current_model_version

    return {
        "model_version": current_model_version(),
        "stakes": list(board.STAKES),
        "paylines": [list(line) for line in board.PAYLINES],
        "paytable": {},
        "symbols": [],
        "states": [],
        "max_win": {"x_stake": board.MAX_WIN_X_STAKE},
        "disclosures": ["The full rules document is not available in this build."],
    }


def player_verifier(application: Any) -> Callable[[str], dict[str, Any]]:
    """infrastructure.verification.verify_player bound to the application."""
    verify = _optional("infrastructure.verification", "verify_player")

    def verify_player(player_id: str) -> dict[str, Any]:
        if verify is None:
            return {
                "ok": False,
                "events_checked": 0,
                "rounds_rederived": 0,
                "problems": ["verification is not available in this build"],
            }
        report: dict[str, Any] = verify(application, player_id)
        return report

    return verify_player


class RoundSource(Protocol):
    def player_rounds(
        self, player_id: str, limit: int, before: str | None
    ) -> list[dict[str, Any]]: ...

    def round(self, round_id: str) -> dict[str, Any] | None: ...


class ReadYourWritesRounds:
    """Rounds from the read model; a round it does not hold yet (just played, the projection
    still behind) is read from the write side, so a round is always found right after its spin.
    """

    def __init__(self, projection: RoundSource | None, write_side: RoundSource) -> None:
        self.projection = projection
        self.write_side = write_side

    def player_rounds(self, player_id: str, limit: int, before: str | None) -> list[dict[str, Any]]:
        source = self.projection or self.write_side
        return source.player_rounds(player_id, limit, before)

    def round(self, round_id: str) -> dict[str, Any] | None:
        found = self.projection.round(round_id) if self.projection is not None else None
        return found if found is not None else self.write_side.round(round_id)


SUMMARY_FIELDS = (
    "round_id",
    "session_id",
    "stake",
    "total_win",
    "balance_before",
    "balance_after",
    "level_before",
    "level_after",
    "model_version",
    "max_win_hit",
)


def round_summary(played: dict[str, Any]) -> dict[str, Any]:
    """One history line of a round (GET /rounds/{round_id} gives the whole of it)."""
    return {name: played[name] for name in SUMMARY_FIELDS if name in played}


class WriteSideRounds:
    """Rounds read back from the players' streams (slower than the read model, always current)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    def round(self, round_id: str) -> dict[str, Any] | None:
        from domain.errors import RoundNotFound

        try:
            played: dict[str, Any] = self.application.round(round_id)
        except RoundNotFound:
            return None
        return played

    def player_rounds(self, player_id: str, limit: int, before: str | None) -> list[dict[str, Any]]:
        ids: list[str] = self.application.round_ids(player_id)
        if before is not None:
            ids = ids[ids.index(before) + 1 :] if before in ids else []
        return [round_summary(self.application.round(round_id)) for round_id in ids[:limit]]
