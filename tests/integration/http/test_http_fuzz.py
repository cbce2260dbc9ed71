"""No request, however malformed, gets a 5xx: property-based fuzzing of the whole API.

Two fuzzers: schemathesis generates requests from the app's own OpenAPI document (valid and
invalid, every route), and a hypothesis test throws arbitrary JSON bodies at every endpoint as
every role, checking the error shape too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import hypothesis.strategies as st
import pytest
import schemathesis
from fastapi.testclient import TestClient
from http_support import (
    AUDITOR,
    OPERATOR,
    Journey,
    ServiceDouble,
    bearer,
    client_for,
    error_keys,
    settings_for,
)
from hypothesis import HealthCheck, given, settings

from infrastructure.application import PumpkinApplication
from infrastructure.bootstrap import build_http_app

FUZZ_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'events.db'}"
    application = PumpkinApplication.from_url(url)
    try:
        with client_for(application) as client:
            yield client
    finally:
        application.close()


@pytest.fixture(scope="module")
def journey(fuzz_client: TestClient) -> Journey:
    return Journey(fuzz_client)


# The schema is the app's own OpenAPI document (the service object is not needed to build it).
schema = schemathesis.openapi.from_dict(build_http_app(settings_for(), ServiceDouble()).openapi())


@schema.parametrize()
@FUZZ_SETTINGS
def test_no_generated_request_gets_a_server_error(
    case: Any, fuzz_client: TestClient, journey: Journey
) -> None:
    request = case.as_transport_kwargs(base_url="http://testserver")
    body = {"content": request.pop("data")} if "data" in request else {}
    if "json" in request:
        body = {"json": request.pop("json")}
    request.pop("cookies", None)
    for secret in (OPERATOR, journey.token):
        headers = {**dict(request.pop("headers", {})), **bearer(secret)}
        response = fuzz_client.request(**request, **body, headers=headers)
        assert response.status_code < 500, response.text
        if response.status_code >= 400:
            assert set(response.json()["error"]) == error_keys(response.json()["error"])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=10,
)
BODIES = st.one_of(
    JSON_VALUES,
    st.fixed_dictionaries(
        {},
        optional={
            "player_id": JSON_VALUES,
            "amount": JSON_VALUES,
            "stake": JSON_VALUES,
            "request_id": JSON_VALUES,
            "until": JSON_VALUES,
            "reason": JSON_VALUES,
            "continue": JSON_VALUES,
            "reality_check_minutes": JSON_VALUES,
            "loss_per_day": JSON_VALUES,
            "session_minutes": JSON_VALUES,
            "max_stake": JSON_VALUES,
        },
    ),
)


@FUZZ_SETTINGS
@given(
    body=BODIES,
    endpoint=st.sampled_from(
        [
            "/players",
            "/players/{p}/deposits",
            "/players/{p}/withdrawals",
            "/players/{p}/sessions",
            "/sessions/{s}/spins",
            "/sessions/{s}/close",
            "PUT /players/{p}/limits",
            "/players/{p}/exclusions",
            "/sessions/{s}/reality-check",
        ]
    ),
    who=st.sampled_from(["operator", "auditor", "player", "nobody"]),
    raw=st.booleans(),
)
def test_arbitrary_bodies_get_a_4xx_in_the_error_shape_never_a_5xx(
    fuzz_client: TestClient, journey: Journey, body: Any, endpoint: str, who: str, raw: bool
) -> None:
    method, _, endpoint = endpoint.rpartition(" ")
    path = endpoint.format(p=journey.player_id, s=journey.session_id)
    headers = {
        "operator": bearer(OPERATOR),
        "auditor": bearer(AUDITOR),
        "player": bearer(journey.token),
        "nobody": {},
    }[who]
    content = json.dumps(body, allow_nan=True).encode()
    if raw:
        content = content[: len(content) // 2]  # broken JSON
    answer = fuzz_client.request(
        method or "POST",
        path,
        content=content,
        headers={**headers, "Content-Type": "application/json"},
    )
    assert answer.status_code < 500, answer.text
    if answer.status_code >= 400:
        assert set(answer.json()) == {"error"}
        assert set(answer.json()["error"]) == error_keys(answer.json()["error"])


@FUZZ_SETTINGS
@given(
    segment=st.text(min_size=1, max_size=80).filter(
        lambda s: "/" not in s and "?" not in s and "#" not in s
    )
)
def test_arbitrary_ids_in_paths_never_get_a_5xx(fuzz_client: TestClient, segment: str) -> None:
    for template in (
        "/players/{}", "/players/{}/rounds", "/rounds/{}", "/audit/players/{}/verify",
        "/players/{}/limits",
    ):
        for secret in (OPERATOR, AUDITOR):
            answer = fuzz_client.get(
                template.format(quote(segment, safe="")), headers=bearer(secret)
            )
            assert answer.status_code < 500, (template, segment, answer.text)
