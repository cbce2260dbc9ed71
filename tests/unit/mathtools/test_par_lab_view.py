"""The PAR report's lab view (issue 26 item 5): volatility at 90% and 95%, the RTP bands a
player meets, and the win distribution with every band and no gap."""

from __future__ import annotations

import json
import math

from infrastructure.mathtools.par_lab_view import (
    Z90,
    Z95,
    band_names,
    lab_view_section,
    rtp_bands,
    volatility,
)
from infrastructure.mathtools.par_report import MODELS


def test_the_bands_are_the_simulators_histogram_every_one_in_order() -> None:
    published = json.loads((MODELS / "pumpkin-v2.par.json").read_text())
    for state in published["states"].values():
        assert sorted(band_names()) == sorted(state["win_distribution"])
    names = band_names()
    assert names[0] == "0" and names[1] == "(0, 1)" and names[-1] == ">= 10000"
    # each band starts where the one before it ends: no gap, no overlap
    for before, after in zip(names[2:], names[3:-1], strict=False):
        assert before.split(", ")[1].rstrip(")") == after.split(", ")[0].lstrip("[")


def test_the_volatility_index_is_z_times_the_sd() -> None:
    assert volatility(10.0) == {"vi90": Z90 * 10.0, "vi95": Z95 * 10.0}


def test_a_players_rtp_band_narrows_with_the_square_root_of_rounds() -> None:
    bands = rtp_bands(0.96, 10.0)
    assert [n for n, _, _ in bands] == [10**3, 10**4, 10**5, 10**6, 10**7]
    widths = [high - low for _, low, high in bands]
    for wider, narrower in zip(widths, widths[1:], strict=False):
        assert math.isclose(wider / narrower, math.sqrt(10))
    for _, low, high in bands:
        assert math.isclose((low + high) / 2, 0.96)


def test_the_section_shows_every_state_of_the_model() -> None:
    computed = json.loads((MODELS / "pumpkin-v2.math.json").read_text())["states"]
    simulated = json.loads((MODELS / "pumpkin-v2.par.json").read_text())["states"]
    text = "\n".join(lab_view_section(computed, simulated))
    for key in computed:
        assert text.count(f"| {key} |") == 2  # its volatility row and its distribution row
