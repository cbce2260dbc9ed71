"""The protection guard stays small: a closed session leaves it, except the latest sessions
closed by the session time limit, kept (bounded) so their spins still answer
session_time_limit."""

from __future__ import annotations

from domain.ledger.guard import EMPTY_GUARD, TIME_LIMITED_KEPT, with_session, without_session
from domain.ledger.protection import session_expired


def test_a_closed_session_leaves_the_guard() -> None:
    guard = with_session(EMPTY_GUARD, "s1", 0.0, None)
    assert without_session(guard, "s1", "player").sessions == {}


def test_a_session_closed_by_its_time_limit_still_reads_as_expired() -> None:
    guard = without_session(with_session(EMPTY_GUARD, "s1", 0.0, None), "s1", "session_time_limit")
    assert session_expired(guard, "s1", 1.0)


def test_sessions_closed_by_the_time_limit_are_kept_only_so_many() -> None:
    guard = EMPTY_GUARD
    for n in range(TIME_LIMITED_KEPT * 3):
        guard = with_session(guard, f"s{n}", float(n), None)
        guard = without_session(guard, f"s{n}", "session_time_limit")
    assert len(guard.sessions) == TIME_LIMITED_KEPT
    assert f"s{TIME_LIMITED_KEPT * 3 - 1}" in guard.sessions
