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

from projections.database import POSTGRES, SQLITE, Datastore, Dialect
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

    @abstractmethod
    def insert_events(self, events: Sequence[RecordedEvent], tracking: Tracking) -> None:
        """The view's rows for `events` and `tracking`, in one transaction."""

    @abstractmethod
    def create_table(self) -> None: ...

    @abstractmethod
    def drop_tables(self) -> None: ...


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

    def insert_events(self, events: Sequence[RecordedEvent], tracking: Tracking) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            self.view.apply(Sql(cursor, SQLITE), events)
            self._insert_tracking(cursor, tracking)

    def drop_tables(self) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            for table in (*self.view.tables, self.view.tracking_table):
                cursor.execute(f"DROP TABLE IF EXISTS {table}")


class PostgresViewRecorder(PostgresTrackingRecorder, ViewRecorder):
    dialect = POSTGRES

    def __init__(self, datastore: PostgresDatastore, view: View) -> None:
        super().__init__(datastore, tracking_table_name=view.tracking_table)
        self.view = view

    def _create_table(self, curs: Any) -> None:
        super()._create_table(curs)
        for statement in self.view.ddl():
            curs.execute(POSTGRES.ddl(statement))

    def insert_events(self, events: Sequence[RecordedEvent], tracking: Tracking) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            self.view.apply(Sql(cursor, POSTGRES), events)
            self._insert_tracking(cursor, tracking)

    def drop_tables(self) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            for table in (*self.view.tables, self.view.tracking_table):
                cursor.execute(f"DROP TABLE IF EXISTS {table}")


def view_recorder(datastore: Datastore, view: View, create: bool = True) -> ViewRecorder:
    recorder: ViewRecorder
    if isinstance(datastore, PostgresDatastore):
        recorder = PostgresViewRecorder(datastore, view)
    else:
        recorder = SQLiteViewRecorder(datastore, view)
    if create:
        recorder.create_table()
    return recorder
