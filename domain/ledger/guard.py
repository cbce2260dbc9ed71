"""Player protection's state on the Player: the guard, rebuilt from the player's own events.

Immutable values: an event's apply builds a new guard (the `with_*` functions below) and never
changes one in place, so copying a player stays a handful of shallow copies and every worker and
restart decides alike. The rules that read it are domain.ledger.protection's.

Stored layout (a snapshot holds it through the store's transcoding; this module alone reads
it): {"limits": {name: value} in force, "pending": {name: [value or None, effective_at]}
loosenings waiting out the cooling-off, "excluded": None or [until or None (permanent)],
"sessions": {session_id: [opened_at, last_round_at, check_seconds, next_check_at, closed_by]},
"losses": the play of the last LEDGER_SECONDS for loss limits (domain.ledger.loss_ledger's
layout)}. Times are epoch seconds. Snapshots written before held the play per minute instead
("ledger": {minute: [staked, won]}, "minute": the minute of the round being recorded); they are
read into the same buckets replay builds (LossLedger.from_minutes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.errors import SessionTimeLimit
from domain.ledger.loss_ledger import EMPTY_LEDGER, LossLedger

MINUTE = 60
# Sessions closed by the session time limit stay in the guard (so their spins still answer
# session_time_limit), the most recent this many; every other closed session leaves it.
TIME_LIMITED_KEPT = 32


@dataclass(frozen=True, slots=True)
class GuardedSession:
    """One session's protection: its start, last round and reality checks."""

    opened_at: float
    last_round_at: float | None
    check_seconds: int | None  # the reality-check interval (None: no checks)
    next_check_at: float | None
    closed_by: str  # "" or the rule that closed it (session_time_limit)

    def stored(self) -> list[Any]:
        return [
            self.opened_at, self.last_round_at, self.check_seconds, self.next_check_at,
            self.closed_by,
        ]

    @classmethod
    def from_stored(cls, stored: list[Any]) -> GuardedSession:
        opened_at, last_round_at, check_seconds, next_check_at, closed_by = stored
        return cls(opened_at, last_round_at, check_seconds, next_check_at, closed_by)


@dataclass(frozen=True, slots=True)
class PendingLimit:
    value: int | None  # None: the limit is removed
    effective_at: float


@dataclass(frozen=True, slots=True)
class Guard:
    limits: Mapping[str, int]
    pending: Mapping[str, PendingLimit]
    excluded: bool
    excluded_until: float | None  # with `excluded`: None is permanent
    sessions: Mapping[str, GuardedSession]
    losses: LossLedger

    def stored(self) -> dict[str, Any]:
        return {
            "limits": dict(self.limits),
            "pending": {k: [v.value, v.effective_at] for k, v in self.pending.items()},
            "excluded": [self.excluded_until] if self.excluded else None,
            "sessions": {k: v.stored() for k, v in self.sessions.items()},
            "losses": self.losses.stored(),
        }

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> Guard:
        excluded = stored["excluded"]
        losses = (
            LossLedger.from_stored(stored["losses"])
            if "losses" in stored
            else LossLedger.from_minutes(stored["ledger"], str(stored["minute"]))
        )
        return cls(
            dict(stored["limits"]),
            {k: PendingLimit(v[0], v[1]) for k, v in stored["pending"].items()},
            excluded is not None,
            None if excluded is None else excluded[0],
            {k: GuardedSession.from_stored(v) for k, v in stored["sessions"].items()},
            losses,
        )


EMPTY_GUARD = Guard({}, {}, False, None, {}, EMPTY_LEDGER)


# -- what events assign (copy-on-write) --------------------------------------------------------


def _with(guard: Guard, **changes: Any) -> Guard:
    fields = {
        "limits": guard.limits, "pending": guard.pending, "excluded": guard.excluded,
        "excluded_until": guard.excluded_until, "sessions": guard.sessions,
        "losses": guard.losses, **changes,
    }
    return Guard(**fields)


def _with_session(guard: Guard, session_id: str, session: GuardedSession) -> Guard:
    return _with(guard, sessions={**guard.sessions, session_id: session})


def with_limits(
    guard: Guard, limits: Mapping[str, int], pending: Mapping[str, PendingLimit]
) -> Guard:
    return _with(guard, limits=dict(limits), pending=dict(pending))


def with_exclusion(guard: Guard, until: float | None) -> Guard:
    return _with(guard, excluded=True, excluded_until=until)


def with_session(guard: Guard, session_id: str, opened_at: float, minutes: int | None) -> Guard:
    check = None if minutes is None else minutes * MINUTE
    session = GuardedSession(
        opened_at, None, check, None if check is None else opened_at + check, ""
    )
    return _with_session(guard, session_id, session)


def with_reality_check(guard: Guard, session_id: str, at: float) -> Guard:
    session = guard.sessions.get(session_id)
    if session is None or session.check_seconds is None:
        return guard
    answered = GuardedSession(
        session.opened_at, session.last_round_at, session.check_seconds,
        at + session.check_seconds, session.closed_by,
    )
    return _with_session(guard, session_id, answered)


def without_session(guard: Guard, session_id: str, reason: str) -> Guard:
    """The guard once the session closed: its entry goes, so the state stays small however many
    sessions the player had, but for a session closed by the time limit (kept, bounded)."""
    session = guard.sessions.get(session_id)
    if session is None:
        return guard
    rest = {k: v for k, v in guard.sessions.items() if k != session_id}
    if SessionTimeLimit.code in (reason, session.closed_by):
        marked = [k for k, v in rest.items() if v.closed_by == SessionTimeLimit.code]
        for old in marked[: max(0, len(marked) - TIME_LIMITED_KEPT + 1)]:
            del rest[old]
        rest[session_id] = _closed_by(session, SessionTimeLimit.code)
    return _with(guard, sessions=rest)


def with_refusal(guard: Guard, session_id: str, rule: str) -> Guard:
    session = guard.sessions.get(session_id)
    if session is None or rule != SessionTimeLimit.code:
        return guard
    return _with_session(guard, session_id, _closed_by(session, rule))


def _closed_by(session: GuardedSession, rule: str) -> GuardedSession:
    return GuardedSession(
        session.opened_at, session.last_round_at, session.check_seconds, session.next_check_at,
        rule,
    )


def with_round_started(guard: Guard, session_id: str, stake: int, at: float, keep: float) -> Guard:
    """A round began at `at` staking `stake`; play older than `keep` seconds is dropped."""
    losses = guard.losses.with_round(at, stake, keep)
    session = guard.sessions.get(session_id)
    sessions = guard.sessions
    if session is not None:
        played = GuardedSession(
            session.opened_at, at, session.check_seconds, session.next_check_at,
            session.closed_by,
        )
        sessions = {**sessions, session_id: played}
    return Guard(
        guard.limits, guard.pending, guard.excluded, guard.excluded_until, sessions, losses
    )


def with_round_settled(guard: Guard, total_win: int) -> Guard:
    losses = guard.losses.with_win(total_win)
    if losses is guard.losses:
        return guard
    return Guard(
        guard.limits, guard.pending, guard.excluded, guard.excluded_until, guard.sessions, losses
    )
