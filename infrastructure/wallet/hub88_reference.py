"""A reference wallet of Hub88's supplier wallet API (hub88.py; CONTRACT.md "The operator's
seamless wallet", `PUMPKIN_WALLET_PROTOCOL=hub88`), for development, tests and the soak: the
same small real HTTP server and ledger as reference.py, speaking Hub88's wire.

- `POST /supplier/generic/v2/user/balance|transaction/bet|transaction/win|transaction/rollback`,
  each answered HTTP 200 with `{"user", "status", "request_uuid", "currency", "balance"}`
  (balance in Hub88's units); a request whose `X-Hub88-Signature` is not the supplier's is
  answered `RS_ERROR_INVALID_SIGNATURE`, and every answer is signed with the wallet's own key.
- The ledger is reference.py's, in minor units, and records each transaction in the Pumpkin
  protocol's terms (a bet is a `debit`, a win a `credit`, `transaction_id` the UUID's hex), so
  the same checks read both wallets. A bet with `is_free` (a free round's zero bet) moves nothing
  and is not a debit; its win is a credit with `free_round` from `meta.free_round`.
- A repeated `request_uuid` is answered as the first time; the same `transaction_uuid` under
  another `request_uuid` is `RS_ERROR_DUPLICATE_TRANSACTION`. A bet after its rollback is
  `RS_ERROR_TRANSACTION_ROLLED_BACK`; a rollback of a bet never seen is
  `RS_ERROR_TRANSACTION_DOES_NOT_EXIST` (and that bet is refused if it comes later).
- Faults as reference.py's (`refuse`: `RS_ERROR_USER_DISABLED`; `fail_before` and
  `fail_after`: `RS_ERROR_UNKNOWN`), on the calls `debit`, `credit`,
  `rollback` and `balance`; the same control endpoints.

Run standalone: `python -m infrastructure.wallet.hub88_reference --port 9000
--supplier-public-key SUPPLIER.pub.pem --private-key HUB88.pem [--balance N] [--currency EUR]`.
"""

from __future__ import annotations

import argparse
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric import rsa

from infrastructure.wallet.hub88 import (
    DOES_NOT_EXIST,
    DUPLICATE,
    HEADER,
    NOT_ENOUGH_MONEY,
    OK,
    PREFIX,
    load_private_key,
    load_public_key,
    rsa_sign,
    rsa_verified,
    units_per_minor,
)
from infrastructure.wallet.reference import Ledger, ReferenceWallet, WalletServer

PATHS = {
    "user/balance": "balance", "transaction/bet": "debit", "transaction/win": "credit",
    "transaction/rollback": "rollback",
}
_STATUS_OF = {402: NOT_ENOUGH_MONEY, 409: "RS_ERROR_TRANSACTION_ROLLED_BACK"}


@dataclass
class _Seen:
    """Hub88's own bookkeeping beside the ledger: answers by transaction, the free bets."""

    answers: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # tx: (req, a)
    free_bets: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Hub88Server(WalletServer):
    def __init__(
        self, supplier_key: rsa.RSAPublicKey, own_key: rsa.RSAPrivateKey, ledger: Ledger,
        currency: str = "EUR",
    ) -> None:
        super().__init__("", ledger)
        self.supplier_key = supplier_key
        self.own_key = own_key
        self.currency = currency
        self.units = units_per_minor(currency)
        self.seen = _Seen()
        self.wire: deque[tuple[str, dict[str, Any]]] = deque(maxlen=1000)  # (call, request)

    def call_of(self, path: str) -> str | None:
        return PATHS.get(path.removeprefix(PREFIX)) if path.startswith(PREFIX) else None

    def counted_as(self, call: str, body: dict[str, Any]) -> str:
        """A free round's zero bet is not a debit: it is sent again with its win until the win
        is acknowledged, so it is counted apart ("free_bet")."""
        return "free_bet" if call == "debit" and body["_hub88"]["free"] else call

    def signed(self, call: str, headers: dict[str, str], raw: bytes) -> bool:
        return rsa_verified(self.supplier_key, raw, headers.get(HEADER.lower()))

    def bad_signature(self) -> tuple[int, dict[str, Any]]:
        return 200, {"status": "RS_ERROR_INVALID_SIGNATURE"}

    def refused(self) -> tuple[int, dict[str, Any]]:
        return 200, {"status": "RS_ERROR_USER_DISABLED"}

    def failed(self) -> tuple[int, dict[str, Any]]:
        return 200, {"status": "RS_ERROR_UNKNOWN"}

    def answer_headers(self, data: bytes) -> str:
        return f"{HEADER}: {rsa_sign(self.own_key, data)}\r\n"

    def read(self, call: str, body: Any) -> dict[str, Any]:
        """Hub88's request in the ledger's terms (reference.py), with `_hub88` kept for the
        answer."""
        if not isinstance(body, dict):
            raise TypeError("a JSON object")
        self.wire.append((call, body))
        hub88 = {"request_uuid": str(body["request_uuid"]), "user": str(body["supplier_user"]),
                 "free": body.get("is_free") is True, "currency": body.get("currency")}
        read: dict[str, Any] = {"player_id": hub88["user"], "_hub88": hub88}
        if call == "balance":
            return read
        read.update(transaction_id=UUID(str(body["transaction_uuid"])).hex,
                    round_id=str(body["round"]), session_id=str(body["token"]))
        if call in ("debit", "credit"):
            amount = body["amount"]
            if type(amount) is not int or amount < 0 or amount % self.units:
                raise ValueError("an amount in whole minor units")
            read.update(amount=amount // self.units, currency=body["currency"])
        if call == "credit":
            free = hub88["free"]
            read.update(
                debit_transaction_id=None if free
                else UUID(str(body["reference_transaction_uuid"])).hex,
                free_round=dict(body.get("meta") or {}).get("free_round") if free else None,
            )
        if call == "rollback":
            read["debit_transaction_id"] = UUID(str(body["reference_transaction_uuid"])).hex
        return read

    def apply(self, call: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        hub88 = body.pop("_hub88")
        base = {"user": hub88["user"], "request_uuid": hub88["request_uuid"],
                "currency": self.currency}
        if hub88["currency"] not in (None, self.currency):
            return 200, {**base, "status": "RS_ERROR_WRONG_CURRENCY"}
        if call == "balance":
            _, answer = self.ledger.apply(call, body)
            return 200, self._with_balance(base, OK, answer["balance"])
        transaction_id = body["transaction_id"]
        with self.seen.lock:
            known = self.seen.answers.get(transaction_id)
        if known is not None:
            request_uuid, answer = known
            if request_uuid == hub88["request_uuid"]:
                return 200, answer
            balance = self.ledger.balance_of(hub88["user"])
            return 200, self._with_balance(base, DUPLICATE, balance)
        answer = self._first(call, body, base, hub88["free"])
        with self.seen.lock:
            self.seen.answers[transaction_id] = (hub88["request_uuid"], answer)
        return 200, answer

    def _first(
        self, call: str, body: dict[str, Any], base: dict[str, Any], free: bool
    ) -> dict[str, Any]:
        if call == "debit" and free:  # a free round's zero bet: nothing moves
            with self.seen.lock:
                self.seen.free_bets.add(body["transaction_id"])
            return self._with_balance(base, OK, self.ledger.balance_of(body["player_id"]))
        status = OK
        if call == "rollback":
            with self.ledger.lock:
                debit = self.ledger.transactions.get(body["debit_transaction_id"])
            if debit is None or debit["call"] != "debit":
                status = DOES_NOT_EXIST
        code, answer = self.ledger.apply(call, body)
        if code != 200:
            status = _STATUS_OF.get(code, "RS_ERROR_UNKNOWN")
            return self._with_balance(base, status, self.ledger.balance_of(body["player_id"]))
        return self._with_balance(base, status, answer["balance"])

    def _with_balance(self, base: dict[str, Any], status: str, balance: int) -> dict[str, Any]:
        return {**base, "status": status, "balance": balance * self.units}


class Hub88ReferenceWallet(ReferenceWallet):
    """The Hub88 reference wallet on 127.0.0.1, as ReferenceWallet (start/stop, faults, the
    ledger): it checks the supplier's signatures with `supplier_key` and signs with `own_key`."""

    def __init__(
        self, supplier_key: rsa.RSAPublicKey, own_key: rsa.RSAPrivateKey, port: int = 0,
        default_balance: int = 0, currency: str = "EUR", ledger: Ledger | None = None,
    ) -> None:
        super().__init__(
            "", port, default_balance,
            server=lambda ledger: Hub88Server(supplier_key, own_key, ledger, currency),
            ledger=ledger,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description="Pumpkin RGS reference Hub88 wallet")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--supplier-public-key", required=True, help="PEM: the supplier's key")
    parser.add_argument("--private-key", required=True, help="PEM: the wallet's own key")
    parser.add_argument("--balance", type=int, default=0, help="an unknown player's balance")
    parser.add_argument("--currency", default="EUR")
    args = parser.parse_args()
    wallet = Hub88ReferenceWallet(
        load_public_key(args.supplier_public_key), load_private_key(args.private_key),
        args.port, args.balance, args.currency,
    )
    try:
        wallet.run_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
