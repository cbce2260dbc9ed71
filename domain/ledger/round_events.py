"""A round's events as stored and read back: which events make a round, the payload
domain.ledger.recall.round_view reads from each, and the facts of the engine's play made into
the Player's events (domain.ledger.player_events)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from domain.game.facts import JSON, ROUND_FACTS
from domain.ledger import player_events
from domain.ledger.hashchain import STORED_DIGEST
from domain.ledger.player_events import PlayerEvent, RoundFact


def json_value(payload: Mapping[str, JSON]) -> dict[str, JSON]:
    """A payload exactly as it will read back from the store (tuples become lists)."""
    value: dict[str, JSON] = orjson.loads(orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS))
    return value


ROUND_EVENTS: dict[str, type[RoundFact]] = {
    name: getattr(player_events, name) for name in ROUND_FACTS
}
ROUND_EVENT_NAMES = frozenset(("StakePlaced", "RoundSettled", *ROUND_FACTS))
_ENVELOPE = frozenset(
    ("originator_id", "originator_version", "timestamp", "prev_hash", STORED_DIGEST)
)


def round_event_payload(event: object) -> tuple[str, dict[str, Any]]:
    """(name, payload) of a stored round event, as domain.ledger.recall.round_view reads it."""
    name = type(event).__name__
    if isinstance(event, RoundFact):
        return name, dict(event.payload)
    return name, {k: v for k, v in vars(event).items() if k not in _ENVELOPE}


def in_round(event: object) -> bool:
    """Whether a stored event is part of a round (its stake, a fact of its play, its
    settlement), by what it is."""
    return type(event).__name__ in ROUND_EVENT_NAMES and isinstance(event, PlayerEvent)
