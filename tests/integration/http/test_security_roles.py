"""What tests/test_http_roles.py (the role matrix) does not cover: the auditor cannot change
anything by ANY method on ANY path; no role reaches an endpoint through a method it does not
have; a token used just before its session is closed is refused right after (the token cache);
a player token cannot open sessions or move money for itself. Both stores.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, client_for, unique
from store_kinds_support import STORES, open_store

from infrastructure.application import PumpkinApplication

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@pytest.fixture(scope="module", params=STORES)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, PumpkinApplication]]:
    with ExitStack() as stack:
        url = open_store(request.param, tmp_path_factory.mktemp("security"), stack)
        application = PumpkinApplication.from_url(url)
        stack.callback(application.close)
        yield stack.enter_context(client_for(application)), application


def every_path(j: Journey, round_id: str) -> list[str]:
    p, s = j.player_id, j.session_id
    return [
        "/players",
        f"/players/{p}",
        f"/players/{p}/deposits",
        f"/players/{p}/withdrawals",
        f"/players/{p}/sessions",
        f"/players/{p}/rounds",
        f"/sessions/{s}/spins",
        f"/sessions/{s}/close",
        f"/rounds/{round_id}",
        f"/audit/players/{p}/verify",
    ]


def body_for(path: str) -> dict[str, Any]:
    if path.endswith(("deposits", "withdrawals")):
        return {"amount": 10, "request_id": unique("a")}
    if path.endswith("spins"):
        return {"stake": 100, "request_id": unique("a")}
    if path == "/players":
        return {"player_id": unique("aud")}
    return {}


def test_the_auditor_changes_nothing_by_any_method_on_any_path(
    world: tuple[TestClient, PumpkinApplication],
) -> None:
    client, application = world
    j = Journey(client)
    round_id = j.spin().json()["round_id"]
    before = application.recorder.max_notification_id()
    state = client.get(f"/players/{j.player_id}", headers=bearer(OPERATOR)).json()
    for path in every_path(j, round_id):
        for method in METHODS:
            answer = client.request(
                method,
                path,
                json=None if method == "GET" else body_for(path),
                headers=bearer(AUDITOR),
            )
            if method == "GET":  # reads everything (405 where a path has no GET)
                assert answer.status_code in (200, 405), (path, answer.text)
            else:
                assert answer.status_code in (403, 405), (method, path, answer.text)
                assert set(answer.json()) == {"error"}
    assert application.recorder.max_notification_id() == before
    assert client.get(f"/players/{j.player_id}", headers=bearer(OPERATOR)).json() == state
    # The session the auditor tried to close is still open.
    assert j.spin().status_code == 200


@pytest.mark.parametrize("caller", ["operator", "player"])
def test_methods_an_endpoint_does_not_have_are_405_and_change_nothing(
    world: tuple[TestClient, PumpkinApplication], caller: str
) -> None:
    client, application = world
    j = Journey(client)
    round_id = j.spin().json()["round_id"]
    headers = bearer(OPERATOR if caller == "operator" else j.token)
    before = application.recorder.max_notification_id()
    for path in every_path(j, round_id):
        for method in ("PUT", "PATCH", "DELETE"):
            answer = client.request(method, path, json=body_for(path), headers=headers)
            assert answer.status_code == 405, (method, path, answer.text)
            assert answer.json()["error"]["code"] == "method_not_allowed"
    assert application.recorder.max_notification_id() == before


def test_a_token_used_just_before_its_session_closed_is_refused_right_after(
    world: tuple[TestClient, PumpkinApplication],
) -> None:
    client, _ = world
    j = Journey(client)
    assert j.spin().status_code == 200  # the token is now remembered (token cache)
    own = bearer(j.token)
    assert client.get(f"/players/{j.player_id}", headers=own).status_code == 200
    closed = client.post(f"/sessions/{j.session_id}/close", headers=bearer(OPERATOR))
    assert closed.status_code == 200
    spin = j.spin()
    assert (spin.status_code, spin.json()["error"]["code"]) == (409, "session_closed")
    for path in (f"/players/{j.player_id}", f"/players/{j.player_id}/rounds"):
        answer = client.get(path, headers=own)
        assert (answer.status_code, answer.json()["error"]["code"]) == (401, "unauthorized")
    again = client.post(f"/sessions/{j.session_id}/close", headers=own)
    assert again.status_code in (401, 409), again.text


def test_a_player_token_cannot_move_its_own_money_or_open_sessions(
    world: tuple[TestClient, PumpkinApplication],
) -> None:
    client, application = world
    j = Journey(client)
    own = bearer(j.token)
    before = application.recorder.max_notification_id()
    for path, body in [
        (f"/players/{j.player_id}/deposits", {"amount": 10**6, "request_id": unique("self")}),
        (f"/players/{j.player_id}/withdrawals", {"amount": 10, "request_id": unique("self")}),
        (f"/players/{j.player_id}/sessions", {}),
        ("/players", {"player_id": unique("self")}),
    ]:
        answer = client.post(path, json=body, headers=own)
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "forbidden"), path
    assert client.get(f"/audit/players/{j.player_id}/verify", headers=own).status_code == 403
    assert application.recorder.max_notification_id() == before


def test_the_operator_cannot_play_for_a_player(
    world: tuple[TestClient, PumpkinApplication],
) -> None:
    client, application = world
    j = Journey(client)
    before = application.recorder.max_notification_id()
    for secret in (OPERATOR, AUDITOR):
        answer = client.post(
            f"/sessions/{j.session_id}/spins",
            json={"stake": 100, "request_id": unique("op")},
            headers=bearer(secret),
        )
        assert answer.status_code == 403, answer.text
    assert application.recorder.max_notification_id() == before


# Open to anyone (CONTRACT.md): the service's health and rules, and the transparency log's
# checkpoint, key and consistency proofs (a witness or a player checks them with no role).
PUBLIC = {"/health", "/rules", "/log/checkpoint", "/log/key", "/log/consistency"}


def _routes(client: TestClient) -> list[tuple[str, str]]:
    """Every (method, path) the app serves, from its own OpenAPI: new endpoints are covered
    the day they are added."""
    paths: dict[str, dict[str, Any]] = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    return [(m.upper(), p) for p, methods in paths.items() for m in methods if p not in PUBLIC]


def _fill(path: str, j: Journey, round_id: str) -> str:
    return (
        path.replace("{player_id}", j.player_id)
        .replace("{session_id}", j.session_id)
        .replace("{round_id}", round_id)
    )


def test_every_endpoint_but_the_public_ones_refuses_anonymous_and_forged_callers(
    world: tuple[TestClient, PumpkinApplication],
) -> None:
    client, application = world
    j = Journey(client)
    round_id = j.spin().json()["round_id"]
    routes = _routes(client)
    assert len(routes) >= 12, routes
    before = application.recorder.max_notification_id()
    for method, path in routes:
        url = _fill(path, j, round_id)
        for headers in ({}, bearer("forged-" + j.token), bearer(OPERATOR + AUDITOR)):
            answer = client.request(method, url, json=body_for(url), headers=headers)
            assert answer.status_code == 401, (method, path, answer.status_code)
            assert answer.json()["error"]["code"] == "unauthorized"
    assert application.recorder.max_notification_id() == before


def test_every_audit_endpoint_is_the_auditors_alone(
    world: tuple[TestClient, PumpkinApplication],
) -> None:
    client, application = world
    j = Journey(client)
    round_id = j.spin().json()["round_id"]
    audit = [(m, p) for m, p in _routes(client) if p.startswith("/audit")]
    assert audit, "no audit endpoint found"
    before = application.recorder.max_notification_id()
    for method, path in audit:
        url = _fill(path, j, round_id)
        for secret in (OPERATOR, j.token):
            answer = client.request(method, url, headers=bearer(secret))
            assert answer.status_code == 403, (method, path, answer.text[:200])
        answer = client.request(method, url, headers=bearer(AUDITOR))
        # Let in (this test app has no read models: those endpoints say so with 503).
        assert answer.status_code == 200 or (
            answer.status_code == 503
            and answer.json()["error"]["code"] == "read_models_unavailable"
        ), (method, path, answer.text[:200])
    assert application.recorder.max_notification_id() == before
