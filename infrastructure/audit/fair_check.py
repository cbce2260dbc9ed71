"""The provably fair check of one player's stream (the game rules, section 8), as verify runs it.

Fed the stream's events in order: each session that opened with a commitment is checked once
its seed is revealed: SHA-256(revealed seed) = the commitment it opened with (and the one its
reveal and rounds carry); every round's seed = HMAC-SHA256(seed, "<session>:<nonce>:<client
seed>"); the nonces run 1, 2, 3... in the stream's order, a gap only where NonceBurned records a
round lost to a store conflict. A burned nonce is re-derived like a round (its recorded seed =
HMAC-SHA256(revealed seed, "<session>:<nonce>:<client seed>")) and counted (`burned_nonces`), so
a re-roll is on the record and checked. Sessions opened before commitments are counted apart
(their rounds are re-derived from their recorded seeds, as always).

Problem kinds: commitment_mismatch, seed_mismatch, nonce_out_of_sequence, seed_not_revealed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain.ledger.fairness import commitment_of, round_seed
from domain.ledger.player import Player

Report = Callable[..., None]  # StreamChecker.problem(kind, version, detail, *, round_id, field..)


@dataclass
class _Session:
    commitment: str
    opened_at: int
    rounds: list[tuple[int, str, int | None, str, str, str | None]] = field(default_factory=list)
    # (version, nonce, client seed, seed) of each nonce lost to a store conflict
    burned: list[tuple[int, int, str, str]] = field(default_factory=list)
    closed_at: int | None = None


@dataclass
class FairCounts:
    sessions_verified: int = 0
    sessions_open: int = 0
    sessions_before_commitments: int = 0
    rounds_checked: int = 0
    burned_nonces: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


_FAIR_EVENTS = frozenset({Player.SessionOpened, Player.StakePlaced, Player.NonceBurned,
                          Player.SessionClosed, Player.SeedRevealed})


class FairChecker:
    def __init__(self, report: Report) -> None:
        self.report = report
        self.counts = FairCounts()
        self.sessions: dict[str, _Session | None] = {}  # None: opened before commitments

    def feed(self, event: Any) -> None:
        if type(event) not in _FAIR_EVENTS:
            return  # most events (a round's facts, money): one set lookup
        version = int(event.originator_version)
        if isinstance(event, Player.SessionOpened):
            commitment = str(getattr(event, "seed_commitment", "") or "")
            self.sessions[event.session_id] = (
                _Session(commitment, version) if commitment else None
            )
            if not commitment:
                self.counts.sessions_before_commitments += 1
        elif isinstance(event, Player.StakePlaced):
            session = self.sessions.get(event.session_id)
            if session is not None:
                session.rounds.append((
                    version, event.round_id, event.nonce, event.client_seed, event.seed,
                    event.seed_commitment,
                ))
        elif isinstance(event, Player.NonceBurned):
            session = self.sessions.get(event.session_id)
            if session is not None:
                session.burned.append((version, event.nonce, event.client_seed, event.seed))
        elif isinstance(event, Player.SessionClosed):
            session = self.sessions.get(event.session_id)
            if session is not None:
                session.closed_at = version
        elif isinstance(event, Player.SeedRevealed):
            session = self.sessions.pop(event.session_id, None)
            if session is not None:
                self._check(event.session_id, session, event, version)

    def finish(self) -> FairCounts:
        for session_id, session in self.sessions.items():
            if session is None:
                continue
            if session.closed_at is not None:
                self.report("seed_not_revealed", session.closed_at,
                            f"session {session_id} closed without revealing its server seed",
                            field="SeedRevealed")
            else:
                self.counts.sessions_open += 1
        self.sessions = {}
        return self.counts

    def _disagrees(self, kind: str, version: int, detail: str, field: str, expected: Any,
                   found: Any, round_id: str | None = None) -> bool:
        if expected == found:
            return False
        self.report(kind, version, detail, round_id=round_id, field=field, expected=expected,
                    found=found)
        return True

    def _check(self, session_id: str, session: _Session, reveal: Any, version: int) -> None:
        try:
            server_seed = bytes.fromhex(str(reveal.server_seed))
        except ValueError:
            server_seed = b""
        bad = self._disagrees(
            "commitment_mismatch", version, f"SHA-256 of session {session_id}'s revealed seed "
            "is not the commitment it opened with", "SeedRevealed.server_seed",
            session.commitment, commitment_of(server_seed))
        bad |= self._disagrees(
            "commitment_mismatch", version, "the reveal names another commitment than the "
            "session opened with", "SeedRevealed.seed_commitment", session.commitment,
            reveal.seed_commitment)
        bad |= self._check_rounds(session_id, session, server_seed)
        if not bad:
            self.counts.sessions_verified += 1

    def _check_rounds(self, session_id: str, session: _Session, server_seed: bytes) -> bool:
        """True if any round disagrees."""
        bad = False
        burned = {nonce for _, nonce, _, _ in session.burned}
        for burned_at, burned_nonce, burned_client_seed, burned_seed in session.burned:
            self.counts.burned_nonces += 1
            rederived = (
                round_seed(server_seed, session_id, burned_nonce, burned_client_seed).hex()
                if isinstance(burned_nonce, int) and isinstance(burned_client_seed, str)
                else None
            )
            bad |= self._disagrees(
                "seed_mismatch", burned_at, "the burned nonce's seed is not HMAC-SHA256("
                "revealed seed, '<session>:<nonce>:<client seed>')", "NonceBurned.seed",
                rederived, burned_seed)
        expected = 1
        for version, round_id, nonce, client_seed, seed, commitment in session.rounds:
            self.counts.rounds_checked += 1
            while expected in burned:
                expected += 1
            derived = (
                round_seed(server_seed, session_id, nonce, client_seed).hex()
                if isinstance(nonce, int) and isinstance(client_seed, str) else None
            )
            bad |= self._disagrees(
                "commitment_mismatch", version, "the round names another commitment than its "
                "session's", "StakePlaced.seed_commitment", session.commitment, commitment,
                round_id)
            bad |= self._disagrees(
                "nonce_out_of_sequence", version, "nonces run 1, 2, 3... per session; a gap "
                "only where a lost round's NonceBurned explains it", "StakePlaced.nonce",
                expected, nonce, round_id)
            bad |= self._disagrees(
                "seed_mismatch", version, "the round's seed is not HMAC-SHA256(revealed seed, "
                "'<session>:<nonce>:<client seed>')", "StakePlaced.seed", derived, seed,
                round_id)
            expected = (nonce if isinstance(nonce, int) else expected) + 1
        return bad
