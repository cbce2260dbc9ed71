"""Bodies and queries are exact (CONTRACT.md "HTTP API"): a body field a route does not define is
422 unknown_field naming it, a query parameter that is unknown, repeated or does not parse is 422
invalid_query, and neither changes anything. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client, unique

from infrastructure.application import PumpkinApplication


def refused(answer: Any, code: str) -> dict[str, Any]:
    assert answer.status_code == 422, answer.text
    error: dict[str, Any] = answer.json()["error"]
    assert error["code"] == code, error
    return error


def test_a_misspelt_client_seed_is_unknown_field_and_plays_nothing(
    api: TestClient, service: PumpkinApplication
) -> None:
    j = Journey(api)
    path = f"/sessions/{j.session_id}/spins"
    for body in (
        {"stake": 100, "clientSeed": "my lucky seed"},
        {"stake": 100, "request_id": unique("spin"), "clientSeed": "my lucky seed"},
    ):
        error = refused(api.post(path, json=body, headers=bearer(j.token)), "unknown_field")
        assert error["field"] == "clientSeed"
        assert "clientSeed" in error["message"]
    assert service.round_ids(j.player_id) == []
    assert service.player_state(j.player_id)["balance"] == 100_000


def every_body_route(j: Journey) -> list[tuple[str, str, dict[str, Any], str]]:
    """(method, path, a valid body, the secret that may send it) for every route with a body."""
    p, s = j.player_id, j.session_id
    return [
        ("POST", "/players", {"player_id": unique("new")}, OPERATOR),
        ("POST", f"/players/{p}/deposits", {"amount": 5, "request_id": unique("d")}, OPERATOR),
        ("POST", f"/players/{p}/withdrawals", {"amount": 5, "request_id": unique("w")}, OPERATOR),
        ("POST", f"/players/{p}/sessions", {}, OPERATOR),
        ("POST", f"/sessions/{s}/spins", {"stake": 100, "request_id": unique("s")}, j.token),
        ("POST", f"/sessions/{s}/close", {}, j.token),
        ("POST", f"/sessions/{s}/reality-check", {"continue": True}, j.token),
        ("PUT", f"/players/{p}/limits", {"max_stake": 500}, OPERATOR),
        ("POST", f"/players/{p}/exclusions", {"until": None, "reason": "x"}, OPERATOR),
        (
            "POST",
            f"/players/{p}/free-rounds",
            {"campaign_id": "c", "rounds": 1, "stake": 100, "request_id": unique("f")},
            OPERATOR,
        ),
        ("POST", f"/rounds/{p}.1/replay-links", {"ttl_seconds": 600}, OPERATOR),
    ]


def test_every_body_refuses_a_field_it_does_not_define_and_changes_nothing(
    api: TestClient, service: PumpkinApplication
) -> None:
    j = Journey(api)
    assert j.spin().status_code == 200

    def state() -> tuple[Any, ...]:
        session = {k: v for k, v in service.session(j.session_id).items() if k != "elapsed_seconds"}
        return service.player_state(j.player_id), session

    before = state()
    for method, path, body, secret in every_body_route(j):
        answer = api.request(method, path, json={**body, "surplus": 1}, headers=bearer(secret))
        assert refused(answer, "unknown_field")["field"] == "surplus", path
    assert state() == before
    assert service.limits(j.player_id)["limits"].get("max_stake") is None
    assert service.round_ids(j.player_id) == [f"{j.player_id}.1"]


def test_history_queries_that_do_not_parse_are_invalid_query(api: TestClient) -> None:
    j, other = Journey(api), Journey(api)
    assert j.spin().status_code == 200 and other.spin().status_code == 200
    path = f"/players/{j.player_id}/rounds"
    for query in (
        "before=garbage",
        f"before={other.player_id}.1",  # another player's round
        "before=",
        "limit=0",
        "limit=101",
        "limit=ten",
        "limit=5&limit=6",
        "befor=x",
        "page=2",
    ):
        answer = api.get(f"{path}?{query}", headers=bearer(j.token))
        assert answer.status_code == 422, query
        refused(answer, "invalid_query")
    mine = api.get(f"{path}?before={j.player_id}.1&limit=5", headers=bearer(j.token))
    assert mine.status_code == 200 and mine.json() == {"rounds": []}


def test_every_api_route_refuses_a_query_parameter_it_does_not_define(api: TestClient) -> None:
    j = Journey(api)
    paths: dict[str, dict[str, Any]] = api.get("/openapi.json").json()["paths"]
    assert len(paths) > 20
    values = {"player_id": j.player_id, "session_id": j.session_id, "round_id": f"{j.player_id}.1",
              "campaign_id": "c"}
    for template, operations in paths.items():
        path = template.format(**values)
        for method in operations:
            for secret in (OPERATOR, AUDITOR, j.token):
                answer = api.request(method, f"{path}?unexpected=1", headers=bearer(secret))
                assert answer.status_code == 422, (method, path, answer.text)
                error = refused(answer, "invalid_query")
                assert "unexpected" in error["message"], (method, path)


def test_the_openapi_document_says_bodies_and_queries_are_exact(api: TestClient) -> None:
    document = api.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    for name in ("NewPlayer", "MoneyMovement", "SpinRequest", "LimitsChange", "FreeRoundsGrant",
                 "ExclusionRequest", "RealityCheckAnswer", "ReplayLinkRequest"):
        assert schemas[name]["additionalProperties"] is False, name
    assert "field" in schemas["ErrorDetail"]["properties"]
    spin = document["paths"]["/sessions/{session_id}/spins"]["post"]["responses"]["422"]
    assert "unknown_field" in spin["description"] and "invalid_query" in spin["description"]


@pytest.fixture
def served(store_url: str) -> Any:
    with served_client(store_url) as client:
        yield client


def test_audit_queries_that_do_not_parse_are_invalid_query(served: TestClient) -> None:
    j = Journey(served)
    assert j.spin().status_code == 200
    for query in ("since=yesterday", "feature=nonsense", "limit=0", "before=garbage",
                  "colour=red", "min_win=-1", "player_id=a%20b"):
        refused(served.get(f"/audit/rounds?{query}", headers=bearer(AUDITOR)), "invalid_query")
    refused(served.get("/audit/stats?since=2026-13-01", headers=bearer(AUDITOR)), "invalid_query")
    refused(served.get("/audit/events?format=xml", headers=bearer(AUDITOR)), "invalid_query")
    page = served.get(f"/audit/rounds?before={j.player_id}.1", headers=bearer(AUDITOR))
    assert page.status_code == 200 and page.json() == {"rounds": []}
