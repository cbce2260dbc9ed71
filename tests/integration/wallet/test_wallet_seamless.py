"""The operator's seamless wallet (CONTRACT.md), against the reference wallet (a real HTTP
server with fault injection), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import subprocess
import sys
import time
from typing import Any

import httpx
import orjson
import pytest
from http_support import AUDITOR, OPERATOR, bearer, unique
from pages_support import csrf_of, form
from wallet_kinds_support import SECRET
from wallet_support import WalletPlayer, applied, owed, settle, wallet_service

from infrastructure.wallet.port import Debit
from infrastructure.wallet.reference import ReferenceWallet
from infrastructure.wallet.signing import sign


def test_a_spin_debits_the_stake_then_credits_the_win(served: Any, wallet: ReferenceWallet) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    played = player.spin(100)
    assert played.status_code == 200, played.text
    body = played.json()
    assert body["settlement"] == "settled"
    assert body["balance_before"] == 10_000 and body["balance_after"] == 9_900 + body["total_win"]
    [debit] = applied(wallet, "debit", player.player_id)
    [credit] = applied(wallet, "credit", player.player_id)
    assert debit["amount"] == 100 and debit["round_id"] == body["round_id"]
    assert debit["currency"] == "EUR"
    assert credit["amount"] == body["total_win"]  # 0 included
    assert credit["debit_transaction_id"] == debit["transaction_id"]
    assert credit["free_round"] is None
    assert wallet.ledger.balances[player.player_id] == 9_900 + body["total_win"]
    state = client.get(f"/players/{player.player_id}", headers=bearer(OPERATOR)).json()
    assert state["balance"] == wallet.ledger.balances[player.player_id]
    assert owed(client) == []
    again = client.get(f"/rounds/{body['round_id']}", headers=bearer(OPERATOR)).json()
    assert again["settlement"] == "settled"


def test_every_call_is_signed_with_the_secret_the_time_and_the_call(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet)
    assert player.spin(100).status_code == 200  # the reference wallet checks every signature
    raw = b'{"player_id": "x", "currency": "EUR"}'

    def posted(call: str, signature: str) -> int:
        answer = httpx.post(f"{wallet.url}/{call}", content=raw,
                            headers={"X-Pumpkin-Signature": signature})
        return answer.status_code

    assert posted("balance", sign(SECRET, "balance", raw)) == 200
    assert posted("balance", sign("not-the-secret", "balance", raw)) == 401
    now = int(time.time())
    assert posted("balance", sign(SECRET, "balance", raw, now - 330)) == 401  # stale
    assert posted("balance", sign(SECRET, "balance", raw, now + 330)) == 401  # from the future
    assert posted("balance", sign(SECRET, "balance", raw, now - 240)) == 200
    sha = hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
    assert posted("balance", f"sha256={sha}") == 401  # the old body-only form is gone


def test_a_signed_debit_body_posted_to_credit_is_refused(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=1_000)
    raw = orjson.dumps({
        "transaction_id": "tx-1", "player_id": player.player_id, "session_id": "s",
        "round_id": "r", "amount": 500, "currency": "EUR",
    })
    replayed = httpx.post(f"{wallet.url}/credit", content=raw,
                          headers={"X-Pumpkin-Signature": sign(SECRET, "debit", raw)})
    assert replayed.status_code == 401
    assert wallet.ledger.balances[player.player_id] == 1_000


def test_a_402_answers_insufficient_funds_and_plays_no_round(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=50)
    refused = player.spin(100)
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "insufficient_funds"
    rounds = client.get(f"/players/{player.player_id}/rounds", headers=bearer(OPERATOR))
    assert rounds.json()["rounds"] == []
    assert owed(client) == []
    assert wallet.ledger.balances[player.player_id] == 50


def test_another_4xx_answers_wallet_refused(served: Any, wallet: ReferenceWallet) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet)
    wallet.inject("refuse", "debit")
    refused = player.spin(100)
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "wallet_refused"
    assert owed(client) == [] and applied(wallet, "debit", player.player_id) == []


@pytest.mark.parametrize("fault", ["fail_before", "fail_after", "timeout", "drop"])
def test_a_debit_without_a_clear_answer_plays_nothing_and_is_rolled_back(
    served: Any, wallet: ReferenceWallet, fault: str
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    wallet.inject(fault, "debit", delay=1.5)
    request_id = unique("spin")
    unknown = player.spin(100, request_id)
    assert unknown.status_code == 503, unknown.text
    assert unknown.headers["Retry-After"]
    assert unknown.json()["error"]["code"] == "wallet_unavailable"
    [rollback] = owed(client)
    assert rollback["kind"] == "rollback" and rollback["amount"] == 100
    assert settle(service, clock) == 1
    assert owed(client) == []
    assert wallet.ledger.balances[player.player_id] == 10_000  # applied or not, undone
    # A 503 is no result: the same request is tried afresh, with a new debit.
    again = player.spin(100, request_id)
    assert again.status_code == 200, again.text
    calls = wallet.ledger.state()["transactions"].values()
    [rolled_back] = [t for t in calls if t["call"] == "rollback"]
    [credit] = applied(wallet, "credit", player.player_id)
    assert credit["debit_transaction_id"] != rolled_back["debit_transaction_id"]


def test_the_same_spin_request_never_debits_twice(served: Any, wallet: ReferenceWallet) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet)
    first = player.spin(100, "same-spin")
    second = player.spin(100, "same-spin")
    assert first.status_code == second.status_code == 200
    assert first.json()["round_id"] == second.json()["round_id"]
    assert len(applied(wallet, "debit", player.player_id)) == 1
    assert len(applied(wallet, "credit", player.player_id)) == 1


def test_a_credit_the_wallet_fails_stays_owed_and_is_retried_with_the_same_id(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    wallet.inject("fail_after", "credit", count=2)  # applied, then 500, twice
    played = player.spin(100)
    assert played.status_code == 200
    assert played.json()["settlement"] == "pending"
    [credit] = owed(client)
    assert credit["kind"] == "credit" and credit["round_id"] == played.json()["round_id"]
    assert credit["attempts"] == 1 and "500" in credit["last_error"]
    assert settle(service, clock) == 0  # the second injected failure
    assert owed(client)[0]["attempts"] == 2
    assert settle(service, clock) == 1
    assert owed(client) == []
    round_id = played.json()["round_id"]
    credits = [t for t in wallet.ledger.state()["transactions"].values() if t["call"] == "credit"]
    assert [c["transaction_id"] for c in credits] == [credit["transaction_id"]]
    assert wallet.ledger.balances[player.player_id] == 9_900 + played.json()["total_win"]
    after = client.get(f"/rounds/{round_id}", headers=bearer(OPERATOR)).json()
    assert after["settlement"] == "settled"


def test_what_is_owed_survives_a_restart(store_url: str, wallet: ReferenceWallet) -> None:
    with wallet_service(store_url, wallet) as (client, _service, _clock):
        player = WalletPlayer(client, wallet, balance=10_000)
        wallet.inject("fail_before", "credit", count=100)
        played = player.spin(100).json()
        assert played["settlement"] == "pending"
    wallet.heal()
    with wallet_service(store_url, wallet) as (client, service, clock):
        assert [item["round_id"] for item in owed(client)] == [played["round_id"]]
        assert settle(service, clock) == 1
        assert owed(client) == []
    assert wallet.ledger.balances[player.player_id] == 9_900 + played["total_win"]


def test_a_debit_left_open_by_a_dead_process_is_rolled_back(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    # The debit is recorded and applied by the wallet, then the process dies before the round.
    round_id = f"{player.player_id}.1"
    service.runner.run(player.player_id, lambda work: work.account().record_debit(
        "lost-debit", "lost-spin", player.session_id, round_id, 100, clock().timestamp()))
    asyncio.run(service.wallet.protocol.debit(
        Debit("lost-debit", player.player_id, player.session_id, round_id, 100)))
    assert wallet.ledger.balances[player.player_id] == 9_900
    assert settle(service, clock) == 1  # stale past the timeout: rolled back
    assert wallet.ledger.balances[player.player_id] == 10_000
    assert owed(client) == []


def test_deposits_and_withdrawals_answer_external_wallet(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet)
    for kind in ("deposits", "withdrawals"):
        answer = client.post(
            f"/players/{player.player_id}/{kind}", json={"amount": 100, "request_id": unique("m")},
            headers=bearer(OPERATOR),
        )
        assert answer.status_code == 409
        assert answer.json()["error"]["code"] == "external_wallet"


def test_metrics_count_what_is_owed_and_time_the_wallet(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet)
    wallet.inject("fail_before", "credit", count=1)
    player.spin(100)
    settle(service, clock)
    text = client.get("/metrics", headers=bearer(AUDITOR)).text
    assert 'pumpkin_wallet_call_seconds_count{call="debit",outcome="200"} 1.0' in text
    assert 'pumpkin_wallet_owed{kind="credit"}' in text


def test_pumpkin_verify_in_a_new_process_reads_the_wallet_streams(
    store_url: str, served: Any, wallet: ReferenceWallet
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet)
    wallet.inject("fail_after", "debit")
    assert player.spin(100).status_code == 503
    assert player.spin(100).status_code == 200
    granted = client.post(
        f"/players/{player.player_id}/free-rounds", headers=bearer(OPERATOR),
        json={"campaign_id": "c", "rounds": 1, "stake": 100, "request_id": "g"},
    )
    assert granted.status_code == 201
    assert player.spin(None, free_round="c").status_code == 200
    settle(service, clock)
    done = subprocess.run(
        [sys.executable, "-c", "from infrastructure.cli import main; main()", "verify"],
        env={**os.environ, "PUMPKIN_DATABASE_URL": store_url}, capture_output=True, text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_a_wallet_url_without_its_secret_is_refused_at_start() -> None:
    from pydantic import ValidationError

    from infrastructure.settings import Settings

    with pytest.raises((ValueError, ValidationError), match="PUMPKIN_WALLET_SECRET"):
        Settings(wallet_url="http://127.0.0.1:9/")
    with pytest.raises(ValidationError):
        Settings(wallet_url="ftp://wallet", wallet_secret="s")
    with pytest.raises(ValidationError):
        Settings(currency="euro")


def test_wallet_rounds_are_provably_fair_like_any_other(
    served: Any, wallet: ReferenceWallet
) -> None:
    """On the operator's wallet too, each round's seed derives from the session's committed
    server seed, nonce 1, 2, ... and the client seed: checked with the standard library."""
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    rounds = [player.spin(100).json()]
    rounds.append(client.post(
        f"/sessions/{player.session_id}/spins",
        json={"stake": 100, "request_id": unique("spin"), "client_seed": "lucky"},
        headers=bearer(player.token),
    ).json())
    closed = client.post(
        f"/sessions/{player.session_id}/close", json={}, headers=bearer(player.token)
    ).json()
    server_seed = bytes.fromhex(closed["server_seed"])
    assert hashlib.sha256(server_seed).hexdigest() == rounds[0]["seed_commitment"]
    for nonce, played in enumerate(rounds, start=1):
        assert played["nonce"] == nonce
        message = f"{player.session_id}:{nonce}:{played['client_seed']}".encode()
        assert played["seed"] == hmac.new(server_seed, message, hashlib.sha256).hexdigest()
    assert rounds[1]["client_seed"] == "lucky"


def test_the_console_lists_what_the_wallet_is_owed(store_url: str, wallet: ReferenceWallet) -> None:
    with wallet_service(store_url, wallet, projections=True) as (client, service, clock):
        console_shows_owed_work(client, service, clock, wallet)


def console_shows_owed_work(client: Any, service: Any, clock: Any, wallet: ReferenceWallet) -> None:
    player = WalletPlayer(client, wallet, balance=10_000)
    wallet.inject("fail_after", "credit", count=1)
    round_id = player.spin(100).json()["round_id"]
    csrf = csrf_of(client.get("/console").text)
    signed = client.post(
        "/console/sign-in", follow_redirects=False, **form({"key": AUDITOR, "csrf": csrf})
    )
    assert signed.status_code == 303
    page = client.get("/console").text
    assert 'id="owed"' in page and round_id in page and player.player_id in page
    assert settle(service, clock) == 1
    assert 'id="owed-none"' in client.get("/console").text


def test_a_spin_refused_by_player_protection_is_recorded_and_debits_nothing(
    served: Any, wallet: ReferenceWallet
) -> None:
    """On the operator's wallet as on the built-in one: the refusal is a ProtectionRefused event
    in the player's stream (the audit trail, the dispute report), and no debit is sent."""
    client, service, _clock = served
    player = WalletPlayer(client, wallet)
    service.set_limits(player.player_id, {"max_stake": 100})
    refused = player.spin(200)
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["code"] == "stake_limit"
    assert applied(wallet, "debit", player.player_id) == []
    events = service.events.get(service.load_player(player.player_id).id)
    [recorded] = [e for e in events if type(e).__name__ == "ProtectionRefused"]
    assert (recorded.rule, recorded.session_id, recorded.stake) == (
        "stake_limit", player.session_id, 200
    )
    assert player.spin(100).status_code == 200  # within the limit: played
