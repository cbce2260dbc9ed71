"""A store holding rounds of several RTP variants, and of a no-jackpot model, verifies whole:
each round recorded the model version it played (the variant in force, its no-jackpot model
where the profile forbids jackpots) and re-derives on it; versions 1 and 2 stay published."""

from __future__ import annotations

from typing import Any

from domain.game.model import model_named
from domain.game.variants import variant_named, variants
from domain.ledger.protection import PROFILES, Profile
from infrastructure.application import PumpkinApplication
from infrastructure.audit.verification import verify_store

NO_JACKPOTS = Profile("test-no-jackpots", 0, None, None, True, True, jackpots=False)


def _play(app: PumpkinApplication, player_id: str, spins: int) -> list[dict[str, Any]]:
    app.register_player(player_id)
    app.deposit(player_id, 10**8, f"{player_id}-d")
    session_id, _ = app.open_session(player_id)
    return [app.spin(session_id, 100, f"{player_id}-{n}") for n in range(spins)]


def _versions(rounds: list[dict[str, Any]]) -> set[str]:
    return {r["model_version"] for r in rounds}


def test_rounds_of_every_variant_and_no_jackpot_model_verify(service: PumpkinApplication) -> None:
    played: dict[str, set[str]] = {"default": _versions(_play(service, "p-default", 30))}
    expected = {"default": {variant_named().model(True).version}}
    for variant in variants():
        service.profile = PROFILES["none"]
        service.rules.variant = variant.variant
        played[variant.variant] = _versions(_play(service, f"p{variant.variant}", 30))
        expected[variant.variant] = {variant.model(True).version}
        if variant.no_jackpot_model_name:
            service.profile = NO_JACKPOTS
            played[f"{variant.variant}-nj"] = _versions(_play(service, f"p{variant.variant}nj", 30))
            expected[f"{variant.variant}-nj"] = {variant.model(False).version}
    assert played == expected
    report = verify_store(service)
    assert report["ok"], report["problems"][:5]
    assert report["rounds_rederived"] == 30 * len(played)


def test_a_player_moves_to_the_variant_in_force_on_the_next_round(
    service: PumpkinApplication,
) -> None:
    first = _play(service, "mover", 3)
    other = variants()[-1]
    service.rules.variant = other.variant
    session_id, _ = service.open_session("mover")
    later = service.spin(session_id, 100, "mover-later")
    assert _versions(first) == {model_named("pumpkin-v3").version}
    assert later["model_version"] == other.model(True).version
    assert verify_store(service)["ok"]
