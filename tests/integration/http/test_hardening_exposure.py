"""What the service shows without a key (issue 17, finding 8): /metrics only to the operator
and the auditor, and no page that loads scripts from another host unless PUMPKIN_DOCS asks."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, client_for, settings_for

from infrastructure.bootstrap import build_http_app


def test_metrics_answer_only_the_operator_and_the_auditor(service: Any) -> None:
    with client_for(service) as client:
        j = Journey(client)
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers=bearer("not-a-key")).status_code == 401
        assert client.get("/metrics", headers=bearer(j.token)).status_code == 403
        for key in (OPERATOR, AUDITOR):
            scraped = client.get("/metrics", headers=bearer(key))
            assert scraped.status_code == 200
            assert "pumpkin_http_requests_total" in scraped.text


def test_no_page_loads_scripts_from_another_host_by_default(service: Any) -> None:
    with client_for(service) as client:
        assert client.get("/docs").status_code == 404
        assert client.get("/redoc").status_code == 404
        document = client.get("/openapi.json")
        assert document.status_code == 200
        assert "/sessions/{session_id}/spins" in document.json()["paths"]


def test_the_interactive_docs_are_served_when_asked_for(service: Any) -> None:
    settings = settings_for()
    settings.docs = True
    with TestClient(build_http_app(settings, service)) as client:
        assert client.get("/docs").status_code == 200


def test_metrics_are_open_to_a_scraper_on_this_host_only() -> None:
    from infrastructure.http.routes_public import on_this_host

    assert on_this_host("127.0.0.1") and on_this_host("::1") and on_this_host("127.3.2.1")
    assert not on_this_host("10.1.2.3") and not on_this_host("testclient")
    assert not on_this_host("unknown")
