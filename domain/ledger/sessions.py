"""A player's open sessions: the entry the Player keeps for each, and the session object of
CONTRACT.md built from it (pure: times are passed in).

The Player holds OPEN sessions only, so its state stays small however many sessions it had; a
closed session's figures and revealed seed live in its events (and on its SessionKey stream,
infrastructure/sessions/keys.py). Times are ISO 8601, from the events' timestamps.

Stored layout (a snapshot holds it through the store's transcoding, infrastructure/store/
state_transcodings.py): the list [open, spins, staked, won, next_nonce, seed_commitment,
sealed_seed, opened_at, last_active_at, rounds_before, last_round]. Entries written before
provably fair seeds hold the first four only (no commitment: their rounds draw a seed from the
OS, as they always did); entries from before round numbers were kept hold nine. Old snapshots
may hold closed entries: they are dropped as they are read, as replaying the stream drops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class SessionEntry:
    spins: int
    staked: int
    won: int
    next_nonce: int  # the nonce of the next round (0: a session from before commitments)
    seed_commitment: str  # "": opened before provably fair seeds
    sealed_seed: str  # the server seed, sealed by the service (never the seed itself)
    opened_at: str  # "": not known (opened before times were kept)
    last_active_at: str
    # The player's round count when the session opened and the number of its latest round:
    # the session's rounds lie between them (None: opened before they were kept).
    rounds_before: int | None = None
    last_round: int | None = None

    @classmethod
    def opened(
        cls, seed_commitment: str, sealed_seed: str, at: str, rounds_before: int | None
    ) -> SessionEntry:
        return cls(0, 0, 0, 1, seed_commitment, sealed_seed, at, at, rounds_before, None)

    @property
    def committed(self) -> bool:
        """Whether its rounds derive their seeds from a committed server seed."""
        return bool(self.seed_commitment)

    def with_round(self, number: int, staked: int, nonce: int | None, at: str) -> SessionEntry:
        """After round `number` started (`staked` taken from the balance: 0 for a free one)."""
        return SessionEntry(
            self.spins + 1,
            self.staked + staked,
            self.won,
            self.next_nonce if nonce is None else nonce + 1,
            self.seed_commitment,
            self.sealed_seed,
            self.opened_at,
            at,
            self.rounds_before,
            None if self.rounds_before is None else number,
        )

    def with_win(self, win: int) -> SessionEntry:
        return SessionEntry(
            self.spins, self.staked, self.won + win, self.next_nonce, self.seed_commitment,
            self.sealed_seed, self.opened_at, self.last_active_at, self.rounds_before,
            self.last_round,
        )

    def with_nonce_burned(self, nonce: int) -> SessionEntry:
        return SessionEntry(
            self.spins, self.staked, self.won, max(self.next_nonce, nonce + 1),
            self.seed_commitment, self.sealed_seed, self.opened_at, self.last_active_at,
            self.rounds_before, self.last_round,
        )

    def round_span(self) -> tuple[int, int] | None:
        """(first, last): the player's round numbers the session's rounds lie within, or None
        when they were not kept; every number between is the session's when the span holds
        exactly `spins` numbers."""
        if self.rounds_before is None:
            return None
        if self.last_round is None:
            return (self.rounds_before + 1, self.rounds_before)  # no round yet: empty
        return (self.rounds_before + 1, self.last_round)

    # -- the stored layout -------------------------------------------------------------------

    def stored(self) -> list[Any]:
        return [
            True, self.spins, self.staked, self.won, self.next_nonce, self.seed_commitment,
            self.sealed_seed, self.opened_at, self.last_active_at, self.rounds_before,
            self.last_round,
        ]

    @classmethod
    def from_stored(cls, stored: list[Any]) -> SessionEntry | None:
        """The entry of a stored list (any of the three layouts); None for a closed one."""
        if not stored[0]:
            return None
        spins, staked, won = int(stored[1]), int(stored[2]), int(stored[3])
        if len(stored) == 4:
            return cls(spins, staked, won, 0, "", "", "", "")
        rounds_before = stored[9] if len(stored) > 9 else None
        last_round = stored[10] if len(stored) > 10 else None
        return cls(
            spins, staked, won, int(stored[4]), str(stored[5]), str(stored[6]), str(stored[7]),
            str(stored[8]), rounds_before, last_round,
        )


def seconds_since(start: str, at: datetime | None) -> int:
    """Whole seconds from an ISO 8601 time to `at` (0 if either is unknown)."""
    if not start or at is None:
        return 0
    return max(0, int((at - datetime.fromisoformat(start)).total_seconds()))


def idle_seconds(entry: SessionEntry, now: datetime) -> float:
    """Seconds since the session's last round (or its opening)."""
    last = entry.last_active_at or entry.opened_at
    if not last:
        return float("inf")  # never recorded: an old session, due for closing
    return (now - datetime.fromisoformat(last)).total_seconds()


def running_figures(entry: SessionEntry, now: datetime) -> dict[str, Any]:
    """What every spin answer carries: the session's figures so far."""
    return {
        "spins": entry.spins,
        "staked": entry.staked,
        "won": entry.won,
        "net": entry.won - entry.staked,
        "elapsed_seconds": seconds_since(entry.opened_at, now),
    }


def open_view(
    session_id: str, player_id: str, entry: SessionEntry, now: datetime
) -> dict[str, Any]:
    """The session object of CONTRACT.md while it is open (its seed not revealed)."""
    return {
        "session_id": session_id,
        "player_id": player_id,
        "open": True,
        "opened_at": entry.opened_at or None,
        "closed_at": None,
        **running_figures(entry, now),
        "seed_commitment": entry.seed_commitment or None,
        "server_seed": None,
        "closed_by": None,
    }


# Who closed a session closed before the closer was recorded (its SessionClosed has no reason).
UNRECORDED_CLOSER = "unknown"


def closed_view(
    session_id: str,
    player_id: str,
    entry: SessionEntry,
    closed_at: datetime,
    server_seed: str | None,
    closed_by: str = "",
) -> dict[str, Any]:
    """The session as it closes at `closed_at`, from its entry before the close."""
    return {
        **open_view(session_id, player_id, entry, closed_at),
        "open": False,
        "closed_at": closed_at.isoformat(),
        "server_seed": server_seed,
        "closed_by": closed_by or UNRECORDED_CLOSER,
    }
