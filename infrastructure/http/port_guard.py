"""`pumpkin serve` refuses a port another server already listens on.

Each worker binds its port with SO_REUSEPORT (infrastructure/http/workers.py), and Linux lets any
other socket of the same user that also sets SO_REUSEPORT bind the same port: a second
`pumpkin serve` (even on another database, with other keys) would start silently and take half
of the connections. So before anything binds, one probe socket binds the port WITHOUT
SO_REUSEPORT: the kernel refuses it (EADDRINUSE) exactly when some socket already holds the port.
SO_REUSEADDR on the probe only forgives connections of a previous run left in TIME_WAIT.
"""

from __future__ import annotations

import socket


class PortInUse(Exception):
    """Another process listens on the port `serve` was asked to use."""


def refuse_if_port_held(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise PortInUse(
                f"{host}:{port} is already in use (another pumpkin serve?): {error.strerror}"
            ) from None
