"""Hub88's published supplier wallet API as a WalletProtocol (infrastructure/wallet/port.py):
`PUMPKIN_WALLET_PROTOCOL=hub88` (CONTRACT.md "The operator's seamless wallet").

Every call is a POST of JSON to `{PUMPKIN_WALLET_URL}/supplier/generic/v2/<call>`, its raw body
signed RSA-SHA256 (PKCS#1 v1.5, base64) in `X-Hub88-Signature` with the supplier's private key:

| port call | Hub88 call | what it sends |
| --- | --- | --- |
| debit | `transaction/bet` | the stake, `round_closed` false |
| credit | `transaction/win` | the win, `reference_transaction_uuid` its bet, `round_closed` true |
| rollback | `transaction/rollback` | `reference_transaction_uuid` the bet rolled back |
| balance | `user/balance` | |

`supplier_user` is the player id, `token` the session id (the player id for a balance asked
before the session exists), `round` the round id; `transaction_uuid` is the service's
transaction id as a UUID and `request_uuid` is derived from it, so a call sent again (the
outbox's retries, across restarts) is byte for byte the first. Amounts are Hub88's integer units:
minor units x 100,000 / 10^(the currency's ISO 4217 exponent) (EUR: x 1,000); a balance is
brought back to minor units rounding down.

A free round (no debit) is a zero bet with `is_free` true followed by its win, both naming the
campaign in `meta.free_round`; the zero bet's transaction id is derived from the credit's, so the
pair is sent again unchanged until the win is acknowledged.

Only `RS_OK` with a sane balance (an integer, not a boolean, in range) is a success. A bet
answered `RS_ERROR_NOT_ENOUGH_MONEY` is INSUFFICIENT, `RS_ERROR_LIMIT_REACHED` or
`RS_ERROR_USER_DISABLED` REFUSED, anything else UNKNOWN (rolled back: Hub88's retry policy). A win
or rollback answered `RS_ERROR_DUPLICATE_TRANSACTION` was already applied, and a rollback
answered `RS_ERROR_TRANSACTION_DOES_NOT_EXIST` has nothing to undo: both are done (the balance
kept if the answer has a sane one). With Hub88's public key configured, an answer must also carry
a valid `X-Hub88-Signature` of its body, or it is UNKNOWN.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from prometheus_client import CollectorRegistry

from infrastructure.wallet.client import WalletAnswer, WalletClient
from infrastructure.wallet.errors import WalletUnknownOutcome
from infrastructure.wallet.port import (
    MAX_BALANCE,
    CallOutcome,
    Credit,
    Debit,
    Outcome,
    Rollback,
)

PREFIX = "supplier/generic/v2/"
HEADER = "X-Hub88-Signature"
OK = "RS_OK"
NOT_ENOUGH_MONEY = "RS_ERROR_NOT_ENOUGH_MONEY"
REFUSING = frozenset({"RS_ERROR_LIMIT_REACHED", "RS_ERROR_USER_DISABLED"})
DUPLICATE = "RS_ERROR_DUPLICATE_TRANSACTION"
DOES_NOT_EXIST = "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
_NAMESPACE = uuid5(NAMESPACE_URL, "https://pumpkin-rgs/hub88")
# ISO 4217 currencies whose minor unit is not a hundredth (the rest have exponent 2).
_EXPONENTS = {
    "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
    "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
    "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3, "CLF": 4, "UYW": 4,
}


def units_per_minor(currency: str) -> int:
    """Hub88's units in one minor unit of `currency` (EUR: 1,000)."""
    exponent: int = _EXPONENTS.get(currency, 2)
    return int(100_000 // 10**exponent)


def hub88_uuid(transaction_id: str) -> str:
    """A transaction id as Hub88's UUID (the service's ids are UUIDs in hex already)."""
    try:
        return str(UUID(transaction_id))
    except ValueError:
        return str(uuid5(_NAMESPACE, transaction_id))


def derived_uuid(transaction_id: str, what: str) -> str:
    """A UUID that is always the same for (transaction, what): a request_uuid, a free bet's."""
    return str(uuid5(_NAMESPACE, f"{what}:{transaction_id}"))


# -- keys and signatures ------------------------------------------------------------------------


def load_private_key(path: str) -> rsa.RSAPrivateKey:
    key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError(f"{path}: not an RSA private key")
    return key


def load_public_key(path: str) -> rsa.RSAPublicKey:
    key = serialization.load_pem_public_key(Path(path).read_bytes())
    if not isinstance(key, rsa.RSAPublicKey):
        raise ValueError(f"{path}: not an RSA public key")
    return key


def write_key_pair(private_file: Path) -> rsa.RSAPrivateKey:
    """A new 2048-bit RSA key pair: the private key written to `private_file` (PEM, PKCS#8),
    its public half beside it (`<name>.pub.pem`). For tests and the soak; an operator may use
    openssl as the README says."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_file.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    public_file(private_file).write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return key


def public_file(private_file: Path) -> Path:
    """Where write_key_pair puts the public half of `private_file`."""
    return private_file.with_name(private_file.name.removesuffix(".pem") + ".pub.pem")


def rsa_sign(key: rsa.RSAPrivateKey, body: bytes) -> str:
    """The X-Hub88-Signature of `body`: RSA-SHA256, PKCS#1 v1.5, base64."""
    return base64.b64encode(key.sign(body, padding.PKCS1v15(), hashes.SHA256())).decode("ascii")


def rsa_verified(key: rsa.RSAPublicKey, body: bytes, signature: str | None) -> bool:
    if not signature:
        return False
    try:
        key.verify(base64.b64decode(signature, validate=True), body, padding.PKCS1v15(),
                   hashes.SHA256())
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True


def hub88_signer(key: rsa.RSAPrivateKey) -> Callable[[str, bytes], dict[str, str]]:
    """The WalletClient's headers for Hub88: the body signed with the supplier's key."""
    return lambda _call, raw: {HEADER: rsa_sign(key, raw)}


# -- the adapter --------------------------------------------------------------------------------


class Hub88Wallet:
    def __init__(
        self, client: WalletClient, currency: str, game_code: str,
        hub88_key: rsa.RSAPublicKey | None = None,
    ) -> None:
        self.client = client
        self.currency = currency
        self.game_code = game_code
        self.hub88_key = hub88_key
        self.units = units_per_minor(currency)

    async def debit(self, debit: Debit) -> CallOutcome:
        answer = await self._post("transaction/bet", self._bet(
            debit.transaction_id, debit.player_id, debit.session_id, debit.round_id,
            debit.amount,
        ))
        status = _status(answer)
        if _http(answer) == 200 and status == NOT_ENOUGH_MONEY:
            return CallOutcome(Outcome.INSUFFICIENT, status=200, detail=status)
        if _http(answer) == 200 and status in REFUSING:
            return CallOutcome(Outcome.REFUSED, status=200, detail=status)
        return self._judged("bet", answer, done=())

    async def credit(self, credit: Credit) -> CallOutcome:
        bet_id = credit.debit_transaction_id
        free = bet_id is None
        if bet_id is None:  # a free round: its zero bet first (sent again, unchanged, if need be)
            bet_id = derived_uuid(credit.transaction_id, "free-bet")
            placed = self._judged("free bet", await self._post("transaction/bet", self._bet(
                bet_id, credit.player_id, credit.session_id, credit.round_id, 0,
                free_round=credit.free_round,
            )), done=(DUPLICATE,))
            if not placed.succeeded:
                return placed
        body = self._transaction(
            credit.transaction_id, credit.player_id, credit.session_id, credit.round_id,
            "transaction/win",
        )
        body.update(
            reference_transaction_uuid=hub88_uuid(bet_id), round_closed=True,
            currency=self.currency, amount=credit.amount * self.units, is_free=free,
        )
        if free:
            body["meta"] = {"free_round": credit.free_round}
        return self._judged("win", await self._post("transaction/win", body), done=(DUPLICATE,))

    async def rollback(self, rollback: Rollback) -> CallOutcome:
        body = self._transaction(
            rollback.transaction_id, rollback.player_id, rollback.session_id, rollback.round_id,
            "transaction/rollback",
        )
        body.update(
            reference_transaction_uuid=hub88_uuid(rollback.debit_transaction_id),
            round_closed=True,
        )
        answer = await self._post("transaction/rollback", body)
        return self._judged("rollback", answer, done=(DUPLICATE, DOES_NOT_EXIST))

    async def balance(self, player_id: str) -> CallOutcome:
        answer = await self._post("user/balance", {
            "supplier_user": player_id, "token": player_id, "request_uuid": str(uuid4()),
            "game_code": self.game_code,
        })
        outcome = self._judged("balance", answer, done=())
        if outcome.succeeded:
            return outcome
        return CallOutcome(Outcome.UNKNOWN, status=outcome.status, detail=outcome.detail)

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        self.client.bind_metrics(registry)

    # -- bodies ---------------------------------------------------------------------------------

    def _transaction(
        self, transaction_id: str, player_id: str, session_id: str, round_id: str, call: str
    ) -> dict[str, Any]:
        return {
            "supplier_user": player_id, "token": session_id,
            "request_uuid": derived_uuid(transaction_id, call),
            "transaction_uuid": hub88_uuid(transaction_id), "round": round_id,
            "game_code": self.game_code,
        }

    def _bet(
        self, transaction_id: str, player_id: str, session_id: str, round_id: str, amount: int,
        free_round: str | None = None,
    ) -> dict[str, Any]:
        body = self._transaction(transaction_id, player_id, session_id, round_id,
                                 "transaction/bet")
        body.update(round_closed=False, currency=self.currency, amount=amount * self.units,
                    bet="spin", is_free=free_round is not None)
        if free_round is not None:
            body["meta"] = {"free_round": free_round}
        return body

    # -- answers --------------------------------------------------------------------------------

    async def _post(self, call: str, body: dict[str, Any]) -> WalletAnswer | str:
        """The wallet's answer, or why there is none to trust."""
        try:
            answer = await self.client.call(PREFIX + call, body)
        except WalletUnknownOutcome as unknown:
            return str(unknown)
        if self.hub88_key is not None and not rsa_verified(
            self.hub88_key, answer.raw, answer.headers.get(HEADER.lower())
        ):
            return f"{call}: an answer without Hub88's valid signature"
        return answer

    def _judged(
        self, call: str, answer: WalletAnswer | str, done: tuple[str, ...]
    ) -> CallOutcome:
        """RS_OK (or a status in `done`) with a sane balance is a success; `done` without a
        balance too (the last one known stands); anything else is UNKNOWN."""
        if isinstance(answer, str):
            return CallOutcome(Outcome.UNKNOWN, detail=answer[:200])
        status = _status(answer)
        if answer.status != 200:
            return CallOutcome(Outcome.UNKNOWN, status=answer.status,
                               detail=f"{call}: the wallet answered {answer.status}")
        if status != OK and status not in done:
            return CallOutcome(Outcome.UNKNOWN, status=200, detail=f"{call}: {status}"[:200])
        balance = self._minor(answer.body.get("balance"))
        if balance is not None:
            return CallOutcome(Outcome.SUCCESS, balance, 200, status)
        if status != OK and "balance" not in answer.body:
            return CallOutcome(Outcome.SUCCESS, None, 200, status)
        return CallOutcome(Outcome.UNKNOWN, status=200, detail=f"{call}: a bad balance")

    def _minor(self, units: object) -> int | None:
        """A balance in Hub88's units as minor units; None when it is not a sane one."""
        if type(units) is not int or units < 0:
            return None
        minor = units // self.units
        return minor if minor <= MAX_BALANCE else None


def _status(answer: WalletAnswer | str) -> str:
    if isinstance(answer, str):
        return ""
    status = answer.body.get("status")
    return status if isinstance(status, str) else repr(status)[:60]


def _http(answer: WalletAnswer | str) -> int:
    return 0 if isinstance(answer, str) else answer.status
