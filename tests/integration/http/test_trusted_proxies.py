"""Proxy headers through the real uvicorn server `serve` runs (issue 27 item 4): from an
address the operator did not list (loopback included) X-Forwarded-For/-Proto change nothing, so
a caller cannot rotate its address past the per-address limits or choose the links' scheme."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from infrastructure.http.server_limits import uvicorn_options
from infrastructure.settings import Settings


async def echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """What the application sees of the caller: its address and scheme."""
    if scope["type"] != "http":
        return
    body = f"{scope['client'][0]} {scope['scheme']}".encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": body})


@contextmanager
def served(settings: Settings) -> Iterator[str]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    options = {k: v for k, v in uvicorn_options(settings).items() if k != "http"}
    server = uvicorn.Server(uvicorn.Config(echo, log_config=None, access_log=False, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        assert server.started
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
        listener.close()


FORGED = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}


def test_proxy_headers_from_loopback_are_ignored_by_default() -> None:
    with served(Settings()) as url:
        seen = httpx.get(url + "/", headers=FORGED).text
    assert seen == "127.0.0.1 http"


def test_proxy_headers_from_a_listed_proxy_are_believed() -> None:
    with served(Settings(trusted_proxies="127.0.0.1")) as url:
        seen = httpx.get(url + "/", headers=FORGED).text
    assert seen == "203.0.113.9 https"
