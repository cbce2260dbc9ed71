"""`pumpkin serve --workers N`: N server processes, each with its own listening socket.

uvicorn's own `--workers` shares one listening socket among its workers, and whichever worker
is first to accept takes a whole burst of keep-alive connections: in bench/bench_http.py all 32
players' connections went to one of two workers, which then did all the work. Here every worker
binds the port itself with SO_REUSEPORT, and the kernel spreads new connections across them
evenly.

The supervisor starts the workers, passes SIGTERM / SIGINT on to them, and starts a worker
again if one dies, after a wait that grows while it keeps failing (restart_backoff.py). Each
worker ends with its parent (bootstrap.worker_http_app).
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
import sys
import threading
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from typing import Any, Protocol, TypeVar

from infrastructure.http.restart_backoff import RestartBackoff
from infrastructure.http.shared_buckets import shared_table_file
from infrastructure.logging import get_logger

log = get_logger("pumpkin.serve")


def reuse_port_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def serve_one(sock: socket.socket, host: str, port: int, uvicorn_options: dict[str, Any]) -> None:
    """One worker process: serves its own listening socket; the app from the environment."""
    import uvicorn

    config = uvicorn.Config(
        "infrastructure.bootstrap:worker_http_app",
        factory=True,
        host=host,
        port=port,
        **uvicorn_options,
    )
    uvicorn.Server(config).run(sockets=[sock])


class Worker(Protocol):
    @property
    def exitcode(self) -> int | None: ...

    def is_alive(self) -> bool: ...


W = TypeVar("W", bound=Worker)


def tend(processes: list[W], start: Callable[[int], W], backoff: RestartBackoff) -> None:
    """One look at the workers: a death is noted (and its restart put off), a worker whose wait
    is over is started again."""
    for index, process in enumerate(processes):
        if process.is_alive() or backoff.waiting(index):
            continue
        if backoff.due(index):
            processes[index] = start(index)
            continue
        delay = backoff.died(index)
        log.warning(
            "worker_died_restarting",
            exit_code=process.exitcode,
            worker=index,
            restart_in_seconds=delay,
        )


def supervise(
    workers: int,
    host: str,
    port: int,
    uvicorn_options: dict[str, Any],
    backoff: RestartBackoff | None = None,
) -> int:
    """Run `workers` server processes until SIGTERM / SIGINT; the exit status."""
    with shared_table_file():  # the request limits every worker shares (http/ratelimit.py)
        return _supervise(workers, host, port, uvicorn_options, backoff or RestartBackoff())


def _supervise(
    workers: int,
    host: str,
    port: int,
    uvicorn_options: dict[str, Any],
    backoff: RestartBackoff,
) -> int:
    # One listening socket per worker, all made here before any worker starts: connections
    # are spread over them from the first one (they wait in a socket's backlog until its worker
    # is up), and a worker started again takes over its socket, backlog and all.
    sockets = [reuse_port_socket(host, port) for _ in range(workers)]
    for sock in sockets:
        sock.listen(2048)
    context = multiprocessing.get_context("spawn")
    stopping = threading.Event()

    def start(index: int) -> BaseProcess:
        process = context.Process(
            target=serve_one,
            args=(sockets[index], host, port, uvicorn_options),
            name=f"pumpkin-worker-{index}",
        )
        process.start()
        backoff.started(index)
        return process

    def stop(signum: int, _frame: object) -> None:
        stopping.set()

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    processes = [start(index) for index in range(workers)]
    log.info("serving", workers=workers, host=host, port=port)
    try:
        while not stopping.wait(0.5):
            tend(processes, start, backoff)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn finishes its requests and stops
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
        for s, handler in previous.items():
            signal.signal(s, handler)
        for sock in sockets:
            sock.close()
    return 0


if sys.platform.startswith("win"):  # pragma: no cover - SO_REUSEPORT is POSIX
    raise ImportError("pumpkin serve --workers N needs SO_REUSEPORT (Linux, BSD, macOS)")
