"""How the value objects in an aggregate's state are written to a snapshot: the library's
transcodings (eventsourcing's JSONTranscoder), each writing the stored layout its own module
defines, under a name that is permanent like an event's topic.

A snapshot's JSON holds `{"_type_": <name>, "_data_": <stored layout>}` where such a value
stands; the layouts are documented beside the values (domain.ledger.sessions, .free_rounds,
.guard) and the state's versions in domain.ledger.player_state.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import JSONTranscoder, Transcoding

from domain.ledger.free_rounds import Campaign
from domain.ledger.guard import Guard
from domain.ledger.sessions import SessionEntry


class SessionEntryAsList(Transcoding):
    type = SessionEntry
    name = "pumpkin_session_entry"

    def encode(self, obj: SessionEntry) -> list[Any]:
        return obj.stored()

    def decode(self, data: list[Any]) -> SessionEntry | None:
        return SessionEntry.from_stored(data)


class CampaignAsList(Transcoding):
    type = Campaign
    name = "pumpkin_campaign"

    def encode(self, obj: Campaign) -> list[Any]:
        return obj.stored()

    def decode(self, data: list[Any]) -> Campaign:
        return Campaign.from_stored(data)


class GuardAsDict(Transcoding):
    type = Guard
    name = "pumpkin_guard"

    def encode(self, obj: Guard) -> dict[str, Any]:
        return obj.stored()

    def decode(self, data: dict[str, Any]) -> Guard:
        return Guard.from_stored(data)


def register_state_transcodings(transcoder: JSONTranscoder) -> None:
    transcoder.register(SessionEntryAsList())
    transcoder.register(CampaignAsList())
    transcoder.register(GuardAsDict())
