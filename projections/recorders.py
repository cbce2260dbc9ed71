"""The views' recorders: library tracking recorders that also hold a view's tables.

`insert_events(events, tracking)` writes a batch's rows and the tracking position in ONE
transaction, so a runner killed anywhere resumes exactly once: either both are there or
neither is. The library's single-row tracking refuses a position that does not move forward,
so a batch can never be counted twice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eventsourcing.persistence import Tracking, TrackingRecorder
from eventsourcing.postgres import PostgresDatastore, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL, Composed

from infrastructure.store.es_compat import insert_tracking
from projections.database import POSTGRES, SQLITE, Dialect
from projections.events import RecordedEvent

Row = Mapping[str, Any]


class Sql:
    """A cursor inside a view's transaction, speaking `:name` parameters on either store."""

    def __init__(self, cursor: Any, dialect: Dialect) -> None:
        self.cursor = cursor
        self.dialect = dialect

    def execute(self, statement: str, params: Mapping[str, Any] | None = None) -> None:
        self.cursor.execute(self.dialect.sql(statement), dict(params or {}))

    def execute_many(self, statement: str, rows: Iterable[Mapping[str, Any]]) -> None:
        rows = [dict(row) for row in rows]
        if rows:
            self.cursor.executemany(self.dialect.sql(statement), rows)

    def insert(self, table: str, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> None:
        """Plain inserts of many rows: COPY on PostgreSQL (one round trip, not one per row)."""
        rows = list(rows)
        if not rows:
            return
        if self.dialect is SQLITE:
            self.execute_many(
                f"INSERT INTO {table} ({', '.join(columns)}) "
                f"VALUES ({', '.join(':' + c for c in columns)})",
                rows,
            )
            return
        with self.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row([row[c] for c in columns])

    def all(self, statement: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        self.execute(statement, params)
        return [dict(row) for row in self.cursor.fetchall()]

    def one(self, statement: str, params: Mapping[str, Any] | None = None) -> Row | None:
        rows = self.all(statement, params)
        return rows[0] if rows else None


class View(ABC):
    """A read model: its tables and how a batch of events changes them."""

    name: str  # tables are named view_<name>...; its tracking table view_<name>_tracking
    tables: tuple[str, ...]

    @abstractmethod
    def ddl(self) -> list[str]:
        """CREATE TABLE / INDEX IF NOT EXISTS statements ({timestamp}, {boolean}, {real})."""

    @abstractmethod
    def apply(self, db: Sql, events: Sequence[RecordedEvent]) -> None:
        """Change the view's rows for these events (in store order), inside the transaction."""

    @property
    def tracking_table(self) -> str:
        return f"view_{self.name}_tracking"


class ViewRecorder(TrackingRecorder, ABC):
    """A view's tables and its tracking position, on either store."""

    view: View
    dialect: Dialect
    datastore: Any

    def insert_events(self, events: Sequence[RecordedEvent], tracking: Tracking) -> int:
        """The view's rows for `events` and the `tracking` position, in one transaction.

        The view's tracking row is locked first, so two runners on one view (an API's
        in-process one and a `pumpkin projections run`, say) take turns, and each projects
        only the events the other has not. Returns the view's position afterwards.
        """
        with self.datastore.transaction(commit=True) as cursor:
            db = Sql(cursor, self.dialect)
            current = self._locked_position(db, tracking.application_name)
            if tracking.notification_id <= current:
                return current
            self.view.apply(db, [event for event in events if event.position > current])
            insert_tracking(self, cursor, tracking)
        return int(tracking.notification_id)

    def start_tracking(self, application_name: str) -> None:
        """A tracking row at 0, so the very first batch has a row to lock too."""
        with self.datastore.transaction(commit=True) as cursor:
            Sql(cursor, self.dialect).execute(
                f"INSERT INTO {self.view.tracking_table} VALUES (:name, 0) "
                "ON CONFLICT (application_name) DO NOTHING",
                {"name": application_name},
            )

    @abstractmethod
    def _locked_position(self, db: Sql, application_name: str) -> int: ...

    @abstractmethod
    def create_table(self) -> None: ...

    def drop_tables(self) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            for table in (*self.view.tables, self.view.tracking_table):
                cursor.execute(f"DROP TABLE IF EXISTS {table}")


class SQLiteViewRecorder(SQLiteTrackingRecorder, ViewRecorder):
    dialect = SQLITE

    def __init__(self, datastore: SQLiteDatastore, view: View) -> None:
        self.view = view  # before super(): it builds the create statements from the view
        super().__init__(datastore)
        table = view.tracking_table
        # The library names its SQLite tracking table "tracking"; each view needs its own.
        self.insert_tracking_statement = (
            f"INSERT INTO {table} VALUES (:application_name, :notification_id) "
            "ON CONFLICT (application_name) DO UPDATE SET notification_id = :notification_id "
            f"WHERE {table}.notification_id < :notification_id RETURNING notification_id"
        )
        self.select_max_tracking_id_statement = (
            f"SELECT MAX(notification_id) FROM {table} WHERE application_name=?"
        )

    def construct_create_table_statements(self) -> list[str]:
        tracking = (
            f"CREATE TABLE IF NOT EXISTS {self.view.tracking_table} (application_name TEXT, "
            "notification_id INTEGER, PRIMARY KEY (application_name)) WITHOUT ROWID"
        )
        return [tracking, *(SQLITE.ddl(s) for s in self.view.ddl())]

    def _locked_position(self, db: Sql, application_name: str) -> int:
        # A write first: it takes SQLite's write lock, so what is read next is the latest.
        table = self.view.tracking_table
        params = {"name": application_name}
        db.execute(
            f"UPDATE {table} SET notification_id = notification_id WHERE application_name = :name",
            params,
        )
        row = db.one(f"SELECT notification_id FROM {table} WHERE application_name = :name", params)
        return int(row["notification_id"]) if row else 0


class PostgresViewRecorder(PostgresTrackingRecorder, ViewRecorder):
    dialect = POSTGRES

    def __init__(self, datastore: PostgresDatastore, view: View) -> None:
        super().__init__(datastore, tracking_table_name=view.tracking_table)
        self.view = view
        # Created with the tracking table, in its transaction (the library runs these in order).
        self.sql_create_statements.extend(Composed([SQL(POSTGRES.ddl(s))]) for s in view.ddl())

    def _locked_position(self, db: Sql, application_name: str) -> int:
        row = db.one(
            f"SELECT notification_id FROM {self.view.tracking_table} "
            "WHERE application_name = :name FOR UPDATE",
            {"name": application_name},
        )
        return int(row["notification_id"]) if row else 0
