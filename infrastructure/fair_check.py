"""The provably fair check of one player's stream (the game rules, section 8), as verify runs it.

Fed the stream's events in order: each session that opened with a commitment is checked once
its seed is revealed: SHA-256(revealed seed) = the commitment it opened with (and the one its
reveal and rounds carry); every round's seed = HMAC-SHA256(seed, "<session>:<nonce>:<client
seed>"); the nonces run 1, 2, 3... in the stream's order, a gap only where NonceBurned records a
round lost to a store conflict. Sessions opened before commitments are counted apart (their
rounds are re-derived from their recorded seeds, as always).

Problem kinds: commitment_mismatch, seed_mismatch, nonce_out_of_sequence, seed_not_revealed.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain.fairness import commitment_of, round_seed
from domain.player import Player

Report = Callable[..., None]  # StreamChecker.problem(kind, version, detail, *, round_id, field..)


@dataclass
class _Session:
    commitment: str
    opened_at: int
    rounds: list[tuple[int, str, int | None, str, str, str | None]] = field(default_factory=list)
    burned: list[tuple[int, int]] = field(default_factory=list)  # (version, nonce)
    closed_at: int | None = None


@dataclass
class FairCounts:
    sessions_verified: int = 0
    sessions_open: int = 0
    sessions_before_commitments: int = 0
    rounds_checked: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


class FairChecker:
    def __init__(self, report: Report) -> None:
        self.report = report
        self.counts = FairCounts()
        self.sessions: dict[str, _Session | None] = {}  # None: opened before commitments

    def feed(self, event: Any) -> None:
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
                session.burned.append((version, event.nonce))
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

    def _check(self, session_id: str, session: _Session, reveal: Any, version: int) -> None:
        ok = True
        try:
            server_seed = bytes.fromhex(str(reveal.server_seed))
        except ValueError:
            server_seed = b""
        if not hmac.compare_digest(commitment_of(server_seed), session.commitment):
            ok = False
            self.report("commitment_mismatch", version,
                        f"SHA-256 of session {session_id}'s revealed seed is not the commitment "
                        "it opened with", field="SeedRevealed.server_seed",
                        expected=session.commitment, found=commitment_of(server_seed))
        if reveal.seed_commitment != session.commitment:
            ok = False
            self.report("commitment_mismatch", version,
                        "the reveal names another commitment than the session opened with",
                        field="SeedRevealed.seed_commitment", expected=session.commitment,
                        found=reveal.seed_commitment)
        ok = self._check_rounds(session_id, session, server_seed) and ok
        if ok:
            self.counts.sessions_verified += 1

    def _check_rounds(self, session_id: str, session: _Session, server_seed: bytes) -> bool:
        ok = True
        burned = {nonce for _, nonce in session.burned}
        expected = 1
        for version, round_id, nonce, client_seed, seed, commitment in session.rounds:
            self.counts.rounds_checked += 1
            while expected in burned:
                expected += 1
            if commitment != session.commitment:
                ok = False
                self.report("commitment_mismatch", version,
                            "the round names another commitment than its session's",
                            round_id=round_id, field="StakePlaced.seed_commitment",
                            expected=session.commitment, found=commitment)
            if nonce != expected:
                ok = False
                self.report("nonce_out_of_sequence", version,
                            "nonces run 1, 2, 3... per session; a gap only where a lost "
                            "round's NonceBurned explains it", round_id=round_id,
                            field="StakePlaced.nonce", expected=expected, found=nonce)
            derived = (
                round_seed(server_seed, session_id, nonce, client_seed).hex()
                if isinstance(nonce, int) and isinstance(client_seed, str) else None
            )
            if derived != seed:
                ok = False
                self.report("seed_mismatch", version,
                            "the round's seed is not HMAC-SHA256(revealed seed, "
                            "'<session>:<nonce>:<client seed>')", round_id=round_id,
                            field="StakePlaced.seed", expected=derived, found=seed)
            expected = (nonce if isinstance(nonce, int) else expected) + 1
        return ok
