"""The outbox: credits and rollbacks owed to the operator's wallet, sent until it answers 200.

What is owed is in the event store (WalletAccount streams, domain/ledger/wallet_account.py), never
only in memory, so any process that is alive finishes what another began: every `serve`
process runs `Outbox.run` in its event loop. It follows the store's notification log
(WalletAccount topics only) to learn which players' accounts may owe something, then for each:

- an open debit older than `stale_after` seconds (its sender died or gave up before recording
  the outcome) is unknown: its rollback becomes owed (RollbackOwed);
- every owed credit or rollback is sent with its own, unchanging transaction id; a failure is
  recorded (AttemptFailed) and retried later, backing off exponentially per item from 0.2 s to
  60 s (from its recorded attempts after a restart);
- a 200 is recorded (Acknowledged).

Items are isolated: whatever one item or one player's account raises (a wallet answer that
cannot be recorded, a store refusal) is logged and backs that item off; the pass goes on with
every other item and player.

Two processes may send the same item at once: the wallet answers a repeated transaction id as
the first time, and the second acknowledgement finds nothing owed and records nothing.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from prometheus_client import CollectorRegistry, Gauge

from domain.ledger.wallet_account import WALLET_EVENT_TOPICS, WalletAccount
from infrastructure.store.event_store import PumpkinStore
from infrastructure.store.notification_tail import NotificationTail
from infrastructure.wallet.accounts import WalletAccounts
from infrastructure.wallet.port import Credit, Rollback, WalletProtocol

FIRST_DELAY = 0.2
MAX_DELAY = 60.0
IDLE_POLL = 0.5  # seconds between looks at the store when nothing wakes the outbox
_log = logging.getLogger(__name__)


def backoff(failures: int, recorded_attempts: int = 0) -> float:
    """Seconds before an item's next try: FIRST_DELAY doubled per attempt (those this process
    made, or those recorded, whichever is more), at most MAX_DELAY, jittered."""
    attempts = max(failures, recorded_attempts + 1)
    delay = FIRST_DELAY * 2.0 ** min(attempts - 1, 20)
    jitter = random.uniform(0.8, 1.2)  # noqa: S311 - not a secret
    return min(delay * jitter, MAX_DELAY)


def owed_call(item: dict[str, Any]) -> Credit | Rollback:
    """The wallet call of an owed item (infrastructure/wallet/port.py)."""
    if item["kind"] == "credit":
        return Credit(
            item["transaction_id"], item["player_id"], item["session_id"], item["round_id"],
            item["amount"], item["debit_transaction_id"], item["free_round"],
        )
    return Rollback(
        item["transaction_id"], item["player_id"], item["session_id"], item["round_id"],
        item["amount"], item["debit_transaction_id"],
    )


async def settle_one(
    wallet: WalletProtocol, accounts: WalletAccounts, item: dict[str, Any],
    defer_ack: Callable[[str, str, int], None] | None = None,
) -> bool:
    """Send one owed item; record the answer. True when the wallet acknowledged it.
    defer_ack: hand a 200 to it (player, transaction, balance) to be recorded with the
    player's next account save instead of in a transaction of its own."""
    transaction_id = str(item["transaction_id"])
    call = owed_call(item)
    outcome = await (wallet.credit(call) if isinstance(call, Credit) else wallet.rollback(call))
    if outcome.succeeded:
        player_id = str(item["player_id"])
        if outcome.balance is None:  # done, but no balance given: the one known stands
            await asyncio.to_thread(_change, accounts, player_id,
                                    lambda a: a.acknowledge(transaction_id, None))
            return True
        balance = outcome.balance
        if defer_ack is not None:
            defer_ack(player_id, transaction_id, balance)
            return True
        known = accounts.cached(player_id)  # no read: a stale copy conflicts
        if known is not None:
            known.acknowledge(transaction_id, balance)
            if not known.pending_events or await accounts.saved_in_loop(known):
                return True
        await asyncio.to_thread(
            _change, accounts, player_id, lambda a: a.acknowledge(transaction_id, balance)
        )
        return True
    error = outcome.detail or f"{item['kind']}: no acknowledgement"
    await asyncio.to_thread(
        _change, accounts, str(item["player_id"]),
        lambda a: a.attempt_failed(transaction_id, error[:200]),
    )
    return False


def _change(
    accounts: WalletAccounts, player_id: str, change: Callable[[WalletAccount], None]
) -> None:
    """Apply `change` to the newest account and record it (again on a lost race)."""
    for _ in range(10):
        account = accounts.get(player_id)
        if account is None:
            return
        change(account)
        if not account.pending_events or accounts.saved(account):
            return
    _log.warning("wallet account busy; the outbox will try again", extra={"player": player_id})


class Outbox:
    def __init__(
        self, store: PumpkinStore, accounts: WalletAccounts, wallet: WalletProtocol,
        clock: Callable[[], datetime], stale_after: float,
    ) -> None:
        self.store = store
        self.wallet = wallet
        self.clock = clock
        self.stale_after = stale_after
        self.accounts = accounts
        self._tail = NotificationTail(store, WALLET_EVENT_TOPICS)
        self._players: dict[UUID, str] = {}  # account id -> player id, every account seen
        self._candidates: set[str] = set()  # players whose account may owe something
        self._heads: dict[str, int] = {}  # player id -> the newest account version seen
        # Acknowledgements the wallet gave that are not in the store yet: recorded with the
        # player's next account save (a spin's), or by the next pass; lost in a crash, they
        # are only sent again (same transaction id, the wallet answers as the first time).
        self._acks: dict[str, dict[str, int]] = {}
        self._due: dict[str, tuple[float, int]] = {}  # transaction id -> (next try, failures)
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.owed_gauge: Gauge | None = None

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        self.owed_gauge = Gauge(
            "pumpkin_wallet_owed", "Credits and rollbacks owed to the operator's wallet",
            ["kind"], registry=registry,
        )

    # -- waking ----------------------------------------------------------------------------------

    def wake(self) -> None:
        """From the event loop: look again now (something was just left owed)."""
        if self._wake is not None:
            self._wake.set()

    def wake_threadsafe(self) -> None:
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)

    # -- acknowledgements recorded later ---------------------------------------------------------

    def defer_ack(self, player_id: str, transaction_id: str, balance: int) -> None:
        self._acks.setdefault(player_id, {})[transaction_id] = balance

    def fold_acks(self, account: WalletAccount) -> list[str]:
        """Record the player's acknowledgements not yet stored on `account` (pending events to
        be saved with it); the transaction ids folded."""
        folded = dict(self._acks.get(account.player_id, {}))
        for transaction_id, balance in folded.items():
            account.acknowledge(transaction_id, balance)
        return list(folded)

    def acks_recorded(self, player_id: str, transaction_ids: list[str]) -> None:
        acks = self._acks.get(player_id)
        if acks is None:
            return
        for transaction_id in transaction_ids:
            acks.pop(transaction_id, None)
        if not acks:
            self._acks.pop(player_id, None)

    def unrecorded_acks(self, player_id: str) -> dict[str, int]:
        return self._acks.get(player_id, {})

    async def _flush_acks(self) -> None:
        for player_id in list(self._acks):
            folded: list[str] = []

            def fold(account: WalletAccount, folded: list[str] = folded) -> None:
                folded[:] = self.fold_acks(account)

            try:
                await asyncio.to_thread(_change, self.accounts, player_id, fold)
            except Exception:  # noqa: BLE001 - kept for the next pass; the others go on
                _log.warning("wallet outbox: acknowledgements not recorded", exc_info=True,
                             extra={"player": player_id})
                continue
            self.acks_recorded(player_id, folded)

    # -- the loop --------------------------------------------------------------------------------

    async def run(self) -> None:
        """Forever (cancelled when the server stops)."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        while True:
            try:
                await self.pass_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - e.g. the store is down: try again shortly
                _log.warning("wallet outbox pass failed", exc_info=True)
            try:
                await asyncio.wait_for(self._wake.wait(), IDLE_POLL)
            except TimeoutError:
                pass
            self._wake.clear()

    async def pass_once(self) -> int:
        """One look at everything that may be owed; the number of items acknowledged."""
        await self._flush_acks()
        await asyncio.to_thread(self.catch_up)
        now = self.clock().timestamp()
        counts = {"credit": 0, "rollback": 0}
        acknowledged = 0
        for player_id in sorted(self._candidates):
            try:
                acknowledged += await self._settle_player(player_id, now, counts)
            except Exception:  # noqa: BLE001 - one account never stops the others
                _log.warning("wallet outbox: an account failed", exc_info=True,
                             extra={"player": player_id})
        if self.owed_gauge is not None:
            for kind, count in counts.items():
                self.owed_gauge.labels(kind).set(count)
        return acknowledged

    async def _settle_player(self, player_id: str, now: float, counts: dict[str, int]) -> int:
        """Send what one player's account owes (its stale debits rolled back first); the
        number acknowledged. `counts` gathers what stays owed, by kind."""
        if self._settled_in_memory(player_id):
            self._candidates.discard(player_id)
            return 0
        account = await asyncio.to_thread(self.accounts.get, player_id)
        if account is None:
            return 0
        stale = account.stale_debits(now, self.stale_after)
        if stale:

            def roll_back(account: WalletAccount, stale: list[str] = stale) -> None:
                for tx in stale:
                    account.owe_rollback(uuid4().hex, tx, "the debit's outcome was unknown")

            await asyncio.to_thread(_change, self.accounts, player_id, roll_back)
            account = await asyncio.to_thread(self.accounts.get, player_id)
            if account is None:
                return 0
        unrecorded = self.unrecorded_acks(player_id)
        items = [i for i in account.owed_items() if i["transaction_id"] not in unrecorded]
        if not items and not account.debits:
            self._candidates.discard(player_id)
            return 0
        acknowledged = 0
        for item in items:
            counts[item["kind"]] += 1
            if await self._try(item, now):
                acknowledged += 1
                counts[item["kind"]] -= 1
        return acknowledged

    async def _try(self, item: dict[str, Any], now: float) -> bool:
        """Send one item unless it is backing off; True when acknowledged. A failure, or
        anything it raises, backs it off: FIRST_DELAY doubled per attempt, up to MAX_DELAY."""
        transaction_id = str(item["transaction_id"])
        next_try, failures = self._due.get(transaction_id, (0.0, 0))
        if now < next_try:
            return False
        try:
            if await settle_one(self.wallet, self.accounts, item):
                self._due.pop(transaction_id, None)
                return True
        except Exception:  # noqa: BLE001 - one item never stops the others
            _log.warning("wallet outbox: an item failed", exc_info=True,
                         extra={"transaction": transaction_id})
        failures += 1
        self._due[transaction_id] = (now + backoff(failures, int(item["attempts"])), failures)
        return False

    # -- what is owed ----------------------------------------------------------------------------

    def catch_up(self) -> None:
        """Read the notification log's new WalletAccount events: which accounts may owe."""
        for notification in self._tail.new_notifications():
            account_id = notification.originator_id
            if notification.topic == WalletAccount.Opened.TOPIC:
                opened = self.store.mapper.to_domain_event(notification)
                if isinstance(opened, WalletAccount.Opened):
                    self._players[account_id] = opened.player_id
            player_id = self._players.get(account_id)
            if player_id is not None:
                self._candidates.add(player_id)
                self._heads[player_id] = max(
                    self._heads.get(player_id, 0), int(notification.originator_version)
                )

    def _settled_in_memory(self, player_id: str) -> bool:
        """Whether this process already knows the account's newest event and it owes nothing
        (the common case after a spin settled here: no need to read the store)."""
        known = self.accounts.cached(player_id)
        return (
            known is not None
            and known.version >= self._heads.get(player_id, 0)
            and not known.owed
            and not known.debits
        )

    def owed(self) -> list[dict[str, Any]]:
        """Every credit and rollback not yet acknowledged (GET /audit/wallet?status=owed)."""
        self.catch_up()
        owed: list[dict[str, Any]] = []
        for player_id in sorted(self._candidates):
            account = self.accounts.get(player_id)
            if account is None:
                continue
            unrecorded = self.unrecorded_acks(player_id)
            owed.extend(
                {
                    "kind": item["kind"], "transaction_id": item["transaction_id"],
                    "player_id": item["player_id"], "round_id": item["round_id"],
                    "amount": item["amount"], "attempts": item["attempts"],
                    "last_error": item["last_error"],
                }
                for item in account.owed_items()
                if item["transaction_id"] not in unrecorded
            )
        return owed
