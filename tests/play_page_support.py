"""Driving /play in chromium: a context that keeps every request and console error, the page's
hooks (CONTRACT.md, "Pages": data-role), and a page fixture that answers the API with recorded
rounds (tests/play_rounds_support.py) so a feature round plays without hundreds of spins."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from browser_support import ChromiumThread
from PIL import Image
from playwright import sync_api as playwright_api

ROUND_TIMEOUT = 120_000  # a long Hold & Win or Free Spins round plays out its steps one by one


def role(name: str) -> str:
    return f"[data-role='{name}']"


@dataclass
class PlayTab:
    """One browser context on /play, its requests (method, url) and console errors kept."""

    chromium: ChromiumThread
    base: str
    shots: Path
    requests: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    page: playwright_api.Page = field(init=False)

    def open_context(self, width: int = 1280, height: int = 900) -> None:
        context = self.chromium.browser.new_context(viewport={"width": width, "height": height})
        context.on("request", lambda r: self.requests.append((r.method, r.url)))
        self.page = context.new_page()
        self.page.set_default_timeout(15_000)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def close(self) -> None:
        self.page.context.close()

    def open(self, token: str) -> None:
        self.page.goto(f"{self.base}/play#token={token}")
        self.page.wait_for_selector("#game:not([hidden])")
        self.page.wait_for_selector(f"{role('spin')}:not([disabled])")

    def spin(self) -> None:
        """One spin, waited out: its row listed and the spin control enabled again."""
        rows = self.page.locator(role("round")).count()
        self.page.click(role("spin"))
        self.wait_rows(rows + 1)

    def wait_rows(self, count: int) -> None:
        playwright_api.expect(self.page.locator(role("round"))).to_have_count(
            count, timeout=ROUND_TIMEOUT)
        self.page.wait_for_selector(f"{role('spin')}:not([disabled])", timeout=ROUND_TIMEOUT)

    def cell_labels(self) -> list[str]:
        return [str(label) for label in self.page.locator(f"{role('cell')} svg").evaluate_all(
            "svgs => svgs.map(s => s.getAttribute('aria-label'))")]

    def verified_marks(self) -> dict[str, str]:
        rows = self.page.locator(role("round")).evaluate_all(
            "rows => rows.map(r => [r.dataset.roundId, r.dataset.verified])")
        return {str(round_id): str(mark) for round_id, mark in rows}

    def close_and_verify(self) -> None:
        self.page.once("dialog", lambda dialog: dialog.accept())  # the native confirm()
        self.page.click(role("close-verify"))
        playwright_api.expect(self.page.locator("#verify-result")).to_contain_text(
            "rounds verified", timeout=30_000)

    def shot(self, name: str, selector: str = "#game") -> Path:
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.page.locator(selector).screenshot(path=str(path))
        if os.environ.get("PUMPKIN_PLAY_SHOTS"):  # for docs/: a small palette PNG
            with Image.open(path) as picture:
                picture.convert("RGB").quantize(colors=96).save(path, optimize=True)
        return path

    def strays(self) -> list[str]:
        return [url for _, url in self.requests if not url.startswith(self.base + "/")]


def in_browser(tab: PlayTab, work: Callable[[], None]) -> None:
    tab.chromium.run(work)


@dataclass
class RecordedApi:
    """The API answered from recorded rounds: an open session, a player, and each spin the next
    round of `rounds`. /rules and the page's own files come from the real server."""

    rounds: list[dict[str, Any]]
    rules_change: dict[str, Any] = field(default_factory=dict)
    spins: list[dict[str, Any]] = field(default_factory=list)
    session_id: str = "fixture-session"

    def session(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "player_id": "fixture", "open": True,
                "opened_at": "2026-01-01T00:00:00Z", "closed_at": None, "spins": len(self.spins),
                "staked": 0, "won": 0, "net": 0, "elapsed_seconds": 60,
                "seed_commitment": "0" * 64, "server_seed": None, "round_ids": []}

    def player(self) -> dict[str, Any]:
        last = self.spins[-1] if self.spins else self.rounds[0]
        return {"player_id": "fixture", "balance": last["balance_after"],
                "level": last["level_after"], "spins_to_next_level": 30,
                "hold_and_win_multiplier": 1.0, "free_spins_multiplier": 1.0}

    def install(self, page: playwright_api.Page) -> None:
        def answer(route: playwright_api.Route) -> None:
            request = route.request
            path = request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
            if path == "rules":
                if not self.rules_change:
                    route.continue_()
                    return
                rules = route.fetch().json()
                for key, value in self.rules_change.items():
                    merged = {**rules.get(key, {}), **value} if isinstance(value, dict) else value
                    rules[key] = merged
                body: Any = rules
            elif path == "sessions/current":
                body = self.session()
            elif path.startswith("players/"):
                body = self.player()
            elif path.endswith("/spins") and request.method == "POST":
                sent = json.loads(request.post_data or "{}")
                nonce = len(self.spins) + 1  # each spin its own round, as the service answers
                body = {**self.rounds[len(self.spins) % len(self.rounds)], "nonce": nonce,
                        "round_id": f"fixture.{nonce}", "client_seed": sent.get("client_seed", "")}
                self.spins.append(body)
            else:
                route.fulfill(status=404, json={"error": {"code": "not_found", "message": "no"}})
                return
            route.fulfill(status=200, json=body)

        for pattern in ("**/rules", "**/sessions/**", "**/players/**"):
            page.route(pattern, answer)
