"""The hash chain read back from the store: clean streams check; edits made in the database show."""

from __future__ import annotations

from collections.abc import Callable

from store_support import run_sql

from domain.ledger.player import player_aggregate_id
from infrastructure.application import PumpkinApplication


def played(app: PumpkinApplication) -> str:
    app.register_player("ivy")
    app.deposit("ivy", 5_000, "d1")
    session_id, _ = app.open_session("ivy")
    for n in range(4):
        app.spin(session_id, 20, f"r{n}")
    app.withdraw("ivy", 10, "w1")
    return player_aggregate_id("ivy").hex


def stored_state(store_url: str, stream: str, version: int) -> bytes:
    rows = run_sql(
        store_url,
        "SELECT state FROM {TABLE} WHERE originator_id = %s AND originator_version = %s",
        (stream, version),
    )
    return bytes(rows[0][0])


def set_state(store_url: str, stream: str, version: int, edit: Callable[[bytes], bytes]) -> None:
    new = edit(stored_state(store_url, stream, version))
    run_sql(
        store_url,
        "UPDATE {TABLE} SET state = %s WHERE originator_id = %s AND originator_version = %s",
        (new, stream, version),
    )


def kinds(app: PumpkinApplication) -> list[tuple[int, str]]:
    return [(p.version, p.kind) for p in app.check_player_chain("ivy")]


def test_a_stream_read_back_from_the_store_checks_clean(
    service: PumpkinApplication, store_url: str
) -> None:
    played(service)
    assert service.check_player_chain("ivy") == []
    with PumpkinApplication.from_url(store_url) as other:
        assert other.check_player_chain("ivy") == []


def test_a_payload_changed_in_the_database_is_caught(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    set_state(store_url, stream, 2, lambda s: s.replace(b'"amount":5000', b'"amount":9000'))
    assert kinds(service) == [(3, "broken_link")]


def test_an_event_deleted_from_the_database_is_caught(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    run_sql(
        store_url,
        "DELETE FROM {TABLE} WHERE originator_id = %s AND originator_version = %s",
        (stream, 5),
    )
    assert kinds(service) == [(6, "version_gap")]


def test_events_swapped_in_the_database_are_caught(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)
    fourth, fifth = stored_state(store_url, stream, 4), stored_state(store_url, stream, 5)
    set_state(store_url, stream, 4, lambda _: fifth)
    set_state(store_url, stream, 5, lambda _: fourth)
    assert {kind for _, kind in kinds(service)} == {"broken_link"}


def test_a_forged_prev_hash_in_the_database_is_caught(
    service: PumpkinApplication, store_url: str
) -> None:
    stream = played(service)

    def forge(state: bytes) -> bytes:
        start = state.index(b'"prev_hash":"') + len(b'"prev_hash":"')
        return state[:start] + b"a" * 64 + state[start + 64 :]

    set_state(store_url, stream, 7, forge)
    # Its own link breaks, and so does the next one (a forged event has another digest).
    assert kinds(service) == [(7, "broken_link"), (8, "broken_link")]
