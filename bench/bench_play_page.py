"""The play page's speed in Debian's chromium (headless, Playwright), on loopback: time to
interactive (navigation start to the game drawn and playable, the page's own
`performance.mark("play-interactive")`) and frame times while the reels spin (every
requestAnimationFrame timestamp from the click on Spin to the round listed), beside a same-run
baseline: the console's sign-in page (a template and a stylesheet, no modules, no API call).

    .venv/bin/python bench/bench_play_page.py [--loads 10] [--spins 10]

Targets (issue 25): interactive within 1 s of load on loopback; 60 fps (16.7 ms frames).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from pydantic import SecretStr

from infrastructure.bootstrap import build_runtime
from infrastructure.settings import Settings

OPERATOR = "bench-operator-key-0123456789"
CHROMIUM = "/usr/bin/chromium"
FRAMES = """() => { window.__frames = []; if (window.__ticking) return; window.__ticking = true;
  const tick = () => { window.__frames.push(performance.now()); requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


@contextmanager
def server(directory: str) -> Iterator[str]:
    settings = Settings(database_url=f"sqlite:///{directory}/bench.db",
                        operator_key=SecretStr(OPERATOR),
                        auditor_key=SecretStr("bench-auditor-key-0123456789"),
                        pages_key=SecretStr("bench-pages-key-0123456789"),
                        seed_key=SecretStr("5eed" * 16), rate_limit_per_second=0,
                        auth_failures_per_minute=0, anonymous_per_second=0)
    runtime = build_runtime(settings, with_projections=True)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(runtime.http_app, log_config=None, access_log=False))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not uv.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        uv.should_exit = True
        thread.join(10)
        runtime.close()


def session_token(api: httpx.Client) -> str:
    operator = {"Authorization": f"Bearer {OPERATOR}"}
    player = "bench" + uuid.uuid4().hex[:8]
    api.post("/players", json={"player_id": player}, headers=operator).raise_for_status()
    api.post(f"/players/{player}/deposits", json={"amount": 10**8, "request_id": "d"},
             headers=operator).raise_for_status()
    opened = api.post(f"/players/{player}/sessions", json={}, headers=operator)
    opened.raise_for_status()
    token: str = opened.json()["token"]
    return token


def interactive_ms(page: Any, url: str) -> float:
    page.goto(url)
    page.wait_for_selector("[data-role=spin]:not([disabled])")
    mark: float = page.evaluate(
        "() => performance.getEntriesByName('play-interactive')[0].startTime")
    return mark


def baseline_ms(page: Any, url: str) -> float:
    page.goto(url, wait_until="load")
    loaded: float = page.evaluate(
        "() => performance.getEntriesByType('navigation')[0].loadEventEnd")
    return loaded


def frame_intervals(page: Any) -> list[float]:
    rows = page.locator("[data-role=round]").count()
    page.evaluate(FRAMES)
    page.click("[data-role=spin]")
    deadline = time.monotonic() + 120
    while page.locator("[data-role=round]").count() <= rows and time.monotonic() < deadline:
        time.sleep(0.05)
    page.wait_for_selector("[data-role=spin]:not([disabled])", timeout=120_000)
    stamps: list[float] = page.evaluate("() => window.__frames")
    return [b - a for a, b in zip(stamps, stamps[1:], strict=False)]


def spinning_intervals(page: Any, seconds: float = 1.5) -> list[float]:
    """The reels alone: the spin's answer is held back while the reels spin, then let go."""
    held: list[Any] = []
    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/spins", hold)
    rows = page.locator("[data-role=round]").count()
    page.click("[data-role=spin]")
    page.wait_for_timeout(200)
    page.evaluate(FRAMES)
    page.wait_for_timeout(seconds * 1000)
    stamps: list[float] = page.evaluate("() => window.__frames")
    for route in held:
        route.continue_()
    page.unroute("**/spins")
    while page.locator("[data-role=round]").count() <= rows:
        page.wait_for_timeout(50)
    page.wait_for_selector("[data-role=spin]:not([disabled])", timeout=120_000)
    return [b - a for a, b in zip(stamps, stamps[1:], strict=False)]


def idle_intervals(page: Any, seconds: float) -> list[float]:
    """The same page, nothing moving: the frames the machine gives the browser at all."""
    page.evaluate(FRAMES)
    time.sleep(seconds)
    stamps: list[float] = page.evaluate("() => window.__frames")
    return [b - a for a, b in zip(stamps, stamps[1:], strict=False)]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--spins", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as directory, server(directory) as base, \
            httpx.Client(base_url=base, timeout=30) as api, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True)
        cold, warm, plain = [], [], []
        warmup = browser.new_context().new_page()
        interactive_ms(warmup, f"{base}/play#token={session_token(api)}")  # the server's first
        warmup.context.close()
        for _ in range(args.loads):
            context = browser.new_context(viewport={"width": 390, "height": 900})
            page = context.new_page()
            cold.append(interactive_ms(page, f"{base}/play#token={session_token(api)}"))
            page.goto("about:blank")
            warm.append(interactive_ms(page, f"{base}/play#token={session_token(api)}"))
            plain.append(baseline_ms(page, f"{base}/console"))
            context.close()
        context = browser.new_context(viewport={"width": 390, "height": 900})
        page = context.new_page()
        interactive_ms(page, f"{base}/play#token={session_token(api)}")
        intervals: list[float] = []
        idle: list[float] = []
        reels: list[float] = []
        for _ in range(args.spins):
            reels += spinning_intervals(page)
            started = time.monotonic()
            intervals += frame_intervals(page)
            idle += idle_intervals(page, time.monotonic() - started)
        browser.close()
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"time to interactive, fresh context: median {statistics.median(cold):.0f} ms, "
          f"max {max(cold):.0f} ms ({args.loads} loads)")
    print(f"time to interactive, cached files:  median {statistics.median(warm):.0f} ms, "
          f"max {max(warm):.0f} ms")
    print(f"baseline, the console sign-in page loaded: median {statistics.median(plain):.0f} ms")
    report("frames while the reels spin (answer held 1.5 s)", reels)
    report("frames of whole rounds, from the click to the round listed", intervals)
    report("baseline, the same page idle as long", idle)


def report(what: str, intervals: list[float]) -> None:
    slow = sum(1 for i in intervals if i > 1000 / 60 * 1.5)
    print(f"{what} ({len(intervals)} frames): median {statistics.median(intervals):.1f} ms, "
          f"p95 {percentile(intervals, .95):.1f} ms, max {max(intervals):.1f} ms; "
          f"{slow} ({100 * slow / len(intervals):.1f}%) longer than 25 ms; "
          f"{1000 / statistics.mean(intervals):.1f} fps on average")


if __name__ == "__main__":
    main()
