"""The event store read as stored rows, for the regulator's replay
(infrastructure.audit.verification).

The verifier reads what is in the table, not what the application would like to see: rows with
their notification id, in version order, page by page, through the application's own datastore
(SQLite or PostgreSQL). It also reads the balances view (projections) to compare it with replay.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple
from uuid import UUID

PAGE = 2_000  # rows per query: bounded memory on streams of any length
BALANCES_TABLE = "view_balances"  # projections.balances.BalancesView


class StoredRow(NamedTuple):
    """One stored event as read (a named tuple: verify makes one per event, and a frozen
    dataclass costs five attribute sets to build)."""

    notification_id: int
    stream: str
    version: int
    topic: str
    state: bytes


class EventRows:
    """Raw reads of one application's event table (and the balances view beside it)."""

    def __init__(self, application: Any) -> None:
        recorder = application.recorder
        self.datastore = recorder.datastore
        self.postgres = type(recorder).__module__.startswith("eventsourcing.postgres") or hasattr(
            self.datastore, "schema"
        )
        table = recorder.events_table_name
        self.table = f'"{self.datastore.schema}"."{table}"' if self.postgres else table
        self.id_column = "notification_id" if self.postgres else "rowid"

    def _query(self, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
        if not self.postgres:
            statement = statement.replace("%s", "?")
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, params)
            return list(cursor.fetchall())

    def _stream_param(self, stream: str) -> Any:
        return UUID(stream) if self.postgres else UUID(stream).hex

    def streams(self) -> list[str]:
        """Every stream id in the table (players, session keys, token keys)."""
        rows = self._query(f"SELECT DISTINCT originator_id AS stream FROM {self.table}")
        return sorted(str(UUID(str(row["stream"]))) for row in rows)

    def rows(self, stream: str, after: int = 0) -> Iterator[StoredRow]:
        """The stream's rows after version `after`, in version order, as stored."""
        while True:
            page = self._query(
                f"SELECT {self.id_column} AS n, originator_version AS v, topic, state "
                f"FROM {self.table} WHERE originator_id = %s AND originator_version > %s "
                "ORDER BY originator_version LIMIT %s",
                (self._stream_param(stream), after, PAGE),
            )
            for row in page:
                yield StoredRow(
                    int(row["n"]), stream, int(row["v"]), str(row["topic"]), bytes(row["state"])
                )
            if len(page) < PAGE:
                return
            after = int(page[-1]["v"])

    def rows_after(self, notification_id: int, limit: int = PAGE) -> list[StoredRow]:
        """Rows of every stream after `notification_id`, in the store's order."""
        page = self._query(
            f"SELECT {self.id_column} AS n, originator_id AS stream, originator_version AS v, "
            f"topic, state FROM {self.table} WHERE {self.id_column} > %s "
            f"ORDER BY {self.id_column} LIMIT %s",
            (notification_id, limit),
        )
        return [StoredRow(int(r["n"]), str(UUID(str(r["stream"]))), int(r["v"]),
                          str(r["topic"]), bytes(r["state"])) for r in page]

    def streams_after(self, notification_id: int) -> dict[str, int]:
        """The streams with rows after `notification_id`: the first such version of each."""
        rows = self._query(
            f"SELECT originator_id AS stream, MIN(originator_version) AS v FROM {self.table} "
            f"WHERE {self.id_column} > %s GROUP BY originator_id", (notification_id,))
        return {str(UUID(str(row["stream"]))): int(row["v"]) for row in rows}

    def rows_of_topic_before(
        self, stream: str, topic: str, before: int, limit: int = PAGE
    ) -> list[StoredRow]:
        """The stream's rows of one stored name below version `before`, newest first."""
        page = self._query(
            f"SELECT {self.id_column} AS n, originator_version AS v, topic, state "
            f"FROM {self.table} WHERE originator_id = %s AND originator_version < %s "
            "AND topic = %s ORDER BY originator_version DESC LIMIT %s",
            (self._stream_param(stream), before, topic, limit),
        )
        return [StoredRow(int(r["n"]), stream, int(r["v"]), str(r["topic"]), bytes(r["state"]))
                for r in page]

    def has_events_after(self, stream: str, notification_id: int) -> bool:
        rows = self._query(
            f"SELECT COUNT(*) AS n FROM {self.table} WHERE originator_id = %s "
            f"AND {self.id_column} > %s",
            (self._stream_param(stream), notification_id),
        )
        return int(rows[0]["n"]) > 0

    def streams_with_topics(
        self, after: int, topics: tuple[str, ...], limit: int = PAGE, upto: int | None = None
    ) -> list[tuple[int, str, str]]:
        """(notification id, stream, topic) of the events of these topics after `after` (and
        not after `upto`), in the order they were recorded (the notification id's index keeps
        this a range scan)."""
        marks = ", ".join("%s" for _ in topics)
        bound = f"AND {self.id_column} <= %s " if upto is not None else ""
        rows = self._query(
            f"SELECT {self.id_column} AS n, originator_id AS stream, topic FROM {self.table} "
            f"WHERE {self.id_column} > %s {bound}AND topic IN ({marks}) "
            f"ORDER BY {self.id_column} LIMIT %s",
            (after, *(() if upto is None else (upto,)), *topics, limit),
        )
        return [(int(r["n"]), str(UUID(str(r["stream"]))), str(r["topic"])) for r in rows]

    def heads(self) -> Iterator[StoredRow]:
        """The last stored event of every stream, stream by stream."""
        rows = self._query(
            f"SELECT e.{self.id_column} AS n, e.originator_id AS stream, e.originator_version "
            f"AS v, e.topic, e.state FROM {self.table} e JOIN (SELECT originator_id, "
            f"MAX(originator_version) AS top FROM {self.table} GROUP BY originator_id) h "
            "ON e.originator_id = h.originator_id AND e.originator_version = h.top"
        )
        for row in rows:
            yield StoredRow(int(row["n"]), str(UUID(str(row["stream"]))), int(row["v"]),
                            str(row["topic"]), bytes(row["state"]))

    def row_at(self, stream: str, version: int) -> StoredRow | None:
        rows = self._query(
            f"SELECT {self.id_column} AS n, topic, state FROM {self.table} "
            "WHERE originator_id = %s AND originator_version = %s",
            (self._stream_param(stream), version),
        )
        if not rows:
            return None
        return StoredRow(int(rows[0]["n"]), stream, version, str(rows[0]["topic"]),
                         bytes(rows[0]["state"]))

    def max_notification_id(self) -> int:
        rows = self._query(f"SELECT MAX({self.id_column}) AS n FROM {self.table}")
        return int(rows[0]["n"] or 0)

    def balance_rows(self, player_ids: list[str] | None = None) -> dict[str, dict[str, Any]] | None:
        """The balances view by player id (all, or those asked for); None if it does not exist."""
        statement = (
            "SELECT stream_id, player_id, balance, level, spins_to_next_level, "
            f"hold_and_win_multiplier, free_spins_multiplier, position FROM {BALANCES_TABLE}"
        )
        params: tuple[Any, ...] = ()
        if player_ids is not None and len(player_ids) == 1:
            statement += " WHERE player_id = %s"
            params = (player_ids[0],)
        try:
            rows = self._query(statement, params)
        except Exception:  # noqa: BLE001 - no such table: the projections never ran here
            return None
        return {str(row["player_id"]): {k: row[k] for k in row.keys()} for row in rows}  # noqa: SIM118
