"""The wallet client judges every answer (CONTRACT.md "The operator's seamless wallet"): only a
200 with a sane integer balance is a success, a debit is sent once and names the round it pays
for, answers are read with a bound, and the outbox isolates its items and backs off."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from http_support import OPERATOR, bearer
from wallet_kinds_support import SECRET
from wallet_support import WalletPlayer, applied, settle

from domain.ledger.identifiers import round_id_of
from infrastructure.wallet.client import WalletClient
from infrastructure.wallet.client_wallet import ClientWallet, judged
from infrastructure.wallet.outbox import MAX_DELAY, backoff
from infrastructure.wallet.port import Credit, Debit, Outcome
from infrastructure.wallet.reference import ReferenceWallet


def owed(service: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = service.wallet.owed()
    return items


@pytest.mark.parametrize(("status", "body", "outcome"), [
    (200, {"balance": 0}, Outcome.SUCCESS),
    (200, {"balance": 2**53 - 1}, Outcome.SUCCESS),
    (200, {"balance": 2**53}, Outcome.UNKNOWN),
    (200, {"balance": 2**70}, Outcome.UNKNOWN),
    (200, {"balance": -1}, Outcome.UNKNOWN),
    (200, {"balance": True}, Outcome.UNKNOWN),
    (200, {"balance": 10.0}, Outcome.UNKNOWN),
    (200, {"balance": "10"}, Outcome.UNKNOWN),
    (200, {}, Outcome.UNKNOWN),
    (201, {"balance": 10}, Outcome.UNKNOWN),
    (202, {"balance": 10}, Outcome.UNKNOWN),
    (204, {}, Outcome.UNKNOWN),
    (302, {}, Outcome.UNKNOWN),
    (402, {"error": "insufficient_funds"}, Outcome.INSUFFICIENT),
    (403, {}, Outcome.REFUSED),
    (409, {}, Outcome.REFUSED),
    (500, {"balance": 10}, Outcome.UNKNOWN),
    (503, {}, Outcome.UNKNOWN),
])
def test_only_a_200_with_a_sane_integer_balance_is_a_success(
    status: int, body: dict[str, Any], outcome: Outcome
) -> None:
    judgment = judged("debit", status, body)
    assert judgment.outcome is outcome
    assert (judgment.balance is not None) == (outcome is Outcome.SUCCESS)


@pytest.mark.parametrize(
    "fault", ["accepted", "huge_balance", "bool_balance", "negative_balance", "oversized"]
)
def test_a_debit_answered_badly_plays_nothing_and_is_rolled_back(
    served: Any, wallet: ReferenceWallet, fault: str
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    wallet.inject(fault, "debit")
    unknown = player.spin(100)
    assert unknown.status_code == 503, unknown.text
    assert unknown.json()["error"]["code"] == "wallet_unavailable"
    [rollback] = owed(service)
    assert rollback["kind"] == "rollback" and rollback["amount"] == 100
    assert wallet.ledger.balances[player.player_id] == 9_900  # the wallet kept the stake
    assert settle(service, clock) == 1
    assert wallet.ledger.balances[player.player_id] == 10_000  # given back
    assert service.round_ids(player.player_id) == []
    assert player.spin(100).status_code == 200  # and the player plays on


@pytest.mark.parametrize("fault", ["huge_balance", "accepted", "oversized"])
def test_a_credit_answered_badly_stays_owed_and_the_player_plays_on(
    served: Any, wallet: ReferenceWallet, fault: str
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    wallet.inject(fault, "credit")
    played = player.spin(100)
    assert played.status_code == 200, played.text
    assert played.json()["settlement"] == "pending"
    [credit] = owed(service)
    assert credit["kind"] == "credit" and credit["last_error"]
    for _ in range(3):
        assert player.spin(100).status_code == 200
    state = service.player_state(player.player_id)
    assert 0 <= state["balance"] < 2**53
    assert settle(service, clock) == 1
    assert owed(service) == []
    assert player.spin(100).status_code == 200
    assert service.player_state(player.player_id)["balance"] == (
        wallet.ledger.balances[player.player_id]
    )


def test_a_debit_on_a_kept_alive_connection_closed_unanswered_is_not_resent(
    wallet: ReferenceWallet,
) -> None:
    """The debit is applied, the connection closed without an answer: unknown, sent once."""
    wallet.set_balance("p", 1_000)
    protocol = ClientWallet(WalletClient(wallet.url, SECRET, 2.0), "EUR")

    async def scenario() -> tuple[Outcome, Outcome, Outcome]:
        first = await protocol.debit(Debit("d1", "p", "s", "p.1", 100))  # the connection stays
        wallet.inject("drop", "debit")
        second = await protocol.debit(Debit("d2", "p", "s", "p.2", 100))
        await protocol.balance("p")  # a kept-alive connection again
        wallet.inject("drop", "credit")
        credit = await protocol.credit(Credit("c1", "p", "s", "p.1", 0, "d1", None))
        await protocol.client.aclose()
        return first.outcome, second.outcome, credit.outcome

    calls_before = wallet.ledger.calls
    assert asyncio.run(scenario()) == (Outcome.SUCCESS, Outcome.UNKNOWN, Outcome.SUCCESS)
    # one call each, but the credit: sent again on a new connection (the wallet answers a
    # repeated transaction id as the first time)
    assert wallet.ledger.calls - calls_before == 5
    assert [t["transaction_id"] for t in applied(wallet, "debit", "p")] == ["d1", "d2"]


async def _answer_forever(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """An answer that claims a gigabyte, then trickles."""
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n{\"balance\": 1")
    await writer.drain()
    await asyncio.sleep(5)
    writer.close()


async def _chunks_forever(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    for _ in range(100):
        writer.write(b"4000\r\n" + b" " * 0x4000 + b"\r\n")
        await writer.drain()
    writer.close()


@pytest.mark.parametrize("serve", [_answer_forever, _chunks_forever])
def test_an_oversized_answer_is_unknown_without_being_read_whole(serve: Any) -> None:
    async def scenario() -> tuple[Outcome, str, float]:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        protocol = ClientWallet(WalletClient(f"http://127.0.0.1:{port}", SECRET, 3.0), "EUR")
        started = time.monotonic()
        outcome = await protocol.debit(Debit("d1", "p", "s", "p.1", 100))
        took = time.monotonic() - started
        server.close()
        return outcome.outcome, outcome.detail, took

    outcome, detail, took = asyncio.run(scenario())
    assert outcome is Outcome.UNKNOWN
    assert "AnswerTooLarge" in detail
    assert took < 2.5  # not the timeout: it stopped reading


def test_concurrent_spins_of_one_player_each_credit_the_round_their_debit_named(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, service, _clock = served
    player = WalletPlayer(client, wallet, balance=100_000)

    async def twelve() -> list[Any]:
        return await asyncio.gather(*(
            service.spin_async(player.session_id, 100, f"spin-{n}") for n in range(12)
        ), return_exceptions=True)

    answers = asyncio.run(twelve())
    assert all(isinstance(a, dict) for a in answers), answers
    debits = {t["transaction_id"]: t for t in applied(wallet, "debit", player.player_id)}
    credits = applied(wallet, "credit", player.player_id)
    assert len(debits) == len(credits) == 12
    for credit in credits:
        assert debits[credit["debit_transaction_id"]]["round_id"] == credit["round_id"]
    assert sorted(c["round_id"] for c in credits) == sorted(
        round_id_of(player.player_id, n) for n in range(1, 13)
    )


def test_a_spin_waits_for_another_processs_open_debit_then_answers_503_sending_nothing(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet, balance=10_000)
    service.runner.run(player.player_id, lambda work: work.account().record_debit(
        "elsewhere", "other-spin", player.session_id, round_id_of(player.player_id, 1), 100,
        clock().timestamp()))
    calls = wallet.ledger.calls
    waited = player.spin(100)
    assert waited.status_code == 503, waited.text
    assert wallet.ledger.calls == calls  # no debit sent
    clock.advance(60)  # the open debit is now abandoned: rolled back in the next spin's save
    played = player.spin(100)
    assert played.status_code == 200, played.text
    assert played.json()["round_id"] == round_id_of(player.player_id, 1)
    assert settle(service, clock) == 1  # the abandoned debit's rollback
    assert owed(service) == []


def test_one_poisoned_item_never_holds_back_another_players_credit(
    served: Any, wallet: ReferenceWallet, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, service, clock = served
    poisoned, other = WalletPlayer(client, wallet), WalletPlayer(client, wallet)
    wallet.inject("fail_before", "credit", count=2)
    assert poisoned.spin(100).json()["settlement"] == "pending"
    assert other.spin(100).json()["settlement"] == "pending"
    protocol = service.wallet.outbox.wallet
    send = protocol.credit

    async def credit(call: Credit) -> Any:
        if call.player_id == poisoned.player_id:
            raise RuntimeError("a poisoned answer")
        return await send(call)

    monkeypatch.setattr(protocol, "credit", credit)
    assert settle(service, clock) == 1  # the other player's, despite the poisoned one
    assert [item["player_id"] for item in owed(service)] == [poisoned.player_id]
    monkeypatch.setattr(protocol, "credit", send)
    assert settle(service, clock) == 1
    assert owed(service) == []


def test_a_failing_item_backs_off_exponentially_to_a_minute(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, service, clock = served
    player = WalletPlayer(client, wallet)
    wallet.inject("fail_before", "credit", count=1000)
    assert player.spin(100).json()["settlement"] == "pending"
    outbox = service.wallet.outbox
    sent: list[float] = []
    for _ in range(40):  # 40 passes, 0.5 s apart: 20 s
        before = wallet.ledger.calls
        asyncio.run(outbox.pass_once())
        if wallet.ledger.calls > before:
            sent.append(clock().timestamp())
        clock.advance(0.5)
    gaps = [b - a for a, b in zip(sent, sent[1:], strict=False)]
    assert 4 <= len(sent) <= 8, sent  # 0.2, 0.4, 0.8, 1.6, 3.2, 6.4 ... not every pass
    assert all(later >= earlier for earlier, later in zip(gaps, gaps[1:], strict=False))
    assert gaps[-1] >= 4 * gaps[0]
    assert backoff(1) <= 0.25 and backoff(30) == MAX_DELAY == 60.0
    assert 0.8 * 6.4 <= backoff(1, recorded_attempts=5) <= 1.2 * 6.4  # after a restart


def test_opening_a_session_asks_the_wallet_and_shows_its_balance_before_the_first_spin(
    served: Any, wallet: ReferenceWallet
) -> None:
    client, _service, _clock = served
    player = WalletPlayer(client, wallet, balance=12_345)
    state = client.get(f"/players/{player.player_id}", headers=bearer(OPERATOR)).json()
    assert state["balance"] == 12_345
    wallet.set_balance(player.player_id, 777)  # moved by the operator meanwhile
    opened = client.post(f"/players/{player.player_id}/sessions", json={},
                         headers=bearer(OPERATOR))
    assert opened.status_code == 201, opened.text
    assert opened.json()["balance"] == 777
    state = client.get(f"/players/{player.player_id}", headers=bearer(OPERATOR)).json()
    assert state["balance"] == 777


@pytest.mark.parametrize("fault", ["fail_before", "bool_balance", "accepted", "timeout"])
def test_an_unknown_balance_at_open_answers_503_and_opens_no_session(
    served: Any, wallet: ReferenceWallet, fault: str
) -> None:
    client, service, _clock = served
    player = WalletPlayer(client, wallet, balance=1_000)
    wallet.inject(fault, "balance", delay=1.5)
    refused = client.post(f"/players/{player.player_id}/sessions", json={},
                          headers=bearer(OPERATOR))
    assert refused.status_code == 503, refused.text
    assert refused.headers["Retry-After"]
    assert refused.json()["error"]["code"] == "wallet_unavailable"
    sessions = service.load_player(player.player_id).sessions
    assert list(sessions) == [player.session_id]  # only the first


def test_the_built_in_wallet_shows_the_players_balance_at_open(api: Any) -> None:
    made = api.post("/players", json={"player_id": "bi"}, headers=bearer(OPERATOR))
    assert made.status_code == 201
    api.post("/players/bi/deposits", json={"amount": 4_200, "request_id": "bi-in"},
             headers=bearer(OPERATOR))
    opened = api.post("/players/bi/sessions", json={}, headers=bearer(OPERATOR))
    assert opened.status_code == 201, opened.text
    assert opened.json()["balance"] == 4_200
