"""The wallet as a port: what the game's commands ask of whoever keeps the money.

Two protocols, one inside the other:

`Wallet` is what the spin handler (infrastructure/rounds/spins.py) and the money handler take.
Two implement it:
- the built-in wallet (builtin.py): the Player's own balance, moved by the round's own events in
  its one transaction; deposits and withdrawals are Player commands;
- the seamless wallet (seamless.py): the operator's wallet keeps the money (PUMPKIN_WALLET_URL),
  exactly once: the debit recorded before it is sent, the round recorded with its credit owed in
  one transaction, every owed credit and rollback sent by the outbox until acknowledged. It talks
  to the operator's wallet through one `WalletProtocol`.

A spin goes, inside `turn(player_id)` (the seamless wallet: one spin of a player at a time
from its debit to its recorded round, so each debit names the round it pays for):
`take_stake` (nothing for the built-in wallet; judge the spin's rules, record and send the
debit for the seamless one) -> the round decided on the player, with `before_round`
and `with_round` in its transaction (the seamless wallet reports the wallet's balance, checks its
debit is still open, and owes the credit) -> `answer` (the seamless wallet sends the credit and
says whether it was settled); `undo_stake` when no round was recorded after the stake was taken.

`WalletProtocol` is one operator wallet API, e.g. the Pumpkin protocol of CONTRACT.md
(client_wallet.py, over the signed HTTP client) or Hub88's supplier API. An adapter implements
four calls and judges each answer by the contract's rules into a CallOutcome; the seamless
wallet does everything else (recording before sending, transaction ids, rollbacks, retries, the
outbox, settlement):

- `debit(Debit)` -> SUCCESS with the balance after it (the round is played); INSUFFICIENT (the
  spin answers 409 insufficient_funds, no round); REFUSED (409 wallet_refused, no round);
  UNKNOWN (a timeout, a 5xx, a broken connection, an answer that is not one of the above: the
  round is not played and the debit is rolled back, never resent). An adapter sends a debit once.
- `credit(Credit)`, `rollback(Rollback)` -> SUCCESS when the wallet acknowledged it (a rollback
  of a debit the wallet never saw is SUCCESS too); anything else leaves it owed, with `detail`
  recorded as its last error, and it is sent again later with the same transaction id.
- `balance(player_id)` -> SUCCESS with the balance; anything else is UNKNOWN.

Only a 200 whose JSON body holds an integer balance in 0..MAX_BALANCE is a SUCCESS (a boolean
is no integer; another 2xx, an answer over 64 KiB, a balance out of range are UNKNOWN):
client_wallet.judged is the Pumpkin protocol's judgment, in one place.

A SUCCESS of a debit or a balance call carries an integer balance in 0..2^53-1 (minor units of
the service's currency, which the adapter is configured with and converts to its wire's units);
a credit's or rollback's carries it when the wallet gave one (None: the last one known stands).
`status` is the wire's status (e.g. the HTTP status) and `detail` a short reason, both for the
record only.
The wallet answers a repeated transaction id as the first time; the service relies on it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from prometheus_client import CollectorRegistry

if TYPE_CHECKING:
    from infrastructure.store.command_runner import Work

MAX_BALANCE = 2**53 - 1


# -- the operator's wallet API (one adapter per protocol) -------------------------------------


class Outcome(Enum):
    SUCCESS = "success"
    INSUFFICIENT = "insufficient"
    REFUSED = "refused"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class CallOutcome:
    outcome: Outcome
    balance: int | None = None  # with SUCCESS: the balance after the call, 0..MAX_BALANCE
    status: int = 0  # the wire's status, for the record
    detail: str = ""  # why it is not a success, for the record (at most 200 characters)

    @property
    def succeeded(self) -> bool:
        return self.outcome is Outcome.SUCCESS


@dataclass(frozen=True)
class Debit:
    transaction_id: str
    player_id: str
    session_id: str
    round_id: str  # the round it pays for
    amount: int


@dataclass(frozen=True)
class Credit:
    transaction_id: str
    player_id: str
    session_id: str
    round_id: str
    amount: int  # the round's total win (0 included)
    debit_transaction_id: str | None  # None: a free round (nothing was debited)
    free_round: str | None  # the campaign of a free round


@dataclass(frozen=True)
class Rollback:
    transaction_id: str
    player_id: str
    session_id: str
    round_id: str
    amount: int  # the debit's
    debit_transaction_id: str


class WalletProtocol(Protocol):
    """One operator wallet API: the four calls, each judged into a CallOutcome."""

    async def debit(self, debit: Debit) -> CallOutcome: ...

    async def credit(self, credit: Credit) -> CallOutcome: ...

    async def rollback(self, rollback: Rollback) -> CallOutcome: ...

    async def balance(self, player_id: str) -> CallOutcome: ...

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        """Report call latency in `registry` (the service's /metrics) from now on."""
        ...


# -- what the game's commands take ------------------------------------------------------------


@dataclass(frozen=True)
class SpinOrder:
    """One spin request, as the API received it."""

    session_id: str
    stake: int | None  # None: a free round's (its campaign's stake)
    request_id: str
    client_seed: str = ""
    free_round: str | None = None


@dataclass(frozen=True)
class Judged:
    """A spin that passed every rule before its stake is taken."""

    player_id: str
    stake: int
    round_id: str  # the round it will be


@dataclass(frozen=True)
class StakeTaken:
    """What the wallet took before the round: nothing (the built-in wallet, a free round), or
    a debit and the wallet's balance after it."""

    transaction_id: str | None = None
    round_id: str = ""
    stake: int = 0
    balance: int | None = None


NOTHING_TAKEN = StakeTaken()

Judge = Callable[["Work"], "Judged | int"]  # the spin's rules; an int: a replayed round
Runs = Callable[..., Coroutine[Any, Any, Any]]  # the command runner's run, blocking or async


class Wallet(Protocol):
    currency: str

    # -- money ---------------------------------------------------------------------------------

    def deposit(self, player_id: str, amount: int, request_id: str) -> int: ...

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int: ...

    def shown_state(self, player_id: str, state: dict[str, Any]) -> dict[str, Any]:
        """The player state as answered: the balance is the wallet's."""
        ...

    def settlement(self, player_id: str, round_id: str) -> dict[str, Any]:
        """What a round read back adds: its settlement now ({} for the built-in wallet)."""
        ...

    # -- a spin --------------------------------------------------------------------------------

    def turn(self, player_id: str) -> AbstractAsyncContextManager[None]:
        """Held from `take_stake` until the round is recorded (or the stake given back)."""
        ...

    async def take_stake(
        self, spin: SpinOrder, player_id: str, judge: Judge, run: Runs
    ) -> StakeTaken | int:
        """Before the round: what was taken (or the StakePlaced version of the round this
        request already played). `run` is the command runner's, for the player."""
        ...

    def before_round(self, work: Work, spin: SpinOrder, taken: StakeTaken) -> None:
        """In the round's decision, after protection, before its funds are judged."""
        ...

    def with_round(
        self, work: Work, spin: SpinOrder, taken: StakeTaken, played: dict[str, Any]
    ) -> None:
        """In the round's decision, once it is played (saved in its transaction)."""
        ...

    async def undo_stake(self, player_id: str, taken: StakeTaken, reason: str) -> None:
        """No round was recorded after the stake was taken: give it back."""
        ...

    async def answer(
        self, player_id: str, taken: StakeTaken, played: dict[str, Any]
    ) -> dict[str, Any]:
        """The spin's answer once its round is recorded."""
        ...

    # -- the service ---------------------------------------------------------------------------

    @property
    def owed(self) -> Callable[[], list[dict[str, Any]]] | None:
        """What lists the credits and rollbacks owed to the wallet (None: it owes none)."""
        ...

    @property
    def background(self) -> tuple[Callable[[], Coroutine[Any, Any, None]], ...]:
        """Tasks `serve` runs in its event loop (e.g. the outbox)."""
        ...

    def bind_metrics(self, registry: CollectorRegistry) -> None: ...

    def close(self) -> None: ...
