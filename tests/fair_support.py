"""Provably fair sessions seen from outside: the standard library's own SHA-256 and HMAC, never
the service's code, and the server seed read the way only the service can (for secrecy scans)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from domain.ledger.player import Player, player_aggregate_id
from infrastructure.application import PumpkinApplication


def derived_seed(server_seed_hex: str, session_id: str, nonce: int, client_seed: str) -> str:
    message = f"{session_id}:{nonce}:{client_seed}".encode()
    return hmac.new(bytes.fromhex(server_seed_hex), message, hashlib.sha256).hexdigest()


def commitment(server_seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(server_seed_hex)).hexdigest()


def unrevealed_seed(app: PumpkinApplication, player_id: str, session_id: str) -> bytes:
    """The open session's server seed, opened with the service's key (what a scan looks for)."""
    for event in app.events.get(player_aggregate_id(player_id)):
        if isinstance(event, Player.SessionOpened) and event.session_id == session_id:
            return app.seed_vault.open(session_id, event.sealed_seed)
    raise AssertionError("no such session")


def funded_session(app: PumpkinApplication, player_id: str, amount: int = 100_000) -> str:
    app.register_player(player_id)
    app.deposit(player_id, amount, "fund")
    session_id, _ = app.open_session(player_id)
    return session_id


def stream_events(app: PumpkinApplication, player_id: str, name: str) -> list[Any]:
    return [e for e in app.events.get(player_aggregate_id(player_id))
            if type(e).__name__ == name]


class Clock:
    """The application's clock, moved by the test (nobody waits a rule out)."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


@contextmanager
def played_on_a_clock(
    store_url: str, player_id: str
) -> Iterator[tuple[PumpkinApplication, Clock, str]]:
    """An application on a clock the test moves, and a session with one round played."""
    clock = Clock()
    with PumpkinApplication.from_url(store_url, clock=clock) as app:
        session_id = funded_session(app, player_id)
        app.spin(session_id, 20, "r1")
        yield app, clock, session_id
