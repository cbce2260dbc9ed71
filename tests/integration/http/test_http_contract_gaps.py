"""Where the service answered otherwise than CONTRACT.md says (issue 17, finding 12)."""

from __future__ import annotations

import csv
import io
import time

from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client

from domain.ledger.audit_trail import neutral_cell


def test_a_body_that_cannot_be_decoded_is_422_like_any_invalid_body(api: TestClient) -> None:
    j = Journey(api)
    for path, secret in (("/players", OPERATOR), (f"/sessions/{j.session_id}/spins", j.token)):
        for raw in (b"\xff\xfe\x00", b"\x80{}", b'{"stake": 100, "request_id": "\xff"}'):
            answer = api.post(path, content=raw, headers=bearer(secret))
            assert answer.status_code == 422, (path, raw, answer.text)
            assert answer.json()["error"]["code"] == "invalid_request"


def test_a_method_not_allowed_says_which_are(api: TestClient) -> None:
    answer = api.delete("/players", headers=bearer(OPERATOR))
    assert answer.status_code == 405
    assert answer.json()["error"]["code"] == "method_not_allowed"
    assert "POST" in answer.headers["allow"]


def test_no_redirect_is_built_from_the_host_header(api: TestClient) -> None:
    for path in ("/health/", "/rules/", "/players/"):
        answer = api.get(
            path, headers={"Host": "attacker.example"}, follow_redirects=False
        )
        assert not 300 <= answer.status_code < 400, (path, answer.headers)
        assert "attacker.example" not in answer.headers.get("location", "")


def test_a_spin_replayed_after_its_session_closed_answers_the_original_round(
    api: TestClient,
) -> None:
    j = Journey(api)
    first = j.spin(request_id="once")
    assert first.status_code == 200
    closed = api.post(f"/sessions/{j.session_id}/close", headers=bearer(j.token))
    assert closed.status_code == 200
    again = j.spin(request_id="once")
    assert (again.status_code, again.json()) == (200, first.json())
    new = j.spin(request_id="never-played")
    assert (new.status_code, new.json()["error"]["code"]) == (409, "session_closed")


def test_the_openapi_document_carries_the_id_amount_and_date_rules(api: TestClient) -> None:
    document = api.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert schemas["NewPlayer"]["properties"]["player_id"]["pattern"] == "^[A-Za-z0-9_-]{1,64}$"
    money = schemas["MoneyMovement"]["properties"]
    assert (money["amount"]["minimum"], money["amount"]["maximum"]) == (1, 10**12)
    assert money["request_id"]["maxLength"] == 128
    assert schemas["SpinRequest"]["properties"]["request_id"]["pattern"]
    path_ids = document["paths"]["/players/{player_id}"]["get"]["parameters"]
    assert path_ids[0]["schema"]["pattern"] == "^[A-Za-z0-9_-]{1,64}$"
    since = next(
        p for p in document["paths"]["/audit/stats"]["get"]["parameters"] if p["name"] == "since"
    )
    assert since["schema"]["pattern"].startswith("^\\d{4}-\\d{2}-\\d{2}")
    trail = document["paths"]["/audit/events"]["get"]["responses"]["200"]["content"]
    assert set(trail) == {"application/x-ndjson", "text/csv"}


def test_formula_cells_are_neutralised_and_numbers_kept() -> None:
    assert neutral_cell("-1-1") == "'-1-1"
    assert [neutral_cell(v) for v in ("=A1", "+1", "@SUM(A1)", "\tx")] == [
        "'=A1", "'+1", "'@SUM(A1)", "'\tx"
    ]
    assert neutral_cell("player_1") == "player_1"
    assert neutral_cell(-5) == -5


def test_the_csv_audit_trail_neutralises_ids_that_look_like_formulas(store_url: str) -> None:
    with served_client(store_url) as api:
        for player_id in ("-1-1", "-cmd"):
            assert api.post(
                "/players", json={"player_id": player_id}, headers=bearer(OPERATOR)
            ).status_code == 201
        deadline = time.monotonic() + 10
        rows: list[dict[str, str]] = []
        while len(rows) < 2 and time.monotonic() < deadline:
            answer = api.get(
                "/audit/events", params={"format": "csv"}, headers=bearer(AUDITOR)
            )
            every = csv.DictReader(io.StringIO(answer.text))
            rows = [r for r in every if r["name"] == "Registered"]
            time.sleep(0.05)
        assert sorted(r["player_id"] for r in rows) == ["'-1-1", "'-cmd"]
        assert not any(
            cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row.values() if cell
        )
