"""`GET /audit/events`: the audit trail streamed to an auditor, within bounds.

An export used to open a connection pool of its own and hold it for as long as its reader took:
30 readers that stopped reading left two workers holding 97 PostgreSQL connections, and the
server refused every database ("too many clients"). Now:

- the rows come through the read models' one shared, bounded pool, a page per short transaction
  (projections.export.rows_in), so a slow reader holds no connection at all;
- a process streams at most `max_concurrent` exports at once; one more is refused at once with
  429 `too_many_exports` and `Retry-After` (never a queue that hangs);
- each write to the reader must complete within `send_timeout_seconds`, or the export is
  abandoned and its connection closed (a reader that stops reading cannot hold a slot for good);
- a reader that disconnects ends its export at once (Starlette cancels the stream); either way
  the slot is given back and the rows' generator closed.
"""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Callable, Generator, Iterator
from typing import Any, Literal

import anyio
from fastapi.encoders import jsonable_encoder
from starlette.responses import StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from infrastructure.http.errors import ApiError
from infrastructure.logging import get_logger

log = get_logger("pumpkin.audit_export")
ROWS_PER_CHUNK = 200  # one thread hop and one write per chunk, not per row
RETRY_AFTER_SECONDS = "5"

Rows = Iterator[dict[str, Any]]
Chunks = Generator[str, None, None]


class AuditExports:
    def __init__(
        self,
        rows: Callable[[str | None], Rows],
        max_concurrent: int = 4,
        send_timeout_seconds: float = 30.0,
    ) -> None:
        self.rows = rows
        self.max_concurrent = max_concurrent
        self.send_timeout_seconds = send_timeout_seconds
        self._slots = threading.BoundedSemaphore(max_concurrent)

    def response(self, player_id: str | None, fmt: Literal["csv", "jsonl"]) -> StreamingResponse:
        """The streamed export, holding one slot until it ends; 429 if every slot is taken."""
        if not self._slots.acquire(blocking=False):
            raise ApiError(
                "too_many_exports",
                f"at most {self.max_concurrent} audit exports run at once; retry shortly",
                {"Retry-After": RETRY_AFTER_SECONDS},
            )
        try:
            rows = self.rows(player_id)
        except BaseException:
            self._slots.release()
            raise
        chunks = _csv(rows) if fmt == "csv" else _jsonl(rows)
        media = "text/csv" if fmt == "csv" else "application/x-ndjson"
        return _BoundedStream(chunks, media, self.send_timeout_seconds, self._slots.release)


class _ReaderStalled(Exception):
    pass


class _BoundedStream(StreamingResponse):
    def __init__(
        self,
        chunks: Chunks,
        media_type: str,
        send_timeout_seconds: float,
        release: Callable[[], None],
    ) -> None:
        super().__init__(chunks, media_type=media_type)
        self._chunks = chunks
        self._send_timeout_seconds = send_timeout_seconds
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()
            try:
                self._chunks.close()  # closes the rows' generator too
            except ValueError:  # still running in its thread: it ends with its next page
                pass

    async def stream_response(self, send: Send) -> None:
        async def bounded_send(message: Message) -> None:
            with anyio.move_on_after(self._send_timeout_seconds) as waited:
                await send(message)
            if waited.cancelled_caught:
                raise _ReaderStalled

        try:
            await super().stream_response(bounded_send)
        except _ReaderStalled:
            # The response stays incomplete: the server closes the connection.
            log.warning("audit_export_abandoned", stalled_seconds=self._send_timeout_seconds)


def _jsonl(rows: Rows) -> Chunks:
    lines: list[str] = []
    for row in rows:
        lines.append(json.dumps(jsonable_encoder({**row, "data": json.loads(row["data"])})))
        if len(lines) >= ROWS_PER_CHUNK:
            yield "\n".join(lines) + "\n"
            lines.clear()
    if lines:
        yield "\n".join(lines) + "\n"


def _csv(rows: Rows) -> Chunks:
    from domain.ledger.audit_trail import AUDIT_COLUMNS, neutral_row

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=AUDIT_COLUMNS)
    writer.writeheader()
    for count, row in enumerate(rows, 1):
        writer.writerow(neutral_row(row))  # no cell a spreadsheet runs as a formula
        if count % ROWS_PER_CHUNK == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
