"""The spin: THE one way a round is played, on either wallet (infrastructure/wallet/port.py).

The round is decided by the Player (domain.ledger.player) on its newest state, recorded whole in
one save with the request's durable key (the command runner: infrastructure/store/
command_runner.py decides it in the event loop when everything is in memory and commits it with
the loop's group commit, else on the newest state in a worker thread).

Provably fair seeds (domain.ledger.fairness): the round's seed derives here from the session's
server seed (unsealed by the session commands), the session id, the round's nonce and the client
seed, and is handed to the aggregate. A spin that loses the race retries with the NEXT nonce; the
attempt it lost is recorded (Player.NonceBurned) in the retry's transaction unless a stored round
took that nonce.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from domain.errors import RuleViolation
from domain.ledger.fairness import check_client_seed, round_seed
from domain.ledger.free_rounds import check_free_round, free_round_stake
from domain.ledger.identifiers import round_id_of
from domain.ledger.player import Player
from domain.ledger.protection_commands import check_protection
from domain.ledger.recall import round_view
from domain.ledger.round_events import in_round, round_event_payload
from infrastructure.rounds.round_reads import RoundReads
from infrastructure.rules_in_force import RulesInForce
from infrastructure.sessions.session_commands import SessionCommands
from infrastructure.store.command_runner import CommandRunner, Work
from infrastructure.wallet.port import NOTHING_TAKEN, Judged, SpinOrder, StakeTaken, Wallet

T = TypeVar("T")


class SpinAttempt:
    """One spin request across its attempts: the rounds computed by attempts that were not
    recorded (a new attempt means the one before was lost), so the retry takes the next nonce
    and records them (Player.NonceBurned)."""

    def __init__(self, client_seed: str) -> None:
        self.client_seed = client_seed
        self.lost: list[tuple[int, str, str]] = []  # (nonce, client seed, seed hex)
        self._pending: tuple[int, str, str] | None = None

    def begin(self) -> None:
        if self._pending is not None:
            self.lost.append(self._pending)
            self._pending = None

    def computed(self, nonce: int, seed: bytes) -> None:
        self._pending = (nonce, self.client_seed, seed.hex())


class SpinCommands:
    def __init__(
        self,
        runner: CommandRunner,
        sessions: SessionCommands,
        wallet: Wallet,
        reads: RoundReads,
        rules: RulesInForce,
    ) -> None:
        self.runner = runner
        self.sessions = sessions
        self.wallet = wallet
        self.reads = reads
        self.rules = rules

    async def spin(self, order: SpinOrder, *, blocking: bool = False) -> dict[str, Any]:
        """The whole round, settled, as CONTRACT.md's round. blocking: run every step in this
        thread (for callers without an event loop: the built-in wallet only)."""
        check_client_seed(order.client_seed)
        directory = self.sessions.directory
        player_id = directory.known_player_of(order.session_id)
        if player_id is None:
            player_id = await _in_thread(blocking, directory.player_of, order.session_id)

        async def run(player_id: str, decide: Callable[[Work], T], request_id: str | None = None
                      ) -> T:
            if blocking:
                return self.runner.run(player_id, decide, request_id)
            return await self.runner.run_async(player_id, decide, request_id)

        async with self.wallet.turn(player_id):
            taken = await self.wallet.take_stake(
                order, player_id, lambda work: self.judged(work, order), run
            )
            if isinstance(taken, int):
                return await self._replayed(blocking, player_id, taken)
            attempt = SpinAttempt(order.client_seed)
            try:
                played = await run(
                    player_id, lambda work: self.decide(work, order, attempt, taken),
                    order.request_id,
                )
            except RuleViolation:
                await self.wallet.undo_stake(
                    player_id, taken, "the round was refused after its debit"
                )
                raise
        if isinstance(played, int):  # this request's round, recorded meanwhile
            await self.wallet.undo_stake(player_id, taken, "the spin was already recorded")
            return await self._replayed(blocking, player_id, played)
        return await self.wallet.answer(player_id, taken, played)

    def judged(self, work: Work, order: SpinOrder) -> Judged | int:
        """Every rule the spin must pass before its stake is taken, judged on the player (a
        protection refusal recorded); or the StakePlaced version of the round this request
        already played."""
        player = work.player
        stake = self._stake(player, order)
        replayed = player.spin_replayed(
            order.session_id, stake, order.request_id, order.client_seed, order.free_round
        )
        if replayed is not None:
            return replayed
        now = self.rules.now()
        if order.free_round is not None:
            check_free_round(player.free_rounds, order.free_round, now)
        server_seed = self.sessions.server_seed(player, order.session_id)
        check_protection(player, order.session_id, stake, self.rules.profile, now, server_seed)
        return Judged(player.player_id, stake, round_id_of(player.player_id, player.rounds + 1))

    def decide(
        self, work: Work, order: SpinOrder, attempt: SpinAttempt, taken: StakeTaken = NOTHING_TAKEN
    ) -> dict[str, Any] | int:
        """The round decided on the player (pending, with whatever the wallet records in its
        transaction); or the StakePlaced version of the round this request already played."""
        attempt.begin()
        player = work.player
        session_id = order.session_id
        stake = self._stake(player, order)
        replayed = player.spin_replayed(
            session_id, stake, order.request_id, order.client_seed, order.free_round
        )
        if replayed is not None:
            return replayed
        now = self.rules.now()
        server_seed = self.sessions.server_seed(player, session_id)
        check_protection(player, session_id, stake, self.rules.profile, now, server_seed)
        self.wallet.before_round(work, order, taken)
        free = order.free_round is not None
        player.check_spin(session_id, stake, free=free)
        nonce: int | None = None
        if server_seed is not None:  # a committed session: the seed derives from its server seed
            player.burn_nonces(session_id, tuple(attempt.lost))
            nonce = player.next_nonce(session_id)
            seed = round_seed(server_seed, session_id, nonce, order.client_seed)
            attempt.computed(nonce, seed)
        else:  # opened before commitments: drawn before any event exists, as it always was
            seed = secrets.token_bytes(32)
        player.spin(
            session_id, stake, order.request_id, seed, nonce, order.client_seed, now,
            free_round=order.free_round,
        )
        played = round_view(round_event_payload(e) for e in player.pending_events if in_round(e))
        self.wallet.with_round(work, order, taken, played)
        return played

    @staticmethod
    def _stake(player: Player, order: SpinOrder) -> int:
        """The body's stake, or for a free round its campaign's (a different one in the body is
        invalid_stake)."""
        if order.free_round is not None:
            return free_round_stake(player.free_rounds, order.free_round, order.stake)
        if order.stake is None:
            raise TypeError("a paid spin has a stake")
        return order.stake

    async def _replayed(self, blocking: bool, player_id: str, version: int) -> dict[str, Any]:
        played = await _in_thread(blocking, self.reads.round_from, player_id, version)
        return {**played, **self.wallet.settlement(player_id, played["round_id"])}


async def _in_thread(blocking: bool, function: Callable[..., T], *args: Any) -> T:
    if blocking:
        return function(*args)
    return await asyncio.to_thread(function, *args)
