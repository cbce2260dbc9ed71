"""What the HTTP API, the pages and the command line ask of the write side (GameService), and
what the composition root runs (Service). infrastructure/application.py implements both; the
composition root (infrastructure/bootstrap.py) types it by them, so mypy checks the fit."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from prometheus_client import CollectorRegistry


@dataclass(frozen=True)
class SessionRef:
    session_id: str
    player_id: str
    open: bool


class GameService(Protocol):
    """Commands raise the errors of domain.errors; they never half-apply."""

    def register_player(self, player_id: str, age_band: object = None) -> None: ...

    def deposit(self, player_id: str, amount: int, request_id: str) -> int: ...

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int: ...

    def open_session(
        self, player_id: str, reality_check_minutes: object = None
    ) -> tuple[str, str]:
        """(session_id, token). The token is shown once; only its hash is stored.
        reality_check_minutes: the player's pick (15, 30, 60) where the profile has checks."""
        ...

    def session_for_token(self, token: str) -> SessionRef | None:
        """The session a player token belongs to (None if no session has that token)."""
        ...

    def known_session_for_token(self, token: str) -> SessionRef | None:
        """The same from what this process already holds, without reading the store (None:
        ask session_for_token). For a spin only: its `open` may be behind another process."""
        ...

    async def spin_async(
        self, session_id: str, stake: int | None, request_id: str, client_seed: str = "",
        free_round: str | None = None,
    ) -> dict[str, Any]:
        """The whole round, settled, as docs/CONTRACT.md's round (domain.ledger.recall.round_view),
        with the session's running figures ("session"). free_round: a campaign's free round
        (stake None: the campaign's)."""
        ...

    def grant_free_rounds(
        self, player_id: str, campaign_id: str, rounds: int, stake: int,
        expires_at: str | None, request_id: str,
    ) -> dict[str, Any]: ...

    def live_free_rounds(self, player_id: str) -> list[dict[str, Any]]: ...

    def cancel_free_rounds(self, player_id: str, campaign_id: str) -> dict[str, Any]: ...

    def close_session(self, session_id: str, closed_by: str = "operator") -> dict[str, Any]:
        """The session object, closed and its seed revealed; closing twice answers the same.
        closed_by: who closes it (player, operator)."""
        ...

    def session(self, session_id: str) -> dict[str, Any]:
        """The session object of CONTRACT.md (server_seed null while open)."""
        ...

    def player_state(self, player_id: str) -> dict[str, Any]: ...

    def round(self, round_id: str) -> dict[str, Any]:
        """A round read back from the write side, exactly as its spin answered it."""
        ...

    def round_ids(self, player_id: str) -> list[str]:
        """The player's round ids, newest first."""
        ...

    # -- player protection (CONTRACT.md "Player protection") ----------------------------------

    def limits(self, player_id: str) -> dict[str, Any]:
        """{limits, pending, excluded, excluded_until}."""
        ...

    def set_limits(self, player_id: str, requested: Mapping[str, Any]) -> dict[str, Any]:
        """Tightening at once, loosening or removal 24 hours later; answers as `limits`."""
        ...

    def exclude(self, player_id: str, until: datetime | None, reason: str) -> dict[str, Any]:
        """{excluded, excluded_until}; closes the player's open sessions at once."""
        ...

    def reality_check(self, session_id: str, proceed: bool) -> dict[str, Any]:
        """The session after the player's answer (False closes it)."""
        ...


class Service(GameService, Protocol):
    """The game service as the composition root wires and runs it."""

    on_conflict_retry: Callable[[], object]  # called once per retry after a lost write race

    def settlement(self, player_id: str, round_id: str) -> dict[str, Any]:
        """What a round read back adds: its settlement with the operator's wallet ({} with
        the built-in wallet)."""
        ...

    @property
    def wallet_owed(self) -> Callable[[], list[dict[str, Any]]] | None:
        """What lists the credits and rollbacks owed to the operator's wallet (None: the
        built-in wallet owes none)."""
        ...

    def close_if_idle(self, session_id: str, idle_seconds: float) -> bool: ...

    @property
    def background(self) -> tuple[Callable[[], Coroutine[Any, Any, None]], ...]:
        """Tasks `serve` runs in its event loop (the wallet's outbox, free rounds' expiry)."""
        ...

    def bind_metrics(self, registry: CollectorRegistry) -> None: ...

    def close(self) -> None: ...
