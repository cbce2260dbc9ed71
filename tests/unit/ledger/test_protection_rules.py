"""Player protection's rules, on the in-memory store, with a clock the test moves."""

from __future__ import annotations

from typing import Any

import pytest
from protection_support import (
    event_names,
    funded_player,
    loss_of,
    protected,
    protected_session,
    stream,
)

from domain.errors import (
    InvalidExclusion,
    InvalidLimits,
    InvalidRealityCheck,
    LossLimit,
    PlayerExcluded,
    RealityCheckDue,
    RoundTooSoon,
    SessionClosed,
    SessionTimeLimit,
    StakeLimit,
)
from domain.ledger.protection import COOLING_OFF_SECONDS
from infrastructure.application import PumpkinApplication


def test_a_spin_sooner_than_the_minimum_round_time_waits_the_rest_rounded_up(
    service: PumpkinApplication,
) -> None:
    clock, _, session_id = protected_session(service, "uk")
    service.spin(session_id, 100, "r1")
    clock.move(seconds=1.2)
    with pytest.raises(RoundTooSoon) as refused:
        service.spin(session_id, 100, "r2")
    assert refused.value.retry_after == 2  # 1.3 s left, rounded up
    clock.move(seconds=1.3)
    assert service.spin(session_id, 100, "r2")["stake"] == 100


def test_refused_spins_do_not_count_towards_the_minimum_round_time(
    service: PumpkinApplication,
) -> None:
    clock, _, session_id = protected_session(service, "ontario")
    service.spin(session_id, 100, "r1")
    clock.move(seconds=2)
    with pytest.raises(RoundTooSoon):
        service.spin(session_id, 100, "r2")
    clock.move(seconds=0.5)  # 2.5 s after the round, 0.5 s after the refusal
    service.spin(session_id, 100, "r2")


def test_the_minimum_round_time_counts_per_session(service: PumpkinApplication) -> None:
    protected(service, "uk")
    player_id = funded_player(service)
    first, _ = service.open_session(player_id)
    second, _ = service.open_session(player_id)
    played = [service.spin(first, 100, "r1"), service.spin(second, 100, "r2")]  # at once
    assert [r["round_id"] for r in played] == [f"{player_id}.1", f"{player_id}.2"]
    assert "ProtectionRefused" not in event_names(service, player_id)


def test_the_none_profile_has_no_minimum_round_time(service: PumpkinApplication) -> None:
    protected(service, "none")
    player_id = funded_player(service)
    session_id, _ = service.open_session(player_id)
    for n in range(3):  # back to back, the clock standing still
        service.spin(session_id, 100, f"r{n}")
    assert service.session(session_id)["spins"] == 3
    assert "ProtectionRefused" not in event_names(service, player_id)


def test_a_stake_above_the_profiles_or_the_players_max_stake_is_refused(
    service: PumpkinApplication,
) -> None:
    clock, player_id, session_id = protected_session(service, "uk", age_band="25+")
    with pytest.raises(StakeLimit):
        service.spin(session_id, 600, "r1")
    service.spin(session_id, 400, "r1")
    service.set_limits(player_id, {"max_stake": 100})
    clock.move(seconds=3)
    with pytest.raises(StakeLimit):
        service.spin(session_id, 200, "r2")
    service.spin(session_id, 100, "r2")


def test_a_reality_check_refuses_spins_until_the_player_answers_it(
    service: PumpkinApplication,
) -> None:
    clock, _, session_id = protected_session(service, "uk", 15)
    clock.move(minutes=15)
    with pytest.raises(RealityCheckDue) as due:
        service.spin(session_id, 100, "r1")
    assert due.value.details is not None
    assert due.value.details["session"]["reality_check_due"] is True
    clock.move(seconds=10)
    with pytest.raises(RealityCheckDue):
        service.spin(session_id, 100, "r1")
    answered = service.reality_check(session_id, True)
    assert answered["open"] is True and answered["reality_check_due"] is False
    service.spin(session_id, 100, "r1")
    clock.move(minutes=15)  # 15 minutes after the answer, the next one is due
    with pytest.raises(RealityCheckDue):
        service.spin(session_id, 100, "r2")


def test_declining_to_go_on_at_a_reality_check_closes_the_session(
    service: PumpkinApplication,
) -> None:
    clock, _, session_id = protected_session(service, "ontario")  # the profile's 60 minutes
    clock.move(minutes=59)
    service.spin(session_id, 100, "r1")
    clock.move(minutes=1)
    with pytest.raises(RealityCheckDue):
        service.spin(session_id, 100, "r2")
    assert service.reality_check(session_id, False)["open"] is False
    with pytest.raises(SessionClosed):
        service.spin(session_id, 100, "r2")


def test_a_reality_check_interval_is_15_30_or_60_minutes(service: PumpkinApplication) -> None:
    protected(service, "uk")
    player_id = funded_player(service)
    for minutes in (0, 45, True, "15", 15.0):
        with pytest.raises(InvalidRealityCheck):
            service.open_session(player_id, minutes)


def test_the_none_profile_has_no_reality_checks(service: PumpkinApplication) -> None:
    clock, player_id, session_id = protected_session(service, "none", 15)
    clock.move(hours=5)
    service.spin(session_id, 100, "r1")
    assert service.session(session_id)["spins"] == 1
    assert service.reality_check(session_id, True)["reality_check_minutes"] is None
    assert "ProtectionRefused" not in event_names(service, player_id)


def _play(service: PumpkinApplication, session_id: str, clock: Any, count: int) -> list[Any]:
    rounds = []
    for _ in range(count):
        clock.move(seconds=3)
        rounds.append(service.spin(session_id, 100, f"r{len(rounds)}-{clock.now.timestamp()}"))
    return rounds


@pytest.mark.parametrize("window", ["loss_per_day", "loss_per_week", "loss_per_month"])
def test_a_loss_limit_refuses_a_stake_that_would_pass_it_and_allows_reaching_it(
    service: PumpkinApplication, window: str
) -> None:
    clock, player_id, session_id = protected_session(service, "none")
    loss = loss_of(_play(service, session_id, clock, 3))
    limit = max(loss, 0) + 100
    service.set_limits(player_id, {window: limit})
    clock.move(minutes=2)
    if loss + 200 > limit:
        with pytest.raises(LossLimit):
            service.spin(session_id, 200, "over")
    played = service.spin(session_id, 100, "exactly")  # loss + 100 <= limit
    assert played["stake"] == 100


def test_a_loss_limit_counts_only_the_rolling_window(service: PumpkinApplication) -> None:
    clock, player_id, session_id = protected_session(service, "none")
    service.set_limits(player_id, {"loss_per_day": 200})
    rounds = _play(service, session_id, clock, 1)
    if loss_of(rounds) + 200 > 200:
        with pytest.raises(LossLimit):
            service.spin(session_id, 200, "r-over")
    clock.move(hours=24, minutes=1)  # the round has left the day
    service.spin(session_id, 200, "r-next-day")


def test_a_session_past_the_session_time_limit_is_closed_and_its_spins_refused(
    service: PumpkinApplication,
) -> None:
    clock = protected(service, "none")
    player_id = funded_player(service)
    service.set_limits(player_id, {"session_minutes": 30})
    session_id, _ = service.open_session(player_id)
    clock.move(minutes=29, seconds=59)
    service.spin(session_id, 100, "r1")
    clock.move(seconds=1)
    for _ in range(2):
        with pytest.raises(SessionTimeLimit):
            service.spin(session_id, 100, "r2")
    assert not service.load_player(player_id).session_is_open(session_id)
    assert event_names(service, player_id).count("SessionClosed") == 1


def test_tightening_a_limit_takes_effect_at_once_and_loosening_24_hours_later(
    service: PumpkinApplication,
) -> None:
    clock = protected(service, "none")
    player_id = funded_player(service)
    service.set_limits(player_id, {"max_stake": 100})
    loosened = service.set_limits(player_id, {"max_stake": 1000})
    assert loosened["limits"]["max_stake"] == 100
    assert loosened["pending"] == [
        {"limit": "max_stake", "value": 1000, "effective_at": "2026-03-02T12:00:00+00:00"}
    ]
    session_id, _ = service.open_session(player_id)
    clock.move(seconds=COOLING_OFF_SECONDS - 1)
    with pytest.raises(StakeLimit):
        service.spin(session_id, 200, "r1")
    clock.move(seconds=1)
    service.spin(session_id, 200, "r1")
    assert service.limits(player_id)["pending"] == []
    assert service.set_limits(player_id, {"max_stake": 40})["limits"]["max_stake"] == 40


def test_removing_a_limit_is_pending_with_a_null_value_for_24_hours(
    service: PumpkinApplication,
) -> None:
    clock = protected(service, "none")
    player_id = funded_player(service)
    service.set_limits(player_id, {"loss_per_week": 5000})
    removed = service.set_limits(player_id, {"loss_per_week": None})
    assert removed["limits"]["loss_per_week"] == 5000
    assert [(p["limit"], p["value"]) for p in removed["pending"]] == [("loss_per_week", None)]
    clock.move(hours=24)
    assert service.limits(player_id)["limits"]["loss_per_week"] is None


def test_limits_must_be_known_names_with_positive_whole_values(
    service: PumpkinApplication,
) -> None:
    protected(service, "none")
    player_id = funded_player(service)
    bad_limits: list[dict[str, Any]] = [
        {}, {"loss_per_year": 5}, {"max_stake": 0}, {"max_stake": 1.5}, {"max_stake": True}
    ]
    for bad in bad_limits:
        with pytest.raises(InvalidLimits):
            service.set_limits(player_id, bad)
    assert event_names(service, player_id)[-1] == "Deposited"


def test_an_exclusion_closes_open_sessions_and_refuses_opening_and_spinning(
    service: PumpkinApplication,
) -> None:
    clock, player_id, session_id = protected_session(service, "none")
    until = clock.now.replace(month=4)
    assert service.exclude(player_id, until, "asked for a break") == {
        "excluded": True, "excluded_until": "2026-04-01T12:00:00+00:00"
    }
    assert not service.load_player(player_id).session_is_open(session_id)
    with pytest.raises(PlayerExcluded):
        service.spin(session_id, 100, "r1")
    with pytest.raises(PlayerExcluded):
        service.open_session(player_id)
    assert service.player_state(player_id)["excluded"] is True
    clock.now = until
    assert service.limits(player_id)["excluded"] is False
    service.spin(service.open_session(player_id)[0], 100, "r1")


def test_an_exclusion_cannot_be_shortened(service: PumpkinApplication) -> None:
    clock = protected(service, "none")
    player_id = funded_player(service)
    service.exclude(player_id, clock.now.replace(month=6), "six months")
    shorter = service.exclude(player_id, clock.now.replace(month=4), "changed my mind")
    assert shorter["excluded_until"] == "2026-06-01T12:00:00+00:00"
    service.exclude(player_id, None, "for good")
    later = service.exclude(player_id, clock.now.replace(year=2027), "shorter again")
    assert later == {"excluded": True, "excluded_until": None}
    with pytest.raises(InvalidExclusion):
        service.exclude(player_id, clock.now, "ends now")


def test_every_setting_answer_exclusion_and_refusal_is_an_event_that_moves_no_money(
    service: PumpkinApplication,
) -> None:
    clock, player_id, session_id = protected_session(service, "uk", 30)
    service.set_limits(player_id, {"loss_per_day": 1000})
    with pytest.raises(StakeLimit):
        service.spin(session_id, 600, "r1")
    balance = service.player_state(player_id)["balance"]
    clock.move(minutes=30)
    with pytest.raises(RealityCheckDue):
        service.spin(session_id, 100, "r1")
    service.reality_check(session_id, True)
    service.exclude(player_id, None, "permanent")
    names = event_names(service, player_id)
    for name in ("SessionProtected", "LimitsChanged", "ProtectionRefused",
                 "RealityCheckAnswered", "Excluded"):
        assert name in names
    refusals = [e for n, e in stream(service, player_id) if n == "ProtectionRefused"]
    assert [(r["rule"], r["stake"]) for r in refusals] == [
        ("stake_limit", 600), ("reality_check_due", 100)
    ]
    assert service.player_state(player_id)["balance"] == balance
    assert service.check_player_chain(player_id) == []


def test_protection_is_rebuilt_from_the_store_after_a_restart(store_url: str) -> None:
    app = PumpkinApplication.from_url(store_url)
    clock, player_id, session_id = protected_session(app, "uk")
    app.spin(session_id, 100, "r1")
    app.set_limits(player_id, {"max_stake": 100})
    app.set_limits(player_id, {"max_stake": 400})
    app.close()
    restarted = PumpkinApplication.from_url(store_url)
    try:
        restarted.clock, restarted.profile = clock, app.profile
        with pytest.raises(RoundTooSoon):
            restarted.spin(session_id, 100, "r2")
        clock.move(seconds=3)
        with pytest.raises(StakeLimit):
            restarted.spin(session_id, 200, "r2")
        assert restarted.limits(player_id)["pending"][0]["value"] == 400
    finally:
        restarted.close()


def test_answering_a_reality_check_past_the_session_time_limit_closes_the_session(
    service: PumpkinApplication,
) -> None:
    clock, player_id, session_id = protected_session(service, "uk", 15)
    service.set_limits(player_id, {"session_minutes": 20})
    clock.move(minutes=20)
    with pytest.raises(SessionTimeLimit):
        service.reality_check(session_id, True)
    assert not service.load_player(player_id).session_is_open(session_id)
