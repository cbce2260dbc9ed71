"""Property: no sequence of spins, limit changes, exclusions, reality checks and clock moves lets
a round through that a protection rule forbids. The player aggregate decides (as the application
drives it); an independent model of the rules, fed only the accepted rounds, judges each one."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from domain.errors import ProtectionRefusal, RuleViolation, SessionTimeLimit
from domain.player import Player
from domain.protection import PROFILES, Profile
from domain.protection_events import (
    answer_reality_check,
    change_limits,
    check_may_open,
    exclude,
    protect_session,
    refuse,
)

DAY = 86_400
WINDOWS = {"loss_per_day": DAY, "loss_per_week": 7 * DAY, "loss_per_month": 30 * DAY}
START = datetime(2026, 3, 1, tzinfo=UTC)

moves = st.sampled_from([0, 0.4, 1, 1.6, 2.4, 2.5, 3, 59, 61, 600, 900, 3600, DAY - 1, DAY])
limit_values = st.one_of(st.none(), st.sampled_from([1, 20, 100, 150, 400, 1000, 5000]))
actions = st.lists(
    st.one_of(
        st.tuples(st.just("move"), moves),
        st.tuples(st.just("spin"), st.integers(0, 2), st.sampled_from([20, 100, 400, 600, 2000])),
        st.tuples(st.just("spin"), st.integers(0, 2), st.sampled_from([100])),
        st.tuples(st.just("move"), st.sampled_from([1.6, 2.5, 3])),
        st.tuples(st.just("spin"), st.integers(0, 2), st.sampled_from([20, 100])),
        st.tuples(st.just("limit"), st.sampled_from([*WINDOWS, "session_minutes", "max_stake"]),
                  limit_values),
        st.tuples(st.just("open"), st.sampled_from([None, 15, 30, 60])),
        st.tuples(st.just("answer"), st.integers(0, 2), st.booleans()),
        st.tuples(st.just("exclude"), st.sampled_from([60, 3600, 2 * DAY])),
    ),
    max_size=40,
).map(lambda steps: [("open", None), *steps])


@dataclass
class Model:
    """The rules as CONTRACT.md states them, over exact round times."""

    profile: Profile
    requests: list[tuple[float, str, int | None]] = field(default_factory=list)
    rounds: list[tuple[float, int, int]] = field(default_factory=list)  # (started, stake, win)
    excluded_until: float = float("-inf")
    opened: dict[str, float] = field(default_factory=dict)
    last_round: dict[str, float] = field(default_factory=dict)
    next_check: dict[str, float] = field(default_factory=dict)
    check_every: dict[str, float] = field(default_factory=dict)

    def limit(self, name: str, now: float) -> int | None:
        value: int | None = None
        pending: tuple[int | None, float] | None = None
        for at, requested_name, requested in self.requests:
            if requested_name != name:
                continue
            if pending is not None and pending[1] <= at:
                value = pending[0]
            pending = None
            if requested == value:
                continue
            if requested is not None and (value is None or requested < value):
                value = requested
            else:
                pending = (requested, at + DAY)
        if pending is not None and pending[1] <= now:
            value = pending[0]
        return value

    def exclude(self, until: float, now: float) -> None:
        in_force = self.excluded_until > now
        self.excluded_until = max(self.excluded_until, until) if in_force else until

    def assert_allowed(self, session_id: str, stake: int, now: float) -> None:
        assert now >= self.excluded_until, "an excluded player played"
        minutes = self.limit("session_minutes", now)
        assert minutes is None or now - self.opened[session_id] < minutes * 60
        last = self.last_round.get(session_id)
        assert last is None or now - last >= self.profile.min_round_seconds
        caps = [c for c in (self.profile.max_stake, self.limit("max_stake", now)) if c]
        assert not caps or stake <= min(caps)
        check = self.next_check.get(session_id)
        assert check is None or now < check, "a round played while a reality check was due"
        for name, seconds in WINDOWS.items():
            cap = self.limit(name, now)
            if cap is not None:
                loss = sum(s - w for t, s, w in self.rounds if t > now - seconds)
                assert loss + stake <= cap, f"{name}: {loss} + {stake} > {cap}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(profile=st.sampled_from(["none", "uk", "ontario"]), steps=actions)
# The edges, always tried: a check due exactly now, a session exactly at its time limit, a
# round 2.4 s after the last, a loss reached exactly then passed, a loosening a second early.
@example("uk", [("open", None), ("move", 3600), ("spin", 0, 100)])
@example("none", [("open", None), ("limit", "session_minutes", 1), ("move", 60), ("spin", 0, 20)])
@example("ontario", [("open", None), ("spin", 0, 100), ("move", 2.4), ("spin", 0, 100)])
@example("none", [("open", None), ("limit", "loss_per_day", 100), ("spin", 0, 100),
                  ("spin", 0, 100), ("spin", 0, 100)])
@example("none", [("open", None), ("limit", "max_stake", 20), ("limit", "max_stake", 100),
                  ("move", DAY - 1), ("spin", 0, 100)])
def test_no_sequence_lets_a_forbidden_round_through(profile: str, steps: list[Any]) -> None:
    rules = PROFILES[profile]
    player = Player.register("prop")
    player.deposit(10**9, "funds")
    model = Model(rules)
    now = START
    sessions: list[str] = []
    for number, step in enumerate(steps):
        at = now.timestamp()
        kind = step[0]
        if kind == "move":
            now += timedelta(seconds=step[1])
        elif kind == "open":
            try:
                check_may_open(player, now)
            except ProtectionRefusal as refusal:
                refuse(player, refusal, "", None, now)
                continue
            session_id = f"s{number}"
            player.open_session(session_id, "hash")
            protect_session(player, session_id, step[1], rules, now)
            sessions.append(session_id)
            model.opened[session_id] = at
            if rules.reality_check_minutes is not None:
                model.check_every[session_id] = 60 * (step[1] or rules.reality_check_minutes)
                model.next_check[session_id] = at + model.check_every[session_id]
        elif kind == "limit":
            change_limits(player, {step[1]: step[2]}, now)
            model.requests.append((at, step[1], step[2]))
        elif kind == "exclude":
            for session_id in exclude(player, now + timedelta(seconds=step[1]), "test", now):
                player.close_session(session_id)
            model.exclude(at + step[1], at)
        elif kind == "answer" and sessions:
            session_id = sessions[step[1] % len(sessions)]
            try:
                if not answer_reality_check(player, session_id, step[2], now):
                    player.close_session(session_id)
            except RuleViolation:
                continue
            check = model.next_check.get(session_id)
            if check is not None and at >= check:
                model.next_check[session_id] = at + model.check_every[session_id]
        elif kind == "spin" and sessions:
            session_id, stake = sessions[step[1] % len(sessions)], step[2]
            try:
                player.check_protection(session_id, stake, rules, now)
                player.check_spin(session_id, stake)
            except ProtectionRefusal as refusal:
                if isinstance(refusal, SessionTimeLimit) and player.session_is_open(session_id):
                    player.close_session(session_id)
                refuse(player, refusal, session_id, stake, now)
                continue
            except RuleViolation:
                continue
            model.assert_allowed(session_id, stake, at)
            seed = hashlib.sha256(f"{number}".encode()).digest()
            outcome = player.spin(session_id, stake, f"r{number}", seed, now)
            model.rounds.append((at, stake, outcome.total_win))
            model.last_round[session_id] = at
            event("a round was played")


def test_a_player_from_a_snapshot_older_than_protection_spins_under_its_rules() -> None:
    from eventsourcing.domain import Snapshot

    player = Player.register("old")
    player.deposit(10_000, "funds")
    player.open_session("s1", "hash")
    snapshot = Snapshot.take(player)
    del snapshot.state["guard"]  # as snapshots taken before protection existed hold it
    restored: Player = snapshot.mutate(None)
    restored.open_session("s2", "hash")
    protect_session(restored, "s2", None, PROFILES["uk"], START)
    restored.check_protection("s1", 100, PROFILES["uk"], START)
    restored.spin("s1", 100, "r1", bytes(32), START)
    change_limits(restored, {"max_stake": 20}, START)
    assert restored.guard["limits"] == {"max_stake": 20}
