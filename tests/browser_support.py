"""A real `serve`-like server on a free 127.0.0.1 port, and one chromium for the test session.

The browser is Debian's chromium (/usr/bin/chromium, installed by apt-get; `.ci/run` installs it
when missing), driven by Playwright for Python: no browser is ever downloaded."""

from __future__ import annotations

import functools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import uvicorn
from http_support import OPERATOR, bearer, settings_for, unique

from infrastructure.bootstrap import build_runtime

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots"
T = TypeVar("T")


@contextmanager
def live_server(database_url: str) -> Iterator[str]:
    """The service as `pumpkin serve` runs it (projections in-process), on 127.0.0.1:<free>."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    settings = settings_for(database_url)
    settings = settings.model_copy(update={"public_url": f"http://127.0.0.1:{port}"})
    runtime = build_runtime(settings, with_projections=True)
    config = uvicorn.Config(runtime.http_app, log_config=None, access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        assert server.started, "the server did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
        listener.close()
        runtime.close()


@dataclass
class Player:
    """A funded player with an open session, made through the API."""

    api: httpx.Client
    player_id: str = field(default_factory=lambda: unique("browser"))
    session_id: str = ""
    token: str = ""

    def __post_init__(self) -> None:
        operator = bearer(OPERATOR)
        made = self.api.post("/players", json={"player_id": self.player_id}, headers=operator)
        assert made.status_code == 201, made.text
        funded = self.api.post(
            f"/players/{self.player_id}/deposits",
            json={"amount": 1_000_000, "request_id": unique("dep")},
            headers=operator,
        )
        assert funded.status_code == 201, funded.text
        opened = self.api.post(f"/players/{self.player_id}/sessions", json={}, headers=operator)
        assert opened.status_code == 201, opened.text
        self.session_id, self.token = opened.json()["session_id"], opened.json()["token"]

    def spin(self, stake: int = 100) -> str:
        answer = self.api.post(
            f"/sessions/{self.session_id}/spins",
            json={"stake": stake, "request_id": unique("spin")},
            headers=bearer(self.token),
        )
        assert answer.status_code == 200, answer.text
        round_id: str = answer.json()["round_id"]
        return round_id


class ChromiumThread:
    """ONE chromium, driven from a thread of its own. Playwright's sync API leaves its event
    loop marked running in the thread that uses it, so from the main thread every later test's
    `asyncio.run()` would fail; here the browser and everything done with it stay in this
    thread (`run`), and the main thread's asyncio is untouched."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="chromium")
        self._playwright: Any = None
        self.browser: Any = self._thread.submit(self._launch).result()

    def _launch(self) -> Any:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        return self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True)

    def run(self, work: Callable[[], T]) -> T:
        return self._thread.submit(work).result()

    def close(self) -> None:
        def stop() -> None:
            self.browser.close()
            self._playwright.stop()

        try:
            self.run(stop)
        finally:
            self._thread.shutdown()


def in_chromium(test: Callable[..., None]) -> Callable[..., None]:
    """Runs a browser test's body in the chromium thread (its `watched` fixture names it)."""

    @functools.wraps(test)
    def in_thread(*args: Any, **kwargs: Any) -> None:
        kwargs["watched"].chromium.run(lambda: test(*args, **kwargs))

    return in_thread
