"""Events encoded by the fast mapper read back, through the library's decoder, exactly as the
library's own encoding of them does: every Player event of real rounds, at every level. And the
fast decoder (FastJSONTranscoder) reads every stored state, and any JSON, as the library's does."""

from __future__ import annotations

import json
from typing import Any

from eventsourcing.persistence import (
    DatetimeAsISO,
    DecimalAsStr,
    JSONTranscoder,
    Mapper,
    UUIDAsHex,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.ledger.player import Player
from infrastructure.application import PumpkinApplication
from infrastructure.store.json_mapper import FastJSONTranscoder, JsonNativeMapper
from infrastructure.store.persistence import event_store_env


def _registered(transcoder: JSONTranscoder) -> JSONTranscoder:
    for transcoding in (UUIDAsHex(), DecimalAsStr(), DatetimeAsISO()):
        transcoder.register(transcoding)
    return transcoder


LIBRARY = _registered(JSONTranscoder())
FAST = _registered(FastJSONTranscoder())


def _decoded(transcoder: JSONTranscoder, raw: bytes) -> tuple[str, str]:
    """What decoding gives (repr, so NaN equals NaN and types show), or the error's type."""
    try:
        return "value", repr(transcoder.decode(raw))
    except Exception as error:  # noqa: BLE001 - the same failure is the expected answer
        return "error", type(error).__name__


def test_fast_encoded_events_decode_to_what_the_library_encoding_decodes_to() -> None:
    app = PumpkinApplication(env=event_store_env("sqlite:///:memory:"))
    try:
        transcoder = app.mapper.transcoder
        assert isinstance(app.mapper, JsonNativeMapper) and isinstance(transcoder, JSONTranscoder)
        library = Mapper(transcoder=LIBRARY)
        player = Player.register("mapper")
        player.deposit(10**9, "funds")
        player.withdraw(5, "out")
        player.open_session("s", "a" * 64)
        for n in range(400):  # past every level unlock, with features along the way
            player.spin("s", 100, f"r{n}", n.to_bytes(32, "big"))
        player.close_session("s")
        events = player.collect_events()
        names = {type(e).__name__ for e in events}
        assert {"Registered", "LevelUnlocked", "RoundSettled", "SessionClosed"} <= names
        for event in events:
            fast = app.mapper.to_stored_event(event)
            slow = library.to_stored_event(event)
            assert (fast.originator_id, fast.originator_version, fast.topic) == (
                slow.originator_id,
                slow.originator_version,
                slow.topic,
            )
            assert vars(library.to_domain_event(fast)) == vars(library.to_domain_event(slow))
            assert vars(app.mapper.to_domain_event(fast)) == vars(library.to_domain_event(fast))
            assert _decoded(FAST, fast.state) == _decoded(LIBRARY, fast.state)
    finally:
        app.close()


TRICKY = [
    b'{"at":{"_type_":"datetime_iso","_data_":"2026-12-01T13:00:00.123456+00:00"},"n":1}',
    b'{"a":{"b":{"_type_":"uuid_hex","_data_":"6a0e7d3c58f44b9c9a512f1d6c0b7e11"}}}',
    b'{"_type_":"decimal_str","_data_":"1.50"}',
    b'{"a":"_type_","b":{"_type_":"datetime_iso","_data_":"2026-12-01T13:00:00"}}',
    b'{"a":{"_type_":"datetime_iso","_data_":"2026-12-01T13:00:00","c":2}}',
    b'{"a":{"_type_":"nobody_registered_this","_data_":1}}',
    b'{"a":{"_type_":"datetime_iso"}}',
    b'{"a":NaN,"b":Infinity}',
    b'{"a":"\\ud800"}',
    b'{"a":123456789012345678901234567890}',
    b'{"a":1.5e300,"b":-0.0,"c":0.1,"d":1e-7}',
    b'{"a":1,"a":2}',
    b'[{"_type_":"decimal_str","_data_":"2"}]',
    b'"text"',
    b'{"a":1} trailing',
    b'{"caf\xc3\xa9":"\xe2\x82\xac"}',
    b'{"a":"\xff"}',
    b"",
]


def test_the_fast_decoder_reads_tricky_json_as_the_library_does() -> None:
    for raw in TRICKY:
        assert _decoded(FAST, raw) == _decoded(LIBRARY, raw), raw


_TRANSCODED = st.one_of(
    st.datetimes().map(lambda d: {"_type_": "datetime_iso", "_data_": d.isoformat()}),
    st.uuids().map(lambda u: {"_type_": "uuid_hex", "_data_": u.hex}),
    st.decimals(allow_nan=False).map(lambda d: {"_type_": "decimal_str", "_data_": str(d)}),
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["_type_", "_data_"]) | _TRANSCODED,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["_type_", "_data_", "a", "b"]) | st.text(max_size=4),
                      inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=6) | st.sampled_from(["_type_", "_data_"]), _JSON,
                       max_size=6))
def test_the_fast_decoder_reads_any_state_as_the_library_does(state: dict[str, Any]) -> None:
    raw = json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode()
    assert _decoded(FAST, raw) == _decoded(LIBRARY, raw)
