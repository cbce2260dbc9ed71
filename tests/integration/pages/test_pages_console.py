"""The console: a key traded for a signed HttpOnly SameSite=Strict cookie, CSRF on every form."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from http_support import AUDITOR, OPERATOR, Journey, bearer, served_client
from pages_support import csrf_of, eventually, form

from infrastructure.pages.console_auth import SESSION_COOKIE
from infrastructure.wallet.reference import ReferenceWallet
from projections.queries import RecallReader
from projections.recorders import Sql


@pytest.fixture
def client(store_url: str, operator_wallet: ReferenceWallet | None) -> Iterator[TestClient]:
    """The API as `serve` runs it, on the built-in wallet and on the operator's."""
    with served_client(store_url, operator_wallet) as test_client:
        yield test_client


# Signing in and out reads no read model: on the built-in wallet only.
BUILT_IN_ONLY = pytest.mark.parametrize("operator_wallet", [None])


def problems(page: str) -> list[str]:
    return re.findall(r"<li>(.*?)</li>", page.split("NOT verified")[-1])[:5]


def signed_in(client: TestClient, key: str) -> str:
    """Signs in through the form; the Set-Cookie header it answered."""
    csrf = csrf_of(client.get("/console").text)
    answer = client.post(
        "/console/sign-in", follow_redirects=False, **form({"key": key, "csrf": csrf})
    )
    assert answer.status_code == 303, answer.text
    return answer.headers["set-cookie"]


@pytest.mark.parametrize("key", [AUDITOR, OPERATOR])
@BUILT_IN_ONLY
def test_the_auditor_or_operator_key_signs_in_with_a_cookie_that_is_not_the_key(
    client: TestClient, key: str
) -> None:
    cookie = signed_in(client, key)
    assert f"{SESSION_COOKIE}=" in cookie and key not in cookie
    assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
    overview = client.get("/console")
    assert overview.status_code == 200 and "Return to player by state" in overview.text


@BUILT_IN_ONLY
def test_a_wrong_key_or_a_missing_csrf_token_signs_nobody_in(client: TestClient) -> None:
    csrf = csrf_of(client.get("/console").text)
    wrong = client.post("/console/sign-in", **form({"key": "x" * 20, "csrf": csrf}))
    assert wrong.status_code == 401
    assert f"{SESSION_COOKIE}=" not in wrong.headers.get("set-cookie", "")
    forged = client.post("/console/sign-in", **form({"key": AUDITOR, "csrf": "forged"}))
    assert forged.status_code == 403
    elsewhere = client.post(
        "/console/sign-in",
        content=f"key={AUDITOR}&csrf={csrf}",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": "https://evil.example",
        },
    )
    assert elsewhere.status_code == 403
    assert "Sign in" in client.get("/console/players", follow_redirects=True).text


@BUILT_IN_ONLY
def test_signing_out_needs_the_csrf_token_and_ends_the_console(client: TestClient) -> None:
    signed_in(client, AUDITOR)
    refused = client.post("/console/sign-out", **form({"csrf": "forged"}))
    assert refused.status_code == 403
    assert "Return to player" in client.get("/console").text
    csrf = csrf_of(client.get("/console").text)
    out = client.post("/console/sign-out", follow_redirects=False, **form({"csrf": csrf}))
    assert out.status_code == 303 and f'{SESSION_COOKIE}=""' in out.headers["set-cookie"]
    assert "Console sign-in" in client.get("/console").text


def test_the_console_shows_players_verifies_one_and_lists_its_audit_trail(
    client: TestClient,
) -> None:
    j = Journey(client)
    assert j.spin().status_code == 200
    signed_in(client, AUDITOR)
    players = eventually(lambda: client.get("/console/players").text, lambda t: j.player_id in t)
    assert j.player_id in players
    refused = client.post(f"/console/players/{j.player_id}/verify", **form({"csrf": "x"}))
    assert refused.status_code == 403
    trail = eventually(
        lambda: client.get(f"/console/players/{j.player_id}").text, lambda t: "RoundSettled" in t
    )
    assert "StakePlaced" in trail
    csrf = csrf_of(players)
    verified = client.post(f"/console/players/{j.player_id}/verify", **form({"csrf": csrf}))
    assert verified.status_code == 200
    assert "Verified</strong>" in verified.text, problems(verified.text)
    assert "StakePlaced" in verified.text and "RoundSettled" in verified.text


def test_the_round_search_takes_the_audit_filters_and_refuses_bad_ones_plainly(
    client: TestClient,
) -> None:
    j = Journey(client)
    round_id = j.spin().json()["round_id"]
    signed_in(client, AUDITOR)
    found = eventually(
        lambda: client.get("/console/rounds", params={"player_id": j.player_id, "min_win": "0"}),
        lambda page: f"/console/replay/{round_id}" in page.text,
    )
    assert found.status_code == 200 and f"/console/replay/{round_id}" in found.text
    opened = client.get(f"/console/replay/{round_id}", follow_redirects=False)
    assert opened.status_code == 303 and "sig=" in opened.headers["location"]
    assert client.get(opened.headers["location"]).status_code == 200
    for bad, says in (
        ({"since": "yesterday"}, "ISO-8601"),
        ({"player_id": "x\x00y"}, "a player id is"),
        ({"min_win": "-1"}, "min win is a whole number"),
        ({"limit": "\u00b2"}, "limit is a whole number"),
        ({"feature": "bonus"}, "feature is one of"),
    ):
        answer = client.get("/console/rounds", params=bad)
        assert answer.status_code == 200 and says in answer.text, bad
    crowded = "&".join(f"f{i}=1" for i in range(50))
    refused = client.post(
        f"/console/players/{j.player_id}/verify",
        content=crowded,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert refused.status_code == 403


def test_significant_events_show_what_is_beyond_rounds_money_and_sessions(
    client: TestClient, store_url: str
) -> None:
    j = Journey(client)
    j.spin()
    reader = RecallReader(store_url)
    try:
        eventually(lambda: reader.audit_tail(j.player_id, 10), lambda rows: len(rows) >= 5)
        assert reader.significant_events(10) == []  # all routine so far
        with reader.datastore.transaction(commit=True) as cursor:
            db = Sql(cursor, reader.dialect)
            row = {
                "position": 10**12,
                "stream_id": "s",
                "version": 9,
                "player_id": j.player_id,
                "name": "PlayerExcluded",
                "timestamp": reader.dialect.time(datetime.now(UTC)),
                "round_id": None,
                "amount": None,
                "stake": None,
                "win": None,
                "balance_after": None,
                "prev_hash": None,
                "hash": None,
                "data": "{}",
            }
            db.insert("view_audit", tuple(row), [row])
        found = reader.significant_events(10)
        assert [e["name"] for e in found] == ["PlayerExcluded"]
    finally:
        reader.close()
    signed_in(client, AUDITOR)
    assert "PlayerExcluded" in client.get("/console").text


def test_no_get_form_link_or_url_of_the_console_carries_a_csrf_token(client: TestClient) -> None:
    """Issue 27 item 7: a search changes nothing and needs no token; a token in a URL would
    leave in history, logs and Referer headers."""
    j = Journey(client)
    round_id = j.spin().json()["round_id"]
    signed_in(client, AUDITOR)
    search = f"/console/rounds?player_id={j.player_id}"
    eventually(lambda: client.get(search).text, lambda page: round_id in page)
    for path in ("/console", "/console/players", f"/console/players/{j.player_id}", search):
        html = client.get(path).text
        token = csrf_of(html)  # the sign-out form's (a POST)
        get_forms = re.findall(r"<form(?![^>]*method=\"post\").*?</form>", html, re.S | re.I)
        assert all('name="csrf"' not in found for found in get_forms), path
        addresses = re.findall(r'(?:href|action|src)="([^"]*)"', html)
        assert addresses and all(token not in a and "csrf" not in a for a in addresses), path
    assert 'id="round-search"' in client.get(search).text
    opened = client.get(f"/console/replay/{round_id}", follow_redirects=False)
    assert "csrf" not in opened.headers["location"]


def test_the_player_page_shows_sessions_limits_exclusions_money_and_an_export(
    client: TestClient,
) -> None:
    """Issue 27 item 13: an auditor checks a player on one page, and takes the trail away."""
    j = Journey(client)
    j.spin()
    put = client.put(
        f"/players/{j.player_id}/limits", json={"max_stake": 500}, headers=bearer(OPERATOR)
    )
    assert put.status_code == 200, put.text
    until = "2999-01-01T00:00:00Z"
    excluded = client.post(
        f"/players/{j.player_id}/exclusions",
        json={"until": until, "reason": "asked for a break"},
        headers=bearer(OPERATOR),
    )
    assert excluded.status_code == 201, excluded.text
    signed_in(client, AUDITOR)
    html = eventually(
        lambda: client.get(f"/console/players/{j.player_id}").text,
        lambda page: "asked for a break" in page and 'id="sessions"' in page,
    )
    built_in = getattr(client, "operator_wallet", None) is None
    money = 'id="money"' if built_in else 'id="money-none"'  # the operator's wallet keeps it
    for hook in ('id="sessions"', 'id="limits"', 'id="protection"', money):
        assert hook in html, hook
    assert j.session_id in html
    assert "1,000.00" in html or not built_in  # the deposit (none: the operator keeps the money)
    assert ("The operator's wallet keeps this player's money" in html) is not built_in
    assert "max stake" in html and "2999-01-01" in html
    trail = html.split('id="trail"')[1]
    assert ">Issued<" not in trail and "StakePlaced" in trail  # no request-key rows
    export = client.get(f"/console/players/{j.player_id}/audit.csv")
    assert export.status_code == 200 and export.headers["content-type"].startswith("text/csv")
    assert "attachment" in export.headers["content-disposition"]
    assert ("Deposited" in export.text) is built_in and "Excluded" in export.text


def counted(overview: str) -> int:
    """The rounds the overview's table counts (its states' rows added up)."""
    if 'id="rtp-table"' not in overview:
        return 0
    states = overview.split('id="rtp-table"')[1].split("<tbody>")[1].split("</tbody>")[0]
    rounds = re.findall(r'</td>\s*<td class="num">([\d,]+)</td>', states)[::5]
    return sum(int(n.replace(",", "")) for n in rounds)


def test_the_overview_has_a_row_for_all_states_and_a_date_range(client: TestClient) -> None:
    j = Journey(client)
    for _ in range(3):
        assert j.spin().status_code == 200
    signed_in(client, AUDITOR)
    overview = eventually(lambda: client.get("/console").text, lambda page: counted(page) == 3)
    assert counted(overview) == 3  # every round, on either wallet
    assert 'id="date-range"' in overview and "too few rounds" in overview
    later = client.get("/console", params={"since": "2999-01-01"}).text
    assert "No rounds played yet." in later and "from 2999-01-01" in later
    bad = client.get("/console", params={"until": "soon"}).text
    assert "since and until: an ISO-8601 date" in bad
