"""PUMPKIN_WALLET_PROTOCOL=hub88 (CONTRACT.md "The operator's seamless wallet"): the same spins,
free rounds and guarantees over Hub88's supplier wallet API, against its reference wallet (a real
HTTP server, infrastructure/wallet/hub88_reference.py), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import httpx
import pytest
from http_support import OPERATOR, bearer, unique
from wallet_kinds_support import hub88_keys, reference_wallet
from wallet_support import WalletPlayer, applied, owed, settle, wallet_service

from infrastructure.wallet.client import WalletClient
from infrastructure.wallet.hub88 import (
    Hub88Wallet,
    derived_uuid,
    hub88_signer,
    rsa_sign,
    units_per_minor,
)
from infrastructure.wallet.hub88_reference import Hub88ReferenceWallet, Hub88Server
from infrastructure.wallet.port import Credit, Debit, Outcome, Rollback

BET = "/supplier/generic/v2/transaction/bet"


@pytest.fixture
def wallet() -> Iterator[Hub88ReferenceWallet]:
    running = reference_wallet("hub88")
    assert isinstance(running, Hub88ReferenceWallet)
    with running:
        yield running


def wire(wallet: Hub88ReferenceWallet, call: str) -> list[dict[str, Any]]:
    """The requests of one call as Hub88's wallet received them."""
    server = wallet._handler
    assert isinstance(server, Hub88Server)
    return [body for seen, body in server.wire if seen == call]


def test_amounts_are_hub88_units_of_the_currency() -> None:
    assert units_per_minor("EUR") == 1_000  # 1 cent = 1,000 units: 1 EUR = 100,000
    assert units_per_minor("JPY") == 100_000  # no minor unit
    assert units_per_minor("KWD") == 100  # three decimals


def test_a_spin_is_a_bet_then_a_win_in_hub88_terms(
    served: Any, wallet: Hub88ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    played = player.spin(100)
    assert played.status_code == 200, played.text
    body = played.json()
    assert body["settlement"] == "settled"
    assert body["balance_after"] == 9_900 + body["total_win"]
    [bet] = wire(wallet, "debit")
    [win] = wire(wallet, "credit")
    assert bet["supplier_user"] == player.player_id and bet["token"] == player.session_id
    assert bet["round"] == win["round"] == body["round_id"]
    assert bet["amount"] == 100 * 1_000 and bet["currency"] == "EUR"
    assert bet["is_free"] is False and bet["round_closed"] is False
    assert win["amount"] == body["total_win"] * 1_000 and win["round_closed"] is True
    assert win["reference_transaction_uuid"] == bet["transaction_uuid"]
    assert str(UUID(bet["request_uuid"])) == bet["request_uuid"]
    [debit] = applied(wallet, "debit", player.player_id)
    [credit] = applied(wallet, "credit", player.player_id)
    assert credit["debit_transaction_id"] == debit["transaction_id"]
    assert wallet.ledger.balances[player.player_id] == 9_900 + body["total_win"]
    state = client.get(f"/players/{player.player_id}", headers=bearer(OPERATOR)).json()
    assert state["balance"] == wallet.ledger.balances[player.player_id]
    assert owed(client) == []


def test_not_enough_money_is_insufficient_funds_and_plays_no_round(
    served: Any, wallet: Hub88ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=50)
    refused = player.spin(100)
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "insufficient_funds"
    rounds = client.get(f"/players/{player.player_id}/rounds", headers=bearer(OPERATOR))
    assert rounds.json()["rounds"] == [] and owed(client) == []


def test_a_disabled_user_is_wallet_refused(served: Any, wallet: Hub88ReferenceWallet) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet)
    wallet.inject("refuse", "debit")  # RS_ERROR_USER_DISABLED
    refused = player.spin(100)
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "wallet_refused"
    assert owed(client) == [] and applied(wallet, "debit", player.player_id) == []


@pytest.mark.parametrize("fault", [
    "fail_before", "fail_after", "timeout", "drop", "close_unanswered", "accepted",
    "huge_balance", "bool_balance", "negative_balance",
])
def test_a_bet_without_a_clear_rs_ok_plays_nothing_and_is_rolled_back(
    served: Any, wallet: Hub88ReferenceWallet, fault: str
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    wallet.inject(fault, "debit", delay=1.5)
    request_id = unique("spin")
    unknown = player.spin(100, request_id)
    assert unknown.status_code == 503, unknown.text
    assert unknown.json()["error"]["code"] == "wallet_unavailable"
    [rollback] = owed(client)
    assert rollback["kind"] == "rollback" and rollback["amount"] == 100
    assert settle(service, clock) == 1
    assert owed(client) == []
    assert wallet.ledger.balances[player.player_id] == 10_000  # applied or not, undone
    [sent] = wire(wallet, "rollback")
    [bet] = wire(wallet, "debit")
    assert sent["reference_transaction_uuid"] == bet["transaction_uuid"]
    assert player.spin(100, request_id).status_code == 200  # tried afresh: a new bet


def test_a_win_the_wallet_fails_stays_owed_and_is_sent_again_unchanged(
    served: Any, wallet: Hub88ReferenceWallet
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    wallet.inject("fail_after", "credit", count=2)  # applied, then RS_ERROR_UNKNOWN, twice
    played = player.spin(100)
    assert played.json()["settlement"] == "pending"
    [credit] = owed(client)
    assert "RS_ERROR_UNKNOWN" in credit["last_error"]
    assert settle(service, clock) == 0
    assert settle(service, clock) == 1
    assert owed(client) == []
    wins = wire(wallet, "credit")
    assert len(wins) == 3 and all(win == wins[0] for win in wins)  # byte for byte the first
    assert len(applied(wallet, "credit", player.player_id)) == 1
    assert wallet.ledger.balances[player.player_id] == 9_900 + played.json()["total_win"]


def test_a_free_round_is_a_free_zero_bet_and_its_win(
    served: Any, wallet: Hub88ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    granted = client.post(
        f"/players/{player.player_id}/free-rounds", headers=bearer(OPERATOR),
        json={"campaign_id": "spring", "rounds": 1, "stake": 100, "request_id": "g"},
    )
    assert granted.status_code == 201, granted.text
    played = player.spin(None, free_round="spring")
    assert played.status_code == 200, played.text
    [bet] = wire(wallet, "debit")
    [win] = wire(wallet, "credit")
    assert bet["is_free"] is True and bet["amount"] == 0
    assert bet["meta"] == win["meta"] == {"free_round": "spring"}
    assert win["is_free"] is True and win["reference_transaction_uuid"] == bet["transaction_uuid"]
    assert applied(wallet, "debit", player.player_id) == []  # nothing was staked
    received = wallet.ledger.state()["received"]
    assert not any(key.startswith("debit ") for key in received)  # a free bet is no debit
    [credit] = applied(wallet, "credit", player.player_id)
    assert credit["free_round"] == "spring" and credit["debit_transaction_id"] is None
    assert wallet.ledger.balances[player.player_id] == 10_000 + played.json()["total_win"]


def test_what_is_owed_survives_a_restart(store_url: str, wallet: Hub88ReferenceWallet) -> None:
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


def test_answers_not_signed_by_hub88_are_not_trusted(store_url: str) -> None:
    keys = hub88_keys()
    impostor = Hub88ReferenceWallet(keys.supplier.public_key(), keys.supplier)  # wrong key
    with impostor, wallet_service(store_url, impostor) as (client, _service, _clock):
        impostor.set_balance("wp-impostor", 10_000)
        made = client.post("/players", json={"player_id": "wp-impostor"}, headers=bearer(OPERATOR))
        assert made.status_code == 201, made.text
        # The balance asked at open is answered without Hub88's signature: nothing is opened.
        opened = client.post("/players/wp-impostor/sessions", json={}, headers=bearer(OPERATOR))
        assert opened.status_code == 503, opened.text
        assert opened.json()["error"]["code"] == "wallet_unavailable"


def test_the_wallet_checks_the_supplier_signature(wallet: Hub88ReferenceWallet) -> None:
    keys = hub88_keys()
    raw = json.dumps({"supplier_user": "p", "token": "p", "request_uuid": str(UUID(int=1)),
                      "game_code": "g"}).encode()
    url = f"{wallet.url}/supplier/generic/v2/user/balance"
    forged = httpx.post(url, content=raw, headers={"X-Hub88-Signature": rsa_sign(keys.hub88, raw)})
    assert forged.json()["status"] == "RS_ERROR_INVALID_SIGNATURE"
    signed = httpx.post(url, content=raw,
                        headers={"X-Hub88-Signature": rsa_sign(keys.supplier, raw)})
    assert signed.json()["status"] == "RS_OK"


def adapter(wallet: Hub88ReferenceWallet) -> Hub88Wallet:
    keys = hub88_keys()
    client = WalletClient(wallet.url, signer=hub88_signer(keys.supplier), timeout_seconds=2)
    return Hub88Wallet(client, "EUR", "pumpkin_rgs", keys.hub88.public_key())


def test_rollback_of_a_bet_never_seen_is_done_and_the_late_bet_refused(
    wallet: Hub88ReferenceWallet,
) -> None:
    hub88 = adapter(wallet)
    wallet.set_balance("p1", 1_000)
    bet = Debit(UUID(int=7).hex, "p1", "s1", "p1.1", 100)

    async def scenario() -> tuple[Any, Any]:
        rolled = await hub88.rollback(Rollback(UUID(int=8).hex, "p1", "s1", "p1.1", 100,
                                               bet.transaction_id))
        late = await hub88.debit(bet)
        return rolled, late

    rolled, late = asyncio.run(scenario())
    assert rolled.outcome is Outcome.SUCCESS  # RS_ERROR_TRANSACTION_DOES_NOT_EXIST: done
    assert late.outcome is Outcome.UNKNOWN  # RS_ERROR_TRANSACTION_ROLLED_BACK
    assert wallet.ledger.balances["p1"] == 1_000


def test_a_win_already_applied_under_another_request_is_done(
    wallet: Hub88ReferenceWallet,
) -> None:
    hub88 = adapter(wallet)
    wallet.set_balance("p2", 1_000)
    keys = hub88_keys()
    bet = Debit(UUID(int=9).hex, "p2", "s2", "p2.1", 100)
    win = Credit(UUID(int=10).hex, "p2", "s2", "p2.1", 300, bet.transaction_id, None)

    async def scenario() -> Any:
        assert (await hub88.debit(bet)).outcome is Outcome.SUCCESS
        body = hub88._transaction(win.transaction_id, "p2", "s2", "p2.1", "transaction/win")
        body.update(reference_transaction_uuid=str(UUID(bet.transaction_id)), round_closed=True,
                    currency="EUR", amount=300_000, is_free=False,
                    request_uuid=derived_uuid(win.transaction_id, "elsewhere"))
        raw = json.dumps(body).encode()
        async with httpx.AsyncClient() as raw_client:
            first = await raw_client.post(
                f"{wallet.url}/supplier/generic/v2/transaction/win", content=raw,
                headers={"X-Hub88-Signature": rsa_sign(keys.supplier, raw)})
        assert first.json()["status"] == "RS_OK"
        return await hub88.credit(win)

    again = asyncio.run(scenario())
    assert again.outcome is Outcome.SUCCESS  # RS_ERROR_DUPLICATE_TRANSACTION: applied once
    assert again.balance == 1_200
    assert wallet.ledger.balances["p2"] == 1_200


def test_hub88_needs_the_supplier_private_key() -> None:
    from pydantic import ValidationError

    from infrastructure.settings import Settings

    with pytest.raises((ValueError, ValidationError), match="PRIVATE_KEY_FILE"):
        Settings(wallet_url="http://127.0.0.1:9/", wallet_protocol="hub88")
    assert Settings(wallet_url="http://127.0.0.1:9/", wallet_protocol="hub88",
                    wallet_private_key_file="k.pem").wallet_secret.get_secret_value() == ""
