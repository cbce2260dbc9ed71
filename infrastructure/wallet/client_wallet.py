"""The operator's wallet over the HTTP client (client.py) as a WalletProtocol
(infrastructure/wallet/port.py): each call's body as CONTRACT.md lists it ("The operator's
seamless wallet"), sent by the signed client, and its answer judged into an outcome by the
contract's rules. A wire protocol the client speaks (the Pumpkin one, Hub88's) needs no other
adapter: the client writes the call and reads the answer, this judges what it means."""

from __future__ import annotations

from typing import Any, TypeGuard

from prometheus_client import CollectorRegistry

from infrastructure.wallet.client import WalletClient
from infrastructure.wallet.errors import WalletUnknownOutcome
from infrastructure.wallet.port import (
    MAX_BALANCE,
    CallOutcome,
    Credit,
    Debit,
    Outcome,
    Rollback,
)


class ClientWallet:
    def __init__(self, client: WalletClient, currency: str) -> None:
        self.client = client
        self.currency = currency

    async def debit(self, debit: Debit) -> CallOutcome:
        return await self._call("debit", {
            "transaction_id": debit.transaction_id, "player_id": debit.player_id,
            "session_id": debit.session_id, "round_id": debit.round_id,
            "amount": debit.amount, "currency": self.currency,
        })

    async def credit(self, credit: Credit) -> CallOutcome:
        return await self._call("credit", {
            "transaction_id": credit.transaction_id, "player_id": credit.player_id,
            "session_id": credit.session_id, "round_id": credit.round_id,
            "amount": credit.amount, "currency": self.currency,
            "debit_transaction_id": credit.debit_transaction_id,
            "free_round": credit.free_round,
        })

    async def rollback(self, rollback: Rollback) -> CallOutcome:
        return await self._call("rollback", {
            "transaction_id": rollback.transaction_id, "player_id": rollback.player_id,
            "round_id": rollback.round_id,
            "debit_transaction_id": rollback.debit_transaction_id,
        })

    async def balance(self, player_id: str) -> CallOutcome:
        outcome = await self._call("balance", {"player_id": player_id, "currency": self.currency})
        if outcome.succeeded:
            return outcome
        return CallOutcome(Outcome.UNKNOWN, status=outcome.status, detail=outcome.detail)

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        self.client.bind_metrics(registry)

    async def _call(self, call: str, body: dict[str, Any]) -> CallOutcome:
        try:
            answer = await self.client.call(call, body)
        except WalletUnknownOutcome as unknown:
            return CallOutcome(Outcome.UNKNOWN, detail=str(unknown)[:200])
        return judged(call, answer.status, answer.body)


def sane_balance(value: object) -> TypeGuard[int]:
    """An integer balance in 0..MAX_BALANCE (a boolean is not an integer)."""
    return type(value) is int and 0 <= value <= MAX_BALANCE


def judged(call: str, status: int, body: dict[str, Any]) -> CallOutcome:
    """The contract's judgment of an answer: only a 200 with a sane integer balance is a
    success; a 402 is insufficient funds and another 4xx a refusal (the wallet's answer kept
    as the reason); anything else (another status, 2xx included, a bad or missing balance) is
    unknown."""
    if status == 200:
        balance = body.get("balance")
        if sane_balance(balance):
            return CallOutcome(Outcome.SUCCESS, balance, 200)
        shown = repr(balance)[:40]
        return CallOutcome(Outcome.UNKNOWN, status=200, detail=f"{call}: 200 with balance {shown}")
    if 400 <= status < 500:
        refused = Outcome.INSUFFICIENT if status == 402 else Outcome.REFUSED
        reason = f"{call}: the wallet answered {status} {str(body)[:150]}"
        return CallOutcome(refused, status=status, detail=reason[:200])
    detail = f"{call}: the wallet answered {status}"
    return CallOutcome(Outcome.UNKNOWN, status=status, detail=detail)
