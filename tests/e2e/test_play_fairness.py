"""Provably fair on /play, in a real browser against a real server (both stores): the commitment
shown at open, the client seed made in the browser and sent with every spin, each round's nonce
and seed, "close and verify" checked by the page itself with WebCrypto, a server seed tampered in
transit marking every round unverified, a session closed by the operator checked on load, and a
token opened in a tab already on /play."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from browser_support import ChromiumThread, Player, live_server
from http_support import OPERATOR, bearer
from play_page_support import PlayTab, role
from playwright import sync_api as playwright_api


@dataclass
class Site:
    base: str
    api: httpx.Client


@pytest.fixture(scope="module")
def site(module_store_url: str) -> Iterator[Site]:
    with live_server(module_store_url) as base, httpx.Client(base_url=base, timeout=10) as api:
        yield Site(base, api)


@pytest.fixture
def tab(chromium: ChromiumThread, site: Site, tmp_path: Path) -> Iterator[PlayTab]:
    shots = Path(os.environ.get("PUMPKIN_PLAY_SHOTS", tmp_path))
    opened = PlayTab(chromium, site.base, shots)
    chromium.run(opened.open_context)
    yield opened
    chromium.run(opened.close)
    assert not opened.strays(), f"requests left 127.0.0.1: {opened.strays()}"
    assert not [e for e in opened.errors if "status of" not in e], opened.errors


def session_of(site: Site, player: Player) -> dict[str, object]:
    answer = site.api.get(f"/sessions/{player.session_id}", headers=bearer(OPERATOR))
    assert answer.status_code == 200, answer.text
    session: dict[str, object] = answer.json()
    return session


def test_the_commitment_is_shown_the_client_seed_sent_and_every_round_verified_in_the_browser(
    tab: PlayTab, site: Site
) -> None:
    player = Player(site.api)

    def play() -> None:
        page = tab.page
        tab.open(player.token)
        made = page.input_value(role("client-seed"))
        assert len(made) == 32 and made != "0" * 32  # made in the browser, 16 random bytes
        assert page.inner_text(role("commitment")) == session_of(site, player)["seed_commitment"]
        tab.spin()
        page.fill(role("client-seed"), "my lucky seed")
        tab.spin()
        rounds = site.api.get(f"/players/{player.player_id}/rounds",
                              headers=bearer(player.token)).json()["rounds"]
        by_id = {r["round_id"]: site.api.get(f"/rounds/{r['round_id']}",
                                             headers=bearer(player.token)).json() for r in rounds}
        assert sorted(r["client_seed"] for r in by_id.values()) == sorted([made, "my lucky seed"])
        for round_id, round_ in by_id.items():
            row = page.locator(f"{role('round')}[data-round-id='{round_id}']")
            assert row.get_attribute("data-verified") == "pending"
            assert round_["seed"] in row.inner_text()
            assert f"nonce {round_['nonce']}" in row.inner_text()
        tab.requests.clear()
        tab.close_and_verify()
        assert set(tab.verified_marks().values()) == {"true"}
        assert "2 of 2 rounds verified" in page.inner_text("#verify-result")
        revealed = session_of(site, player)["server_seed"]
        assert page.inner_text("#server-seed") == revealed
        writes = [(m, u) for m, u in tab.requests if m != "GET"]
        assert writes == [("POST", f"{site.base}/sessions/{player.session_id}/close")]
        assert page.locator(role("spin")).is_disabled()
        tab.shot("play-verified")

    tab.chromium.run(play)


def test_a_server_seed_tampered_in_transit_leaves_every_round_unverified(
    tab: PlayTab, site: Site
) -> None:
    player = Player(site.api)

    def tamper(route: playwright_api.Route) -> None:
        answer = route.fetch()
        body = answer.json()
        if body.get("server_seed"):
            body["server_seed"] = "f" * 64  # not the seed the commitment was made of
        route.fulfill(response=answer, body=json.dumps(body))

    def play() -> None:
        tab.open(player.token)
        tab.spin()
        tab.spin()
        tab.page.route("**/sessions/current", tamper)
        tab.page.route(f"**/sessions/{player.session_id}/close", tamper)
        tab.close_and_verify()
        assert set(tab.verified_marks().values()) == {"false"}
        result = tab.page.inner_text("#verify-result")
        assert "does NOT match" in result and "0 of 2 rounds verified" in result
        tab.shot("play-tampered")

    tab.chromium.run(play)


def test_a_session_the_operator_closed_is_checked_when_the_page_opens(
    tab: PlayTab, site: Site
) -> None:
    player = Player(site.api)
    played = [player.spin(), player.spin(), player.spin()]
    closed = site.api.post(f"/sessions/{player.session_id}/close", json={},
                           headers=bearer(OPERATOR))
    assert closed.status_code == 200, closed.text

    def play() -> None:
        tab.page.goto(f"{tab.base}/play#token={player.token}")
        playwright_api.expect(tab.page.locator("#verify-result")).to_contain_text(
            "3 of 3 rounds verified", timeout=30_000)
        assert tab.verified_marks() == dict.fromkeys(played, "true")
        assert tab.page.locator(role("spin")).is_disabled()

    tab.chromium.run(play)


def test_a_token_opened_in_a_tab_already_on_play_loads_that_session(
    tab: PlayTab, site: Site
) -> None:
    first, second = Player(site.api), Player(site.api)
    second.spin()

    def play() -> None:
        tab.open(first.token)
        assert tab.page.locator(role("round")).count() == 0
        tab.page.goto(f"{tab.base}/play#token={second.token}")  # only the fragment changes
        playwright_api.expect(tab.page.locator(role("round"))).to_have_count(1)
        assert tab.page.inner_text(role("commitment")) == session_of(site, second)[
            "seed_commitment"]
        assert second.token not in tab.page.url  # the token leaves the address bar
        tab.page.reload()  # the tab keeps its token: the session and its history come back
        playwright_api.expect(tab.page.locator(role("round"))).to_have_count(1)

    tab.chromium.run(play)
