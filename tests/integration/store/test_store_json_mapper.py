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
