"""A clock that tests move by hand, and an application or player wired to it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from domain.ledger.protection import PROFILES
from infrastructure.application import PumpkinApplication

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def move(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def protected(app: PumpkinApplication, profile: str = "uk") -> FakeClock:
    """Put `app` under `profile` and a fake clock; the clock."""
    clock = FakeClock()
    app.clock = clock
    app.profile = PROFILES[profile]
    return clock


def funded_player(
    app: PumpkinApplication, player_id: str = "p1", balance: int = 10**7,
    age_band: str | None = None,
) -> str:
    app.register_player(player_id, age_band)
    app.deposit(player_id, balance, f"{player_id}-deposit")
    return player_id


def event_names(app: PumpkinApplication, player_id: str) -> list[str]:
    return [name for name, _ in stream(app, player_id)]


def stream(app: PumpkinApplication, player_id: str) -> list[tuple[str, dict[str, Any]]]:
    aggregate_id = app.load_player(player_id).id
    return [(type(e).__name__, vars(e)) for e in app.events.get(aggregate_id)]


def loss_of(rounds: list[dict[str, Any]]) -> int:
    return sum(r["stake"] - r["total_win"] for r in rounds)


def protected_session(
    app: PumpkinApplication, profile: str = "uk", minutes: int | None = None,
    age_band: str | None = None,
) -> tuple[FakeClock, str, str]:
    """(clock, player_id, session_id): `app` under `profile`, a funded player (of `age_band`),
    an open session."""
    clock = protected(app, profile)
    player_id = funded_player(app, age_band=age_band)
    session_id, _ = app.open_session(player_id, minutes)
    return clock, player_id, session_id
