"""The play page as a game, in chromium: rounds the engine finds by seed (a Free Spins round, a
Hold & Win round, a Clover Moon Swap, Wild Reels, the Normal Game Collector, a jackpot) replayed
through a page fixture that answers the API with them, each feature seen on the page as it plays;
every cell drawn with its string in its accessible name, 390 px with no horizontal scroll, Space
spinning once per press, the profile's minimum round time and its rule on celebrations."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_support import ChromiumThread, Player, live_server
from play_page_support import PlayTab, RecordedApi, role
from play_rounds_support import feature_round, recorded
from playwright import sync_api as playwright_api


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The page and /rules from a real server; the rounds come from the page fixture, not from
    its store, so one store is enough here (the fairness tests run on both)."""
    with live_server(f"sqlite:///{tmp_path_factory.mktemp('store') / 'events.db'}") as url:
        yield url


@pytest.fixture
def tab(chromium: ChromiumThread, base: str, tmp_path: Path) -> Iterator[PlayTab]:
    shots = Path(os.environ.get("PUMPKIN_PLAY_SHOTS", tmp_path))
    opened = PlayTab(chromium, base, shots)
    chromium.run(lambda: opened.open_context(width=390, height=1100))
    yield opened
    chromium.run(opened.close)
    assert not opened.strays(), f"requests left 127.0.0.1: {opened.strays()}"
    assert not [e for e in opened.errors if "status of 409" not in e], opened.errors


def fixture_round(feature: str, nonce: int = 1) -> dict[str, Any]:
    return recorded(feature_round(feature), f"fixture.{nonce}", "fixture-session", nonce)


def play_recorded(tab: PlayTab, rounds: list[dict[str, Any]], **rules: Any) -> RecordedApi:
    api = RecordedApi(rounds, rules_change=rules)
    api.install(tab.page)
    tab.open("fixture-token")
    return api


def last_screen_labels(round_: dict[str, Any]) -> list[str]:
    return [cell for reel in round_["steps"][-1]["screen"] for cell in reel]


def assert_cells_show(tab: PlayTab, round_: dict[str, Any]) -> None:
    """Each of the 15 cells, reel by reel, top to bottom, names its cell as the API writes it."""
    labels = tab.cell_labels()
    assert len(labels) == 15
    for label, cell in zip(labels, last_screen_labels(round_), strict=True):
        assert label.startswith(cell + ":"), (label, cell)


def test_a_free_spins_round_shows_spins_left_and_the_multiplier(tab: PlayTab) -> None:
    round_ = fixture_round("free_spins")
    free_spins = [s for s in round_["steps"] if s["kind"] == "free_spin"]

    def play() -> None:
        play_recorded(tab, [round_])
        tab.page.click(role("spin"))
        panel = tab.page.locator("#feature[data-mode='free-spins']")
        playwright_api.expect(panel).to_contain_text("spins left", timeout=30_000)
        assert "multiplier" in panel.inner_text().lower()
        playwright_api.expect(tab.page.locator("#board[data-mode='free-spins']")).to_have_count(1)
        tab.shot("play-free-spins", ".game")
        tab.wait_rows(1)
        assert_cells_show(tab, round_)
        assert "spins left\n0" in tab.page.inner_text("#feature").lower()
        assert len(free_spins) >= 10

    tab.chromium.run(play)


def test_a_hold_and_win_round_shows_its_own_board_values_collections_and_respins(
    tab: PlayTab,
) -> None:
    round_ = fixture_round("hold_and_win")

    def play() -> None:
        play_recorded(tab, [round_])
        tab.page.click(role("spin"))
        playwright_api.expect(tab.page.locator("#board[data-mode='hold-and-win']")).to_have_count(
            1, timeout=30_000)
        panel = tab.page.locator("#feature[data-mode='hold-and-win']")
        playwright_api.expect(panel).to_contain_text("this respin takes", timeout=30_000)
        for words in ("respins left", "multiplier", "collectors", "collected so far"):
            assert words in panel.inner_text().lower()
        assert tab.page.locator(f"{role('pumpkin')}[data-active='true']").count() >= 1
        assert tab.page.locator(f"{role('cell')} svg[aria-label^='COLLECTOR']").count() >= 3
        tab.shot("play-hold-and-win", ".game")
        tab.wait_rows(1)
        assert_cells_show(tab, round_)
        assert "respins left\n0" in panel.inner_text().lower()
        coins = [label for label in tab.cell_labels() if label.startswith("COIN:")]
        assert all("× stake" in label for label in coins)  # each coin names its value

    tab.chromium.run(play)


def test_a_clover_moon_swap_marks_the_swapped_symbols(tab: PlayTab) -> None:
    round_ = fixture_round("swap")
    swap = round_["steps"][0]["clover_moon_swap"]

    def play() -> None:
        play_recorded(tab, [round_])
        tab.page.click(role("spin"))
        playwright_api.expect(tab.page.locator("#caption")).to_contain_text(
            "Clover Moon Swap", timeout=30_000)
        tab.wait_rows(1)
        for reel, row in swap["positions"]:
            cell = tab.page.locator(f"{role('cell')}[data-reel='{reel}'][data-row='{row}']")
            assert "swapped" in (cell.get_attribute("class") or "")
        assert_cells_show(tab, round_)
        tab.shot("play-swap", ".game")

    tab.chromium.run(play)


def test_wild_reels_and_the_normal_game_collector_are_shown(tab: PlayTab) -> None:
    wild, collector = fixture_round("wild_reels", 1), fixture_round("collector", 2)

    def play() -> None:
        play_recorded(tab, [wild, collector])
        tab.page.click(role("spin"))
        playwright_api.expect(tab.page.locator("#caption")).to_contain_text(
            "Wild Reels", timeout=30_000)
        tab.wait_rows(1)
        reel = wild["steps"][0]["wild_reels"][0]
        marked = tab.page.locator(f"{role('cell')}[data-reel='{reel}'].wild-reel")
        assert marked.count() == 3
        tab.shot("play-wild-reels", ".game")
        tab.page.click(role("spin"))
        playwright_api.expect(tab.page.locator("#caption")).to_contain_text(
            "Normal Game Collector", timeout=30_000)
        tab.shot("play-collector", ".game")
        tab.wait_rows(2)

    tab.chromium.run(play)


def test_a_jackpot_is_announced_and_lit_on_the_ladder(tab: PlayTab) -> None:
    round_ = fixture_round("jackpot")
    won = [j for s in round_["steps"] for j in s.get("jackpots_won", [])]

    def play() -> None:
        play_recorded(tab, [round_])
        tab.page.click(role("spin"))
        playwright_api.expect(tab.page.locator("#caption")).to_contain_text(
            "JACKPOT", timeout=60_000)
        tab.shot("play-jackpot", ".game")
        tab.wait_rows(1)
        for tier in {j["tier"] for j in won}:
            assert tab.page.locator(f"#jackpots li.won[data-tier='{tier}']").count() == 1

    tab.chromium.run(play)


def test_at_390_px_nothing_scrolls_sideways_and_every_hook_is_there(tab: PlayTab) -> None:
    round_ = fixture_round("swap")

    def play() -> None:
        play_recorded(tab, [round_])
        for hook, count in (("commitment", 1), ("client-seed", 1), ("spin", 1), ("stake", 1),
                            ("balance", 1), ("cell", 15), ("pumpkin", 5), ("meter", 1),
                            ("paytable", 1), ("message", 1), ("close-verify", 1)):
            assert tab.page.locator(role(hook)).count() == count, hook
        meter = tab.page.locator(role("meter"))
        assert meter.get_attribute("role") == "progressbar"
        assert meter.get_attribute("aria-valuenow") is not None
        tab.spin()
        width = tab.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        assert tab.page.inner_text(role("balance")).startswith("€")
        tab.shot("play-390px", "main")
        tab.page.click(role("paytable"))
        dialog = tab.page.locator("#rules-dialog")
        playwright_api.expect(dialog).to_be_visible()
        assert "Return to player in your current state" in dialog.inner_text()
        assert "%" in dialog.inner_text() and "WITCH" in dialog.inner_html()
        tab.shot("play-paytable", "#rules-dialog")

    tab.chromium.run(play)


def test_space_spins_once_per_press_but_not_while_typing_the_client_seed(tab: PlayTab) -> None:
    round_ = fixture_round("swap")

    def play() -> None:
        api = play_recorded(tab, [round_])
        tab.page.keyboard.press("Space")
        tab.wait_rows(1)
        assert len(api.spins) == 1
        tab.page.click(role("client-seed"))
        tab.page.keyboard.press("End")
        tab.page.keyboard.type(" x")
        tab.page.wait_for_timeout(300)
        assert len(api.spins) == 1
        assert tab.page.input_value(role("client-seed")).endswith(" x")
        tab.page.locator(role("spin")).focus()  # a focused button is not clicked twice
        tab.page.keyboard.press("Space")
        tab.wait_rows(2)
        tab.page.wait_for_timeout(300)
        assert len(api.spins) == 2
        assert api.spins[1]["client_seed"].endswith(" x")

    tab.chromium.run(play)


def test_in_uk_a_round_lasts_the_minimum_time_and_a_win_not_above_the_stake_is_not_celebrated(
    tab: PlayTab,
) -> None:
    round_ = fixture_round("swap")  # wins 1.00 on a 1.00 stake
    assert round_["total_win"] <= round_["stake"]

    def play() -> None:
        play_recorded(tab, [round_], jurisdiction={
            "name": "uk", "min_round_seconds": 2.5, "autoplay": False, "turbo": False})
        started = tab.page.evaluate("performance.now()")
        tab.page.click(role("spin"))
        assert tab.page.locator(role("spin")).is_disabled()
        tab.wait_rows(1)
        lasted = tab.page.evaluate("performance.now()") - started
        assert lasted >= 2500
        win = tab.page.locator("#win")
        assert win.get_attribute("data-celebrated") == "false"
        assert "celebrate" not in (win.get_attribute("class") or "")

    tab.chromium.run(play)


def test_a_refusal_is_a_dialog_with_its_message(tab: PlayTab, base: str) -> None:
    with httpx.Client(base_url=base, timeout=10) as api:
        player = Player(api)

    def play() -> None:
        tab.open(player.token)
        tab.page.route("**/spins", lambda route: route.fulfill(status=409, json={
            "error": {"code": "insufficient_funds", "message": "The balance is too low."}}))
        tab.page.click(role("spin"))
        dialog = tab.page.locator("#dialog")
        playwright_api.expect(dialog).to_be_visible()
        assert "insufficient_funds" in tab.page.inner_text(role("message"))
        tab.shot("play-refusal", "#dialog")

    tab.chromium.run(play)


def test_at_390_px_no_sum_of_money_breaks_across_lines(tab: PlayTab) -> None:
    """A player's figures and the jackpot ladder at the largest stake, with a balance of nine
    digits: every amount on one line and inside its own box (a phone reader never sees
    "€2,500." above "00")."""
    round_ = {**fixture_round("swap"), "balance_after": 99_998_460}  # €999,984.60

    def play() -> None:
        play_recorded(tab, [round_])
        picker = tab.page.locator(role("stake"))
        values = picker.locator("option").evaluate_all("options => options.map(o => o.value)")
        picker.select_option(max(values, key=int))
        tab.spin()
        playwright_api.expect(tab.page.locator(role("balance"))).to_have_text("€999,984.60")
        amounts = tab.page.locator(".status strong, #jackpots strong").evaluate_all(
            """els => els.map(e => { const line = parseFloat(getComputedStyle(e).lineHeight);
                 return [e.textContent, e.scrollWidth <= e.clientWidth,
                         e.getBoundingClientRect().height < 1.5 * line]; })""")
        assert len(amounts) >= 12
        broken = [text for text, inside, one_line in amounts if not (inside and one_line)]
        assert not broken, broken
        assert tab.page.evaluate("document.documentElement.scrollWidth") <= 390

    tab.chromium.run(play)
