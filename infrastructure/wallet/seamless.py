"""The game service with the operator's seamless wallet (PUMPKIN_WALLET_URL set).

It stands in front of PumpkinApplication (everything it does not change is the
application's): deposits and withdrawals answer external_wallet, the player's balance is the
wallet's last answer, and a spin goes

1. record DebitRecorded (the account's stream; one open debit per request id, so the same
   spin request never debits twice), then send the debit;
2. 200: play and record the round with its CreditOwed in ONE transaction, then send the credit
   (the answer says "settled", or "pending" when the credit is left to the outbox);
   402: insufficient_funds; another 4xx: wallet_refused (DebitRefused, no round);
   timeout / 5xx / broken connection: RollbackOwed, no round, 503 wallet_unavailable;
3. a free round sends no debit: the round is recorded with its CreditOwed (free_round).

The outbox (infrastructure/wallet/outbox.py) sends whatever stays owed, with the same
transaction id, until the wallet answers 200.
"""

from __future__ import annotations

import asyncio
from copy import deepcopy
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from domain.errors import InsufficientFunds, RuleViolation
from domain.ledger.fairness import check_client_seed
from domain.ledger.free_rounds import check_free_round
from domain.ledger.player import Player, player_aggregate_id, round_event_payload, round_id_of
from domain.ledger.recall import round_view
from domain.ledger.wallet_account import WalletAccount
from infrastructure.application import ConcurrentUpdate, SpinAttempt
from infrastructure.promotions.free_round_commands import spin_stake
from infrastructure.store.request_keys import issued_keys
from infrastructure.wallet.accounts import Accounts
from infrastructure.wallet.client import WalletClient
from infrastructure.wallet.errors import (
    ExternalWallet,
    WalletRefused,
    WalletUnavailable,
    WalletUnknownOutcome,
)
from infrastructure.wallet.outbox import Outbox, settle_one


@dataclass(frozen=True)
class _Debit:
    player_id: str
    stake: int
    transaction_id: str | None  # None: a free round (nothing debited)
    round_id: str


class SeamlessWalletService:
    def __init__(
        self, application: Any, client: WalletClient, currency: str, outbox: Outbox
    ) -> None:
        self.app = application
        self.client = client
        self.currency = currency
        self.outbox = outbox
        self.accounts: Accounts = outbox.accounts

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)  # everything the wallet does not change

    # -- wiring (infrastructure/bootstrap.py) -----------------------------------------------------

    @property
    def on_conflict_retry(self) -> Any:
        return self.app.on_conflict_retry

    @on_conflict_retry.setter
    def on_conflict_retry(self, hook: Any) -> None:
        self.app.on_conflict_retry = hook  # the application's retries, counted in /metrics

    def bind_metrics(self, registry: Any) -> None:
        self.client.bind_metrics(registry)
        self.outbox.bind_metrics(registry)

    def wallet_owed(self) -> list[dict[str, Any]]:
        return self.outbox.owed()

    @property
    def background(self) -> tuple[Any, ...]:
        return (self.outbox.run, *self.app.background)

    def close(self) -> None:
        self.app.close()

    # -- money -----------------------------------------------------------------------------------

    def deposit(self, player_id: str, amount: int, request_id: str) -> int:
        raise ExternalWallet("the operator's wallet keeps the money: no deposits here")

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int:
        raise ExternalWallet("the operator's wallet keeps the money: no withdrawals here")

    def player_state(self, player_id: str) -> dict[str, Any]:
        state: dict[str, Any] = self.app.player_state(player_id)
        account = self.accounts.get(player_id)
        if account is not None and account.balance is not None:
            state["balance"] = account.balance  # the wallet's last answer (its credit's)
        state["currency"] = self.currency
        return state

    # -- spins -----------------------------------------------------------------------------------

    def spin(self, session_id: str, stake: int | None, request_id: str, client_seed: str = "",
             free_round: str | None = None) -> dict[str, Any]:
        raise TypeError("with the seamless wallet, spins go through spin_async")

    async def spin_async(
        self, session_id: str, stake: int | None, request_id: str, client_seed: str = "",
        free_round: str | None = None,
    ) -> dict[str, Any]:
        attempt = SpinAttempt(check_client_seed(client_seed), free_round)
        player_id = self.app._session_players.get(session_id) or await asyncio.to_thread(
            self.app._player_of_session, session_id
        )
        prepared = await self._prepared(player_id, session_id, stake, request_id, attempt)
        if isinstance(prepared, dict):
            return prepared  # the round this request already played
        balance: int | None = None
        if prepared.transaction_id is not None:
            balance = await self._debit(prepared, session_id)
        recorded = await self._recorded(prepared, session_id, request_id, attempt, balance)
        if isinstance(recorded, dict):
            return recorded  # another process recorded this request meanwhile (debit undone)
        played, credit = recorded
        settled = await settle_one(
            self.client, self.accounts, credit, self.currency, self.outbox.defer_ack
        )
        if not settled:
            self.outbox.wake()
        return {**played, "settlement": "settled" if settled else "pending",
                "currency": self.currency}

    # Each step is decided first on what this process holds in memory, in the event loop
    # (CPU only) and saved by the loop's group commit; when something is not in memory, a
    # refusal needs judging on the newest state, or the save conflicts (another process
    # wrote), the step is decided again on the newest state in a worker thread.

    async def _prepared(
        self, player_id: str, session_id: str, stake: int | None, request_id: str,
        attempt: SpinAttempt,
    ) -> _Debit | dict[str, Any]:
        player = self.app.player_cache.get(player_aggregate_id(player_id))
        account = self.accounts.cached(player_id)
        if player is not None and (account is not None or attempt.free_round is not None):
            try:
                decided = self._decide_debit(
                    deepcopy(player), account or WalletAccount.open(player_id), session_id,
                    stake, request_id, attempt,
                )
            except RuleViolation:
                decided = None
            if isinstance(decided, tuple):
                debit, pending = decided
                if pending is None:
                    return debit
                folded = self.outbox.fold_acks(pending)
                if await self.accounts.saved_async(pending):
                    self.outbox.acks_recorded(player_id, folded)
                    return debit
        return await asyncio.to_thread(
            self._prepare, player_id, session_id, stake, request_id, attempt
        )

    def _prepare(
        self, player_id: str, session_id: str, stake: int | None, request_id: str,
        attempt: SpinAttempt,
    ) -> _Debit | dict[str, Any]:
        """Judge every rule on the newest state, then record the debit before it is sent. A
        refusal by player protection is recorded in the player's stream (ProtectionRefused), as
        the built-in wallet's spin records it, before it is answered; nothing is debited."""
        for _ in self.app.attempts():
            with self.app.refusals_recorded(player_id, session_id, stake):
                decided = self._decide_debit(
                    self.app.load_player(player_id), self.accounts.get_or_open(player_id),
                    session_id, stake, request_id, attempt,
                )
            if isinstance(decided, int):
                return self._replayed(player_id, decided)
            debit, pending = decided
            if pending is None:
                return debit
            folded = self.outbox.fold_acks(pending)
            if self.accounts.saved(pending):
                self.outbox.acks_recorded(player_id, folded)
                return debit
        raise ConcurrentUpdate(f"player {player_id!r} is busy, try again")

    def _decide_debit(
        self, player: Player, account: WalletAccount, session_id: str, stake: int | None,
        request_id: str, attempt: SpinAttempt,
    ) -> int | tuple[_Debit, WalletAccount | None]:
        """The StakePlaced version of a round this request already played; or the debit to
        send, with the account holding its DebitRecorded (None for a free round: no debit)."""
        free_round = attempt.free_round
        paid = spin_stake(player, stake, free_round)
        recorded = player.spin_replayed(session_id, paid, request_id, attempt.client_seed)
        if recorded is not None:
            return recorded
        if free_round is not None:
            check_free_round(player.free_rounds, free_round, self.app.clock())
        player.report_wallet_balance(max(player.balance, paid))  # the funds are the wallet's
        # Player protection refuses before anything is debited (the round re-checks it).
        player.check_protection(session_id, paid, self.app.profile, self.app.clock())
        player.check_spin(session_id, paid, free=free_round is not None)
        round_id = round_id_of(player.player_id, player.rounds + 1)
        if free_round is not None:
            return _Debit(player.player_id, paid, None, round_id), None
        if account.open_debit_of(request_id) is not None:
            raise WalletUnavailable("this spin's debit is still in flight; retry shortly")
        transaction_id = uuid4().hex
        account.record_debit(
            transaction_id, request_id, session_id, round_id, paid, self.app.clock().timestamp()
        )
        return _Debit(player.player_id, paid, transaction_id, round_id), account

    async def _debit(self, debit: _Debit, session_id: str) -> int:
        """The wallet's balance after the debit; or the spin's refusal."""
        assert debit.transaction_id is not None
        body = {
            "transaction_id": debit.transaction_id, "player_id": debit.player_id,
            "session_id": session_id, "round_id": debit.round_id, "amount": debit.stake,
            "currency": self.currency,
        }
        try:
            answer = await self.client.call("debit", body)
        except WalletUnknownOutcome as unknown:
            await asyncio.to_thread(self._owe_rollback, debit, str(unknown))
            raise WalletUnavailable(
                "the wallet did not answer the debit; it is rolled back, no round was played"
            ) from None
        if answer.status == 200:
            return answer.balance
        await asyncio.to_thread(self._refuse, debit, answer.status, str(answer.body)[:200])
        if answer.status == 402:
            raise InsufficientFunds("the operator's wallet refused the stake: insufficient funds")
        raise WalletRefused(f"the operator's wallet refused the debit ({answer.status})")

    def _refuse(self, debit: _Debit, status: int, reason: str) -> None:
        assert debit.transaction_id is not None
        self._on_account(debit.player_id, lambda a: a.refuse_debit(
            debit.transaction_id or "", status, reason))

    def _owe_rollback(self, debit: _Debit, reason: str) -> None:
        assert debit.transaction_id is not None
        self._on_account(debit.player_id, lambda a: a.owe_rollback(
            uuid4().hex, debit.transaction_id or "", reason))
        self.outbox.wake_threadsafe()

    def _on_account(self, player_id: str, change: Any) -> None:
        for _ in self.app.attempts():
            account = self.accounts.get_or_open(player_id)
            change(account)
            if not account.pending_events or self.accounts.saved(account):
                return
        raise ConcurrentUpdate(f"player {player_id!r} is busy, try again")

    async def _recorded(
        self, debit: _Debit, session_id: str, request_id: str, attempt: SpinAttempt,
        balance: int | None,
    ) -> tuple[dict[str, Any], dict[str, Any]] | dict[str, Any]:
        player = self.app.player_cache.get(player_aggregate_id(debit.player_id))
        account = self.accounts.cached(debit.player_id)
        if player is not None and account is not None:
            try:
                decided = self._decide_round(
                    deepcopy(player), account, debit, session_id, request_id, attempt,
                    balance,
                )
            except RuleViolation:
                decided = None
            if isinstance(decided, tuple):
                played, credit, aggregates = decided
                folded = self.outbox.fold_acks(aggregates[1])
                if await self.accounts.saved_async(*aggregates):
                    self.outbox.acks_recorded(debit.player_id, folded)
                    return played, credit
        return await asyncio.to_thread(
            self._record_round, debit, session_id, request_id, attempt, balance
        )

    def _record_round(
        self, debit: _Debit, session_id: str, request_id: str, attempt: SpinAttempt,
        balance: int | None,
    ) -> tuple[dict[str, Any], dict[str, Any]] | dict[str, Any]:
        """Play and record the round with its credit owed, in one transaction."""
        for _ in self.app.attempts():
            with self.app.refusals_recorded(debit.player_id, session_id, debit.stake):
                try:
                    decided = self._decide_round(
                        self.app.load_player(debit.player_id),
                        self.accounts.get_or_open(debit.player_id),
                        debit, session_id, request_id, attempt, balance,
                    )
                except RuleViolation:
                    if debit.transaction_id is not None:  # refused after its debit: undo it
                        self._owe_rollback(debit, "the round was refused after its debit")
                    raise
            if isinstance(decided, int):  # recorded by another process meanwhile
                if debit.transaction_id is not None:
                    self._owe_rollback(debit, "the spin was already recorded")
                return self._replayed(debit.player_id, decided)
            played, credit, aggregates = decided
            folded = self.outbox.fold_acks(aggregates[1])
            if self.accounts.saved(*aggregates):
                self.outbox.acks_recorded(debit.player_id, folded)
                return played, credit
        raise ConcurrentUpdate(f"player {debit.player_id!r} is busy, try again")

    def _decide_round(
        self, player: Player, account: WalletAccount, debit: _Debit, session_id: str,
        request_id: str, attempt: SpinAttempt, balance: int | None,
    ) -> int | tuple[dict[str, Any], dict[str, Any], tuple[Any, ...]]:
        """The round played with its credit owed (both pending), or the StakePlaced version of
        the round this request already played."""
        if debit.transaction_id is not None and debit.transaction_id not in account.debits:
            raise WalletUnavailable("the debit was rolled back meanwhile; no round was played")
        if balance is not None:
            player.report_wallet_balance(balance + debit.stake)
        # The application decides the round (a request already played answers its version; a
        # new round's seed derives from the session's committed server seed), exactly as a spin
        # on the built-in wallet. A replayed request saves nothing, the balance report included.
        decided = self.app.decide_spin(player, session_id, debit.stake, request_id, attempt)
        if isinstance(decided, int):
            return decided
        played = round_view(round_event_payload(e) for e in decided)
        credit_id = uuid4().hex
        account.owe_credit(
            credit_id, debit.transaction_id, session_id, played["round_id"],
            int(played["total_win"]), attempt.free_round,
        )
        [credit] = [i for i in account.owed_items() if i["transaction_id"] == credit_id]
        # The request's durable key (infrastructure/store/request_keys.py) is saved with the round.
        return played, credit, (player, account, *issued_keys(player, request_id))

    def _replayed(self, player_id: str, start_version: int) -> dict[str, Any]:
        played: dict[str, Any] = self.app._round_from(player_aggregate_id(player_id),
                                                       start_version)
        return {**played, "settlement": self.settlement(player_id, played["round_id"]),
                "currency": self.currency}

    def settlement(self, player_id: str, round_id: str) -> str:
        account = self.accounts.get(player_id)
        acknowledged = self.outbox.unrecorded_acks(player_id)  # by the wallet, not yet stored
        owed = account is not None and any(
            item["kind"] == "credit" and item["round_id"] == round_id
            and item["transaction_id"] not in acknowledged
            for item in account.owed_items()
        )
        return "pending" if owed else "settled"



class SettledRounds:
    """The round reads (RoundReads) with each round's current `settlement` and the currency."""

    def __init__(self, rounds: Any, service: SeamlessWalletService) -> None:
        self._rounds = rounds
        self._service = service

    def player_rounds(self, player_id: str, limit: int, before: str | None) -> Any:
        return self._rounds.player_rounds(player_id, limit, before)

    def round(self, round_id: str) -> dict[str, Any] | None:
        played: dict[str, Any] | None = self._rounds.round(round_id)
        if played is None:
            return None
        settlement = self._service.settlement(str(played["player_id"]), round_id)
        return {**played, "settlement": settlement, "currency": self._service.currency}
