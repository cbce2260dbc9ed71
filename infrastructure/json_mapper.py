"""The library's mapper, with a fast encoder for events whose state is plain JSON.

eventsourcing's JSONTranscoder encodes each event's state through the standard library's
encoder, with a callback for every value it does not know: about a tenth of a spin's CPU. An
event class that declares JSON_NATIVE_STATE (every field a JSON value, but the timestamp) is
encoded here by orjson instead, with the library's own transcodings for what orjson hands back
(the timestamp: a datetime). The stored bytes are JSON the library's decoder reads as before,
to the same values; anything else (snapshots, the key aggregates) goes through the library.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import orjson
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import (
    JSONTranscoder,
    Mapper,
    StoredEvent,
    TranscodingNotRegisteredError,
)
from eventsourcing.utils import get_topic


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
