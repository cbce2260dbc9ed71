"""Replay links: made for whoever may read the round, signed, expiring, and nothing more."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client
from httpx import Response
from pages_support import forged_link, path_of, tampered


@pytest.fixture
def client(store_url: str) -> Iterator[TestClient]:
    with served_client(store_url) as test_client:
        yield test_client


def played_round(client: TestClient) -> tuple[Journey, str]:
    j = Journey(client)
    answer = j.spin()
    assert answer.status_code == 200, answer.text
    return j, answer.json()["round_id"]


def link_for(client: TestClient, round_id: str, secret: str, body: object = None) -> Response:
    return client.post(
        f"/rounds/{round_id}/replay-links",
        json={} if body is None else body,
        headers=bearer(secret),
    )


def test_the_player_the_operator_and_the_auditor_get_a_link_to_the_round(
    client: TestClient,
) -> None:
    j, round_id = played_round(client)
    for secret in (j.token, OPERATOR, AUDITOR):
        made = link_for(client, round_id, secret)
        assert made.status_code == 201, made.text
        url, expires_at = made.json()["url"], made.json()["expires_at"]
        assert f"/replay/{round_id}?expires=" in url and "&sig=" in url
        lasts = datetime.fromisoformat(expires_at) - datetime.now(UTC)
        assert timedelta(days=7) - timedelta(minutes=1) < lasts <= timedelta(days=7)
        page = client.get(path_of(url))
        assert page.status_code == 200
        assert round_id in page.text and "Settlement" in page.text


def test_a_link_lasts_the_ttl_asked_for_within_60_seconds_and_30_days(
    client: TestClient,
) -> None:
    j, round_id = played_round(client)
    made = link_for(client, round_id, j.token, {"ttl_seconds": 60})
    assert made.status_code == 201
    lasts = datetime.fromisoformat(made.json()["expires_at"]) - datetime.now(UTC)
    assert timedelta(seconds=55) < lasts <= timedelta(seconds=60)
    for ttl in (59, 2_592_001, "600", 1.5, True):
        refused = link_for(client, round_id, j.token, {"ttl_seconds": ttl})
        assert refused.status_code == 422, ttl
        assert refused.json()["error"]["code"] == "invalid_request"


def test_no_link_is_made_for_a_stranger_or_another_players_round(client: TestClient) -> None:
    _, round_id = played_round(client)
    other = Journey(client)
    assert client.post(f"/rounds/{round_id}/replay-links", json={}).status_code == 401
    theirs = link_for(client, round_id, other.token)
    as_a_read = client.get(f"/rounds/{round_id}", headers=bearer(other.token))
    assert theirs.status_code == as_a_read.status_code
    assert theirs.status_code in (403, 404)
    assert link_for(client, "nobody.1", OPERATOR).status_code == 404


def test_a_tampered_expired_or_borrowed_link_is_refused_with_403(client: TestClient) -> None:
    _, round_id = played_round(client)
    _, other_round = played_round(client)
    url = path_of(link_for(client, round_id, OPERATOR).json()["url"])
    expired = forged_link(round_id, datetime.now(UTC) - timedelta(days=1), 60)
    borrowed = url.replace(f"/replay/{round_id}?", f"/replay/{other_round}?")
    longer = url.replace("expires=", "expires=9")
    for bad in (
        tampered(url),
        expired,
        borrowed,
        longer,
        f"/replay/{round_id}",
        f"/replay/{round_id}?expires=abc&sig=00",
        f"/replay/{round_id}?expires=\u00b2&sig=00",
    ):
        refused = client.get(bad)
        assert refused.status_code == 403, bad
        assert round_id not in refused.text.replace(bad, "")
    assert client.get(url).status_code == 200


def test_pages_carry_a_strict_content_security_policy(client: TestClient) -> None:
    _, round_id = played_round(client)
    url = path_of(link_for(client, round_id, OPERATOR).json()["url"])
    for path in (url, "/console", "/play"):
        answer = client.get(path)
        policy = answer.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
        assert answer.headers["referrer-policy"] == "same-origin"
        assert "<script>" not in answer.text and " style=" not in answer.text


def test_a_link_is_built_from_the_public_url_never_from_the_host_header(store_url: str) -> None:
    """Issue 27 item 5: `Host: evil.example` gave a validly signed http://evil.example/... link."""
    with served_client(store_url, public_url="https://games.example.com/pumpkin") as client:
        j, round_id = played_round(client)
        for headers in ({"Host": "evil.example"}, {"X-Forwarded-Host": "evil.example"}, {}):
            made = client.post(
                f"/rounds/{round_id}/replay-links",
                json={},
                headers={**bearer(j.token), **headers},
            )
            assert made.status_code == 201, made.text
            url = made.json()["url"]
            assert url.startswith(f"https://games.example.com/pumpkin/replay/{round_id}?"), url
            assert "evil" not in url


def test_without_a_public_url_links_name_the_address_the_service_listens_on(
    store_url: str,
) -> None:
    with served_client(store_url, host="127.0.0.5", port=8123) as client:
        j, round_id = played_round(client)
        made = link_for(client, round_id, j.token, {})
        assert made.json()["url"].startswith(f"http://127.0.0.5:8123/replay/{round_id}?")
