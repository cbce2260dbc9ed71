"""The pages in a real browser: console sign-in and out, round search into a replay, signed
links in a fresh context (tampered and expired ones refused), three rounds played on /play.
Every page: no request leaves 127.0.0.1, no console error, and a screenshot in screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from browser_support import (
    SCREENSHOTS,
    ChromiumThread,
    Player,
    in_chromium,
    live_server,
)
from http_support import AUDITOR, bearer
from pages_support import eventually, forged_link, tampered
from playwright import sync_api as playwright_api


@dataclass
class Site:
    base: str
    store: str
    api: httpx.Client
    played: Player
    rounds: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def site(module_store_url: str) -> Iterator[Site]:
    store = "sqlite" if module_store_url.startswith("sqlite") else "postgres"
    with live_server(module_store_url) as base, httpx.Client(base_url=base, timeout=10) as api:
        player = Player(api)
        rounds = [player.spin() for _ in range(6)]
        yield Site(base, store, api, player, rounds)


@dataclass
class Watched:
    """A fresh browser context whose every request and console error is kept."""

    chromium: ChromiumThread
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    page: playwright_api.Page = field(init=False)

    def shot(self, name: str, site: Site) -> None:
        SCREENSHOTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}-{site.store}.png"), full_page=True)

    def listen(self, context: playwright_api.BrowserContext) -> playwright_api.Page:
        """A new page of `context`, its requests and console errors kept with the rest."""
        context.on("request", lambda r: self.requests.append(r.url))
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        return page


@pytest.fixture
def watched(chromium: ChromiumThread, site: Site) -> Iterator[Watched]:
    def open_page() -> Watched:
        context = chromium.browser.new_context(viewport={"width": 1280, "height": 900})
        seen = Watched(chromium)
        seen.page = seen.listen(context)
        return seen

    seen = chromium.run(open_page)
    yield seen
    chromium.run(seen.page.context.close)
    strays = [url for url in seen.requests if not url.startswith(site.base + "/")]
    assert not strays, f"requests left 127.0.0.1: {strays}"


def no_console_error(seen: Watched, expected: tuple[str, ...] = ()) -> None:
    unexpected = [e for e in seen.errors if not any(x in e for x in expected)]
    assert not unexpected, unexpected


def sign_in(page: playwright_api.Page, site: Site) -> None:
    page.goto(f"{site.base}/console")
    page.fill("#key", AUDITOR)
    page.click("#sign-in button")
    page.wait_for_selector("#sign-out")


@in_chromium
def test_the_auditor_signs_in_sees_the_console_verifies_a_player_and_signs_out(
    watched: Watched, site: Site
) -> None:
    page = watched.page
    eventually(
        lambda: site.api.get("/audit/stats", headers=bearer(AUDITOR)).json()["buckets"],
        lambda buckets: sum(b["rounds"] for b in buckets) >= len(site.rounds),
    )
    sign_in(page, site)
    assert page.locator("#rtp-table tbody tr").count() >= 1
    assert page.locator("svg.chart").count() >= 1
    watched.shot("console-overview", site)
    page.click("text=Players")
    row = page.locator("#players tr", has_text=site.played.player_id)
    row.locator("button", has_text="Verify").click()
    page.wait_for_selector("#verified")
    assert "Verified" in page.inner_text("#verified")
    assert page.locator("#trail tbody tr").count() >= 2 * len(site.rounds)
    watched.shot("console-player", site)
    page.click("#sign-out")
    page.wait_for_selector("#sign-in")
    page.goto(f"{site.base}/console/players")
    assert page.locator("#sign-in").count() == 1  # signed out: back to the sign-in form
    no_console_error(watched)


@in_chromium
def test_a_round_found_by_the_search_opens_its_replay(watched: Watched, site: Site) -> None:
    page = watched.page
    sign_in(page, site)
    page.click("text=Rounds")
    page.fill("input[name=player_id]", site.played.player_id)
    page.click("#round-search button")
    first = site.rounds[-1]
    page.wait_for_selector(f"#rounds tr:has-text('{first}')")
    watched.shot("console-rounds", site)
    page.locator("#rounds tr", has_text=first).locator("text=Replay").click()
    page.wait_for_selector("#settlement")
    assert first in page.inner_text("h1")
    assert page.locator("table.screen").count() >= 1
    watched.shot("replay", site)
    no_console_error(watched)


@in_chromium
def test_a_signed_link_opens_in_a_fresh_context_and_a_forged_one_is_refused(
    watched: Watched, site: Site
) -> None:
    page = watched.page
    round_id = site.rounds[0]
    made = site.api.post(
        f"/rounds/{round_id}/replay-links",
        json={"ttl_seconds": 600},
        headers=bearer(site.played.token),
    )
    assert made.status_code == 201, made.text
    url = made.json()["url"]
    fresh = watched.chromium.browser.new_context()  # no cookie, no token: only the link
    try:
        alone = watched.listen(fresh)
        opened = alone.goto(url)
        assert opened is not None and opened.status == 200
        assert round_id in alone.inner_text("h1")
        seed = site.api.get(f"/rounds/{round_id}", headers=bearer(AUDITOR)).json()["seed"]
        assert seed in alone.inner_text("#fairness")
    finally:
        fresh.close()
    for bad in (
        tampered(url),
        site.base + forged_link(round_id, datetime.now(UTC) - timedelta(hours=1), 60),
    ):
        refused = page.goto(bad)
        assert refused is not None and refused.status == 403
        assert "not valid or has expired" in page.inner_text("#refusal")
    watched.shot("replay-refused", site)
    no_console_error(watched, expected=("status of 403",))


@in_chromium
def test_three_rounds_played_on_the_play_page_are_found_through_the_api(
    watched: Watched, site: Site
) -> None:
    page = watched.page
    player = Player(site.api)
    page.goto(f"{site.base}/play#token={player.token}")
    page.wait_for_selector("#game:not([hidden])")
    assert player.token not in page.url  # the token leaves the address bar
    for played in range(1, 4):
        page.click("[data-role=spin]")
        # A round with features plays its steps out one by one before it is listed: a long Free
        # Spins round takes well over the default 5 s.
        playwright_api.expect(page.locator("[data-role=round]")).to_have_count(
            played, timeout=90_000
        )
        page.wait_for_selector("[data-role=spin]:not([disabled])", timeout=90_000)
    shown = page.locator("[data-role=round]").evaluate_all(
        "rows => rows.map(r => r.dataset.roundId)"
    )
    assert page.inner_text("#spins") == "3"
    watched.shot("play", site)
    recorded = site.api.get(
        f"/players/{player.player_id}/rounds", headers=bearer(player.token)
    ).json()["rounds"]
    assert sorted(shown) == sorted(r["round_id"] for r in recorded)
    no_console_error(watched)
