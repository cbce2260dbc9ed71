"""The hash chain on a Player's events in memory: clean streams check, every tampering is named."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from ledger_support import open_plain_session

from domain.ledger.event_names import stored_name
from domain.ledger.hashchain import (
    GENESIS,
    ChainedEvent,
    _encode_value,
    canonical_json,
    chained,
    check_chain,
    event_state,
)
from domain.ledger.player import Player

SEED = bytes(range(32))


def played_stream() -> list[ChainedEvent]:
    player = Player.register("hal")
    player.deposit(10_000, "d1", datetime.now(UTC))
    open_plain_session(player, "s1", "f" * 64)
    for n in range(3):
        player.spin("s1", 20, f"r{n}", SEED)
    player.withdraw(100, "w1")
    return [chained(e, stored_name(type(e))) for e in player.collect_events()]


def with_state(event: ChainedEvent, **changes: Any) -> ChainedEvent:
    return dataclasses.replace(event, state={**event.state, **changes})


def test_a_clean_stream_checks_and_starts_from_genesis() -> None:
    events = played_stream()
    assert events[0].prev_hash == GENESIS
    assert all(e.prev_hash == before.digest for before, e in zip(events, events[1:], strict=False))
    assert check_chain(events) == []


def test_a_changed_payload_breaks_the_next_link() -> None:
    events = played_stream()
    events[1] = with_state(events[1], amount=99_999)
    problems = check_chain(events)
    assert [(p.version, p.kind) for p in problems] == [(3, "broken_link")]


def test_a_deleted_event_is_a_version_gap() -> None:
    events = played_stream()
    del events[4]
    assert [(p.version, p.kind) for p in check_chain(events)] == [(6, "version_gap")]


def test_swapped_events_break_the_chain() -> None:
    events = played_stream()
    a, b = events[4], events[5]
    events[4] = dataclasses.replace(b, version=a.version)
    events[5] = dataclasses.replace(a, version=b.version)
    assert {p.kind for p in check_chain(events)} == {"broken_link"}


def test_a_forged_event_with_a_wrong_prev_hash_is_caught() -> None:
    events = played_stream()
    events[6] = with_state(events[6], prev_hash="1" * 64)
    problems = [(p.version, p.kind) for p in check_chain(events)]
    assert problems == [(7, "broken_link"), (8, "broken_link")]


def test_a_changed_last_event_is_caught_against_an_anchor() -> None:
    events = played_stream()
    last = events[-1]
    anchors = {last.stream: (last.version, last.digest)}
    events[-1] = with_state(last, amount=1)
    assert check_chain(events) == []  # the last event has no successor to vouch for it
    assert [p.kind for p in check_chain(events, anchors)] == ["anchor_mismatch"]


def test_a_stream_must_start_at_version_one_from_genesis() -> None:
    events = played_stream()
    assert [p.kind for p in check_chain(events[1:])] == ["version_gap"]
    events[0] = with_state(events[0], prev_hash="2" * 64)
    assert [p.kind for p in check_chain(events)] == ["bad_genesis", "broken_link"]


def _stdlib_canonical(value: object) -> bytes:
    """The canonical encoding as the standard library writes it: the definition of the bytes."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_encode_value
    ).encode("utf-8")


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x == 0 or abs(x) >= 1e-4)
    | st.text()
    | st.datetimes(timezones=st.timezones()),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(_json_values)
def test_the_canonical_encoding_is_the_standard_librarys_byte_for_byte(value: Any) -> None:
    # (Floats under 1e-4 are spelled differently, 0.00001 against 1e-05: no event has one.)
    assert canonical_json(value) == _stdlib_canonical(value)


def test_every_event_of_real_rounds_encodes_canonically() -> None:
    player = Player.register("canonical")
    player.deposit(10**9, "funds", datetime.now(UTC))
    open_plain_session(player, "s", "token-hash")
    for n in range(300):
        player.spin("s", 100, f"r{n}", n.to_bytes(32, "big"))
    for event in player.collect_events():
        record = {"topic": stored_name(type(event)), "state": event_state(event)}
        assert canonical_json(record) == _stdlib_canonical(record)
