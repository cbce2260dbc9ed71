"""A JSON body is read as JSON whatever Content-Type the client put on it (curl -d says form)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import OPERATOR, bearer, client_for, unique


@pytest.fixture
def client(service: Any) -> Iterator[TestClient]:
    with client_for(service) as test_client:
        yield test_client


@pytest.mark.parametrize(
    "content_type", [None, "application/x-www-form-urlencoded", "text/plain", "application/json"]
)
def test_a_json_body_is_accepted_under_any_content_type(
    client: TestClient, content_type: str | None
) -> None:
    player = unique("ct")
    headers = bearer(OPERATOR) | ({"Content-Type": content_type} if content_type else {})
    created = client.post("/players", content=f'{{"player_id": "{player}"}}', headers=headers)
    assert created.status_code == 201, created.text
    assert created.json() == {"player_id": player}


def test_a_body_that_is_not_json_is_still_an_invalid_request(client: TestClient) -> None:
    headers = bearer(OPERATOR) | {"Content-Type": "application/x-www-form-urlencoded"}
    answer = client.post("/players", content="player_id=ann", headers=headers)
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "invalid_request"
