"""The max win's odds as published: the importance-sampling figures computed beside the model
(`python -m infrastructure.mathtools.max_win`, domain/game/models/<name>.max_win.json) where
they are reliable and not rejected by the model's own simulations; else the exact binomial
(Clopper-Pearson) 99% upper confidence bound from the PAR simulation's count of max wins, where
it is tighter than Cantelli's bound; and Cantelli's bound, which holds for any distribution,
always beside them.
"""

from __future__ import annotations

import json
import math
from functools import cache
from importlib import resources
from typing import Any

from domain.game.board import MAX_WIN_X_STAKE

RELIABLE_EFFECTIVE_HITS = 30  # effective tilted rounds at the max win, at least
RELIABLE_RELATIVE_ERROR = 0.3  # standard error / estimate, at most
UNREACHABLE_LOG10_ONE_IN = 9  # 1 in a billion rounds or longer: said plainly
REJECTION_LEVEL = 0.01  # a simulation seeing this unlikely a count of max wins rejects the figure
_LARGEST_POWER = 300.0  # odds are also kept as floats; beyond this only their logarithm is exact


@cache
def published(model_version: str) -> dict[str, Any]:
    """The model version's importance-sampling figures ({} if none were computed for it)."""
    for entry in resources.files("domain.game.models").iterdir():
        if entry.name.endswith(".max_win.json"):
            figures: dict[str, Any] = json.loads(entry.read_text())
            if figures.get("model_version") == model_version:
                return figures
    return {}


def reliable(figures: dict[str, Any]) -> bool:
    error = figures.get("relative_standard_error")
    return bool(
        figures.get("log10_probability") is not None
        and error is not None
        and error <= RELIABLE_RELATIVE_ERROR
        and figures.get("effective_hits", 0) >= RELIABLE_EFFECTIVE_HITS
    )


def rejected_by_simulation(log10_upper: float, spins: int, observed: int) -> bool:
    """True when `observed` max wins in `spins` simulated rounds would be less likely than
    REJECTION_LEVEL if the probability were its upper bound 10**log10_upper (Poisson tail)."""
    if observed == 0 or spins == 0:
        return False
    expected = spins * math.pow(10.0, log10_upper)
    below = sum(
        math.exp(-expected) * math.pow(expected, k) / math.factorial(k) for k in range(observed)
    )
    return 1.0 - below < REJECTION_LEVEL


def simulation_upper_bound(spins: int, observed: int, confidence: float = 0.99) -> float:
    """The exact one-sided binomial (Clopper-Pearson) upper confidence bound on the probability
    of an event seen `observed` times in `spins` independent rounds: the p at which seeing so
    few has probability 1 - confidence (bisection on the binomial distribution function)."""
    if spins <= 0:
        return 1.0
    alpha = 1.0 - confidence
    if observed == 0:
        return -math.expm1(math.log(alpha) / spins)
    if observed >= spins:
        return 1.0

    def at_most_observed(p: float) -> float:
        log_p, log_q = math.log(p), math.log1p(-p)
        return sum(
            math.exp(
                math.lgamma(spins + 1)
                - math.lgamma(k + 1)
                - math.lgamma(spins - k + 1)
                + k * log_p
                + (spins - k) * log_q
            )
            for k in range(observed + 1)
        )

    low, high = observed / spins, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if at_most_observed(middle) > alpha:
            low = middle
        else:
            high = middle
    return high


def _simulation_bound(spins: int, observed: int) -> dict[str, Any]:
    bound = simulation_upper_bound(spins, observed)
    seen = "none" if observed == 0 else f"{observed:,}"
    return {
        "probability_at_most": bound,
        "one_in_at_least": 1 / bound,
        "confidence": 0.99,
        "spins": spins,
        "max_wins_observed": observed,
        "method": "exact binomial (Clopper-Pearson) one-sided 99% upper confidence bound from the "
        f"PAR simulation of the live engine: {seen} in {spins:,} rounds",
    }


def _powers(log10_one_in: float) -> str:
    if log10_one_in < 6:
        return f"{10**log10_one_in:,.0f}"
    return f"10^{log10_one_in:.1f}"


def cantelli_of(odds: dict[str, Any]) -> dict[str, Any]:
    """Cantelli's bound within computed figures (published before or after this module)."""
    bound: dict[str, Any] = odds.get("cantelli", odds)
    return bound


def stated_odds(
    model_version: str,
    key: str,
    cantelli: dict[str, Any],
    simulated: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """What is published for one state: the importance-sampling estimate with its interval when
    reliable and not rejected by `simulated` (spins, max wins observed), Cantelli's bound
    always; `statement` says which in words."""
    figures = published(model_version).get("states", {}).get(key)
    result: dict[str, Any] = {
        "x_stake": MAX_WIN_X_STAKE,
        "probability_at_most": cantelli["probability_at_most"],
        "one_in_at_least": cantelli["one_in_at_least"],
        "method": cantelli["method"],
        "cantelli": cantelli,
        "importance_sampling": None,
    }
    bound_text = f"at most 1 in {cantelli['one_in_at_least']:,.0f} rounds (Cantelli's bound)"
    if figures is None:
        result["statement"] = _bounded(result, simulated, bound_text)
        return result
    result["importance_sampling"] = {
        k: figures.get(k)
        for k in (
            "log10_probability",
            "log10_ci99",
            "log10_upper_bound_99",
            "log10_one_in",
            "log10_one_in_at_least",
            "relative_standard_error",
            "rounds",
            "pilot_rounds",
            "hits",
            "effective_hits",
            "effective_sample_size",
            "seed",
            "method",
        )
    }
    usable = reliable(figures)
    rejected = bool(
        usable and simulated and rejected_by_simulation(figures["log10_upper_bound_99"], *simulated)
    )
    result["importance_sampling"]["reliable"] = usable
    result["importance_sampling"]["rejected_by_simulation"] = rejected
    if not usable or rejected:
        why = (
            "rejected by the simulation's count of max wins"
            if rejected
            else f"no reliable estimate ({figures.get('effective_hits', 0):.1f} effective hits in "
            f"{figures.get('rounds', 0):,} tilted rounds)"
        )
        result["statement"] = (
            f"{_bounded(result, simulated, bound_text)}; importance sampling: {why}"
        )
        return result
    low, high = figures["log10_ci99"]
    one_in = -figures["log10_probability"]
    at_least = figures["log10_one_in_at_least"]
    result.update(
        probability_at_most=10.0 ** -min(at_least, _LARGEST_POWER),
        one_in_at_least=10.0 ** min(at_least, _LARGEST_POWER),
        method=figures["method"],
        log10_one_in=one_in,
    )
    longest = f"to 1 in {_powers(-low)}" if low is not None else "or longer"
    interval = f"1 in {_powers(-high)} {longest}"
    text = (
        f"about 1 in {_powers(one_in)} rounds (99% interval {interval}; at least 1 in "
        f"{_powers(at_least)} with 99% confidence), by importance sampling"
    )
    if at_least >= UNREACHABLE_LOG10_ONE_IN:
        text += ": effectively unreachable"
    result["statement"] = text
    return result


def _bounded(result: dict[str, Any], simulated: tuple[int, int] | None, cantelli_text: str) -> str:
    """With no reliable estimate: the simulation's 99% bound where it is tighter than Cantelli's
    (it becomes the published bound), Cantelli's beside it; the statement in words."""
    if not simulated:
        return cantelli_text
    bound = _simulation_bound(*simulated)
    result["simulation_bound"] = bound
    if bound["probability_at_most"] >= result["probability_at_most"]:
        return cantelli_text
    result.update(
        probability_at_most=bound["probability_at_most"],
        one_in_at_least=bound["one_in_at_least"],
        method=bound["method"],
    )
    seen = "none" if bound["max_wins_observed"] == 0 else f"{bound['max_wins_observed']:,}"
    return (
        f"at most 1 in {bound['one_in_at_least']:,.0f} rounds with 99% confidence ({seen} in "
        f"{bound['spins']:,} simulated rounds); Cantelli's bound, which holds for any "
        f"distribution: at most 1 in {result['cantelli']['one_in_at_least']:,.0f}"
    )
