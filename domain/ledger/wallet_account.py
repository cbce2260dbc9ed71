"""The seamless wallet's outbox of one player: what the service owes the operator's wallet.

One aggregate per player (its own stream beside the Player's), so recording a debit or an
acknowledgement never races the player's rounds of other players. Every step is an event,
recorded BEFORE the call it describes is sent:

- DebitRecorded: a debit is about to be sent (open until one of the three below).
- DebitRefused: the wallet answered 402 or another 4xx; nothing is owed.
- CreditOwed: the round was played (saved in the same transaction as the round's events):
  its credit (the total win, 0 included) is owed. It closes the debit.
- RollbackOwed: the debit's outcome is unknown (timeout, 5xx, broken connection, or a debit
  left open by a process that died): its rollback is owed. It closes the debit.
- AttemptFailed: a try of an owed credit or rollback failed (it stays owed).
- Acknowledged: the wallet answered 200 to an owed credit or rollback (its balance kept).
- BalanceReported: the wallet's answer to a balance call (a session's opening).

An owed item keeps its transaction_id for good: every retry sends the same one. Nothing here
does I/O or reads a clock; times are passed in.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from domain.ledger.chain_link import ChainLink
from domain.ledger.event_names import register_aggregate
from domain.ledger.hashchain import GENESIS
from domain.ledger.identifiers import NAMESPACE

DEBIT_FIELDS = ("request_id", "session_id", "round_id", "amount", "recorded_at")
OWED_FIELDS = (
    "kind", "player_id", "session_id", "round_id", "amount", "debit_transaction_id",
    "free_round", "attempts", "last_error",
)


def wallet_account_id(player_id: str) -> UUID:
    return uuid5(NAMESPACE, f"wallet:{player_id}")


class WalletAccount(Aggregate):
    TOPIC = "pumpkin:WalletAccount"

    class Event(ChainLink, Aggregate.Event):
        # No TOPIC: never stored, so a subclass that forgets its own fails at import.
        JSON_NATIVE_STATE = True
        prev_hash: str

    class Created(Event, Aggregate.Created):
        TOPIC = "pumpkin:WalletAccount.Created"  # the library's default; Opened is used

    class Opened(ChainLink, Aggregate.Created):
        TOPIC = "pumpkin:WalletAccount.Opened"
        JSON_NATIVE_STATE = True
        prev_hash: str
        player_id: str

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.debits: dict[str, list[Any]] = {}  # open debits: transaction_id -> DEBIT_FIELDS
        self.owed: dict[str, list[Any]] = {}  # transaction_id -> OWED_FIELDS
        self.balance: int | None = None  # the wallet's last answer
        self.chain_head = GENESIS

    @classmethod
    def open(cls, player_id: str) -> WalletAccount:
        return cls._create(
            cls.Opened, id=wallet_account_id(player_id), player_id=player_id, prev_hash=GENESIS
        )

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        super().trigger_event(event_class, prev_hash=self.chain_head, **kwargs)

    def __deepcopy__(self, memo: dict[int, Any]) -> WalletAccount:
        copy = object.__new__(type(self))
        state = dict(self.__dict__)
        state["debits"] = dict(self.debits)
        state["owed"] = dict(self.owed)
        state["_pending_events"] = []
        copy.__dict__.update(state)
        return copy

    # -- queries -------------------------------------------------------------------------------

    def open_debit_of(self, request_id: str) -> str | None:
        """The transaction id of an open debit sent for this spin request, if any."""
        for transaction_id, debit in self.debits.items():
            if debit[0] == request_id:
                return transaction_id
        return None

    def owed_items(self) -> list[dict[str, Any]]:
        return [
            {"transaction_id": tx, **dict(zip(OWED_FIELDS, item, strict=True))}
            for tx, item in self.owed.items()
        ]

    def stale_debits(self, now: float, older_than: float) -> list[str]:
        """Open debits recorded more than `older_than` seconds before `now` (epoch seconds):
        whoever sent them is gone or gave up, so their outcome is unknown."""
        return [tx for tx, debit in self.debits.items() if now - debit[4] > older_than]

    # -- commands ------------------------------------------------------------------------------

    def record_debit(
        self, transaction_id: str, request_id: str, session_id: str, round_id: str,
        amount: int, now: float,
    ) -> None:
        self.trigger_event(
            self.DebitRecorded, transaction_id=transaction_id, request_id=request_id,
            session_id=session_id, round_id=round_id, amount=amount, recorded_at=now,
        )

    def refuse_debit(self, transaction_id: str, status: int, reason: str) -> None:
        if transaction_id in self.debits:
            self.trigger_event(
                self.DebitRefused, transaction_id=transaction_id, status=status, reason=reason
            )

    def owe_credit(
        self, transaction_id: str, debit_transaction_id: str | None, session_id: str,
        round_id: str, amount: int, free_round: str | None,
    ) -> None:
        self.trigger_event(
            self.CreditOwed, transaction_id=transaction_id,
            debit_transaction_id=debit_transaction_id, session_id=session_id, round_id=round_id,
            amount=amount, free_round=free_round,
        )

    def owe_rollback(self, transaction_id: str, debit_transaction_id: str, reason: str) -> None:
        debit = self.debits.get(debit_transaction_id)
        if debit is None:
            return  # already closed: a round was recorded, refused or rolled back
        self.trigger_event(
            self.RollbackOwed, transaction_id=transaction_id,
            debit_transaction_id=debit_transaction_id, session_id=debit[1], round_id=debit[2],
            amount=debit[3], reason=reason,
        )

    def attempt_failed(self, transaction_id: str, error: str) -> None:
        if transaction_id in self.owed:
            self.trigger_event(self.AttemptFailed, transaction_id=transaction_id, error=error)

    def acknowledge(self, transaction_id: str, balance: int | None) -> None:
        """balance: the wallet's after it (None: it gave none; the last one known stands)."""
        if transaction_id in self.owed:
            self.trigger_event(self.Acknowledged, transaction_id=transaction_id, balance=balance)

    def report_balance(self, balance: int) -> None:
        """The wallet's answer to a balance call (at a session's opening)."""
        if balance != self.balance:
            self.trigger_event(self.BalanceReported, balance=balance)

    # -- events --------------------------------------------------------------------------------

    class DebitRecorded(Event):
        TOPIC = "pumpkin:WalletAccount.DebitRecorded"
        transaction_id: str
        request_id: str
        session_id: str
        round_id: str
        amount: int
        recorded_at: float

        def apply(self, account: WalletAccount) -> None:
            account.debits[self.transaction_id] = [
                self.request_id, self.session_id, self.round_id, self.amount, self.recorded_at,
            ]

    class DebitRefused(Event):
        TOPIC = "pumpkin:WalletAccount.DebitRefused"
        transaction_id: str
        status: int
        reason: str

        def apply(self, account: WalletAccount) -> None:
            account.debits = _without(account.debits, self.transaction_id)

    class CreditOwed(Event):
        TOPIC = "pumpkin:WalletAccount.CreditOwed"
        transaction_id: str
        debit_transaction_id: str | None
        session_id: str
        round_id: str
        amount: int
        free_round: str | None

        def apply(self, account: WalletAccount) -> None:
            if self.debit_transaction_id is not None:
                account.debits = _without(account.debits, self.debit_transaction_id)
            account.owed[self.transaction_id] = [
                "credit", account.player_id, self.session_id, self.round_id, self.amount,
                self.debit_transaction_id, self.free_round, 0, None,
            ]

    class RollbackOwed(Event):
        TOPIC = "pumpkin:WalletAccount.RollbackOwed"
        transaction_id: str
        debit_transaction_id: str
        session_id: str
        round_id: str
        amount: int
        reason: str

        def apply(self, account: WalletAccount) -> None:
            account.debits = _without(account.debits, self.debit_transaction_id)
            account.owed[self.transaction_id] = [
                "rollback", account.player_id, self.session_id, self.round_id, self.amount,
                self.debit_transaction_id, None, 0, self.reason,
            ]

    class AttemptFailed(Event):
        TOPIC = "pumpkin:WalletAccount.AttemptFailed"
        transaction_id: str
        error: str

        def apply(self, account: WalletAccount) -> None:
            item = list(account.owed[self.transaction_id])
            item[7] += 1
            item[8] = self.error
            account.owed[self.transaction_id] = item

    class Acknowledged(Event):
        TOPIC = "pumpkin:WalletAccount.Acknowledged"
        transaction_id: str
        balance: int | None  # None: the wallet gave none (the last one known stands)

        def apply(self, account: WalletAccount) -> None:
            account.owed = _without(account.owed, self.transaction_id)
            if self.balance is not None:
                account.balance = self.balance


    class BalanceReported(Event):
        TOPIC = "pumpkin:WalletAccount.BalanceReported"
        balance: int

        def apply(self, account: WalletAccount) -> None:
            account.balance = self.balance


def _without(items: dict[str, list[Any]], key: str) -> dict[str, list[Any]]:
    """A copy without `key` (containers are replaced, never changed in place: see Player)."""
    return {k: v for k, v in items.items() if k != key}


WALLET_EVENT_TOPICS = tuple(
    cls.TOPIC
    for cls in (
        WalletAccount.Opened, WalletAccount.DebitRecorded, WalletAccount.DebitRefused,
        WalletAccount.CreditOwed, WalletAccount.RollbackOwed, WalletAccount.AttemptFailed,
        WalletAccount.Acknowledged, WalletAccount.BalanceReported,
    )
)

register_aggregate(WalletAccount)  # its stored names readable (domain.ledger.event_names)
