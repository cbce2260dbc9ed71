"""The max win's published bound: where no importance-sampling estimate is reliable, the PAR
simulation's exact binomial 99% upper bound when it is tighter than Cantelli's, Cantelli's beside
it always."""

from __future__ import annotations

import math

import pytest

from domain.game.max_win_odds import simulation_upper_bound, stated_odds

CANTELLI = {"probability_at_most": 1e-6, "one_in_at_least": 1e6, "method": "Cantelli's ..."}


def test_none_seen_bounds_the_probability_by_minus_log_alpha_over_n() -> None:
    assert simulation_upper_bound(100_000_000, 0) == pytest.approx(-math.log(0.01) / 1e8, rel=1e-6)


def test_a_few_seen_gives_the_poisson_limit_of_the_exact_binomial_bound() -> None:
    # chi-square(0.99, 2k + 2) / 2 for k = 3: 10.0451
    assert simulation_upper_bound(10**8, 3) * 1e8 == pytest.approx(10.0451, abs=1e-3)


def test_the_bound_is_where_seeing_so_few_has_probability_one_percent() -> None:
    n, k = 1_000, 5
    p = simulation_upper_bound(n, k)
    tail = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))
    assert tail == pytest.approx(0.01, rel=1e-6)


def test_a_simulation_bound_tighter_than_cantellis_is_published_with_cantellis_beside() -> None:
    odds = stated_odds("no-such-version", "L0/HW1/FS1", CANTELLI, (100_000_000, 0))
    assert odds["one_in_at_least"] == pytest.approx(1e8 / -math.log(0.01), rel=1e-6)
    assert "Clopper-Pearson" in odds["method"]
    assert "99% confidence" in odds["statement"] and "Cantelli" in odds["statement"]


def test_a_short_simulation_leaves_cantellis_bound_published() -> None:
    odds = stated_odds("no-such-version", "L0/HW1/FS1", CANTELLI, (1_000, 0))
    assert odds["one_in_at_least"] == 1e6
    assert odds["statement"].startswith("at most 1 in 1,000,000 rounds (Cantelli's bound)")
