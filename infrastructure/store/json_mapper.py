"""The library's mapper, with a fast encoder for events whose state is plain JSON.

eventsourcing's JSONTranscoder encodes each event's state through the standard library's
encoder, with a callback for every value it does not know: about a tenth of a spin's CPU. An
event class that declares JSON_NATIVE_STATE (every field a JSON value, but the timestamp) is
encoded here by orjson instead, with the library's own transcodings for what orjson hands back
(the timestamp: a datetime). The stored bytes are JSON the library's decoder reads as before,
to the same values; anything else (snapshots, the key aggregates) goes through the library.

Reading, an event stored at an older `class_version` is upcast as the library's mapper does it
(domain.ledger.event_names); this one also records on it the digest of the state as stored, which
the hash chain covers (domain.ledger.hashchain.STORED_DIGEST), from the same single decode.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, cast
from uuid import UUID

import orjson
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import (
    JSONTranscoder,
    Mapper,
    MapperDeserialisationError,
    StoredEvent,
    TranscodingNotRegisteredError,
    find_id_convertor,
)
from eventsourcing.utils import get_topic, resolve_topic

from domain.ledger.hashchain import STORED_DIGEST, event_digest


class JsonNativeMapper(Mapper[UUID]):
    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        event_class = type(domain_event)
        transcoder = self.transcoder
        if (
            not getattr(event_class, "JSON_NATIVE_STATE", False)
            or not isinstance(transcoder, JSONTranscoder)
            or self.compressor is not None
            or self.cipher is not None
        ):
            return super().to_stored_event(domain_event)
        state = dict(vars(domain_event))
        originator_id = state.pop("originator_id")
        originator_version = state.pop("originator_version")
        class_version = getattr(event_class, "class_version", 1)
        if class_version > 1:
            state["class_version"] = class_version

        def transcoded(value: Any) -> dict[str, Any]:
            transcoding = transcoder.types.get(type(value))
            if transcoding is None:
                raise TranscodingNotRegisteredError(f"cannot encode {type(value).__name__}")
            return {"_type_": transcoding.name, "_data_": transcoding.encode(value)}

        return StoredEvent(
            originator_id=originator_id,
            originator_version=originator_version,
            topic=get_topic(event_class),
            state=orjson.dumps(state, default=transcoded, option=orjson.OPT_PASSTHROUGH_DATETIME),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> DomainEventProtocol[UUID]:
        """The library's Mapper.to_domain_event (eventsourcing 9.5), but an event stored at an
        older version than its class is digested as stored before it is upcast, from the same
        single decode."""
        cls = resolve_topic(stored_event.topic)
        current = getattr(cls, "class_version", 1)
        try:
            state = self._stored_state(stored_event)
        except Exception as e:
            raise MapperDeserialisationError(
                f"Failed to deserialise state of stored event with topic '{stored_event.topic}', "
                f"originator_id '{stored_event.originator_id}' and originator_version "
                f"{stored_event.originator_version}: {e}"
            ) from e
        from_version = state.pop("class_version", 1)
        digest = None
        if from_version < current:
            digest = event_digest(
                stored_event.originator_id, stored_event.originator_version,
                stored_event.topic, state,
            )
        id_convertor = find_id_convertor(cls, cast(Hashable, type(stored_event.originator_id)))
        state["originator_id"] = id_convertor(stored_event.originator_id)
        state["originator_version"] = stored_event.originator_version
        while from_version < current:
            getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(state)
            from_version += 1
        if digest is not None:
            state[STORED_DIGEST] = digest
        domain_event = object.__new__(cls)
        object.__setattr__(domain_event, "__dict__", state)
        return cast(DomainEventProtocol[UUID], domain_event)

    def _stored_state(self, stored_event: StoredEvent) -> dict[str, Any]:
        """The event's state as it was written (before any upcast)."""
        state = stored_event.state
        if self.cipher:
            state = self.cipher.decrypt(state)
        if self.compressor:
            state = self.compressor.decompress(state)
        decoded: dict[str, Any] = self.transcoder.decode(state)
        return decoded
