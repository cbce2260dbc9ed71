"""Each jurisdiction profile's own rules (CONTRACT.md "Player protection"; where each comes from:
docs/PROTECTION.md), on the in-memory store with a clock the test moves: `de`'s 5-second rounds,
stake limit, one open session and no jackpots; `uk`'s stake limits by age band."""

from __future__ import annotations

import pytest
from protection_support import event_names, funded_player, protected, protected_session

from domain.errors import InvalidAgeBand, RoundTooSoon, SessionLimit, StakeLimit
from domain.ledger.protection import PROFILES, profile_problems
from infrastructure.application import PumpkinApplication


def test_de_keeps_a_sessions_rounds_five_seconds_apart(service: PumpkinApplication) -> None:
    clock, _, session_id = protected_session(service, "de")
    service.spin(session_id, 100, "r1")
    clock.move(seconds=4)
    with pytest.raises(RoundTooSoon) as refused:
        service.spin(session_id, 100, "r2")
    assert refused.value.retry_after == 1
    clock.move(seconds=1)
    assert service.spin(session_id, 100, "r2")["stake"] == 100


def test_de_refuses_a_stake_above_100(service: PumpkinApplication) -> None:
    _, _, session_id = protected_session(service, "de")
    with pytest.raises(StakeLimit, match="maximum stake 100"):
        service.spin(session_id, 200, "r1")
    assert service.spin(session_id, 100, "r1")["stake"] == 100


def test_de_allows_one_open_session_per_player(service: PumpkinApplication) -> None:
    _, player_id, session_id = protected_session(service, "de")
    with pytest.raises(SessionLimit):
        service.open_session(player_id)
    assert event_names(service, player_id)[-1] == "ProtectionRefused"
    service.close_session(session_id)
    service.open_session(player_id)  # once the first is closed


def test_other_profiles_allow_several_open_sessions(service: PumpkinApplication) -> None:
    for profile in ("none", "uk", "ontario"):
        protected(service, profile)
        player_id = funded_player(service, f"p-{profile}")
        service.open_session(player_id)
        service.open_session(player_id)


def test_de_publishes_no_autoplay_no_turbo_and_no_jackpots() -> None:
    assert PROFILES["de"].document() == {
        "name": "de", "min_round_seconds": 5, "max_stake": 100, "reality_check_minutes": 60,
        "autoplay": False, "turbo": False, "jackpots": False,
    }
    assert all(PROFILES[name].document()["jackpots"] for name in ("none", "uk", "ontario"))


def test_de_cannot_be_served_with_a_model_that_plays_jackpots() -> None:
    assert profile_problems(PROFILES["de"], plays_jackpots=True)
    assert profile_problems(PROFILES["de"], plays_jackpots=False) == []
    assert profile_problems(PROFILES["uk"], plays_jackpots=True) == []


@pytest.mark.parametrize(
    ("age_band", "cap", "highest"), [("18-24", 200, 200), ("25+", 500, 400), (None, 200, 200)],
    ids=["18-24", "25+", "unknown: the lower"],
)
def test_uk_limits_the_stake_by_age_band(
    service: PumpkinApplication, age_band: str | None, cap: int, highest: int
) -> None:
    """highest: the largest of the game's stakes (20 ... 10,000) within the cap."""
    _, _, session_id = protected_session(service, "uk", age_band=age_band)
    above = {200: 400, 400: 600}[highest]
    with pytest.raises(StakeLimit, match=f"maximum stake {cap}"):
        service.spin(session_id, above, "r1")
    assert service.spin(session_id, highest, "r1")["stake"] == highest


def test_uk_publishes_its_stake_limits_by_age_band() -> None:
    assert PROFILES["uk"].document()["max_stake_by_age_band"] == {"18-24": 200, "25+": 500}
    assert "max_stake_by_age_band" not in PROFILES["ontario"].document()


def test_the_age_band_is_recorded_and_only_a_known_band_is_taken(
    service: PumpkinApplication,
) -> None:
    for band in ("18-25", "", 25, "25"):
        with pytest.raises(InvalidAgeBand):
            service.register_player(f"bad-{band}", band)
    service.register_player("young", "18-24")
    assert service.load_player("young").age_band == "18-24"
    assert event_names(service, "young") == ["Registered", "AgeBandRecorded"]
    service.register_player("unknown")
    assert service.load_player("unknown").age_band is None
    assert event_names(service, "unknown") == ["Registered"]


def test_a_band_limits_the_stake_only_where_the_profile_has_bands(
    service: PumpkinApplication,
) -> None:
    _, _, session_id = protected_session(service, "ontario", age_band="18-24")
    assert service.spin(session_id, 400, "r1")["stake"] == 400
