"""What every command of the write side is judged by: the clock (injected, so tests move it and
nothing sleeps), the jurisdiction's player-protection profile and the RTP variant (both set from
the settings): a round plays the variant's model, or its no-jackpot model where the profile
forbids jackpots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from domain.game.variants import default_variant, model_in_force
from domain.ledger.protection import PROFILES, Profile


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class RulesInForce:
    clock: Callable[[], datetime] = utc_now
    profile: Profile = field(default_factory=lambda: PROFILES["none"])
    variant: str | None = None  # None: the default variant ("96")

    def now(self) -> datetime:
        return self.clock()

    def model_version(self) -> str | None:
        """The model version new rounds play (None: the current model, the default variant's)."""
        if self.variant in (None, default_variant()) and self.profile.jackpots:
            return None
        return model_in_force(self.variant, self.profile.jackpots).version
