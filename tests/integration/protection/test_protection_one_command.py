"""The domain decides, in one transaction: a refusal is recorded by the aggregate with nothing
else and saved once; opening and protecting a session is one command; a command that closes
sessions closes them (seeds revealed, keys recorded) in its own save."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from protection_support import FakeClock, funded_player, protected

from domain.errors import PlayerExcluded, RealityCheckDue, SessionTimeLimit, StakeLimit
from infrastructure.application import PumpkinApplication


class Saves:
    """The store's saves, each as the names of what it recorded."""

    def __init__(self, app: PumpkinApplication, monkeypatch: pytest.MonkeyPatch) -> None:
        self.recorded: list[list[str]] = []
        store = app.store
        original = store.save

        def save(*objs: Any, **kwargs: Any) -> Any:
            names: list[str] = []
            for obj in objs:
                pending = getattr(obj, "pending_events", None)
                if pending:
                    names.extend(type(event).__name__ for event in pending)
                else:  # a bare event (a request key)
                    names.append(type(obj).__name__)
            self.recorded.append(names)
            return original(*objs, **kwargs)

        monkeypatch.setattr(store, "save", save)

    def since(self, mark: int) -> list[list[str]]:
        return self.recorded[mark:]


@pytest.fixture
def watched(
    service: PumpkinApplication, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[PumpkinApplication, FakeClock, Saves]]:
    clock = protected(service, "uk")
    yield service, clock, Saves(service, monkeypatch)


def test_a_refused_spin_is_one_save_holding_the_refusal_alone(
    watched: tuple[PumpkinApplication, FakeClock, Saves],
) -> None:
    app, _clock, saves = watched
    session_id, _ = app.open_session(funded_player(app))
    mark = len(saves.recorded)
    with pytest.raises(StakeLimit):
        app.spin(session_id, 600, "too-big")
    assert saves.since(mark) == [["ProtectionRefused"]]


def test_a_spin_past_the_session_time_limit_is_refused_and_closes_in_one_save(
    watched: tuple[PumpkinApplication, FakeClock, Saves],
) -> None:
    app, clock, saves = watched
    player_id = funded_player(app)
    app.set_limits(player_id, {"session_minutes": 10})
    session_id, _ = app.open_session(player_id)
    clock.move(minutes=11)
    mark = len(saves.recorded)
    with pytest.raises(SessionTimeLimit):
        app.spin(session_id, 20, "late")
    assert saves.since(mark) == [
        ["ProtectionRefused", "SessionClosed", "SeedRevealed", "Closed"]  # + its SessionKey's
    ]
    closed = app.session(session_id)
    assert closed["closed_by"] == "session_time_limit" and closed["server_seed"] is not None


def test_a_due_reality_check_answers_with_the_session_it_was_refused_in(
    watched: tuple[PumpkinApplication, FakeClock, Saves],
) -> None:
    app, clock, saves = watched
    session_id, _ = app.open_session(funded_player(app), 15)
    clock.move(minutes=16)
    mark = len(saves.recorded)
    with pytest.raises(RealityCheckDue) as refused:
        app.spin(session_id, 20, "due")
    assert saves.since(mark) == [["ProtectionRefused"]]
    details = refused.value.details or {}
    session: Any = details["session"]
    assert session["session_id"] == session_id and session["reality_check_due"] is True


def test_opening_and_protecting_a_session_is_one_save_and_a_refused_open_records_alone(
    watched: tuple[PumpkinApplication, FakeClock, Saves],
) -> None:
    app, clock, saves = watched
    player_id = funded_player(app)
    mark = len(saves.recorded)
    app.open_session(player_id, 30)
    assert saves.since(mark) == [["SessionOpened", "SessionProtected", "Issued", "Issued"]]
    app.exclude(player_id, clock.now.replace(year=2027), "a break")
    mark = len(saves.recorded)
    with pytest.raises(PlayerExcluded):
        app.open_session(player_id)
    assert saves.since(mark) == [["ProtectionRefused"]]


def test_an_exclusion_closes_every_open_session_in_its_own_save(
    watched: tuple[PumpkinApplication, FakeClock, Saves],
) -> None:
    app, _clock, saves = watched
    player_id = funded_player(app)
    first, _ = app.open_session(player_id)
    second, _ = app.open_session(player_id)
    mark = len(saves.recorded)
    app.exclude(player_id, None, "for good")
    [save] = saves.since(mark)
    assert save[0] == "Excluded"
    assert save.count("SessionClosed") == save.count("SeedRevealed") == save.count("Closed") == 2
    for session_id in (first, second):
        assert app.session(session_id)["closed_by"] == "exclusion"


def test_a_reality_check_answered_stop_closes_its_session_in_the_same_save(
    watched: tuple[PumpkinApplication, FakeClock, Saves],
) -> None:
    app, clock, saves = watched
    session_id, _ = app.open_session(funded_player(app), 15)
    clock.move(minutes=16)
    mark = len(saves.recorded)
    answer = app.reality_check(session_id, False)
    assert saves.since(mark) == [
        ["RealityCheckAnswered", "SessionClosed", "SeedRevealed", "Closed"]
    ]
    assert answer["open"] is False and answer["closed_by"] == "reality_check"
