"""The game's RTP variants (CONTRACT.md "RTP variants and the max win"): each a model version of
its own, with its no-jackpot model for markets that forbid jackpots, listed in
domain/game/models/variants.json. The operator picks one (PUMPKIN_RTP_VARIANT, default "96");
a round records the model version it played, so rounds of every variant re-derive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from domain.errors import RuleViolation
from domain.game.model import MathModel, model_named


class UnknownVariant(RuleViolation):
    code = "unknown_variant"


@dataclass(frozen=True)
class Variant:
    variant: str
    rtp: float
    model_name: str
    no_jackpot_model_name: str | None  # None: not built yet (then no jackpot-free market plays it)

    def model(self, jackpots: bool = True) -> MathModel:
        """The variant's model, or its no-jackpot model (jackpots=False)."""
        if jackpots:
            return model_named(self.model_name)
        if self.no_jackpot_model_name is None:
            raise UnknownVariant(f"RTP variant {self.variant!r} has no no-jackpot model yet")
        return model_named(self.no_jackpot_model_name)

    def listed(self) -> dict[str, Any]:
        """As the rules document lists it."""
        return {
            "variant": self.variant,
            "rtp": self.rtp,
            "model_version": self.model(True).version,
            "no_jackpot_model_version": self.model(False).version
            if self.no_jackpot_model_name
            else None,
        }


@cache
def _listing() -> dict[str, Any]:
    text = resources.files("domain.game.models").joinpath("variants.json").read_text()
    listing: dict[str, Any] = json.loads(text)
    return listing


def default_variant() -> str:
    return str(_listing()["default"])


@cache
def variants() -> tuple[Variant, ...]:
    return tuple(
        Variant(str(v["variant"]), float(v["rtp"]), v["model"], v.get("no_jackpot_model"))
        for v in _listing()["variants"]
    )


def variant_named(name: str | None = None) -> Variant:
    """The variant `name` (the default one without it); UnknownVariant if none is listed."""
    wanted = default_variant() if name is None else str(name)
    for v in variants():
        if v.variant == wanted:
            return v
    known = ", ".join(v.variant for v in variants())
    raise UnknownVariant(f"no RTP variant {wanted!r} (the variants are {known})")


def model_in_force(name: str | None = None, jackpots: bool = True) -> MathModel:
    """The model a round plays: the variant's, or its no-jackpot model."""
    return variant_named(name).model(jackpots)


def listing() -> list[dict[str, Any]]:
    return [v.listed() for v in variants()]
