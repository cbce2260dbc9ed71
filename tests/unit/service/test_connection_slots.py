"""A process's connections by client address (infrastructure/http/connection_slots.py): an
address holds at most its share, at most so many of them still sending headers, those take no
slot the cap counts, and the operator's proxies have no share."""

from __future__ import annotations

from infrastructure.http.connection_slots import ConnectionSlots


def opened(slots: ConnectionSlots, address: str, count: int) -> int:
    """Connections from `address` admitted (each then sending its headers) out of `count`."""
    admitted = 0
    for _ in range(count):
        if slots.admit(address):
            slots.begin_headers(address)
            admitted += 1
    return admitted


def test_an_address_holds_at_most_its_half_open_share_and_others_are_admitted() -> None:
    slots = ConnectionSlots(per_address=250, half_open_per_address=100)
    assert opened(slots, "198.51.100.1", 1_100) == 100
    assert slots.held_by("198.51.100.1") == (100, 100)
    assert opened(slots, "198.51.100.2", 20) == 20
    # 120 open connections, none past its headers: the cap counts none of them
    assert slots.busy(120) == 0


def test_a_connection_past_its_headers_counts_toward_the_cap_and_frees_a_half_open_place() -> None:
    slots = ConnectionSlots(per_address=3, half_open_per_address=2)
    assert opened(slots, "a", 2) == 2
    assert not slots.admit("a")  # two still sending headers
    slots.end_headers("a")
    assert slots.busy(2) == 1
    assert opened(slots, "a", 5) == 1  # three open: the address's share
    slots.end_headers("a")
    slots.release("a")
    assert slots.held_by("a") == (2, 1)
    assert opened(slots, "a", 1) == 1


def test_a_listed_proxy_has_no_share() -> None:
    slots = ConnectionSlots(per_address=2, half_open_per_address=1, trusted=["10.0.0.0/8"])
    assert opened(slots, "10.1.2.3", 50) == 50
    assert opened(slots, "192.0.2.1", 50) == 1
    for _ in range(50):
        slots.end_headers("10.1.2.3")
        slots.release("10.1.2.3")
    assert slots.held_by("10.1.2.3") == (0, 0)
    assert slots.busy(1) == 0
