"""Request ids kept durably: one RequestKey per (player, request id), for as long as the store.

The player's own window of request ids (domain.ledger.player, the last RECENT_REQUESTS) answers a
retry from memory, but it is a count: after enough newer requests an id falls out of it. So the
command that records a request's events records, in the SAME transaction, a RequestKey whose
aggregate id is derived from (player id, request id), with the request's fingerprint and the
answer a replay gives (a balance, or the version of a round's StakePlaced). The store's unique
(id, version) then refuses a second first version: a request id is applied at most once, for as
long as the store keeps events (the contract promises at least 30 days; nothing is ever pruned).

Nothing is read on the way in: a new request costs one more row in its transaction. Only when a
save conflicts, or the newest state refuses a request, is its key looked up, and a request the
key names answers as the first time (RequestIdReused with another body). Streams written before
request keys existed rebuild exactly as before: the player's state does not change.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import EventStore

from domain.ledger.event_names import register_aggregate
from domain.ledger.identifiers import NAMESPACE, player_aggregate_id
from domain.ledger.player import Player
from domain.ledger.player_events import FREE_ROUND_MARK


class RequestKey(Aggregate):
    """(player id, request id) -> the request's fingerprint and the answer a replay gives."""

    TOPIC = "pumpkin:RequestKey"

    class Created(Aggregate.Created):  # the library defines it on every aggregate: named too
        TOPIC = "pumpkin:RequestKey.Created"

    class Issued(Aggregate.Created):
        TOPIC = "pumpkin:RequestKey.Issued"
        JSON_NATIVE_STATE = True
        player_id: str
        request_id: str
        fingerprint: str
        answer: int

    def __init__(self, player_id: str, request_id: str, fingerprint: str, answer: int) -> None:
        self.player_id = player_id
        self.request_id = request_id
        self.fingerprint = fingerprint
        self.answer = answer


def request_key_id(player_id: str, request_id: str) -> UUID:
    """Player ids hold no ':', so the name is unambiguous."""
    return uuid5(NAMESPACE, f"request:{player_id}:{request_id}")


def issued_keys(player: Player, request_id: str | None) -> list[RequestKey.Issued]:
    """The key of the request the player just decided (none if it recorded nothing new): the
    one event that creates it, made directly (the aggregate's own creation costs twice as
    much, on every spin), at the time of the request's last event."""
    if request_id is None or not player.pending_events:
        return []
    remembered = player.recent.get(request_id)
    if remembered is None:
        return []
    fingerprint, answer = remembered
    fields: dict[str, Any] = {
        "originator_id": request_key_id(player.player_id, request_id),
        "originator_version": 1,
        "timestamp": player.pending_events[-1].timestamp,
        "originator_topic": RequestKey.TOPIC,
        "player_id": player.player_id,
        "request_id": request_id,
        "fingerprint": fingerprint,
        "answer": int(answer),
    }
    return [RequestKey.Issued(**fields)]


def recalled_fingerprint(events: EventStore[UUID], key: RequestKey) -> str:
    """The key's fingerprint as the player's window spells it now. A free round's spin key
    written before a spin's fingerprint named its campaign names it from the round's StakePlaced
    (one read, on this rare path), so it still replays and a paid spin's never does."""
    fingerprint = key.fingerprint
    if not fingerprint.startswith("spin:") or FREE_ROUND_MARK in fingerprint:
        return fingerprint
    stream = player_aggregate_id(key.player_id)
    for event in events.get(stream, gt=key.answer - 1, lte=key.answer):
        if isinstance(event, Player.StakePlaced) and event.free_round:
            return f"{fingerprint}{FREE_ROUND_MARK}{event.free_round}"
    return fingerprint


def recorded_key(
    repository: Repository[UUID], player_id: str, request_id: str | None
) -> RequestKey | None:
    """The stored key of a request already applied, or None."""
    if request_id is None:
        return None
    try:
        key: object = repository.get(request_key_id(player_id, request_id))
    except AggregateNotFoundError:
        return None
    return key if isinstance(key, RequestKey) else None


register_aggregate(RequestKey)  # its stored names readable (domain.ledger.event_names)
