"""The pages' parts on their own: the key file, link signatures, the RTP band and its chart, and
how cells and prizes are labelled."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

from infrastructure.pages.keys import PageKeys
from infrastructure.pages.links import ReplaySigner
from infrastructure.pages.replay_view import cell_label, multiple, step_view
from infrastructure.pages.rtp import state_rtps
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
    rounds = 1_000_000
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
