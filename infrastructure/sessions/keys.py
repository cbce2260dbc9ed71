"""The sessions' keys: small aggregates that find a session's player, and a token's session,
without scanning, and keep a closed session's final figures.

- SessionKey (its id is the session id): the player, and once closed, the session as it closed
  (`closed`: the session object of CONTRACT.md, its seed revealed), read by GET /sessions/{sid}.
- TokenKey (its id derives from SHA-256 of the token): the session and player of a token; the
  token itself is never stored.

Their stored names are permanent (domain.ledger.event_names): the first ones are the Python
paths they had when first written (`infrastructure.application:...`), wherever they live now.
"""

from __future__ import annotations

import hashlib
from typing import Any
from uuid import UUID, uuid5

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate

from domain.errors import SessionNotFound
from domain.ledger.chain_link import ChainLink
from domain.ledger.event_names import register_aggregate
from domain.ledger.identifiers import NAMESPACE
from infrastructure.store import es_compat
from infrastructure.store.event_store import PumpkinStore

CACHED = 100_000


class SessionKey(Aggregate):
    """session id -> its player. Its id is the session id, so a spin finds its player at once."""

    TOPIC = "infrastructure.application:SessionKey"  # permanent (domain.ledger.event_names)

    class Created(Aggregate.Created):
        TOPIC = "infrastructure.application:SessionKey.Created"  # the library's default, unused

    class Issued(ChainLink, Aggregate.Created):
        TOPIC = "infrastructure.application:SessionKey.Issued"
        prev_hash: str
        player_id: str

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.chain_head = ""  # set by ChainLink as each event applies
        self.closed: dict[str, Any] | None = None  # the closed session, as GET /sessions shows

    class Closed(ChainLink, Aggregate.Event):
        """The session closed: its figures and revealed seed, read by GET /sessions/{sid}."""

        TOPIC = "pumpkin:SessionKey.Closed"
        prev_hash: str
        session: dict[str, Any]

        def apply(self, key: SessionKey) -> None:
            key.closed = dict(self.session)

    def close(self, session: dict[str, Any]) -> None:
        self.trigger_event(SessionKey.Closed, prev_hash=self.chain_head, session=session)


class TokenKey(Aggregate):
    """SHA-256 of a player token -> its session, so a token is looked up without scanning."""

    TOPIC = "infrastructure.application:TokenKey"  # permanent (domain.ledger.event_names)

    class Created(Aggregate.Created):
        TOPIC = "infrastructure.application:TokenKey.Created"  # the library's default, unused

    class Issued(ChainLink, Aggregate.Created):
        TOPIC = "infrastructure.application:TokenKey.Issued"
        prev_hash: str
        player_id: str
        session_id: str

    def __init__(self, player_id: str, session_id: str) -> None:
        self.player_id = player_id
        self.session_id = session_id


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_key_id(hashed: str) -> UUID:
    return uuid5(NAMESPACE, f"token:{hashed}")


def issued_keys(player_id: str, session_id: str, hashed_token: str) -> tuple[SessionKey, TokenKey]:
    """The two keys of a session being opened (saved with its SessionOpened)."""
    session_key = es_compat.create(
        SessionKey, SessionKey.Issued, id=UUID(hex=session_id), player_id=player_id,
        prev_hash="",
    )
    token_key = es_compat.create(
        TokenKey, TokenKey.Issued, id=token_key_id(hashed_token), player_id=player_id,
        session_id=session_id, prev_hash="",
    )
    return session_key, token_key


class SessionDirectory:
    """Which player a session is, and which session a token is: immutable facts, read from the
    keys once and then kept in memory (bounded by clearing when full)."""

    def __init__(self, store: PumpkinStore) -> None:
        self.store = store
        self._players: dict[str, str] = {}  # session id -> player id
        self._tokens: dict[str, tuple[str, str]] = {}  # token hash -> (session id, player id)

    def known_player_of(self, session_id: str) -> str | None:
        """The session's player if this process knows it, without reading the store."""
        return self._players.get(session_id)

    def player_of(self, session_id: str) -> str:
        known = self._players.get(session_id)
        if known is not None:
            return known
        key = self.session_key(session_id)
        _remember(self._players, session_id, key.player_id)
        return key.player_id

    def session_key(self, session_id: str) -> SessionKey:
        try:
            key: object = self.store.repository.get(UUID(hex=session_id))
        except (AggregateNotFoundError, ValueError, TypeError, AttributeError):
            raise SessionNotFound(f"no session {session_id!r}") from None
        if not isinstance(key, SessionKey):
            raise SessionNotFound(f"no session {session_id!r}")
        return key

    def opened(self, session_id: str, player_id: str) -> None:
        _remember(self._players, session_id, player_id)

    def known_token(self, token: str) -> tuple[str, str] | None:
        """(session id, player id) of a token this process knows, without reading the store."""
        return self._tokens.get(token_hash(token))

    def token(self, token: str) -> tuple[str, str] | None:
        """(session id, player id) of a token; None if no session has it."""
        hashed = token_hash(token)
        known = self._tokens.get(hashed)
        if known is None:
            try:
                key: object = self.store.repository.get(token_key_id(hashed))
            except AggregateNotFoundError:
                return None
            if not isinstance(key, TokenKey):
                return None
            known = (key.session_id, key.player_id)
            _remember(self._tokens, hashed, known)
        return known


def _remember(cache: dict[str, Any], key: str, value: Any) -> None:
    if len(cache) >= CACHED:
        cache.clear()
    cache[key] = value


register_aggregate(SessionKey)  # their stored names readable (domain.ledger.event_names)
register_aggregate(TokenKey)
