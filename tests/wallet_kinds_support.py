"""The two wallets every read-model test runs on (CONTRACT.md "The operator's seamless wallet":
"with either wallet, every read model, /audit/stats and the console count every round exactly
as with the built-in wallet"): the built-in one, and the operator's seamless wallet, served by
the reference wallet (infrastructure/wallet/reference.py, a real HTTP server in this process).

`Table` plays a scenario on either, in the same words: a player is funded (a deposit, or the
operator's wallet holding the money), sessions are opened and spun. The seamless application
is called from one event loop of its own, as `serve` calls it, and its outbox is driven by
`settle` (the clock moved past every backoff, never slept).
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import SecretStr

from infrastructure.application import PumpkinApplication
from infrastructure.settings import Settings
from infrastructure.wallet.hub88 import public_file, write_key_pair
from infrastructure.wallet.hub88_reference import Hub88ReferenceWallet
from infrastructure.wallet.reference import ReferenceWallet
from infrastructure.wallet.wiring import wallet_for

WALLETS = ("builtin", "seamless")
SECRET = "wallet-secret-for-tests"  # PUMPKIN_SECRET, the reference wallet's too
T = TypeVar("T")


@dataclass(frozen=True)
class Hub88Keys:
    """The supplier's key pair (the service signs with it) and Hub88's (the wallet signs with
    it), as key objects and as the PEM files the settings name."""

    supplier: rsa.RSAPrivateKey
    hub88: rsa.RSAPrivateKey
    supplier_file: str  # the supplier's private key: PUMPKIN_WALLET_PRIVATE_KEY_FILE
    hub88_public_file: str  # Hub88's public key: PUMPKIN_WALLET_PUBLIC_KEY_FILE


def write_hub88_keys(directory: Path) -> Hub88Keys:
    """Two fresh RSA key pairs, written as PEM files under `directory`."""
    supplier = write_key_pair(directory / "supplier.pem")
    hub88 = write_key_pair(directory / "hub88.pem")
    return Hub88Keys(supplier, hub88, str(directory / "supplier.pem"),
                     str(public_file(directory / "hub88.pem")))


@cache
def hub88_keys() -> Hub88Keys:
    """One pair of key pairs for the whole test run (2048-bit keys take a while to make)."""
    return write_hub88_keys(Path(tempfile.mkdtemp(prefix="hub88-keys-")))


def reference_wallet(protocol: str, default_balance: int = 0) -> ReferenceWallet:
    """The reference wallet of `protocol` (not started)."""
    if protocol == "hub88":
        keys = hub88_keys()
        return Hub88ReferenceWallet(keys.supplier.public_key(), keys.hub88, 0, default_balance)
    return ReferenceWallet(SECRET, 0, default_balance)


@contextmanager
def operators_wallet(kind: str) -> Iterator[ReferenceWallet | None]:
    """The running operator's wallet of a wallet `kind` (one of WALLETS): None for the
    built-in one, the reference wallet for the seamless one."""
    if kind == "builtin":
        yield None
        return
    with reference_wallet("pumpkin") as running:
        yield running


class MovableNow:
    """The real time, moved forward by `advance` (to pass the outbox's backoffs)."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


class Table:
    """The application on one wallet, played in the words of a scenario."""

    def __init__(self, app: PumpkinApplication, wallet: ReferenceWallet | None = None) -> None:
        self.app = app
        self.wallet = wallet  # the operator's (None: the built-in wallet)
        self.kind = "builtin" if wallet is None else "seamless"
        self.clock = MovableNow()
        app.clock = self.clock
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        if wallet is not None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
            self._thread.start()

    # -- money ---------------------------------------------------------------------------------

    def register(self, player_id: str) -> None:
        self.app.register_player(player_id)

    def fund(self, player_id: str, amount: int, request_id: str) -> None:
        """Money in: a deposit, or the operator's wallet crediting the player on its own."""
        if self.wallet is None:
            self.app.deposit(player_id, amount, request_id)
        else:
            self.wallet.set_balance(player_id, self.wallet.ledger.balance_of(player_id) + amount)

    def take(self, player_id: str, amount: int, request_id: str) -> None:
        """Money out: a withdrawal, or the operator's wallet paying the player out on its own
        (the service learns it from the wallet's next answer)."""
        if self.wallet is None:
            self.app.withdraw(player_id, amount, request_id)
        else:
            self.wallet.set_balance(player_id, self.wallet.ledger.balance_of(player_id) - amount)

    # -- play ----------------------------------------------------------------------------------

    def open_session(self, player_id: str) -> str:
        if self.wallet is None:
            session_id, _token = self.app.open_session(player_id)
        else:
            session_id, _token = self._run(self.app.open_session_async(player_id))
        return session_id

    def spin(self, session_id: str, stake: int | None, request_id: str,
             free_round: str | None = None) -> dict[str, Any]:
        if self.wallet is None:
            return self.app.spin(session_id, stake, request_id, free_round=free_round)
        return self._run(self.app.spin_async(session_id, stake, request_id,
                                             free_round=free_round))

    def close_session(self, session_id: str) -> None:
        self.app.close_session(session_id)

    def settle(self) -> None:
        """Every credit and rollback owed, acknowledged (seamless), every acknowledgement
        recorded: what the outbox would have done by now."""
        if self.wallet is None:
            return
        outbox = self.app.wallet.outbox  # type: ignore[attr-defined]
        for _ in range(10):
            self.clock.advance(61)
            self._run(outbox.pass_once())
            if not outbox.owed():
                self._run(outbox.pass_once())  # the acknowledgements of this pass, recorded
                return
        raise AssertionError(f"still owed: {outbox.owed()}")

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=60)

    def close(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            assert self._thread is not None
            self._thread.join(timeout=10)
            self._loop.close()
        self.app.close()


def seamless_settings(store_url: str, wallet: ReferenceWallet) -> Settings:
    return Settings(
        database_url=store_url, wallet_url=wallet.url,
        wallet_secret=SecretStr(SECRET), wallet_timeout_seconds=2.0,
    )


@contextmanager
def table_on(kind: str, store_url: str) -> Iterator[Table]:
    """A Table of `kind` (one of WALLETS) on `store_url`: the operator's wallet started first."""
    if kind == "builtin":
        table = Table(PumpkinApplication.from_url(store_url))
        try:
            yield table
        finally:
            table.close()
        return
    with reference_wallet("pumpkin") as wallet:
        settings = seamless_settings(store_url, wallet)
        app = PumpkinApplication.from_url(
            store_url, wallet=lambda runner, rules: wallet_for(settings, runner, rules)
        )
        table = Table(app, wallet)
        try:
            yield table
        finally:
            table.close()
