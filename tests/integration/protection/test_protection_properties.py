"""Property: no sequence of spins, limit changes, exclusions, reality checks and clock moves lets
a round through that a protection rule forbids. The player aggregate decides (as the application
drives it); an independent model of the rules, fed only the accepted rounds, judges each one."""

from __future__ import annotations

import hashlib
import itertools
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from protection_support import FakeClock
from store_kinds_support import STORES, open_store

from domain.errors import ProtectionRefusal, RuleViolation
from domain.ledger.player import Player
from domain.ledger.protection import PROFILES, Profile
from domain.ledger.protection_commands import (
    answer_reality_check,
    change_limits,
    check_protection,
    exclude,
)
from infrastructure.application import PumpkinApplication

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


class PlayerDriver:
    """The player aggregate driven as the application drives it (pure, fast)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.player = Player.register("prop")
        self.player.deposit(10**9, "funds", datetime.now(UTC))

    def open(self, session_id: str, minutes: int | None, now: datetime) -> bool:
        try:
            self.player.open_session(session_id, "hash", "", "", now, self.profile, minutes)
        except ProtectionRefusal:
            return False  # recorded by the aggregate (ProtectionRefused)
        return True

    def limit(self, name: str, value: int | None, now: datetime) -> None:
        change_limits(self.player, {name: value}, now)

    def exclude(self, until: datetime, now: datetime) -> None:
        exclude(self.player, until, "test", now, {})

    def answer(self, session_id: str, proceed: bool, now: datetime) -> None:
        answer_reality_check(self.player, session_id, proceed, now, None)

    def spin(self, session_id: str, stake: int, number: int, now: datetime) -> int:
        """The round's win; a RuleViolation if refused (a protection refusal recorded by the
        aggregate, and a session past its time limit closed)."""
        check_protection(self.player, session_id, stake, self.profile, now)
        self.player.check_spin(session_id, stake)
        seed = hashlib.sha256(f"{number}".encode()).digest()
        return self.player.spin(session_id, stake, f"r{number}", seed, at=now).total_win


def run(driver: Any, profile: Profile, steps: list[Any]) -> int:
    """Apply `steps` through `driver`; the model judges every round it lets through. The
    number of rounds played."""
    model = Model(profile)
    now = START
    sessions: list[str] = []
    for number, step in enumerate(steps):
        at = now.timestamp()
        kind = step[0]
        if kind == "move":
            now += timedelta(seconds=step[1])
        elif kind == "restart":
            driver.restart()
        elif kind == "open":
            session_id = driver.open(f"s{number}", step[1], now)
            if not session_id:
                continue
            session_id = session_id if isinstance(session_id, str) else f"s{number}"
            sessions.append(session_id)
            model.opened[session_id] = at
            if profile.reality_check_minutes is not None:
                model.check_every[session_id] = 60 * (step[1] or profile.reality_check_minutes)
                model.next_check[session_id] = at + model.check_every[session_id]
        elif kind == "limit":
            driver.limit(step[1], step[2], now)
            model.requests.append((at, step[1], step[2]))
        elif kind == "exclude":
            driver.exclude(now + timedelta(seconds=step[1]), now)
            model.exclude(at + step[1], at)
        elif kind == "answer" and sessions:
            session_id = sessions[step[1] % len(sessions)]
            try:
                driver.answer(session_id, step[2], now)
            except RuleViolation:
                continue
            check = model.next_check.get(session_id)
            if check is not None and at >= check:
                model.next_check[session_id] = at + model.check_every[session_id]
        elif kind == "spin" and sessions:
            session_id, stake = sessions[step[1] % len(sessions)], step[2]
            try:
                win = driver.spin(session_id, stake, number, now)
            except RuleViolation:
                continue
            model.assert_allowed(session_id, stake, at)
            model.rounds.append((at, stake, win))
            model.last_round[session_id] = at
            event("a round was played")
    return len(model.rounds)


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
    run(PlayerDriver(PROFILES[profile]), PROFILES[profile], steps)


class ApplicationDriver:
    """The application on a real store, restarted (a new instance) when the steps say so."""

    def __init__(self, store_url: str, profile: Profile, player_id: str) -> None:
        self.store_url, self.profile, self.player_id = store_url, profile, player_id
        self.clock = FakeClock()
        self.app = self._open()
        self.app.register_player(player_id)
        self.app.deposit(player_id, 10**9, "funds")

    def _open(self) -> PumpkinApplication:
        app = PumpkinApplication.from_url(self.store_url)
        app.clock, app.profile = self.clock, self.profile
        return app

    def restart(self) -> None:
        self.app.close()
        self.app = self._open()

    def open(self, _: str, minutes: int | None, now: datetime) -> str | None:
        self.clock.now = now
        try:
            return self.app.open_session(self.player_id, minutes)[0]
        except ProtectionRefusal:
            return None

    def limit(self, name: str, value: int | None, now: datetime) -> None:
        self.clock.now = now
        self.app.set_limits(self.player_id, {name: value})

    def exclude(self, until: datetime, now: datetime) -> None:
        self.clock.now = now
        self.app.exclude(self.player_id, until, "test")

    def answer(self, session_id: str, proceed: bool, now: datetime) -> None:
        self.clock.now = now
        self.app.reality_check(session_id, proceed)

    def spin(self, session_id: str, stake: int, number: int, now: datetime) -> int:
        self.clock.now = now
        return int(self.app.spin(session_id, stake, f"r{number}")["total_win"])


app_actions = actions.map(
    lambda steps: [step for n, step in enumerate(steps) for step in (
        [step, ("restart",)] if n % 7 == 6 else [step])][:30]
)


@pytest.mark.parametrize("store", STORES)
def test_on_either_store_and_across_restarts_no_forbidden_round_gets_through(
    store: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with ExitStack() as stack:
        url = open_store(store, tmp_path_factory.mktemp("props"), stack)
        players = itertools.count()
        played: list[int] = []

        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
        @given(profile=st.sampled_from(["none", "uk", "ontario"]), steps=app_actions)
        def check(profile: str, steps: list[Any]) -> None:
            driver = ApplicationDriver(url, PROFILES[profile], f"p{next(players)}")
            try:
                played.append(run(driver, PROFILES[profile], steps))
            finally:
                driver.app.close()

        check()
        assert sum(played) > 0, "no example played a round"


def test_a_player_from_a_snapshot_older_than_protection_spins_under_its_rules() -> None:
    from eventsourcing.domain import Snapshot

    player = Player.register("old")
    player.deposit(10_000, "funds", datetime.now(UTC))
    player.open_session("s1", "hash", "", "", START, PROFILES["none"])
    snapshot = Snapshot.take(player)
    del snapshot.state["guard"]  # as snapshots taken before protection existed hold it
    restored: Player = snapshot.mutate(None)
    restored.open_session("s2", "hash", "", "", START, PROFILES["uk"])
    check_protection(restored, "s1", 100, PROFILES["uk"], START)
    restored.spin("s1", 100, "r1", bytes(32), at=START)
    change_limits(restored, {"max_stake": 20}, START)
    assert restored.guard.limits == {"max_stake": 20}
