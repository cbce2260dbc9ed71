"""The events of the Player aggregate (domain.ledger.player) but a round's: money, sessions,
free rounds and player protection. A round's events (its stake, the facts of its play, its
settlement) are domain.ledger.round_events'; the Player names both kinds on its class.

An event only assigns what its command decided; each carries `prev_hash`, the digest of the
event before it in the stream (domain.ledger.hashchain), through ChainLink. Their stored names
(TOPIC) are permanent (domain.ledger.event_names): the first release's are its Python paths at
the time, later ones `pumpkin:Player.<Name>`. The Player names each as its own attribute
(`Player.StakePlaced`), as the library expects of an aggregate's events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain.ledger.chain_link import ChainLink
from domain.ledger.free_rounds import Campaign
from domain.ledger.guard import (
    PendingLimit,
    with_exclusion,
    with_limits,
    with_reality_check,
    with_refusal,
    with_session,
    without_session,
)
from domain.ledger.sessions import SessionEntry

if TYPE_CHECKING:
    from domain.ledger.player import Player


class PlayerEvent(ChainLink, Aggregate.Event):
    # No TOPIC: never stored, so a subclass that forgets its own fails at import.
    JSON_NATIVE_STATE = True  # every field a JSON value but the timestamp (fast to encode)
    prev_hash: str


class Created(PlayerEvent, Aggregate.Created):
    TOPIC = "domain.player:Player.Created"  # the library's default; Registered is used


class Registered(PlayerEvent, Aggregate.Created):
    TOPIC = "domain.player:Player.Registered"
    player_id: str


class AgeBandRecorded(PlayerEvent):
    """The operator's verified age band of the player, at registration (CONTRACT.md "Player
    protection": the uk stake limits by age)."""

    TOPIC = "pumpkin:Player.AgeBandRecorded"
    age_band: str

    def apply(self, player: Player) -> None:
        player.age_band = self.age_band


# -- money ----------------------------------------------------------------------------------


class Deposited(PlayerEvent):
    TOPIC = "domain.player:Player.Deposited"
    amount: int
    request_id: str
    balance_after: int

    def apply(self, player: Player) -> None:
        player.balance = self.balance_after
        player.remember(self.request_id, f"deposit:{self.amount}", self.balance_after)


class Withdrawn(PlayerEvent):
    TOPIC = "domain.player:Player.Withdrawn"
    amount: int
    request_id: str
    balance_after: int

    def apply(self, player: Player) -> None:
        player.balance = self.balance_after
        player.remember(self.request_id, f"withdraw:{self.amount}", self.balance_after)


class WalletBalanceReported(PlayerEvent):
    """The operator's wallet keeps the money: its balance, as the round is to show it."""

    TOPIC = "pumpkin:Player.WalletBalanceReported"
    balance: int

    def apply(self, player: Player) -> None:
        player.balance = self.balance


# -- sessions -------------------------------------------------------------------------------


class SessionOpened(PlayerEvent):
    TOPIC = "domain.player:Player.SessionOpened"
    session_id: str
    token_hash: str
    seed_commitment: str = ""  # "" for sessions opened before provably fair seeds
    sealed_seed: str = ""
    # Version 2: the player's round count at the opening (None in sessions opened before), so
    # the session knows which of the player's rounds are its own.
    rounds_before: int | None = None
    class_version = 2

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        state["rounds_before"] = None

    def apply(self, player: Player) -> None:
        at = self.timestamp.isoformat()
        entry = SessionEntry.opened(self.seed_commitment, self.sealed_seed, at, self.rounds_before)
        player.sessions = {**player.sessions, self.session_id: entry}


class SessionClosed(PlayerEvent):
    TOPIC = "domain.player:Player.SessionClosed"
    session_id: str
    spins: int
    staked: int
    won: int
    reason: str = ""  # who closed it: player, operator, idle, ... ("" before it was recorded)

    def apply(self, player: Player) -> None:
        player.sessions = {k: v for k, v in player.sessions.items() if k != self.session_id}
        player.guard = without_session(player.guard, self.session_id, self.reason)


class SeedRevealed(PlayerEvent):
    """The closed session's server seed, revealed: SHA-256 of it is the commitment."""

    TOPIC = "pumpkin:Player.SeedRevealed"
    session_id: str
    server_seed: str
    seed_commitment: str

    def apply(self, player: Player) -> None:
        pass


class NonceBurned(PlayerEvent):
    """A round computed with this nonce was lost to a store conflict (another writer recorded
    first); the retry plays with the next nonce. Kept so the record shows it."""

    TOPIC = "pumpkin:Player.NonceBurned"
    session_id: str
    nonce: int
    client_seed: str
    seed: str

    def apply(self, player: Player) -> None:
        entry = player.sessions[self.session_id].with_nonce_burned(self.nonce)
        player.sessions = {**player.sessions, self.session_id: entry}


# -- free rounds ----------------------------------------------------------------------------


class FreeRoundsGranted(PlayerEvent):
    TOPIC = "pumpkin:Player.FreeRoundsGranted"
    campaign_id: str
    rounds: int
    stake: int
    expires_at: str | None
    request_id: str
    fingerprint: str

    def apply(self, player: Player) -> None:
        granted = Campaign(self.rounds, self.stake, self.expires_at, "")
        player.free_rounds = {**player.free_rounds, self.campaign_id: granted}
        player.remember(self.request_id, self.fingerprint, self.campaign_id)


class FreeRoundsCancelled(PlayerEvent):
    TOPIC = "pumpkin:Player.FreeRoundsCancelled"
    campaign_id: str
    rounds_left: int

    def apply(self, player: Player) -> None:
        ended = player.free_rounds[self.campaign_id].ended_by("cancelled")
        player.free_rounds = {**player.free_rounds, self.campaign_id: ended}


class FreeRoundsExpired(PlayerEvent):
    TOPIC = "pumpkin:Player.FreeRoundsExpired"
    campaign_id: str
    rounds_left: int

    def apply(self, player: Player) -> None:
        ended = player.free_rounds[self.campaign_id].ended_by("expired")
        player.free_rounds = {**player.free_rounds, self.campaign_id: ended}


# -- player protection (domain.ledger.protection) -------------------------------------------


class LimitsChanged(PlayerEvent):
    """The operator set limits on the player's behalf: `limits` in force, `pending` loosenings
    ({name: [value or None, effective_at]})."""

    TOPIC = "pumpkin:Player.LimitsChanged"
    requested: dict[str, Any]
    limits: dict[str, Any]
    pending: dict[str, Any]

    def apply(self, player: Player) -> None:
        pending = {name: PendingLimit(value, at) for name, (value, at) in self.pending.items()}
        player.guard = with_limits(player.guard, self.limits, pending)


class Excluded(PlayerEvent):
    """An exclusion asked for (`requested_until`) and the one in force after it (`until`; None:
    permanent). Epoch seconds."""

    TOPIC = "pumpkin:Player.Excluded"
    requested_until: float | None
    until: float | None
    reason: str

    def apply(self, player: Player) -> None:
        player.guard = with_exclusion(player.guard, self.until)


class SessionProtected(PlayerEvent):
    """A session's protection from its opening: its start and reality-check interval."""

    TOPIC = "pumpkin:Player.SessionProtected"
    session_id: str
    reality_check_minutes: int | None

    def apply(self, player: Player) -> None:
        player.guard = with_session(
            player.guard, self.session_id, self.timestamp.timestamp(), self.reality_check_minutes
        )


class RealityCheckAnswered(PlayerEvent):
    TOPIC = "pumpkin:Player.RealityCheckAnswered"
    session_id: str
    proceed: bool
    was_due: bool

    def apply(self, player: Player) -> None:
        if self.was_due:
            player.guard = with_reality_check(
                player.guard, self.session_id, self.timestamp.timestamp()
            )


class ProtectionRefused(PlayerEvent):
    """A spin or session refused by a protection rule (its error code in `rule`)."""

    TOPIC = "pumpkin:Player.ProtectionRefused"
    rule: str
    session_id: str
    stake: int | None
    message: str

    def apply(self, player: Player) -> None:
        player.guard = with_refusal(player.guard, self.session_id, self.rule)


PROTECTION_EVENTS = (
    LimitsChanged, Excluded, SessionProtected, RealityCheckAnswered, ProtectionRefused
)
PROTECTION_EVENT_NAMES = frozenset(cls.__name__ for cls in PROTECTION_EVENTS)


# -- request fingerprints --------------------------------------------------------------------


FREE_ROUND_MARK = "\nfree_round="  # no client seed, session or campaign id holds a newline


def spin_fingerprint(
    session_id: str, stake: int, client_seed: str, free_round: str | None = None
) -> str:
    """What a spin's request id stands for: its session, stake, client seed ("": the spelling
    before seeds) and, for a free round, its campaign (a paid spin's spelling is the one it
    always had, so a free round never replays a paid spin's request, nor the reverse)."""
    base = f"spin:{session_id}:{stake}"
    spelled = f"{base}:{client_seed}" if client_seed else base
    return f"{spelled}{FREE_ROUND_MARK}{free_round}" if free_round else spelled
