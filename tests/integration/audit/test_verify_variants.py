"""A store holding rounds of several RTP variants, and of a no-jackpot model, verifies whole:
each round recorded the model version it played (the variant in force, its no-jackpot model
where the profile forbids jackpots) and re-derives on it; versions 1 and 2 stay published."""

from __future__ import annotations

from typing import Any

from domain.game.model import model_named
from domain.game.variants import variant_named
from domain.ledger.protection import Profile
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
    played = {"default": _versions(_play(service, "p96", 40))}
    for variant in ("94", "92"):
        service.rules.variant = variant
        played[variant] = _versions(_play(service, f"p{variant}", 40))
    service.profile = NO_JACKPOTS
    played["94-nj"] = _versions(_play(service, "p94nj", 40))
    service.rules.variant = "96"
    played["96-nj"] = _versions(_play(service, "p96nj", 40))
    assert played == {
        "default": {variant_named("96").model(True).version},
        "94": {variant_named("94").model(True).version},
        "92": {variant_named("92").model(True).version},
        "94-nj": {variant_named("94").model(False).version},
        "96-nj": {variant_named("96").model(False).version},
    }
    report = verify_store(service)
    assert report["ok"], report["problems"][:5]
    assert report["rounds_rederived"] == 200


def test_a_player_moves_to_the_variant_in_force_on_the_next_round(
    service: PumpkinApplication,
) -> None:
    first = _play(service, "mover", 3)
    service.rules.variant = "92"
    session_id, _ = service.open_session("mover")
    later = service.spin(session_id, 100, "mover-later")
    assert _versions(first) == {model_named("pumpkin-v3").version}
    assert later["model_version"] == variant_named("92").model(True).version
    assert verify_store(service)["ok"]
