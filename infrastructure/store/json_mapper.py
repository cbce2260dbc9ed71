"""The library's mapper, with a fast encoder for events whose state is plain JSON.

eventsourcing's JSONTranscoder encodes each event's state through the standard library's
encoder, with a callback for every value it does not know: about a tenth of a spin's CPU. An
event class that declares JSON_NATIVE_STATE (every field a JSON value, but the timestamp) is
encoded here by orjson instead, with the library's own transcodings for what orjson hands back
(the timestamp: a datetime). The stored bytes are JSON the library's decoder reads as before,
to the same values; anything else (snapshots, the key aggregates) goes through the library.

Writing, a chained event (domain.ledger.chain_link) is stored with the chain rule it was hashed
under (domain.ledger.hashchain: `chain_rule`, beside its `class_version`). Reading, its class is
found in the product's registry only (domain.ledger.event_names.stored_class: a row naming any
other class is UnknownTopic, never an import); an event stored at an older `class_version` is
upcast as the library's mapper does it, and one stored under an older rule or version has the
digest of its state as stored recorded on it (domain.ledger.hashchain.STORED_DIGEST), from the
same single decode.
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
from eventsourcing.utils import get_topic

from domain.ledger.chain_link import ChainLink
from domain.ledger.event_names import stored_class
from domain.ledger.hashchain import CHAIN_RULE, CHAIN_RULE_KEY, STORED_DIGEST, stored_digest


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
            return self._library_stored_event(domain_event)
        state = dict(vars(domain_event))
        originator_id = state.pop("originator_id")
        originator_version = state.pop("originator_version")
        class_version = getattr(event_class, "class_version", 1)
        if class_version > 1:
            state["class_version"] = class_version
        if isinstance(domain_event, ChainLink):
            state[CHAIN_RULE_KEY] = CHAIN_RULE

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

    def _library_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        """The library's Mapper.to_stored_event (eventsourcing 9.5), with a chained event's
        rule beside its class version."""
        state = dict(vars(domain_event))
        originator_id = state.pop("originator_id")
        originator_version = state.pop("originator_version")
        class_version = getattr(type(domain_event), "class_version", 1)
        if class_version > 1:
            state["class_version"] = class_version
        if isinstance(domain_event, ChainLink):
            state[CHAIN_RULE_KEY] = CHAIN_RULE
        stored_state = self.transcoder.encode(state)
        if self.compressor:
            stored_state = self.compressor.compress(stored_state)
        if self.cipher:
            stored_state = self.cipher.encrypt(stored_state)
        return StoredEvent(
            originator_id=originator_id,
            originator_version=originator_version,
            topic=get_topic(type(domain_event)),
            state=stored_state,
        )

    def to_domain_event(self, stored_event: StoredEvent) -> DomainEventProtocol[UUID]:
        """The library's Mapper.to_domain_event (eventsourcing 9.5), but the class is found in
        the product's registry alone, and an event stored under an older chain rule or at an
        older version than its class is digested as stored before it is upcast, from the same
        single decode."""
        cls = stored_class(stored_event.topic)
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
        rule = state.pop(CHAIN_RULE_KEY, 1)
        state.pop(STORED_DIGEST, None)  # a row never names its own digest: it is computed
        digest = None
        if issubclass(cls, ChainLink) and (from_version < current or rule != CHAIN_RULE):
            try:
                digest = stored_digest(
                    stored_event.originator_id, stored_event.originator_version,
                    stored_event.topic, state, rule, from_version,
                )
            except ValueError as e:
                raise MapperDeserialisationError(str(e)) from e
        id_convertor = find_id_convertor(cls, cast(Hashable, type(stored_event.originator_id)))
        state["originator_id"] = id_convertor(stored_event.originator_id)
        state["originator_version"] = stored_event.originator_version
        while from_version < current:
            getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(state)
            from_version += 1
        if digest is not None:
            state[STORED_DIGEST] = digest
        domain_event: Any = object.__new__(cls)
        object.__setattr__(domain_event, "__dict__", state)
        return cast(DomainEventProtocol[UUID], domain_event)

    def _stored_state(self, stored_event: StoredEvent) -> dict[str, Any]:
        """The event's state as it was written (before any upcast)."""
        state = stored_event.state
        if not (self.cipher or self.compressor) and isinstance(self.transcoder, JSONTranscoder):
            fast = _plain_state(self.transcoder, state)
            if fast is not None:
                return fast
        if self.cipher:
            state = self.cipher.decrypt(state)
        if self.compressor:
            state = self.compressor.decompress(state)
        decoded: dict[str, Any] = self.transcoder.decode(state)
        return decoded


_TYPED = b'"_type_"'
_DIGITS = bytes(48 if 48 <= c <= 57 else 46 for c in range(256))  # a digit: "0"; else "."
_LONG_NUMBER = b"0" * 19  # 19 digits in a row, once every byte is read as digit or not


def _plain_state(transcoder: JSONTranscoder, state: bytes) -> dict[str, Any] | None:
    """The library decoder's answer for a state that is plain JSON but for, at most, its
    timestamp (every event of the product's own): read by orjson, about five times faster;
    None for anything else (the library decodes it then): a state orjson refuses (lone
    surrogates, NaN, 1e400), one with a run of 19 digits (orjson reads an integer beyond 64
    bits as a float), one with a \\u escape (an escaped key could spell "_type_")."""
    decoded = plain_state_raw(state)
    if decoded is None:
        return None
    if _TYPED in state:
        stamp = decoded.get("timestamp")
        if type(stamp) is not dict or len(stamp) != 2 or "_data_" not in stamp:
            return None
        transcoding = transcoder.names.get(stamp.get("_type_"))  # type: ignore[arg-type]
        if transcoding is None or type(stamp["_data_"]) is not str:
            return None
        decoded["timestamp"] = transcoding.decode(stamp["_data_"])
    return decoded


def plain_state_raw(state: bytes) -> dict[str, Any] | None:
    """The state as orjson reads it, its one transcoded value (the timestamp) left as the
    library wrote it; None where orjson's reading could differ from the library's (above)."""
    if state.count(_TYPED) > 1 or b"\\u" in state or _LONG_NUMBER in state.translate(_DIGITS):
        return None
    try:
        decoded = orjson.loads(state)
    except orjson.JSONDecodeError:
        return None
    return decoded if type(decoded) is dict else None
