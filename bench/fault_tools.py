"""Tools to break Pumpkin RGS on purpose, shared by bench/soak.py and the reliability tests.

- `TcpProxy`: a loopback TCP relay between the API and PostgreSQL that can be cut (every open
  connection reset, new ones refused) and restored. It stands in for "the database went away"
  without touching the real server, which other people use at the same time.
- `Server`: `pumpkin serve` in a subprocess on a store URL, with known keys; it can be
  SIGKILLed and started again on the same port.
- `ProjectionsProcess`: `pumpkin projections run` in a subprocess, to be SIGKILLed and restarted.
- `fresh_postgres_database()`: a uniquely named database, dropped afterwards.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from contextlib import AbstractContextManager, suppress
from pathlib import Path

import httpx

from infrastructure.store.persistence import temporary_postgres_database

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=5"
OPERATOR = "fault-operator-key-0123456789"
AUDITOR = "fault-auditor-key-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def fresh_postgres_database(prefix: str = "pumpkin_fault") -> AbstractContextManager[str]:
    """A fresh database, dropped afterwards (retrying while the server restarts)."""
    return temporary_postgres_database(prefix, PG_ADMIN)


class TcpProxy:
    """127.0.0.1:<port> relayed to `target`; `cut()` resets every connection and refuses new
    ones until `restore()`. One thread runs everything with a selector."""

    def __init__(self, target: tuple[str, int] = ("127.0.0.1", 5432)) -> None:
        self.target = target
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.setblocking(False)
        self.port: int = self._listener.getsockname()[1]
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._peers: dict[socket.socket, socket.socket] = {}
        self._lock = threading.Lock()
        self._cut = False
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="tcp-proxy", daemon=True)
        self._thread.start()

    def url_for(self, database_url: str) -> str:
        """The same PostgreSQL URL, through this proxy."""
        return database_url.replace(f":{self.target[1]}/", f":{self.port}/", 1)

    @property
    def is_cut(self) -> bool:
        return self._cut

    def cut(self) -> None:
        with self._lock:
            self._cut = True
            for sock in list(self._peers):
                self._drop(sock, reset=True)

    def restore(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=5)
        with self._lock:
            for sock in list(self._peers):
                self._drop(sock, reset=False)
        self._selector.close()
        self._listener.close()

    def _drop(self, sock: socket.socket, reset: bool) -> None:
        peer = self._peers.pop(sock, None)
        for s in (sock, peer):
            if s is None:
                continue
            self._peers.pop(s, None)
            with suppress(KeyError, ValueError):
                self._selector.unregister(s)
            if reset:  # RST, as a vanished server looks to the client
                with suppress(OSError):
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            with suppress(OSError):
                s.close()

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except BlockingIOError:
            return
        if self._cut:
            self._peers[client] = client
            self._drop(client, reset=True)
            return
        try:
            upstream = socket.create_connection(self.target, timeout=5)
        except OSError:
            client.close()
            return
        for s in (client, upstream):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._peers[client] = upstream
        self._peers[upstream] = client
        self._selector.register(client, selectors.EVENT_READ, None)
        self._selector.register(upstream, selectors.EVENT_READ, None)

    def _relay(self, sock: socket.socket) -> None:
        peer = self._peers.get(sock)
        if peer is None:
            return
        try:
            data = sock.recv(65536)
            if not data:
                self._drop(sock, reset=False)
                return
            # Bounded: a peer that stops reading must not freeze the relay (and every
            # other connection) forever; it is reset instead.
            peer.settimeout(5.0)
            peer.sendall(data)
            peer.setblocking(False)
        except OSError:
            self._drop(sock, reset=True)

    def _run(self) -> None:
        while not self._stop:
            events = self._selector.select(timeout=0.05)
            with self._lock:
                for key, _ in events:
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    if sock is self._listener:
                        self._accept()
                    elif sock in self._peers:
                        self._relay(sock)


def _pumpkin(*args: str) -> list[str]:
    return [sys.executable, "-c", "from infrastructure.cli import main; main()", *args]


def service_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PUMPKIN_DATABASE_URL": database_url,
        "PUMPKIN_OPERATOR_KEY": OPERATOR,
        "PUMPKIN_AUDITOR_KEY": AUDITOR,
        "PUMPKIN_LOG_FORMAT": "json",
        "PUMPKIN_LOG_LEVEL": "WARNING",
        "PUMPKIN_RATE_LIMIT_PER_SECOND": "0",
        "PUMPKIN_AUTH_FAILURES_PER_MINUTE": "0",  # load from one address: no per-address limit
        "PUMPKIN_ANONYMOUS_PER_SECOND": "0",
    }
    env.update(extra)
    return env


class Server:
    """`pumpkin serve` in a subprocess; `kill()` is SIGKILL, `start()` again reuses the port."""

    def __init__(
        self, database_url: str, log_path: Path, projections: bool = True, **env: str
    ) -> None:
        self.database_url = database_url
        self.log_path = log_path
        self.projections = projections
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.env = service_env(database_url, PUMPKIN_PORT=str(self.port), **env)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> Server:
        args = ["serve"] if self.projections else ["serve", "--no-projections"]
        with self.log_path.open("a") as log:
            # Its own process group, so a kill takes its workers too (as a container's would).
            self.process = subprocess.Popen(
                _pumpkin(*args),
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited with {self.process.returncode}: {self.log_path}")
            try:
                if httpx.get(f"{self.base_url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError("serve did not become healthy in time")

    def kill(self) -> None:
        """SIGKILL to the whole server (parent and workers): no shutdown hook runs, in-flight
        requests die with it. (SIGKILL to the parent alone leaves uvicorn's workers serving.)"""
        if self.process is not None and self.process.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process is not None:  # workers left behind by a parent that died first
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)


class ProjectionsProcess:
    """`pumpkin projections run` in a subprocess."""

    def __init__(self, database_url: str, log_path: Path) -> None:
        self.env = service_env(database_url)
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> ProjectionsProcess:
        with self.log_path.open("a") as log:
            self.process = subprocess.Popen(
                _pumpkin("projections", "run"),
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
