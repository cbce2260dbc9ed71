"""Sessions' commands and reads: open, close (THE one close, whoever closes), the idle close, the
session object, and which session a token names.

Provably fair seeds (domain.ledger.fairness): opening draws the session's server seed here, and
stores it only sealed (seed_vault.py); every command that closes a session (here, or player
protection's) reveals it, opened by `server_seed`. A close records the session as it closed on
its SessionKey (keys.py), in the same transaction as the player's SessionClosed: `keys_closed`,
which the command runner saves with every decision that closes sessions.

A closed session's token stays valid, read-only, for READ_ONLY_DAYS after the close, whoever
closed it (`closed_by`: player, operator, idle, exclusion, reality_check, session_time_limit),
so the player can check its rounds: past that, the token names no session.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from uuid import uuid4

from domain.ledger.fairness import commitment_of
from domain.ledger.identifiers import player_aggregate_id
from domain.ledger.player import Player
from domain.ledger.sessions import UNRECORDED_CLOSER, closed_view, idle_seconds, open_view
from infrastructure.ports import SessionRef
from infrastructure.rounds.round_reads import RoundReads
from infrastructure.rules_in_force import RulesInForce
from infrastructure.sessions.fair_sessions import legacy_closed_view
from infrastructure.sessions.keys import SessionDirectory, SessionKey, issued_keys, token_hash
from infrastructure.sessions.seed_vault import SeedVault
from infrastructure.store.command_runner import CommandRunner, NotInMemory, Work
from infrastructure.store.player_repository import PlayerRepository

READ_ONLY_DAYS = 30
ROUND_SPAN = "round_span"  # on a SessionKey's close: where the session's rounds lie


class SessionCommands:
    def __init__(
        self,
        runner: CommandRunner,
        directory: SessionDirectory,
        vault: SeedVault,
        rules: RulesInForce,
        rounds: RoundReads,
    ) -> None:
        self.runner = runner
        self.players: PlayerRepository = runner.players
        self.directory = directory
        self.vault = vault
        self.rules = rules
        self.rounds = rounds

    # -- commands ------------------------------------------------------------------------------

    def open(
        self, player_id: str, reality_check_minutes: object = None,
        wallet_balance: int | None = None,
    ) -> tuple[str, str]:
        """(session_id, token): the session opened and protected in one command; with the
        operator's wallet, its balance answered just before (recorded on the player's wallet
        account in the same transaction, so the player state shows it before the first spin)."""
        session_id = uuid4().hex
        token = secrets.token_urlsafe(32)
        hashed = token_hash(token)
        server_seed = secrets.token_bytes(32)  # drawn before the event: replay never draws
        sealed = self.vault.seal(session_id, server_seed)

        def decide(work: Work) -> None:
            if wallet_balance is not None:
                work.account().report_balance(wallet_balance)
            work.player.open_session(
                session_id, hashed, commitment_of(server_seed), sealed, self.rules.now(),
                self.rules.profile, reality_check_minutes,
            )
            work.also_save(*issued_keys(player_id, session_id, hashed))

        self.runner.run(player_id, decide)
        self.directory.opened(session_id, player_id)
        return session_id, token

    def close(self, session_id: str, closed_by: str = "operator") -> dict[str, Any]:
        """Close the session and reveal its seed; closing a closed session answers it as it
        closed. closed_by: who closes (the caller's role: player or operator)."""
        player_id = self.directory.player_of(session_id)

        def decide(work: Work) -> bool:
            seed = self.server_seed(work.player, session_id)
            revealed = None if seed is None else seed.hex()
            return work.player.close_session(session_id, revealed, closed_by, self.rules.now())

        if self.runner.run(player_id, decide):
            self.vault.forget(session_id)
        return self.session(session_id)

    def close_if_idle(self, session_id: str, idle_limit: float) -> bool:
        """Close the session if nothing was played in it for `idle_limit` seconds (judged on
        the newest state); True if this call closed it."""
        player_id = self.directory.player_of(session_id)
        entry = self.players.load(player_id, fresh=False).session(session_id)
        if entry is None or idle_seconds(entry, self.rules.now()) < idle_limit:
            return False

        def decide(work: Work) -> bool:
            seed = self.server_seed(work.player, session_id)
            revealed = None if seed is None else seed.hex()
            return work.player.close_if_idle(session_id, idle_limit, revealed, self.rules.now())

        closed = self.runner.run(player_id, decide)
        if closed:
            self.vault.forget(session_id)
        return closed

    def server_seed(self, player: Player, session_id: str) -> bytes | None:
        """The open session's server seed, unsealed (None: not open, or from before seeds
        were committed)."""
        sealed = player.sealed_seed(session_id)
        return None if sealed is None else self.vault.open(session_id, sealed)

    def keys_closed(self, work: Work) -> Iterator[SessionKey]:
        """The SessionKey of every session the decision closes, with the session as it closed:
        saved with the decision (the runner's companions)."""
        closes = [e for e in work.player.pending_events if isinstance(e, Player.SessionClosed)]
        if not closes:
            return
        if work.memory_only:
            raise NotInMemory("a close reads its session's key")
        reveals = {
            e.session_id: e.server_seed
            for e in work.player.pending_events
            if isinstance(e, Player.SeedRevealed)
        }
        for closed in closes:
            entry = work.sessions_before[closed.session_id]
            key = self.directory.session_key(closed.session_id)
            view = closed_view(
                closed.session_id, work.player_id, entry, closed.timestamp,
                reveals.get(closed.session_id), closed.reason,
            )
            span = entry.round_span()
            key.close({**view, ROUND_SPAN: None if span is None else list(span)})
            yield key

    # -- reads ---------------------------------------------------------------------------------

    def session(self, session_id: str) -> dict[str, Any]:
        """The session object of CONTRACT.md, with its rounds in order (`round_ids`): from
        the player while open, then from the SessionKey stream (or, for sessions closed before
        that, the player's own stream)."""
        player_id = self.directory.player_of(session_id)
        entry = self.players.load(player_id).session(session_id)
        if entry is not None:
            view = open_view(session_id, player_id, entry, self.rules.now())
            span = entry.round_span()
        else:
            view, span = self._closed(session_id, player_id)
        round_ids = self.rounds.session_round_ids(player_id, session_id, span, view["spins"])
        return {**view, "round_ids": round_ids}

    def _closed(
        self, session_id: str, player_id: str
    ) -> tuple[dict[str, Any], tuple[int, int] | None]:
        key = self.directory.session_key(session_id)
        if key.closed is None:
            events = self.players.store.events.get(player_aggregate_id(player_id))
            return legacy_closed_view(session_id, player_id, events), None
        view = dict(key.closed)
        view["closed_by"] = view.get("closed_by") or UNRECORDED_CLOSER  # a key closed with none
        span = view.pop(ROUND_SPAN, None)
        if span is None:
            return view, None
        first, last = span
        return view, (int(first), int(last))

    def session_view(self, session_id: str) -> dict[str, Any]:
        """The session with what protection adds (its reality check) while it is open."""
        player_id = self.directory.player_of(session_id)
        player = self.players.load(player_id)
        now = self.rules.now()
        return {**self.session(session_id), **player.reality_check(session_id, now)}

    def session_for_token(self, token: str) -> SessionRef | None:
        """The session a token names: open, or closed less than READ_ONLY_DAYS ago (then
        read-only); None once that has passed, as for a token that names nothing."""
        known = self.directory.token(token)
        if known is None:
            return None
        session_id, player_id = known
        if self.players.load(player_id).session_is_open(session_id):
            return SessionRef(session_id, player_id, True)
        closed, _span = self._closed(session_id, player_id)
        closed_at = datetime.fromisoformat(str(closed["closed_at"]))
        if self.rules.now() - closed_at >= timedelta(days=READ_ONLY_DAYS):
            return None
        return SessionRef(session_id, player_id, False)

    def known_session_for_token(self, token: str) -> SessionRef | None:
        """The session a token names from what this process already holds (the token's key and
        the player's newest known state), or None: then session_for_token reads the store. For
        a spin only, as the open-session cache is: its `open` may be behind a close made
        through another process, and the spin is judged on the newest state anyway."""
        known = self.directory.known_token(token)
        if known is None:
            return None
        session_id, player_id = known
        player = self.players.newest_known(player_id)
        if player is None or not player.session_is_open(session_id):
            return None  # a closed session's token is judged by its close (from the store)
        return SessionRef(session_id, player_id, True)
