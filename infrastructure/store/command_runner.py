"""The command runner: how every command of the write side runs, in one place.

A command is a decision on one player's aggregates (`decide(work)`: the player, and the wallet
account when it needs one), recorded in ONE save. The runner gives it:

- the player's turn: commands on one player take turns in this process (player_locks.py);
- a fresh judgement: a command first decides on the newest state this process knows; a refusal
  is final only when judged again on the newest state in the store;
- retries after a lost race (another process took the version): reload, decide again, pause
  (retry_policy.py), up to ATTEMPTS times, then ConcurrentUpdate, which changed nothing;
- request replay: the request's durable key (request_keys.py) is saved with its events, and
  read only when a save conflicts or the newest state refuses the request; a request the key
  names answers as the first time;
- refusals recorded: a protection refusal the aggregate recorded (domain.ledger.refusals) is
  saved, alone, before it is raised;
- `run_async`, for the event loop: decide in memory, in the loop, and commit with the loop's group
  commit; anything that needs the store (a player not in memory, a refusal, a lost race) goes to
  `run` in a worker thread, on the newest state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TypeVar

from eventsourcing.persistence import IntegrityError

from domain.errors import ProtectionRefusal, RuleViolation
from domain.ledger.player import Player
from domain.ledger.sessions import SessionEntry
from domain.ledger.wallet_account import WalletAccount
from infrastructure.store.event_store import Saved
from infrastructure.store.player_locks import PlayerLocks
from infrastructure.store.player_repository import PlayerRepository
from infrastructure.store.request_keys import issued_keys, recalled_fingerprint, recorded_key
from infrastructure.store.retry_policy import ATTEMPTS, pause_before
from infrastructure.wallet.accounts import WalletAccounts

T = TypeVar("T")


class ConcurrentUpdate(RuleViolation):
    """Other requests for the same player kept winning the race; nothing was changed."""

    code = "concurrent_update"


class NotInMemory(Exception):
    """A decision needs what this process does not hold: it is decided on the newest state."""


class Work:
    """One attempt of a command: private copies of what it decides on, and what it saves."""

    def __init__(
        self, runner: CommandRunner, player_id: str, *, fresh: bool, memory_only: bool = False
    ) -> None:
        self.player_id = player_id
        self._runner = runner
        self._fresh = fresh
        self._memory_only = memory_only
        self._player: Player | None = None
        self._account: WalletAccount | None = None
        self._extra: list[Saved] = []
        self._after_save: list[Callable[[], object]] = []
        # The player's open sessions as this attempt found them: its dicts are replaced, never
        # changed in place, so the one it was loaded with stays as it was (for closes' views).
        self.sessions_before: dict[str, SessionEntry] = {}

    @classmethod
    def on(cls, runner: CommandRunner, player: Player) -> Work:
        """A decision on this copy of a player (a tool building a stream in memory)."""
        work = cls(runner, player.player_id, fresh=False)
        work._player = player
        work.sessions_before = player.sessions
        return work

    @property
    def player(self) -> Player:
        if self._player is None:
            players = self._runner.players
            if self._memory_only:
                self._player = players.cached(self.player_id)
                if self._player is None:
                    raise NotInMemory(self.player_id)
            else:
                self._player = players.load(self.player_id, fresh=self._fresh)
            self.sessions_before = self._player.sessions
        return self._player

    def account(self) -> WalletAccount:
        """The player's wallet account (opened, unsaved, if it has none yet)."""
        if self._account is None:
            accounts = self._runner.accounts
            if self._memory_only:
                self._account = accounts.cached(self.player_id)
                if self._account is None:
                    raise NotInMemory(self.player_id)
            else:
                self._account = accounts.get_or_open(self.player_id)
        return self._account

    def also_save(self, *objs: Saved) -> None:
        """Save these with the decision, in its transaction (e.g. a session's key)."""
        self._extra.extend(objs)

    def after_save(self, done: Callable[[], object]) -> None:
        """Call `done` once the decision is saved (not if it is decided again)."""
        self._after_save.append(done)

    @property
    def memory_only(self) -> bool:
        return self._memory_only

    def decided(self) -> bool:
        """Whether the decision recorded anything."""
        return bool(
            (self._player is not None and self._player.pending_events)
            or (self._account is not None and self._account.pending_events)
            or self._extra
        )

    def to_save(self, request_id: str | None) -> list[Saved]:
        """What the decision saves, with the request's durable key."""
        objs: list[Saved] = self.refusal_to_save()
        if objs:
            objs.extend(issued_keys(self.player, request_id))
        if self._account is not None and self._account.pending_events:
            objs.append(self._account)
        objs.extend(self._extra)
        return objs

    def refusal_to_save(self) -> list[Saved]:
        """What a refused decision saves: what the player recorded of the refusal alone."""
        if self._player is None or not self._player.pending_events:
            return []
        return [self._player, *self._runner.companions(self)]

    def saved(self) -> None:
        """The save committed: its states are the newest, the next command starts there."""
        if self._player is not None:
            self._runner.players.cache.remember(self._player)
        if self._account is not None and not self._account.pending_events:
            self._runner.accounts.remember(self._account)
        for done in self._after_save:
            done()


def _no_companions(work: Work) -> Iterable[Saved]:
    return ()


class CommandRunner:
    def __init__(
        self, players: PlayerRepository, accounts: WalletAccounts, locks: PlayerLocks | None = None
    ) -> None:
        self.players = players
        self.accounts = accounts
        self.store = players.store
        self.locks = locks or PlayerLocks()
        # What is saved with a player's decision besides it (sessions' keys, when a decision
        # closes sessions): set by the composition root.
        self.companions: Callable[[Work], Iterable[Saved]] = _no_companions
        # Called once per retry after a lost write race (the HTTP app counts them).
        self.on_conflict_retry: Callable[[], object] = _ignore

    def run(
        self, player_id: str, decide: Callable[[Work], T], request_id: str | None = None
    ) -> T:
        """Decide on the player and record what it decided, in the player's turn."""
        with self.locks.held(player_id):
            return self._in_turn(player_id, decide, request_id)

    async def run_async(
        self, player_id: str, decide: Callable[[Work], T], request_id: str | None = None
    ) -> T:
        """`run` for the event loop: decided in the loop's thread when everything is in memory
        (CPU only) and committed by the loop's group commit; else `run` in a worker thread."""
        await self.locks.take_turn(player_id)
        try:
            if self.store.groups_commits:
                work = Work(self, player_id, fresh=False, memory_only=True)
                try:
                    result = decide(work)
                    objs = work.to_save(request_id)
                except (NotInMemory, RuleViolation):
                    pass  # a refusal is only final when judged on the newest state
                else:
                    if not objs:
                        return result
                    try:
                        await self.store.save_in_loop(*objs)
                    except IntegrityError:  # another writer took the version: `run` retries
                        self.on_conflict_retry()
                    else:
                        work.saved()
                        return result
            return await asyncio.to_thread(self.run, player_id, decide, request_id)
        finally:
            self.locks.end_turn(player_id)

    def _in_turn(
        self, player_id: str, decide: Callable[[Work], T], request_id: str | None
    ) -> T:
        fresh = False
        conflicts = 0
        while conflicts < ATTEMPTS:
            work = Work(self, player_id, fresh=fresh)
            try:
                result = decide(work)
            except RuleViolation as refusal:
                if not fresh:
                    fresh = True  # a refusal is only final when judged on the newest state
                    continue
                recalled = self._recalled(player_id, request_id, decide)
                if recalled is not None:
                    return recalled[0]
                if not isinstance(refusal, ProtectionRefusal) or self._saved(
                    work, work.refusal_to_save()
                ):
                    raise
            else:
                if not work.decided() or self._saved(work, work.to_save(request_id)):
                    return result
                recalled = self._recalled(player_id, request_id, decide)
                if recalled is not None:
                    return recalled[0]
            conflicts += 1
            fresh = True
            self.retrying(conflicts)
        raise ConcurrentUpdate(f"player {player_id!r} is busy, try again")

    def _saved(self, work: Work, objs: list[Saved]) -> bool:
        if objs and not self.store.saved(*objs):
            return False
        work.saved()
        return True

    def _recalled(
        self, player_id: str, request_id: str | None, decide: Callable[[Work], T]
    ) -> tuple[T] | None:
        """The answer again, if the request's durable key says it was applied (beyond the
        player's window); RequestIdReused if it was applied with another body."""
        key = recorded_key(self.store.repository, player_id, request_id)
        if key is None:
            return None
        work = Work(self, player_id, fresh=True)
        fingerprint = recalled_fingerprint(self.store.events, key)
        work.player.recall_request(key.request_id, fingerprint, key.answer)
        return (decide(work),)

    def retrying(self, retry: int) -> None:
        """Count a retry after a lost race (infrastructure/store/retry_policy.py) and pause
        before it."""
        self.on_conflict_retry()
        pause_before(retry)


def _ignore() -> None:
    return None
