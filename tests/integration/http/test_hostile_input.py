"""Hostile input: every malformed, out-of-range, forged, foreign or injected request answers a
clear 4xx in the `{"error": {"code", "message"}}` shape, and changes NOTHING: the event store's
last notification id, the victims' states and their round lists are the same before and after.

Runs on SQLite and PostgreSQL (one app per store for the whole module, for speed).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, client_for, error_keys, unique
from store_kinds_support import STORES, open_store

from infrastructure.application import PumpkinApplication

NOT_INTEGERS: list[Any] = [
    0.5,
    100.0,
    1e300,
    "100",
    "1e3",
    True,
    False,
    None,
    [],
    {},
    [100],
    {"v": 100},
    "",
]
BAD_INTEGERS: list[Any] = [0, -1, -100, -(2**63), 10**12 + 1, 2**63, 2**64 + 1, 10**30, 10**400]
INJECTIONS = [
    "'; DROP TABLE pumpkin_events; --",
    '" OR 1=1 --',
    "../../etc/passwd",
    "..%2F..%2Fhealth",
    "%2F",
    "a/b",
    "ünïcødé",
    "🎃",
    "\u202eevil",
    "x" * 10_000,
    "$(reboot)",
    "{{7*7}}",
    "<script>alert(1)</script>",
    "nul%00byte",  # a NUL once decoded: PostgreSQL refuses NUL in text, stop it before
]


@dataclass
class World:
    client: TestClient
    application: PumpkinApplication
    victim: Journey
    other: Journey
    round_id: str

    def snapshot(self) -> tuple[Any, ...]:
        op = bearer(OPERATOR)
        return (
            self.application.recorder.max_notification_id(),
            self.client.get(f"/players/{self.victim.player_id}", headers=op).json(),
            self.client.get(f"/players/{self.other.player_id}", headers=op).json(),
            self.application.round_ids(self.victim.player_id),
            self.application.round_ids(self.other.player_id),
        )


@pytest.fixture(scope="module", params=STORES)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    with ExitStack() as stack:
        url = open_store(request.param, tmp_path_factory.mktemp("hostile"), stack)
        application = PumpkinApplication.from_url(url)
        stack.callback(application.close)
        client = stack.enter_context(client_for(application))
        victim, other = Journey(client), Journey(client)
        played = victim.spin(100, request_id="victim-spin-1")
        assert played.status_code == 200, played.text
        other.spin(100, request_id="other-spin-1")
        yield World(client, application, victim, other, played.json()["round_id"])


def refused_and_unchanged(world: World, send: Callable[[], Any]) -> dict[str, Any]:
    before = world.snapshot()
    answer = send()
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    body = answer.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == error_keys(body["error"]), body
    assert isinstance(body["error"]["code"], str) and body["error"]["code"]
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert world.snapshot() == before, "a refused request changed the store"
    error: dict[str, Any] = body["error"]
    return error


def post_raw(world: World, path: str, content: bytes, secret: str, **headers: str) -> Any:
    return world.client.post(
        path,
        content=content,
        headers={**bearer(secret), "Content-Type": "application/json", **headers},
    )


# -- malformed bodies ----------------------------------------------------------------------------

MALFORMED = [
    b"",
    b"{",
    b"}",
    b"[]",
    b"null",
    b'"just a string"',
    b"123",
    b'{"amount": }',
    b'{"amount": 10, "request_id": "r",}',
    b"{'amount': 10, 'request_id': 'r'}",
    b'{"amount": NaN, "request_id": "r"}',
    b'{"amount": Infinity, "request_id": "r"}',
    b'{"amount": 0x10, "request_id": "r"}',
    b"\xff\xfe\x00garbage",
    b'{"amount": 10, "request_id": "\xff"}',
    b"[" * 20_000 + b"]" * 20_000,  # deeply nested: must not blow the parser's stack
    b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
]


@pytest.mark.parametrize("content", MALFORMED, ids=lambda c: repr(c[:24]))
@pytest.mark.parametrize("target", ["deposits", "withdrawals", "spins", "players"])
def test_malformed_json_is_a_clear_4xx_and_changes_nothing(
    world: World, content: bytes, target: str
) -> None:
    path, secret = {
        "deposits": (f"/players/{world.victim.player_id}/deposits", OPERATOR),
        "withdrawals": (f"/players/{world.victim.player_id}/withdrawals", OPERATOR),
        "spins": (f"/sessions/{world.victim.session_id}/spins", world.victim.token),
        "players": ("/players", OPERATOR),
    }[target]
    refused_and_unchanged(world, lambda: post_raw(world, path, content, secret))


def test_a_body_that_is_not_json_is_refused_whatever_its_content_type(world: World) -> None:
    """Bodies are read as JSON whatever their label (curl -d says form); non-JSON is refused."""
    path = f"/players/{world.victim.player_id}/deposits"
    for content_type, body in [
        ("application/x-www-form-urlencoded", b"amount=10&request_id=form-1"),
        (
            "multipart/form-data; boundary=xx",
            b'--xx\r\nContent-Disposition: form-data; name="amount"\r\n\r\n10\r\n--xx--\r\n',
        ),
        ("text/plain", b"deposit 10 please"),
        ("application/xml", b"<deposit amount='10'/>"),
    ]:
        refused_and_unchanged(
            world,
            lambda ct=content_type, b=body: post_raw(
                world, path, b, OPERATOR, **{"Content-Type": ct}
            ),
        )


# -- huge bodies and the body limit --------------------------------------------------------------


def test_a_huge_declared_body_is_refused_with_413_before_it_is_read(world: World) -> None:
    big = b'{"amount": 10, "request_id": "' + b"r" * 200_000 + b'"}'
    path = f"/players/{world.victim.player_id}/deposits"
    error = refused_and_unchanged(world, lambda: post_raw(world, path, big, OPERATOR))
    assert error["code"] == "payload_too_large"


def test_a_huge_streamed_body_without_length_is_cut_off_with_413(world: World) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"amount": 10, "request_id": "'
        for _ in range(64):
            yield b"r" * 4096
        yield b'"}'

    path = f"/players/{world.victim.player_id}/deposits"
    error = refused_and_unchanged(
        world,
        lambda: world.client.post(
            path, content=chunks(), headers={**bearer(OPERATOR), "Content-Type": "application/json"}
        ),
    )
    assert error["code"] == "payload_too_large"


def test_a_body_just_under_the_limit_is_read_normally(world: World) -> None:
    padding = " " * (60 * 1024)  # JSON whitespace: bodies are exact, no field to pad with
    body = json.dumps({"amount": 10, "request_id": unique("pad")}).replace(",", "," + padding)
    answer = post_raw(world, f"/players/{world.other.player_id}/deposits", body.encode(), OPERATOR)
    assert answer.status_code == 201, answer.text


# -- stakes and amounts --------------------------------------------------------------------------


@pytest.mark.parametrize("value", NOT_INTEGERS + BAD_INTEGERS + [15, 99, 101, 10_001], ids=repr)
def test_a_stake_that_is_not_an_offered_integer_is_refused(world: World, value: Any) -> None:
    body = {"stake": value, "request_id": unique("stake")}
    path = f"/sessions/{world.victim.session_id}/spins"
    error = refused_and_unchanged(
        world, lambda: world.client.post(path, json=body, headers=bearer(world.victim.token))
    )
    assert error["code"] in ("invalid_stake", "invalid_request")


@pytest.mark.parametrize("value", NOT_INTEGERS + BAD_INTEGERS, ids=repr)
@pytest.mark.parametrize("kind", ["deposits", "withdrawals"])
def test_an_amount_that_is_not_a_sane_positive_integer_is_refused(
    world: World, value: Any, kind: str
) -> None:
    body = {"amount": value, "request_id": unique("amount")}
    path = f"/players/{world.victim.player_id}/{kind}"
    error = refused_and_unchanged(
        world, lambda: world.client.post(path, json=body, headers=bearer(OPERATOR))
    )
    assert error["code"] in ("invalid_amount", "invalid_request")


def test_a_withdrawal_beyond_the_balance_is_refused(world: World) -> None:
    body = {"amount": 10**12, "request_id": unique("too-much")}
    path = f"/players/{world.victim.player_id}/withdrawals"
    error = refused_and_unchanged(
        world, lambda: world.client.post(path, json=body, headers=bearer(OPERATOR))
    )
    assert error["code"] == "insufficient_funds"


# -- credentials ---------------------------------------------------------------------------------

FORGED: list[dict[str, str]] = [
    {},
    {"Authorization": ""},
    {"Authorization": "Bearer"},
    {"Authorization": "Bearer "},
    {"Authorization": "Bearer not-a-token"},
    {"Authorization": f"Bearer {secrets.token_urlsafe(32)}"},
    {"Authorization": f"Bearer {OPERATOR}x"},
    {"Authorization": f"Bearer {OPERATOR[:-1]}"},
    {"Authorization": f"Bearer {OPERATOR.upper()}"},
    {"Authorization": f"Bearer  {OPERATOR} extra"},
    {"Authorization": f"Basic {OPERATOR}"},
    {"Authorization": OPERATOR},
    {"Authorization": "Bearer " + "A" * 8000},
    {"Authorization": "Bearer '; DROP TABLE pumpkin_events; --"},
    {"Authorization": "Bearer \u00e9\u00e8"},  # sent as latin-1 bytes
    {"X-Api-Key": OPERATOR},
    {"Cookie": f"token={OPERATOR}"},
]


# ids by position: a random token in an id would differ between xdist workers
@pytest.mark.parametrize("headers", FORGED, ids=[f"forged-{i}" for i in range(len(FORGED))])
def test_unknown_or_forged_credentials_are_401_everywhere_and_change_nothing(
    world: World, headers: dict[str, str]
) -> None:
    v = world.victim
    requests = [
        ("POST", "/players", {"player_id": unique("forged")}),
        ("POST", f"/players/{v.player_id}/deposits", {"amount": 10, "request_id": unique("f")}),
        ("POST", f"/players/{v.player_id}/withdrawals", {"amount": 10, "request_id": unique("f")}),
        ("POST", f"/players/{v.player_id}/sessions", {}),
        ("POST", f"/sessions/{v.session_id}/spins", {"stake": 100, "request_id": unique("f")}),
        ("POST", f"/sessions/{v.session_id}/close", {}),
        ("GET", f"/players/{v.player_id}", None),
        ("GET", f"/rounds/{world.round_id}", None),
        ("GET", f"/audit/players/{v.player_id}/verify", None),
        ("GET", f"/players/{v.player_id}/limits", None),
        ("PUT", f"/players/{v.player_id}/limits", {"max_stake": 100}),
        ("POST", f"/players/{v.player_id}/exclusions", {"until": None, "reason": "forged"}),
        ("POST", f"/sessions/{v.session_id}/reality-check", {"continue": False}),
    ]
    raw = {name: value.encode("latin-1") for name, value in headers.items()}
    for method, path, body in requests:
        error = refused_and_unchanged(
            world,
            lambda m=method, p=path, b=body: world.client.request(m, p, json=b, headers=raw),
        )
        assert error["code"] == "unauthorized", (method, path, error)


def test_a_player_token_cannot_touch_another_players_things(world: World) -> None:
    v, o = world.victim, world.other
    mine = bearer(o.token)
    other_round = world.application.round_ids(v.player_id)[0]
    # Another player's things answer as if they did not exist (404); roles answer 403.
    for method, path, body, code in [
        ("POST", f"/sessions/{v.session_id}/spins", {"stake": 100, "request_id": unique("x")},
         "session_not_found"),
        ("POST", f"/sessions/{v.session_id}/close", {}, "session_not_found"),
        ("GET", f"/players/{v.player_id}", None, "player_not_found"),
        ("GET", f"/players/{v.player_id}/rounds", None, "player_not_found"),
        ("GET", f"/rounds/{other_round}", None, "round_not_found"),
        ("POST", f"/players/{v.player_id}/deposits", {"amount": 10, "request_id": unique("x")},
         "forbidden"),
        ("POST", f"/players/{o.player_id}/deposits", {"amount": 10, "request_id": unique("x")},
         "forbidden"),
        ("POST", f"/players/{o.player_id}/sessions", {}, "forbidden"),
        ("GET", f"/audit/players/{o.player_id}/verify", None, "forbidden"),
        ("GET", f"/players/{v.player_id}/limits", None, "player_not_found"),
        ("PUT", f"/players/{o.player_id}/limits", {"max_stake": 100}, "forbidden"),
        ("POST", f"/players/{o.player_id}/exclusions", {"until": None, "reason": "self"},
         "forbidden"),
        ("POST", f"/sessions/{v.session_id}/reality-check", {"continue": False},
         "session_not_found"),
    ]:
        error = refused_and_unchanged(
            world, lambda m=method, p=path, b=body: world.client.request(m, p, json=b, headers=mine)
        )
        assert error["code"] == code, (method, path, error)


# -- injected ids --------------------------------------------------------------------------------


@pytest.mark.parametrize("evil", INJECTIONS, ids=lambda s: repr(s)[:24])
def test_sql_and_path_characters_in_ids_are_refused_and_change_nothing(
    world: World, evil: str
) -> None:
    op, player = bearer(OPERATOR), bearer(world.victim.token)
    refused_and_unchanged(
        world, lambda: world.client.post("/players", json={"player_id": evil}, headers=op)
    )
    for method, path, body, headers in [
        ("GET", f"/players/{evil}", None, op),
        ("GET", f"/players/{evil}/rounds", None, op),
        ("POST", f"/players/{evil}/deposits", {"amount": 10, "request_id": unique("e")}, op),
        ("POST", f"/players/{evil}/withdrawals", {"amount": 10, "request_id": unique("e")}, op),
        ("POST", f"/players/{evil}/sessions", {}, op),
        ("GET", f"/rounds/{evil}", None, op),
        ("GET", f"/audit/players/{evil}/verify", None, bearer(AUDITOR)),
        ("POST", f"/sessions/{evil}/spins", {"stake": 100, "request_id": unique("e")}, player),
        ("POST", f"/sessions/{evil}/close", {}, op),
        ("GET", f"/players/{evil}/limits", None, op),
        ("PUT", f"/players/{evil}/limits", {"max_stake": 100}, op),
        ("POST", f"/players/{evil}/exclusions", {"until": None, "reason": "evil"}, op),
        ("POST", f"/sessions/{evil}/reality-check", {"continue": False}, player),
        ("GET", f"/players/{world.victim.player_id}/rounds?before={evil}&limit=5", None, op),
    ]:
        send = lambda m=method, p=path, b=body, h=headers: world.client.request(  # noqa: E731
            m, p, json=b, headers=h
        )
        if path.endswith("limit=5"):
            answer = send()  # an unknown `before` is an empty page or a 4xx: never a 5xx
            assert answer.status_code in (200, 404, 422), answer.text
            continue
        refused_and_unchanged(world, send)
    # The store is intact: the victim still reads and plays.
    assert world.victim.spin(100).status_code == 200


@pytest.mark.parametrize(
    "evil", ["';DROP/**/TABLE/**/pumpkin_events;--", "../../x", "%2F%00", '"||pg_sleep(5)||"']
)
def test_an_injected_request_id_is_only_data(world: World, evil: str) -> None:
    """A request id with SQL or path characters is data: stored, replayed, harmless."""
    path = f"/players/{world.other.player_id}/deposits"
    first = world.client.post(
        path, json={"amount": 7, "request_id": evil}, headers=bearer(OPERATOR)
    )
    again = world.client.post(
        path, json={"amount": 7, "request_id": evil}, headers=bearer(OPERATOR)
    )
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert (
        world.client.get(f"/players/{world.other.player_id}", headers=bearer(OPERATOR)).json()[
            "balance"
        ]
        == first.json()["balance"]
    )


@pytest.mark.parametrize(
    "request_id",
    ["", "x" * 129, "nul\u0000byte", "new\nline", "tab\there", "with space", "🎃", "ünï"],
)
def test_a_request_id_that_is_not_short_printable_text_is_refused(
    world: World, request_id: str
) -> None:
    path = f"/players/{world.victim.player_id}/deposits"
    error = refused_and_unchanged(
        world,
        lambda: world.client.post(
            path, json={"amount": 10, "request_id": request_id}, headers=bearer(OPERATOR)
        ),
    )
    assert error["code"] in ("invalid_request_id", "invalid_request")


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=-1",
        "limit=101",
        "limit=1e3",
        "limit=abc",
        f"limit={10**30}",
        "before=",
        "before=" + "b" * 200,
    ],
)
def test_bad_paging_parameters_are_refused(world: World, query: str) -> None:
    path = f"/players/{world.victim.player_id}/rounds?{query}"
    refused_and_unchanged(world, lambda: world.client.get(path, headers=bearer(OPERATOR)))


# -- replays -------------------------------------------------------------------------------------


def test_a_replayed_request_id_with_another_body_is_refused_and_changes_nothing(
    world: World,
) -> None:
    v, op = world.victim, bearer(OPERATOR)
    deposit_id, spin_id = unique("dep-replay"), unique("spin-replay")
    assert (
        world.client.post(
            f"/players/{v.player_id}/deposits",
            json={"amount": 50, "request_id": deposit_id},
            headers=op,
        ).status_code
        == 201
    )
    assert v.spin(100, request_id=spin_id).status_code == 200
    for method, path, body, headers in [
        ("POST", f"/players/{v.player_id}/deposits", {"amount": 51, "request_id": deposit_id}, op),
        (
            "POST",
            f"/players/{v.player_id}/withdrawals",
            {"amount": 50, "request_id": deposit_id},
            op,
        ),
        (
            "POST",
            f"/sessions/{v.session_id}/spins",
            {"stake": 200, "request_id": spin_id},
            bearer(v.token),
        ),
        (
            "POST",
            f"/sessions/{v.session_id}/spins",
            {"stake": 100, "request_id": deposit_id},
            bearer(v.token),
        ),
    ]:
        error = refused_and_unchanged(
            world,
            lambda m=method, p=path, b=body, h=headers: world.client.request(
                m, p, json=b, headers=h
            ),
        )
        assert error["code"] == "request_id_reused", (path, body, error)


def test_a_replay_with_the_same_body_changes_nothing_and_answers_the_same(world: World) -> None:
    v = world.victim
    first = v.spin(100, request_id="victim-spin-1")
    before = world.snapshot()
    again = v.spin(100, request_id="victim-spin-1")
    assert world.snapshot() == before
    assert first.json() == again.json()


# -- rate limit per credential -------------------------------------------------------------------


def test_the_rate_limit_is_per_credential_and_a_refused_request_changes_nothing(
    world: World,
) -> None:
    with client_for(world.application, rate_limit=5) as limited:
        path = f"/players/{world.victim.player_id}/deposits"
        before = world.snapshot()
        answers = [
            limited.post(
                path, json={"amount": 1, "request_id": unique("rl")}, headers=bearer(OPERATOR)
            )
            for _ in range(20)
        ]
        statuses = [a.status_code for a in answers]
        accepted = statuses.count(201)
        assert 5 <= accepted < 20 and statuses.count(429) == 20 - accepted, statuses
        throttled = answers[statuses.index(429)]
        assert throttled.headers.get("Retry-After")
        assert throttled.json()["error"]["code"] == "rate_limited"
        # Only the accepted deposits moved money.
        after = limited.get(f"/players/{world.victim.player_id}", headers=bearer(AUDITOR)).json()
        assert after["balance"] == before[1]["balance"] + accepted
        # Another credential is not throttled by the first one's flood.
        assert (
            limited.get(
                f"/players/{world.victim.player_id}", headers=bearer(world.victim.token)
            ).status_code
            == 200
        )
        # Unknown tokens are throttled too (before any lookup): guessing tokens is slow.
        guesses = [
            limited.get("/players/x", headers=bearer("guess")).status_code for _ in range(10)
        ]
        assert 429 in guesses
