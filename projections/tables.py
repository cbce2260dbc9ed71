"""Opening a view: its recorder on the right store, its tables there and matching this code.

A view whose table layout changed since its rows were written is dropped and replays from zero
(the other views keep their positions), so a deploy never reads an old layout.
"""

from __future__ import annotations

import hashlib

from eventsourcing.postgres import PostgresDatastore

from projections.database import Datastore
from projections.recorders import (
    PostgresViewRecorder,
    Sql,
    SQLiteViewRecorder,
    View,
    ViewRecorder,
)


def view_recorder(datastore: Datastore, view: View, create: bool = True) -> ViewRecorder:
    """The view's recorder; with `create`, its tables exist and match this code's schema (a
    view whose schema changed is dropped here, and replays from zero)."""
    recorder: ViewRecorder
    if isinstance(datastore, PostgresDatastore):
        recorder = PostgresViewRecorder(datastore, view)
    else:
        recorder = SQLiteViewRecorder(datastore, view)
    if create:
        if _recorded_schema(recorder) not in (None, _schema_digest(view)):
            recorder.drop_tables()
        recorder.create_table()
        _record_schema(recorder)
    return recorder


def _schema_digest(view: View) -> str:
    return hashlib.sha256("\n".join(view.ddl()).encode()).hexdigest()[:16]


def _recorded_schema(recorder: ViewRecorder) -> str | None:
    with recorder.datastore.transaction(commit=True) as cursor:
        db = Sql(cursor, recorder.dialect)
        db.execute(
            "CREATE TABLE IF NOT EXISTS view_schemas (name TEXT PRIMARY KEY, digest TEXT NOT NULL)"
        )
        row = db.one(
            "SELECT digest FROM view_schemas WHERE name = :name", {"name": recorder.view.name}
        )
    return None if row is None else str(row["digest"])


def _record_schema(recorder: ViewRecorder) -> None:
    with recorder.datastore.transaction(commit=True) as cursor:
        Sql(cursor, recorder.dialect).execute(
            "INSERT INTO view_schemas VALUES (:name, :digest) "
            "ON CONFLICT (name) DO UPDATE SET digest = excluded.digest",
            {"name": recorder.view.name, "digest": _schema_digest(recorder.view)},
        )
