"""The model new rounds play: the RTP variant in force (PUMPKIN_RTP_VARIANT), its no-jackpot
model where the profile forbids jackpots (de); `serve` refuses a variant that is not listed, and
would refuse de were the model in force one that plays jackpots."""

from __future__ import annotations

import pytest

from domain.game import variants as variants_module
from domain.game.model import model_named
from domain.game.variants import UnknownVariant, model_in_force, variant_named, variants
from domain.ledger.protection import PROFILES
from infrastructure.bootstrap import jurisdiction_problems
from infrastructure.rules_in_force import RulesInForce
from infrastructure.settings import Settings


def test_the_default_variant_plays_the_current_model() -> None:
    assert RulesInForce().model_version() is None  # the current model: pumpkin-v3
    assert variant_named().variant == "96" and variant_named().model_name == "pumpkin-v3"


def test_another_variant_and_de_play_their_own_models() -> None:
    for variant in variants():
        if variant.variant != "96":
            assert RulesInForce(variant=variant.variant).model_version() == (
                variant.model(True).version
            )
        if variant.no_jackpot_model_name:
            de = RulesInForce(profile=PROFILES["de"], variant=variant.variant)
            assert de.model_version() == variant.model(False).version
            assert not variant.model(False).jackpots and variant.model(True).jackpots
    assert RulesInForce(variant="96").model_version() is None


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(UnknownVariant):
        model_in_force("97")
    problems = jurisdiction_problems(Settings(rtp_variant="97"))
    assert problems and "PUMPKIN_RTP_VARIANT=97" in problems[0]


def test_de_serves_its_no_jackpot_model_and_would_refuse_a_jackpot_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if variant_named("96").no_jackpot_model_name is None:  # not built yet: de is refused
        assert jurisdiction_problems(Settings(jurisdiction="de"))
    for variant in variants():
        if variant.no_jackpot_model_name:
            settings = Settings(jurisdiction="de", rtp_variant=variant.variant)
            assert jurisdiction_problems(settings) == []
    monkeypatch.setattr(variants_module, "model_in_force", lambda *_: model_named("pumpkin-v3"))
    problems = jurisdiction_problems(Settings(jurisdiction="de"))
    assert problems and "no jackpot round may be served" in problems[0]
