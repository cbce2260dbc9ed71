"""Structured logs: JSON lines in production (or whenever stderr is not a terminal), pretty in a
terminal. Request handlers bind request_id / player_id with structlog.contextvars, so every line
of a request carries them. A redaction processor keeps keys, tokens and passwords out of the log.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable, MutableMapping
from typing import Any, Literal

import structlog

REVEAL = "_reveal_secrets"  # set only on the one start-up line that prints generated keys

_SECRET_FIELD = re.compile(r"(key|token|secret|password|passwd|authorization|cookie)", re.I)
_BEARER = re.compile(r"(Bearer\s+)\S+", re.I)
_URL_PASSWORD = re.compile(r"(://[^:/@\s]+:)[^@\s]+@")
REDACTED = "***"


def redact_secrets(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Mask any field named like a secret, and bearer values or URL passwords inside strings."""
    event.pop("color_message", None)  # uvicorn's ANSI-coloured duplicate of the message
    if event.pop(REVEAL, False):
        return event
    for name, value in list(event.items()):
        if _SECRET_FIELD.search(name) and name != "event":
            event[name] = REDACTED
        elif isinstance(value, str):
            event[name] = _URL_PASSWORD.sub(r"\1***@", _BEARER.sub(r"\1***", value))
    return event


def configure_logging(
    fmt: Literal["auto", "json", "console"] = "auto", level: str = "INFO"
) -> None:
    """Configure structlog and route the standard library's logs (uvicorn's) through it."""
    pretty = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    # Redaction comes after an exception is formatted: a traceback is text by then, and the
    # same masks apply to it as to any other string (before, it was formatted unredacted).
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        redact_secrets,
    ]
    renderer: Any = (
        structlog.dev.ConsoleRenderer() if pretty else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,  # a disabled level costs nothing further
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.ExtraAdder(), *shared],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    # One line per request is written by the HTTP layer itself (with its request id).
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    logger: structlog.stdlib.BoundLogger = structlog.stdlib.get_logger(name)
    return logger


class WarnEvery:
    """Whether a recurring warning is due: at most once per `interval_seconds` for each kind
    (so one kind of failure cannot use up the warning of another). `clock` is injectable."""

    def __init__(
        self, interval_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval_seconds = interval_seconds
        self.clock = clock
        self._last: dict[str, float] = {}

    def due(self, kind: str) -> bool:
        now = self.clock()
        last = self._last.get(kind)
        if last is not None and now - last < self.interval_seconds:
            return False
        if len(self._last) >= 1000:  # kinds are exception class names: few, but bounded anyway
            self._last.clear()
        self._last[kind] = now
        return True
