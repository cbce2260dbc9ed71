"""The pages' parts on their own: the key file, link signatures, the RTP band and its chart, and
how cells and prizes are labelled."""

from __future__ import annotations

import math
import re
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from infrastructure.pages.keys import PageKeys
from infrastructure.pages.links import ReplaySigner
from infrastructure.pages.replay_view import cell_label, multiple, step_view
from infrastructure.pages.rtp import K99, MIN_ROUNDS, all_states, state_rtps
from infrastructure.pages.svg import rtp_chart

MODEL = "pumpkin-v1-4af96d8ef079b16a"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_a_generated_pages_key_is_kept_private_in_its_file_and_read_back(tmp_path: Path) -> None:
    key_file = tmp_path / "pages.key"
    first = PageKeys("", key_file).for_use("replay")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert PageKeys("", key_file).for_use("replay") == first  # a restart keeps the links
    assert PageKeys("", key_file).for_use("console") != first  # one key per use


def test_no_key_file_is_made_when_a_key_is_configured_or_before_it_is_needed(
    tmp_path: Path,
) -> None:
    key_file = tmp_path / "pages.key"
    PageKeys("a-configured-pages-key-of-some-length", key_file).for_use("replay")
    PageKeys("", key_file)
    assert not key_file.exists()


def test_a_link_is_valid_for_its_round_until_it_expires_and_not_a_second_longer() -> None:
    signer = ReplaySigner(PageKeys("k" * 32))
    link = signer.link("p.1", NOW, 60)
    expires, sig = link.path.split("expires=")[1].split("&sig=")
    assert link.expires_at == NOW + timedelta(seconds=60)
    assert signer.valid("p.1", expires, sig, NOW + timedelta(seconds=59))
    assert not signer.valid("p.1", expires, sig, NOW + timedelta(seconds=60))
    assert not signer.valid("p.2", expires, sig, NOW)
    assert not signer.valid("p.1", str(int(expires) + 1), sig, NOW)
    assert not ReplaySigner(PageKeys("other" * 8)).valid("p.1", expires, sig, NOW)
    assert not signer.valid("p.1", "-1", sig, NOW) and not signer.valid("p.1", expires, "é", NOW)


def bucket(day: str, rounds: int, staked: int, won: int) -> dict[str, object]:
    return {
        "day": day,
        "state": "L0/HW1/FS1",
        "model_version": MODEL,
        "level": 0,
        "rounds": rounds,
        "staked": staked,
        "won": won,
        "theoretical_rtp": 0.961,
    }


def test_a_state_outside_its_99_percent_band_is_flagged_and_one_inside_is_not() -> None:
    rounds = 10_000_000
    inside = state_rtps([bucket("2026-11-30", rounds, 100 * rounds, 96 * rounds)])[0]
    outside = state_rtps([bucket("2026-11-30", rounds, 100 * rounds, 90 * rounds)])[0]
    band = inside.band()
    assert band is not None and band[0] < 0.961 < band[1] and band[1] - band[0] < 0.05
    assert not inside.outside_band and outside.outside_band


def test_the_band_narrows_as_rounds_grow_and_the_chart_follows_day_by_day() -> None:
    state = state_rtps(
        [bucket("2026-11-29", 1000, 100_000, 90_000), bucket("2026-11-30", 3000, 300_000, 300_000)]
    )[0]
    assert state.growth == [(1000, 0.9), (4000, 0.975)]
    wide, narrow = state.band(1000), state.band(4000)
    assert wide and narrow and wide[1] - wide[0] > narrow[1] - narrow[0]
    chart = rtp_chart(state)
    assert chart.startswith("<svg") and "polyline" in chart and "band" in chart
    assert "<script" not in chart and "href" not in chart


def test_prizes_show_as_multiples_of_the_stake_in_cells_and_figures() -> None:
    assert cell_label("COIN:250", 100).text == "250×"
    assert cell_label("CANDY:MAXI", 100).text.startswith("MAXI")
    assert multiple(123_456_700, 100) == "1,234,567× stake = 1,234,567.00"
    assert multiple(250, 1000) == "0.25× stake = 2.50"
    assert multiple(2_500, 100) == "25× stake = 25.00"


def test_a_line_win_marks_its_winning_cells_and_shades_the_rest_of_its_payline() -> None:
    screen = [["A", "K", "Q"]] * 5
    step = {
        "kind": "base",
        "screen": screen,
        "landed_screen": screen,
        "win": 60,
        "multiplier": 1.0,
        "line_wins": [{"line": 1, "symbol": "K", "count": 3, "win": 60}],
    }
    shown = step_view(0, step, 100).line_wins[0]["rows"]
    marked = [cell.classes[-1] for row in shown for cell in row if len(cell.classes) > 1]
    assert marked.count("hit") == 3 and marked.count("path") == 2


def test_a_state_on_too_few_rounds_is_never_flagged_however_far_off() -> None:
    """Issue 27 item 13: three of 17 states were flagged on 18 to 50 rounds."""
    few = state_rtps([bucket("2026-11-30", MIN_ROUNDS - 1, 100 * (MIN_ROUNDS - 1), 0)])[0]
    assert few.too_few_rounds and not few.outside_band
    enough = state_rtps([bucket("2026-11-30", MIN_ROUNDS, 100 * MIN_ROUNDS, 0)])[0]
    assert not enough.too_few_rounds  # judged from MIN_ROUNDS on, by the exact band


def test_the_band_holds_whatever_the_distribution_of_a_rounds_return() -> None:
    """Chebyshev: k = 10 standard errors bound the chance of a healthy state outside at 1%."""
    state = state_rtps([bucket("2026-11-30", 50, 5_000, 15_000)])[0]
    assert state.std_dev is not None
    band = state.band()
    assert band is not None and band[1] == pytest.approx(
        0.961 + K99 * state.std_dev / math.sqrt(50)
    )
    assert 1 / K99**2 == 0.01


def test_a_chart_is_scaled_to_its_data_so_a_state_far_off_shows_its_line() -> None:
    """Issue 27 item 13: charts were clipped at about 315%, a flagged line flat on the edge."""
    state = state_rtps(
        [
            bucket("2026-11-29", 2000, 200_000, 1_000_000),
            bucket("2026-11-30", 2000, 200_000, 900_000),
        ]
    )[0]
    assert state.growth[-1] == (4000, 4.75)
    chart = rtp_chart(state)
    ticks = [int(t) for t in re.findall(r'class="tick"[^>]*>(\d+)%</text>', chart)]
    assert max(ticks) >= 500  # the axis reaches the line
    dot = re.search(r'<circle class="actual" cx="[\d.]+" cy="([\d.]+)"', chart)
    assert dot and float(dot.group(1)) > 16 + 1  # inside the plot, not pinned to its top edge


def test_all_states_together_are_one_row_weighted_by_stake() -> None:
    one = bucket("2026-11-30", 1000, 100_000, 90_000)
    other = {**bucket("2026-11-30", 3000, 600_000, 600_000), "state": "L1/HW1/FS1", "level": 1,
             "theoretical_rtp": 0.96}
    states = state_rtps([one, other])
    whole = all_states(states)
    assert whole is not None and (whole.rounds, whole.staked, whole.won) == (4000, 700_000, 690_000)
    assert whole.computed_rtp == pytest.approx((100_000 * 0.961 + 600_000 * 0.96) / 700_000)
    assert all_states(states[:1]) is None
