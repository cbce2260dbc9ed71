"""Player protection: jurisdiction profiles and the rules a spin must pass, decided from state.

Pure: every rule takes `now` (epoch seconds, from the application's injected clock) and the
player's protection state, a JSON-native dict rebuilt from the player's own events (so every
worker and every restart decide alike). The state is copy-on-write: a change builds a new dict
and never mutates one in place, so copying a player stays a handful of shallow copies.

State keys:
- "limits": {name: value} in force; "pending": {name: [value or None, effective_at]} loosenings
  waiting out the 24 hour cooling-off (a pending entry once due is simply the limit in force);
- "excluded": None, or [until or None (permanent)];
- "sessions": {session_id: [opened_at, last_round_at or None, check_seconds or None,
  next_check_at or None, closed_by ("" or a rule)]};
- "ledger": {minute: [staked, won]}, the last LEDGER_SECONDS of play, for the loss windows;
  "minute": the minute of the round being recorded (its win lands there).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.errors import (
    InvalidExclusion,
    InvalidLimits,
    InvalidRealityCheck,
    LossLimit,
    PlayerExcluded,
    RealityCheckDue,
    RoundTooSoon,
    SessionTimeLimit,
    StakeLimit,
)
from domain.game.engine import check_stake

COOLING_OFF_SECONDS = 24 * 3600
LOSS_WINDOWS: dict[str, int] = {  # rolling windows, in seconds (a month is 30 days)
    "loss_per_day": 24 * 3600,
    "loss_per_week": 7 * 24 * 3600,
    "loss_per_month": 30 * 24 * 3600,
}
LIMIT_NAMES = (*LOSS_WINDOWS, "session_minutes", "max_stake")
MAX_LIMIT = 10**12  # minor units or minutes: far inside a JSON-safe integer
REALITY_CHECK_CHOICES = (15, 30, 60)
MINUTE = 60
LEDGER_SECONDS = max(LOSS_WINDOWS.values()) + MINUTE

Guard = dict[str, Any]  # never changed in place: every change builds a new one
EMPTY_GUARD: dict[str, Any] = {
    "limits": {}, "pending": {}, "excluded": None, "sessions": {}, "ledger": {}, "minute": "",
}


@dataclass(frozen=True)
class Profile:
    """A jurisdiction's player-protection profile (CONTRACT.md, "Player protection")."""

    name: str
    min_round_seconds: float
    max_stake: int | None
    reality_check_minutes: int | None
    autoplay: bool
    turbo: bool

    def document(self) -> dict[str, Any]:
        """The rules document's "jurisdiction"."""
        return {
            "name": self.name,
            "min_round_seconds": self.min_round_seconds,
            "max_stake": self.max_stake,
            "reality_check_minutes": self.reality_check_minutes,
            "autoplay": self.autoplay,
            "turbo": self.turbo,
        }


PROFILES: dict[str, Profile] = {
    "none": Profile("none", 0, None, None, True, True),
    "uk": Profile("uk", 2.5, 500, 60, False, False),
    "ontario": Profile("ontario", 2.5, None, 60, False, False),
}


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
) -> tuple[dict[str, int], dict[str, list[Any]]]:
    """(limits in force, pending) after a change: tightening at once, loosening or removal
    after the cooling-off. A request replaces any loosening still pending for that limit."""
    limits = dict(limits_in_force(guard, now))
    pending = {k: v for k, v in guard["pending"].items() if v[1] > now}
    for name, value in requested.items():
        current = limits.get(name)
        pending.pop(name, None)
        if value == current:
            continue
        if value is not None and (current is None or value < current):
            limits[name] = value  # a tightening
        else:
            pending[name] = [value, now + COOLING_OFF_SECONDS]
    return limits, pending


def exclusion_until(guard: Guard, until: float | None, now: float) -> float | None:
    """The exclusion in force after asking for one `until` (None: permanent). It is never
    shortened: a shorter one changes nothing."""
    if until is not None and (not math.isfinite(until) or until <= now):
        raise InvalidExclusion("an exclusion ends in the future (or is permanent: null)")
    current = guard["excluded"]
    if current is None or not is_excluded(guard, now):
        return until
    ends: float | None = current[0]
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
    limits: dict[str, int] = guard["limits"]
    due = {k: v[0] for k, v in guard["pending"].items() if v[1] <= now}
    if not due:
        return limits
    merged = {**limits, **due}
    return {k: v for k, v in merged.items() if v is not None}


def pending_limits(guard: Guard, now: float) -> list[dict[str, Any]]:
    return [
        {"limit": name, "value": value, "effective_at": at}
        for name, (value, at) in sorted(guard["pending"].items())
        if at > now
    ]


def is_excluded(guard: Guard, now: float) -> bool:
    excluded = guard["excluded"]
    return excluded is not None and (excluded[0] is None or excluded[0] > now)


def check_not_excluded(guard: Guard, now: float) -> None:
    if is_excluded(guard, now):
        until = guard["excluded"][0]
        raise PlayerExcluded(
            "the player is excluded " + ("permanently" if until is None else "for now")
        )


def session_expired(guard: Guard, session_id: str, now: float) -> bool:
    """Whether the session is past the player's session time limit (or closed for it)."""
    session = guard["sessions"].get(session_id)
    if session is None:
        return False
    if session[4] == SessionTimeLimit.code:
        return True
    minutes = limits_in_force(guard, now).get("session_minutes")
    return minutes is not None and now - session[0] >= minutes * MINUTE


def check_access(guard: Guard, session_id: str, now: float) -> None:
    """The rules that hold even for a closed session: exclusion, then the session time limit."""
    check_not_excluded(guard, now)
    if session_expired(guard, session_id, now):
        raise SessionTimeLimit(session_id, "the session reached the player's session time limit")


def check_round(guard: Guard, session_id: str, stake: int, profile: Profile, now: float) -> None:
    """The rules an open session's spin must pass, in the order a player meets them."""
    check_stake(stake)
    session = guard["sessions"].get(session_id)
    if session is not None:
        if session[3] is not None and now >= session[3]:
            raise RealityCheckDue(session_id, "a reality check is due: answer it to go on")
        if session[1] is not None and now - session[1] < profile.min_round_seconds:
            wait = session[1] + profile.min_round_seconds - now
            raise RoundTooSoon(
                f"rounds are at least {profile.min_round_seconds} s apart", math.ceil(wait)
            )
    limits = limits_in_force(guard, now)
    caps = [c for c in (profile.max_stake, limits.get("max_stake")) if c is not None]
    if caps and stake > min(caps):
        raise StakeLimit(f"the stake {stake} is above the maximum stake {min(caps)}")
    windows = {name: LOSS_WINDOWS[name] for name in LOSS_WINDOWS if name in limits}
    if windows:
        for name, loss in losses(guard, windows, now).items():
            if loss + stake > limits[name]:
                raise LossLimit(
                    f"a loss of {loss} so far plus the stake {stake} would pass {name} "
                    f"({limits[name]})"
                )


def losses(guard: Guard, windows: Mapping[str, int], now: float) -> dict[str, int]:
    """Stakes minus wins in each rolling window (rounds started after now - window). Play is
    kept per minute, so the minute the window's start falls in counts its stakes alone: never
    less than the exact loss (its rounds inside the window staked at most that and won >= 0),
    at most one minute's wins more, and exact again a minute later."""
    totals = dict.fromkeys(windows, 0)
    for minute, (staked, won) in guard["ledger"].items():
        begins = int(minute) * MINUTE
        for name, seconds in windows.items():
            start = now - seconds
            if begins > start:
                totals[name] += staked - won
            elif begins + MINUTE > start:
                totals[name] += staked
    return totals


def reality_check_due(guard: Guard, session_id: str, now: float) -> bool:
    session = guard["sessions"].get(session_id)
    return session is not None and session[3] is not None and now >= session[3]


# -- what events assign (copy-on-write) --------------------------------------------------------


def with_limits(guard: Guard, limits: dict[str, int], pending: dict[str, list[Any]]) -> Guard:
    return {**guard, "limits": limits, "pending": pending}


def with_exclusion(guard: Guard, until: float | None) -> Guard:
    return {**guard, "excluded": [until]}


def with_session(guard: Guard, session_id: str, opened_at: float, minutes: int | None) -> Guard:
    check = None if minutes is None else minutes * MINUTE
    entry = [opened_at, None, check, None if check is None else opened_at + check, ""]
    return {**guard, "sessions": {**guard["sessions"], session_id: entry}}


def with_reality_check(guard: Guard, session_id: str, at: float) -> Guard:
    entry = guard["sessions"].get(session_id)
    if entry is None or entry[2] is None:
        return guard
    opened_at, last, check, _, closed_by = entry
    entry = [opened_at, last, check, at + check, closed_by]
    return {**guard, "sessions": {**guard["sessions"], session_id: entry}}


# Sessions closed by the session time limit stay in the guard (so their spins still answer
# session_time_limit), the most recent this many; every other closed session leaves it.
TIME_LIMITED_KEPT = 32


def without_session(guard: Guard, session_id: str, reason: str) -> Guard:
    """The guard once the session closed: its entry goes, so the state stays small however many
    sessions the player had, but for a session closed by the time limit (kept, bounded)."""
    sessions: dict[str, list[Any]] = guard["sessions"]
    entry = sessions.get(session_id)
    if entry is None:
        return guard
    rest = {k: v for k, v in sessions.items() if k != session_id}
    if reason == SessionTimeLimit.code or entry[4] == SessionTimeLimit.code:
        marked = [k for k, v in rest.items() if v[4] == SessionTimeLimit.code]
        for old in marked[: max(0, len(marked) - TIME_LIMITED_KEPT + 1)]:
            del rest[old]
        rest[session_id] = [*entry[:4], SessionTimeLimit.code]
    return {**guard, "sessions": rest}


def with_refusal(guard: Guard, session_id: str, rule: str) -> Guard:
    entry = guard["sessions"].get(session_id)
    if entry is None or rule != SessionTimeLimit.code:
        return guard
    entry = [*entry[:4], rule]
    return {**guard, "sessions": {**guard["sessions"], session_id: entry}}


def with_round_started(guard: Guard, session_id: str, stake: int, at: float) -> Guard:
    minute = str(int(at // MINUTE))
    ledger: dict[str, list[int]] = guard["ledger"]
    oldest = int(at - LEDGER_SECONDS) // MINUTE
    if ledger and int(next(iter(ledger))) < oldest:
        ledger = {k: v for k, v in ledger.items() if int(k) >= oldest}
    staked, won = ledger.get(minute, (0, 0))
    new = {**guard, "ledger": {**ledger, minute: [staked + stake, won]}, "minute": minute}
    entry = guard["sessions"].get(session_id)
    if entry is not None:
        new["sessions"] = {**guard["sessions"], session_id: [entry[0], at, *entry[2:]]}
    return new


def with_round_settled(guard: Guard, total_win: int) -> Guard:
    minute = guard["minute"]
    ledger: dict[str, list[int]] = guard["ledger"]
    if not minute or minute not in ledger:
        return guard
    staked, won = ledger[minute]
    return {**guard, "ledger": {**ledger, minute: [staked, won + total_win]}, "minute": ""}
