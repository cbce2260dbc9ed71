"""Headers (issue 27, item 11): every answer that carries a session token is never kept by a cache
(`Cache-Control: no-store`), and the pages' static files have the pages' own protection: no type
sniffing, the content security policy and no framing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client
from pages_support import csrf_of, form

from infrastructure.pages.web import CONTENT_SECURITY_POLICY, STATIC_PREFIX


@pytest.fixture(scope="module")
def client(module_store_url: str) -> Iterator[TestClient]:
    with served_client(module_store_url) as test_client:
        yield test_client


def test_opening_a_session_answers_its_token_with_no_store(client: TestClient) -> None:
    journey = Journey(client, balance=0)
    opened = client.post(
        f"/players/{journey.player_id}/sessions", json={}, headers=bearer(OPERATOR)
    )
    assert opened.status_code == 201 and opened.json()["token"]
    assert opened.headers["cache-control"] == "no-store"


def test_the_tokens_own_session_is_answered_with_no_store(client: TestClient) -> None:
    journey = Journey(client, balance=0)
    current = client.get("/sessions/current", headers=bearer(journey.token))
    assert current.status_code == 200 and current.json()["session_id"] == journey.session_id
    assert current.headers["cache-control"] == "no-store"


def test_the_console_sign_in_that_sets_its_cookie_is_answered_with_no_store(
    client: TestClient,
) -> None:
    browser = TestClient(client.app, raise_server_exceptions=False)
    page = browser.get("/console")
    assert page.headers["cache-control"] == "no-store"
    signed_in = browser.post(
        "/console/sign-in",
        follow_redirects=False,
        **form({"key": AUDITOR, "csrf": csrf_of(page.text)}),
    )
    assert signed_in.status_code == 303 and "set-cookie" in signed_in.headers
    assert signed_in.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    "asset", ["pages.css", "pumpkin.svg", "play/main.js", "play/symbols.svg", "play/play.css"]
)
def test_static_files_are_never_sniffed_framed_or_run_outside_the_policy(
    client: TestClient, asset: str
) -> None:
    answer = client.get(f"{STATIC_PREFIX}/{asset}")
    assert answer.status_code == 200
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["x-frame-options"] == "DENY"


def test_a_static_file_not_modified_keeps_the_headers(client: TestClient) -> None:
    first = client.get(f"{STATIC_PREFIX}/pages.css")
    etag = first.headers["etag"]
    again = client.get(f"{STATIC_PREFIX}/pages.css", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["x-content-type-options"] == "nosniff"
    assert again.headers["x-frame-options"] == "DENY"
