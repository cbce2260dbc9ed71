"""A failing read model is never silent (CONTRACT.md "The operator's seamless wallet"): while one
fails, GET /health answers 200 "degraded" naming it with its position and error, /metrics
counts its failures in pumpkin_read_model_errors_total{view}, and the console shows a banner
naming it; once it works again, all three say so."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client
from pages_support import csrf_of, form

from infrastructure.wallet.reference import ReferenceWallet
from projections.rounds import RoundsView

T = TypeVar("T")


@pytest.fixture
def client(store_url: str, operator_wallet: ReferenceWallet | None) -> Iterator[TestClient]:
    with served_client(store_url, operator_wallet) as test_client:
        yield test_client


def eventually(read: Callable[[], T], ok: Callable[[T], bool], seconds: float = 20.0) -> T:
    deadline = time.monotonic() + seconds
    found = read()
    while not ok(found):
        assert time.monotonic() < deadline, f"still {found!r}"
        time.sleep(0.1)
        found = read()
    return found


def health(client: TestClient) -> dict[str, Any]:
    answer = client.get("/health")
    assert answer.status_code == 200  # degraded included: the API itself answers
    found: dict[str, Any] = answer.json()
    return found


def read_model_errors(client: TestClient) -> dict[str, float]:
    text = client.get("/metrics", headers=bearer(OPERATOR)).text
    return {
        view: float(count)
        for view, count in re.findall(
            r'^pumpkin_read_model_errors_total\{view="([^"]+)"\} (\S+)$', text, re.M
        )
    }


def banner(client: TestClient) -> str | None:
    page = client.get("/console").text
    found = re.search(r'<div class="banner" id="read-models-failing".*?</div>', page, re.S)
    return found.group(0) if found else None


def test_a_failing_view_shows_on_health_metrics_and_the_console_until_it_works_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    j = Journey(client)
    assert j.spin().status_code == 200
    assert health(client) == {"status": "ok"}
    errors = read_model_errors(client)
    assert set(errors) == {"balances", "rounds", "audit", "stats", "rtp_growth", "protection"}
    assert set(errors.values()) == {0.0}
    csrf = csrf_of(client.get("/console").text)
    signed = client.post("/console/sign-in", follow_redirects=False,
                         **form({"key": AUDITOR, "csrf": csrf}))
    assert signed.status_code == 303
    assert banner(client) is None

    def broken(*_: object) -> None:
        raise RuntimeError("a bug in the rounds view")

    monkeypatch.setattr(RoundsView, "apply", broken)
    assert j.spin().status_code == 200
    degraded = eventually(lambda: health(client), lambda h: h["status"] == "degraded")
    assert set(degraded) == {"status", "read_models"}
    assert list(degraded["read_models"]) == ["rounds"]
    failing = degraded["read_models"]["rounds"]
    assert set(failing) == {"position", "error"} and isinstance(failing["position"], int)
    assert failing["error"] == "RuntimeError: a bug in the rounds view"
    assert read_model_errors(client)["rounds"] >= 1
    assert read_model_errors(client)["balances"] == 0
    shown = banner(client)
    assert shown is not None and "rounds" in shown and "a bug in the rounds view" in shown

    monkeypatch.undo()  # fixed: its next try (1 s later) projects it, and it rejoins
    eventually(lambda: health(client), lambda h: h == {"status": "ok"})
    assert banner(client) is None
    assert read_model_errors(client)["rounds"] >= 1  # a counter: it never goes down
