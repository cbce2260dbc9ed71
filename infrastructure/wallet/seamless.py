"""The seamless wallet (PUMPKIN_WALLET_URL set): the operator's wallet keeps the money, reached
through one WalletProtocol (port.py), exactly once. Deposits and withdrawals answer
external_wallet; the player's balance is the wallet's last answer. A spin goes

1. `take_stake`: every rule judged on the player (a protection refusal recorded), then
   DebitRecorded saved on the player's WalletAccount (one open debit per request id, so the
   same spin request never debits twice), then the debit sent: SUCCESS plays the round;
   INSUFFICIENT and REFUSED record DebitRefused (insufficient_funds, wallet_refused); UNKNOWN
   records RollbackOwed and answers wallet_unavailable (503); no round is played but on SUCCESS;
2. the round recorded with its CreditOwed in ONE transaction (`before_round`, `with_round`);
3. `answer`: the credit sent at once; "settled", or "pending" when the outbox
   (outbox.py) is left to send it, with the same transaction id, until the wallet answers.

A free round sends no debit: its round is recorded with its CreditOwed (free_round).

The debit names the round it pays for, the player's next: a player's spins take turns from
the debit to the recorded round (turns.py); a spin that finds another's debit open (another
process's) waits for it to close, up to the wallet's timeout and a margin, then answers
wallet_unavailable without sending anything; a debit open past the outbox's `stale_after` is
rolled back first. Should another round be played meanwhile anyway, the round is not played
and the debit is rolled back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any
from uuid import uuid4

from prometheus_client import CollectorRegistry

from domain.errors import InsufficientFunds
from domain.ledger.identifiers import round_id_of
from domain.ledger.wallet_account import WalletAccount
from infrastructure.logging import get_logger
from infrastructure.rules_in_force import RulesInForce
from infrastructure.store.command_runner import CommandRunner, Work
from infrastructure.wallet.accounts import WalletAccounts
from infrastructure.wallet.errors import ExternalWallet, WalletRefused, WalletUnavailable
from infrastructure.wallet.outbox import Outbox, settle_one
from infrastructure.wallet.port import (
    Debit,
    Judge,
    Judged,
    Outcome,
    Runs,
    SpinOrder,
    StakeTaken,
    WalletProtocol,
)
from infrastructure.wallet.turns import PlayerTurns

log = get_logger("pumpkin.wallet")
IN_FLIGHT_MARGIN = 1.0  # seconds past the wallet's timeout a spin waits for another's debit


class DebitInFlight(Exception):
    """Another spin's debit of this player is open (sent by another process)."""


class SeamlessWallet:
    def __init__(
        self,
        runner: CommandRunner,
        accounts: WalletAccounts,
        protocol: WalletProtocol,
        outbox: Outbox,
        currency: str,
        rules: RulesInForce,
        timeout_seconds: float = 2.0,
    ) -> None:
        self.runner = runner
        self.accounts = accounts
        self.protocol = protocol
        self.outbox = outbox
        self.currency = currency
        self.rules = rules
        self.in_flight_wait = timeout_seconds + IN_FLIGHT_MARGIN
        self.turns = PlayerTurns()

    # -- money ---------------------------------------------------------------------------------

    def deposit(self, player_id: str, amount: int, request_id: str) -> int:
        raise ExternalWallet("the operator's wallet keeps the money: no deposits here")

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int:
        raise ExternalWallet("the operator's wallet keeps the money: no withdrawals here")

    def shown_state(self, player_id: str, state: dict[str, Any]) -> dict[str, Any]:
        """The balance is the wallet's last answer: an acknowledgement this process holds, not
        yet stored (the newest), else the account's last recorded one, else the player's (the
        last debit's answer, the balance asked at session open)."""
        unrecorded = list(self.outbox.unrecorded_acks(player_id).values())
        account = self.accounts.get(player_id)
        if unrecorded:
            state = {**state, "balance": unrecorded[-1]}
        elif account is not None and account.balance is not None:
            state = {**state, "balance": account.balance}
        return {**state, "currency": self.currency}

    def settlement(self, player_id: str, round_id: str) -> dict[str, Any]:
        account = self.accounts.get(player_id)
        acknowledged = self.outbox.unrecorded_acks(player_id)  # by the wallet, not yet stored
        owed = account is not None and any(
            item["kind"] == "credit" and item["round_id"] == round_id
            and item["transaction_id"] not in acknowledged
            for item in account.owed_items()
        )
        return {"settlement": "pending" if owed else "settled", "currency": self.currency}

    # -- a spin --------------------------------------------------------------------------------

    def turn(self, player_id: str) -> AbstractAsyncContextManager[None]:
        return self.turns.turn(player_id)

    async def take_stake(
        self, spin: SpinOrder, player_id: str, judge: Judge, run: Runs
    ) -> StakeTaken | int:
        def decide(work: Work) -> StakeTaken | int:
            judged = judge(work)
            if isinstance(judged, int):
                return judged  # the round this request already played
            return self._debit_recorded(work, spin, judged)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.in_flight_wait
        pause = 0.005
        while True:
            try:
                taken: StakeTaken | int = await run(player_id, decide)
                break
            except DebitInFlight:
                if loop.time() + pause > deadline:
                    raise WalletUnavailable(
                        "another spin of this player is waiting for the wallet; retry shortly"
                    ) from None
                await asyncio.sleep(pause)
                pause = min(pause * 2, 0.2)
        if isinstance(taken, int) or taken.transaction_id is None:
            return taken
        balance = await self._debit(player_id, spin, taken)
        return StakeTaken(taken.transaction_id, taken.round_id, taken.stake, balance)

    def _debit_recorded(self, work: Work, spin: SpinOrder, judged: Judged) -> StakeTaken:
        """The debit to send, recorded (DebitRecorded) on the player's account; nothing for a
        free round. The funds are the wallet's: it judges them. Another spin's debit still
        open: DebitInFlight (a stale one is rolled back, in this save)."""
        player = work.player
        free = spin.free_round is not None
        player.check_spin(
            spin.session_id, judged.stake, free=free, funds=max(player.balance, judged.stake)
        )
        account = work.account()
        if account.open_debit_of(spin.request_id) is not None:
            raise WalletUnavailable("this spin's debit is still in flight; retry shortly")
        now = self.rules.now().timestamp()
        stale = account.stale_debits(now, self.outbox.stale_after)
        for debit_id in stale:
            account.owe_rollback(uuid4().hex, debit_id, "the debit's outcome was unknown")
        if account.debits:
            raise DebitInFlight(player.player_id)
        if stale:
            work.after_save(self.outbox.wake_threadsafe)
        if free:
            return StakeTaken(None, judged.round_id, judged.stake)
        transaction_id = uuid4().hex
        account.record_debit(
            transaction_id, spin.request_id, spin.session_id, judged.round_id, judged.stake, now,
        )
        self._fold_acks(work, account)
        return StakeTaken(transaction_id, judged.round_id, judged.stake)

    async def _debit(self, player_id: str, spin: SpinOrder, taken: StakeTaken) -> int:
        """The wallet's balance after the debit; or the spin's refusal."""
        assert taken.transaction_id is not None
        outcome = await self.protocol.debit(Debit(
            taken.transaction_id, player_id, spin.session_id, taken.round_id, taken.stake,
        ))
        if outcome.succeeded and outcome.balance is not None:
            return outcome.balance
        if outcome.outcome is Outcome.UNKNOWN:
            await self.undo_stake(player_id, taken, outcome.detail)
            raise WalletUnavailable(
                "the wallet did not answer the debit; it is rolled back, no round was played"
            )
        await asyncio.to_thread(self._on_account, player_id, lambda account: account.refuse_debit(
            taken.transaction_id or "", outcome.status, outcome.detail))
        if outcome.outcome is Outcome.INSUFFICIENT:
            raise InsufficientFunds("the operator's wallet refused the stake: insufficient funds")
        raise WalletRefused(f"the operator's wallet refused the debit ({outcome.status})")

    def before_round(self, work: Work, spin: SpinOrder, taken: StakeTaken) -> None:
        if taken.transaction_id is not None and taken.transaction_id not in work.account().debits:
            raise WalletUnavailable("the debit was rolled back meanwhile; no round was played")
        player = work.player
        if taken.round_id and taken.round_id != round_id_of(player.player_id, player.rounds + 1):
            raise WalletUnavailable("another round was played meanwhile; no round was played")
        if taken.balance is not None:
            work.player.report_wallet_balance(taken.balance + taken.stake)

    def with_round(
        self, work: Work, spin: SpinOrder, taken: StakeTaken, played: dict[str, Any]
    ) -> None:
        account = work.account()
        account.owe_credit(
            uuid4().hex, taken.transaction_id, spin.session_id, played["round_id"],
            int(played["total_win"]), spin.free_round,
        )
        self._fold_acks(work, account)

    async def undo_stake(self, player_id: str, taken: StakeTaken, reason: str) -> None:
        if taken.transaction_id is None:
            return
        debit_id = taken.transaction_id
        await asyncio.to_thread(self._on_account, player_id, lambda account: account.owe_rollback(
            uuid4().hex, debit_id, reason))
        self.outbox.wake()

    async def answer(
        self, player_id: str, taken: StakeTaken, played: dict[str, Any]
    ) -> dict[str, Any]:
        account = self.accounts.cached(player_id)
        owed = [] if account is None else [
            item for item in account.owed_items()
            if item["kind"] == "credit" and item["round_id"] == played["round_id"]
        ]
        settled = not owed or await self._settled(owed[0])
        if not settled:
            self.outbox.wake()
        return {**played, "settlement": "settled" if settled else "pending",
                "currency": self.currency}

    async def _settled(self, item: dict[str, Any]) -> bool:
        """Send the round's credit now; False (left to the outbox) on any failure: the round
        is recorded, its answer never fails for the credit."""
        try:
            return await settle_one(self.protocol, self.accounts, item, self.outbox.defer_ack)
        except Exception:  # noqa: BLE001 - owed: the outbox sends it again
            log.warning("wallet_credit_failed", transaction=item["transaction_id"], exc_info=True)
            return False

    def _fold_acks(self, work: Work, account: WalletAccount) -> None:
        """The wallet's acknowledgements not yet stored, recorded with this save."""
        folded = self.outbox.fold_acks(account)
        if folded:
            work.after_save(lambda: self.outbox.acks_recorded(account.player_id, folded))

    def _on_account(self, player_id: str, change: Callable[[WalletAccount], None]) -> None:
        self.runner.run(player_id, lambda work: change(work.account()))

    # -- the service ---------------------------------------------------------------------------

    @property
    def owed(self) -> Callable[[], list[dict[str, Any]]] | None:
        return self.outbox.owed

    @property
    def background(self) -> tuple[Callable[[], Coroutine[Any, Any, None]], ...]:
        return (self.outbox.run,)

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        self.protocol.bind_metrics(registry)
        self.outbox.bind_metrics(registry)

    def close(self) -> None:
        return None
