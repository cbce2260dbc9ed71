"""Player protection: jurisdiction profiles and the rules a spin must pass, decided from state.

Pure: every rule takes `now` (epoch seconds, from the application's injected clock) and the
player's guard (domain.ledger.guard: its protection state, immutable values rebuilt from the
player's own events, so every worker and every restart decide alike).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.errors import (
    InvalidAgeBand,
    InvalidExclusion,
    InvalidLimits,
    InvalidRealityCheck,
    LossLimit,
    PlayerExcluded,
    RealityCheckDue,
    RoundTooSoon,
    SessionLimit,
    SessionTimeLimit,
    StakeLimit,
)
from domain.game.engine import check_stake
from domain.ledger.guard import MINUTE, Guard, PendingLimit

COOLING_OFF_SECONDS = 24 * 3600
LOSS_WINDOWS: dict[str, int] = {  # rolling windows, in seconds (a month is 30 days)
    "loss_per_day": 24 * 3600,
    "loss_per_week": 7 * 24 * 3600,
    "loss_per_month": 30 * 24 * 3600,
}
LIMIT_NAMES = (*LOSS_WINDOWS, "session_minutes", "max_stake")
MAX_LIMIT = 10**12  # minor units or minutes: far inside a JSON-safe integer
REALITY_CHECK_CHOICES = (15, 30, 60)
LEDGER_SECONDS = max(LOSS_WINDOWS.values()) + MINUTE



# The UK's stake limits on online slots by age (docs/PROTECTION.md): the operator's verified band.
AGE_BANDS = ("18-24", "25+")


@dataclass(frozen=True)
class Profile:
    """A jurisdiction's player-protection profile (CONTRACT.md "Player protection"; where each
    rule comes from: docs/PROTECTION.md)."""

    name: str
    min_round_seconds: float
    max_stake: int | None
    reality_check_minutes: int | None
    autoplay: bool
    turbo: bool
    jackpots: bool = True  # False: the game plays its no-jackpot model (de)
    one_open_session: bool = False  # True: a second open session is refused (de)
    # (band, max stake) by age band, where the stake limit depends on it (uk); a player of no
    # known band gets the lowest.
    max_stake_by_age_band: tuple[tuple[str, int], ...] = ()

    def stake_cap(self, age_band: str | None) -> int | None:
        """The profile's maximum stake for a player of this age band (None: unknown)."""
        if not self.max_stake_by_age_band:
            return self.max_stake
        caps = dict(self.max_stake_by_age_band)
        return caps.get(age_band or "", min(caps.values()))

    def document(self) -> dict[str, Any]:
        """The rules document's "jurisdiction"."""
        document: dict[str, Any] = {
            "name": self.name,
            "min_round_seconds": self.min_round_seconds,
            "max_stake": self.max_stake,
            "reality_check_minutes": self.reality_check_minutes,
            "autoplay": self.autoplay,
            "turbo": self.turbo,
            "jackpots": self.jackpots,
        }
        if self.max_stake_by_age_band:
            document["max_stake_by_age_band"] = dict(self.max_stake_by_age_band)
        return document


PROFILES: dict[str, Profile] = {
    "none": Profile("none", 0, None, None, True, True),
    "uk": Profile(
        "uk", 2.5, 500, 60, False, False, max_stake_by_age_band=(("18-24", 200), ("25+", 500))
    ),
    "ontario": Profile("ontario", 2.5, None, 60, False, False),
    "de": Profile("de", 5, 100, 60, False, False, jackpots=False, one_open_session=True),
}


def check_age_band(band: object) -> str | None:
    """The operator's verified age band of a new player (None: unknown)."""
    if band is not None and band not in AGE_BANDS:
        raise InvalidAgeBand(f"age_band is one of {', '.join(AGE_BANDS)} (or absent: unknown)")
    return band if isinstance(band, str) else None


def profile_problems(profile: Profile, plays_jackpots: bool) -> list[str]:
    """Why the service cannot play under `profile` with the model it has; empty when it can."""
    if not profile.jackpots and plays_jackpots:
        return [
            f"the {profile.name} profile plays without jackpots, and the model in force has "
            "them (no no-jackpot model of it is installed): no jackpot round may be served"
        ]
    return []


def profile_named(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(PROFILES)
        raise ValueError(f"no jurisdiction profile {name!r}: one of {known}") from None


# -- commands' decisions ----------------------------------------------------------------------


def check_limit_changes(requested: Mapping[str, Any]) -> dict[str, int | None]:
    """The requested limits, validated: known names only, each a positive whole number or null."""
    if not isinstance(requested, Mapping) or not requested:
        raise InvalidLimits(f"give at least one of {', '.join(LIMIT_NAMES)}")
    checked: dict[str, int | None] = {}
    for name, value in requested.items():
        if name not in LIMIT_NAMES:
            raise InvalidLimits(f"unknown limit {name!r}: one of {', '.join(LIMIT_NAMES)}")
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_LIMIT
        ):
            raise InvalidLimits(f"{name} is a whole number from 1 to {MAX_LIMIT}, or null")
        checked[name] = value
    return checked


def changed_limits(
    guard: Guard, requested: Mapping[str, int | None], now: float
) -> tuple[dict[str, int], dict[str, PendingLimit]]:
    """(limits in force, pending) after a change: tightening at once, loosening or removal
    after the cooling-off. A request replaces any loosening still pending for that limit."""
    limits = dict(limits_in_force(guard, now))
    pending = {k: v for k, v in guard.pending.items() if v.effective_at > now}
    for name, value in requested.items():
        current = limits.get(name)
        pending.pop(name, None)
        if value == current:
            continue
        if value is not None and (current is None or value < current):
            limits[name] = value  # a tightening
        else:
            pending[name] = PendingLimit(value, now + COOLING_OFF_SECONDS)
    return limits, pending


def exclusion_until(guard: Guard, until: float | None, now: float) -> float | None:
    """The exclusion in force after asking for one `until` (None: permanent). It is never
    shortened: a shorter one changes nothing."""
    if until is not None and (not math.isfinite(until) or until <= now):
        raise InvalidExclusion("an exclusion ends in the future (or is permanent: null)")
    if not is_excluded(guard, now):
        return until
    ends = guard.excluded_until
    if ends is None or until is None:
        return None
    return max(ends, until)


def check_reality_check_minutes(minutes: object, profile: Profile) -> int | None:
    """The session's reality-check interval: the player's pick where the profile has checks."""
    if minutes is not None and (type(minutes) is not int or minutes not in REALITY_CHECK_CHOICES):
        raise InvalidRealityCheck("reality_check_minutes is one of 15, 30 or 60")
    if profile.reality_check_minutes is None:
        return None
    return minutes if isinstance(minutes, int) else profile.reality_check_minutes


# -- the rules ---------------------------------------------------------------------------------


def limits_in_force(guard: Guard, now: float) -> dict[str, int]:
    due = {k: v.value for k, v in guard.pending.items() if v.effective_at <= now}
    if not due:
        return dict(guard.limits)
    merged = {**guard.limits, **due}
    return {k: v for k, v in merged.items() if v is not None}


def pending_limits(guard: Guard, now: float) -> list[dict[str, Any]]:
    return [
        {"limit": name, "value": pending.value, "effective_at": pending.effective_at}
        for name, pending in sorted(guard.pending.items())
        if pending.effective_at > now
    ]


def is_excluded(guard: Guard, now: float) -> bool:
    until = guard.excluded_until
    return guard.excluded and (until is None or until > now)


def check_not_excluded(guard: Guard, now: float, what: str = "") -> None:
    """Nothing is open to an excluded player (what: the request refused, for its message)."""
    if is_excluded(guard, now):
        until = guard.excluded_until
        why = "the player is excluded " + ("permanently" if until is None else "for now")
        raise PlayerExcluded(f"{what} is refused: {why}" if what else why)


def check_opening(guard: Guard, profile: Profile, open_sessions: int, now: float) -> None:
    """The rules opening a session must pass: no exclusion, and where the profile allows one
    game at a time, no second open session."""
    check_not_excluded(guard, now)
    if profile.one_open_session and open_sessions:
        raise SessionLimit(
            f"the {profile.name} profile allows one open session at a time: close it first"
        )


def session_expired(guard: Guard, session_id: str, now: float) -> bool:
    """Whether the session is past the player's session time limit (or closed for it)."""
    session = guard.sessions.get(session_id)
    if session is None:
        return False
    if session.closed_by == SessionTimeLimit.code:
        return True
    minutes = limits_in_force(guard, now).get("session_minutes")
    return minutes is not None and now - session.opened_at >= minutes * MINUTE


def check_access(guard: Guard, session_id: str, now: float) -> None:
    """The rules that hold even for a closed session: exclusion, then the session time limit."""
    check_not_excluded(guard, now)
    if session_expired(guard, session_id, now):
        raise SessionTimeLimit(session_id, "the session reached the player's session time limit")


def check_round(
    guard: Guard,
    session_id: str,
    stake: int,
    profile: Profile,
    now: float,
    session_view: Callable[[], dict[str, Any]] | None = None,
    age_band: str | None = None,
) -> None:
    """The rules an open session's spin must pass, in the order a player meets them.
    session_view: the session object a due reality check answers with (CONTRACT.md); age_band:
    the player's, for the profile's stake limit."""
    check_stake(stake)
    session = guard.sessions.get(session_id)
    if session is not None:
        if session.next_check_at is not None and now >= session.next_check_at:
            raise RealityCheckDue(
                session_id, "a reality check is due: answer it to go on",
                None if session_view is None else {"session": session_view()},
            )
        last = session.last_round_at
        if last is not None and now - last < profile.min_round_seconds:
            wait = last + profile.min_round_seconds - now
            raise RoundTooSoon(
                f"rounds are at least {profile.min_round_seconds} s apart", math.ceil(wait)
            )
    breach = limit_breach(guard, stake, now, profile.stake_cap(age_band))
    if breach is not None:
        raise breach


def limit_breach(
    guard: Guard, stake: int, now: float, profile_max_stake: int | None = None,
    surely: bool = False,
) -> StakeLimit | LossLimit | None:
    """The limit in force that a round of `stake` at `now` would break, if any (the spin's
    rule, and verify's when it replays a stored round: domain.ledger.replay_rules). surely:
    judge the losses by their lower bound (verify names only a loss limit surely broken; the
    spin refuses on the upper bound, so a round it allowed is never named)."""
    limits = limits_in_force(guard, now)
    caps = [c for c in (profile_max_stake, limits.get("max_stake")) if c is not None]
    if caps and stake > min(caps):
        return StakeLimit(f"the stake {stake} is above the maximum stake {min(caps)}")
    windows = {name: LOSS_WINDOWS[name] for name in LOSS_WINDOWS if name in limits}
    if windows:
        for name, loss in guard.losses.losses(windows, now, least=surely).items():
            if loss + stake > limits[name]:
                return LossLimit(
                    f"a loss of {loss} so far plus the stake {stake} would pass {name} "
                    f"({limits[name]})"
                )
    return None


def losses(guard: Guard, windows: Mapping[str, int], now: float) -> dict[str, int]:
    """Stakes minus wins in each rolling window: the rounds started after now - window, never
    less than the exact loss (domain.ledger.loss_ledger says how the window's edge is kept)."""
    return guard.losses.losses(windows, now)


def reality_check_due(guard: Guard, session_id: str, now: float) -> bool:
    session = guard.sessions.get(session_id)
    due_at = None if session is None else session.next_check_at
    return due_at is not None and now >= due_at
