"""One `serve` process's connections by client address (issue 27, item 1): no address holds more
than its share of the connection cap, and connections still sending their headers (half-open) are
capped per address and take none of the slots that requests whose headers are complete need.

uvicorn's `limit_concurrency` counts every open connection, half-open ones included, so one
address holding 1,000 connections that never finish their headers made every other client's
request 503 until the header deadline closed them. Here:

- `admit`: a new connection from an address that already holds `per_address` connections, or
  `half_open_per_address` connections still sending headers, is refused at once (429 and closed);
- `busy`: what the 503 check counts: open connections less the half-open ones, so a request
  whose headers are complete is 503 only when that many connections are past their headers.

Connections from the operator's listed proxies (PUMPKIN_TRUSTED_PROXIES) carry everyone's traffic
and have no per-address share. The counts are one process's (each worker has its own)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class ConnectionSlots:
    def __init__(
        self, per_address: int, half_open_per_address: int, trusted: Iterable[str] = ()
    ) -> None:
        self.per_address = per_address
        self.half_open_per_address = half_open_per_address
        self.half_open_total = 0
        self._open: dict[str, int] = {}
        self._half_open: dict[str, int] = {}
        networks = tuple(_network(entry) for entry in trusted)

        @lru_cache(maxsize=1024)
        def trusted_address(address: str) -> bool:
            return _in(address, networks)

        self._trusted = trusted_address

    def admit(self, address: str | None) -> bool:
        """Counts a new connection from `address` in, or refuses it (then counted nowhere)."""
        if address is None or self._trusted(address):
            self._open[""] = self._open.get("", 0) + 1  # no share: counted apart
        elif (
            self._open.get(address, 0) >= self.per_address
            or self._half_open.get(address, 0) >= self.half_open_per_address
        ):
            return False
        else:
            self._open[address] = self._open.get(address, 0) + 1
        return True

    def begin_headers(self, address: str | None) -> None:
        key = self._key(address)
        self._half_open[key] = self._half_open.get(key, 0) + 1
        self.half_open_total += 1

    def end_headers(self, address: str | None) -> None:
        key = self._key(address)
        _decrement(self._half_open, key)
        self.half_open_total -= 1

    def release(self, address: str | None) -> None:
        """An admitted connection closed."""
        _decrement(self._open, self._key(address))

    def busy(self, connections: int) -> int:
        """Of a process's `connections` open, those past their headers (serving or idle)."""
        return connections - self.half_open_total

    def held_by(self, address: str) -> tuple[int, int]:
        """Connections `address` holds: open, and of those still sending headers."""
        key = self._key(address)
        return self._open.get(key, 0), self._half_open.get(key, 0)

    def _key(self, address: str | None) -> str:
        return "" if address is None or self._trusted(address) else address


def _decrement(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


def _network(entry: str) -> IpNetwork | str:
    try:
        return ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return entry  # "*" or a name: compared as written


def _in(address: str, networks: tuple[IpNetwork | str, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        ip = None
    for network in networks:
        if isinstance(network, str):
            if network in ("*", address):
                return True
        elif ip is not None and ip.version == network.version and ip in network:
            return True
    return False
