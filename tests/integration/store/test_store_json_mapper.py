"""Events encoded by the fast mapper read back, through the library's decoder, exactly as the
library's own encoding of them does: every Player event of real rounds, at every level."""

from __future__ import annotations

from datetime import UTC, datetime

from eventsourcing.persistence import JSONTranscoder, Mapper
from ledger_support import open_plain_session

from domain.ledger.player import Player
from infrastructure.application import PumpkinApplication
from infrastructure.store.json_mapper import JsonNativeMapper
from infrastructure.store.persistence import event_store_env


def test_fast_encoded_events_decode_to_what_the_library_encoding_decodes_to() -> None:
    app = PumpkinApplication(env=event_store_env("sqlite:///:memory:"))
    try:
        transcoder = app.mapper.transcoder
        assert isinstance(app.mapper, JsonNativeMapper) and isinstance(transcoder, JSONTranscoder)
        library = Mapper(transcoder=transcoder)
        player = Player.register("mapper")
        player.deposit(10**9, "funds", datetime.now(UTC))
        player.withdraw(5, "out")
        open_plain_session(player, "s", "a" * 64)
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
            decoded = vars(library.to_domain_event(fast))
            # The fast encoding also marks the hash rule the event is chained under.
            assert decoded.pop("chain_rule", 2) == 2
            assert decoded == vars(library.to_domain_event(slow))
            # And this mapper decodes what it wrote as the library's does (one decode of its own)
            # (which reads the hash rule's mark back as the chain's, not as a field of the event).
            assert vars(app.mapper.to_domain_event(fast)) == decoded
    finally:
        app.close()


def test_the_fast_read_of_a_plain_state_is_the_library_decoders_or_none() -> None:
    """orjson reads a plain state (at most a transcoded timestamp) to exactly the library's
    values; anything it cannot read so is left to the library."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from infrastructure.store.json_mapper import _plain_state

    app = PumpkinApplication(env=event_store_env("sqlite:///:memory:"))
    transcoder = app.mapper.transcoder
    assert isinstance(transcoder, JSONTranscoder)
    app.close()
    values = st.recursive(
        st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
        | st.floats(allow_nan=False) | st.text(max_size=8) | st.sampled_from(["_type_", "\\u"]),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
            st.text(max_size=6) | st.sampled_from(["_type_", "_data_"]), inner, max_size=3),
        max_leaves=12)

    @settings(max_examples=400, deadline=None)
    @given(st.dictionaries(st.text(max_size=6), values, max_size=5), st.booleans())
    def agrees(state: dict[str, object], stamped: bool) -> None:
        if stamped:
            state["timestamp"] = datetime.now(UTC)
        raw = transcoder.encode(state)
        fast = _plain_state(transcoder, raw)
        if fast is not None:
            assert fast == transcoder.decode(raw)

    agrees()
    event = {"timestamp": datetime.now(UTC), "round_id": "x.1", "stake": 100}
    assert _plain_state(transcoder, transcoder.encode(event)) == event  # the fast path is taken
    assert _plain_state(transcoder, b'{"a": 1e400}') is None
    assert _plain_state(transcoder, b'{"\\u005ftype_": "datetime_iso", "_data_": 1}') is None
