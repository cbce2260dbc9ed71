"""Console sign-in (issue 27, items 3 and 6): one failure budget per address for every way of
presenting a secret, one attempt per sign-in form, and sign-ins the server keeps, so signing out
or rotating a key ends them on every worker."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, bearer, settings_for
from pages_support import csrf_of, form
from pydantic import SecretStr

from infrastructure.bootstrap import Runtime, build_console_sign_ins, build_http_app, build_runtime
from infrastructure.pages.console_auth import SESSION_COOKIE
from infrastructure.settings import Settings

BUDGET = 10  # PUMPKIN_AUTH_FAILURES_PER_MINUTE in these tests


@dataclass
class Served:
    runtime: Runtime
    settings: Settings

    def client(self, address: str = "198.51.100.1", app: FastAPI | None = None) -> TestClient:
        return TestClient(
            app or self.runtime.http_app, raise_server_exceptions=False, client=(address, 50000)
        )

    def another_worker(self, **changed: str) -> FastAPI:
        """A second `serve` worker's app on the same database (keys as `changed` says)."""
        settings = self.settings.model_copy(
            update={name: SecretStr(value) for name, value in changed.items()}
        )
        application = self.runtime.application
        return build_http_app(
            settings,
            application,
            console_sign_ins=build_console_sign_ins(settings, application),  # type: ignore[arg-type]
        )


@pytest.fixture
def served(store_url: str) -> Iterator[Served]:
    settings = settings_for(store_url)
    settings.auth_failures_per_minute = BUDGET
    runtime = build_runtime(settings)
    try:
        yield Served(runtime, settings)
    finally:
        runtime.close()


def attempt(client: TestClient, key: str) -> int:
    """One sign-in attempt through a fresh form, as a browser makes it; its status."""
    page = client.get("/console")
    if page.status_code != 200:
        return page.status_code
    answer = client.post(
        "/console/sign-in", follow_redirects=False, **form({"key": key, "csrf": csrf_of(page.text)})
    )
    return answer.status_code


def signed_in(client: TestClient, key: str = AUDITOR) -> str:
    """Signs in; the console cookie's value."""
    assert attempt(client, key) == 303
    cookie = client.cookies.get(SESSION_COOKIE)
    assert cookie
    return cookie


def test_wrong_console_keys_and_wrong_bearer_secrets_share_one_budget(served: Served) -> None:
    client = served.client()
    half = BUDGET // 2
    assert [client.get("/players/x", headers=bearer(f"guess-{n}")).status_code
            for n in range(half)] == [401] * half
    assert [attempt(client, f"wrong-key-number-{n:04}") for n in range(half)] == [401] * half
    # the budget is spent: every way in is refused, the right secret included
    locked = client.post("/console/sign-in", **form({"key": AUDITOR, "csrf": "x"}))
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 60 // BUDGET
    assert attempt(client, AUDITOR) == 429
    assert client.get("/players/x", headers=bearer(OPERATOR)).status_code == 429
    # another address has its own budget
    assert attempt(served.client("198.51.100.2"), AUDITOR) == 303


def test_the_right_key_is_refused_at_sign_in_while_bearer_guesses_lock_the_address_out(
    served: Served,
) -> None:
    client = served.client()
    for n in range(BUDGET):
        client.get("/players/x", headers=bearer(f"guess-{n}"))
    assert attempt(client, OPERATOR) == 429


def test_one_sign_in_form_carries_one_attempt(served: Served) -> None:
    client = served.client()
    csrf = csrf_of(client.get("/console").text)
    guesses = [
        client.post("/console/sign-in", **form({"key": f"guess-{n:016}", "csrf": csrf}))
        for n in range(200)
    ]
    statuses = [answer.status_code for answer in guesses]
    assert statuses[0] == 401  # the form's one attempt
    assert set(statuses[1:]) <= {403, 429} and statuses.count(401) == 1
    right = client.post("/console/sign-in", **form({"key": AUDITOR, "csrf": csrf}))
    assert right.status_code == 403 and SESSION_COOKIE not in client.cookies
    assert attempt(client, AUDITOR) == 303  # a fresh form signs in


def test_a_cookie_that_names_no_sign_in_counts_against_the_budget(served: Served) -> None:
    client = served.client()
    for n in range(BUDGET):
        client.cookies.set(SESSION_COOKIE, f"{n:043}", path="/console")
        assert client.get("/console/players", follow_redirects=False).status_code == 303
    client.cookies.clear()
    assert client.get("/console/players").status_code == 429


def test_signing_out_ends_the_sign_in_on_every_worker(served: Served) -> None:
    first = served.client()
    cookie = signed_in(first)
    second = served.client(app=served.another_worker())
    second.cookies.set(SESSION_COOKIE, cookie, path="/console")
    assert "signed in as" in second.get("/console").text  # the sign-in is the server's
    csrf = csrf_of(first.get("/console/rounds").text)
    assert first.post("/console/sign-out", follow_redirects=False,
                      **form({"csrf": csrf})).status_code == 303
    for client in (first, second):
        client.cookies.set(SESSION_COOKIE, cookie, path="/console")  # the old cookie, sent again
        again = client.get("/console/players", follow_redirects=False)
        assert again.status_code == 303 and again.headers["location"] == "/console"
        assert "Console sign-in" in client.get("/console").text


def test_a_changed_key_ends_the_sign_ins_made_with_the_old_one(served: Served) -> None:
    cookie = signed_in(served.client(), AUDITOR)
    rotated = served.client(app=served.another_worker(auditor_key="a-new-auditor-key-0001"))
    rotated.cookies.set(SESSION_COOKIE, cookie, path="/console")
    assert "Console sign-in" in rotated.get("/console").text
    assert attempt(rotated, "a-new-auditor-key-0001") == 303


def test_the_server_keeps_a_digest_of_the_cookie_never_the_cookie(served: Served) -> None:
    cookie = signed_in(served.client())
    kept = served.runtime.application.store.recorder.datastore  # type: ignore[attr-defined]
    with kept.transaction(commit=False) as cursor:
        cursor.execute("SELECT digest FROM console_sign_ins")
        digests = [row["digest"] for row in cursor.fetchall()]
    assert digests and cookie not in digests
