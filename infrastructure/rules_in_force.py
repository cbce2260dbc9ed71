"""What every command of the write side is judged by: the clock (injected, so tests move it and
nothing sleeps) and the jurisdiction's player-protection profile (set from the settings)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from domain.ledger.protection import PROFILES, Profile


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class RulesInForce:
    clock: Callable[[], datetime] = utc_now
    profile: Profile = field(default_factory=lambda: PROFILES["none"])

    def now(self) -> datetime:
        return self.clock()
