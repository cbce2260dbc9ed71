"""The built-in wallet (PUMPKIN_WALLET_URL unset): the Player's own balance keeps the money.

Deposits and withdrawals are Player commands; a spin's stake and win move in the round's own
events, in its one transaction, so nothing is taken before the round nor sent after it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from prometheus_client import CollectorRegistry

from infrastructure.rules_in_force import RulesInForce
from infrastructure.store.command_runner import CommandRunner, Work
from infrastructure.wallet.port import NOTHING_TAKEN, Judge, Runs, SpinOrder, StakeTaken

_NO_TURN: AbstractAsyncContextManager[None] = nullcontext()


class BuiltInWallet:
    def __init__(
        self, runner: CommandRunner, rules: RulesInForce, currency: str = "EUR"
    ) -> None:
        self.runner = runner
        self.rules = rules
        self.currency = currency

    def deposit(self, player_id: str, amount: int, request_id: str) -> int:
        """Judged on the clock (an excluded player cannot be funded)."""
        now = self.rules.now()
        return self.runner.run(
            player_id, lambda work: work.player.deposit(amount, request_id, now), request_id
        )

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int:
        return self.runner.run(
            player_id, lambda work: work.player.withdraw(amount, request_id), request_id
        )

    def shown_state(self, player_id: str, state: dict[str, Any]) -> dict[str, Any]:
        return state

    def settlement(self, player_id: str, round_id: str) -> dict[str, Any]:
        return {}

    def turn(self, player_id: str) -> AbstractAsyncContextManager[None]:
        return _NO_TURN  # the round and its money are one transaction: nothing to wait for

    async def take_stake(
        self, spin: SpinOrder, player_id: str, judge: Judge, run: Runs
    ) -> StakeTaken | int:
        return NOTHING_TAKEN  # the round takes it, judged in its own decision

    def before_round(self, work: Work, spin: SpinOrder, taken: StakeTaken) -> None:
        return None

    def with_round(
        self, work: Work, spin: SpinOrder, taken: StakeTaken, played: dict[str, Any]
    ) -> None:
        return None

    async def undo_stake(self, player_id: str, taken: StakeTaken, reason: str) -> None:
        return None

    async def answer(
        self, player_id: str, taken: StakeTaken, played: dict[str, Any]
    ) -> dict[str, Any]:
        return played

    @property
    def owed(self) -> Callable[[], list[dict[str, Any]]] | None:
        return None

    @property
    def background(self) -> tuple[Callable[[], Coroutine[Any, Any, None]], ...]:
        return ()

    def bind_metrics(self, registry: CollectorRegistry) -> None:
        return None

    def close(self) -> None:
        return None
