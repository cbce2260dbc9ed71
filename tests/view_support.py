"""Every row of every view, in a comparable form: to check that two runs agree (a resumed
runner against a rebuild from zero, SQLite against PostgreSQL)."""

from __future__ import annotations

from typing import Any

from projections.database import dialect_of, open_datastore
from projections.recorders import Sql
from projections.views import all_views


def dump_views(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Table name -> its rows as sorted (column, value) tuples, rows sorted."""
    datastore = open_datastore(url, pool_size=1)
    tables: dict[str, list[tuple[Any, ...]]] = {}
    try:
        with datastore.transaction(commit=False) as cursor:
            db = Sql(cursor, dialect_of(datastore))
            for view in all_views():
                for table in view.tables:
                    rows = db.all(f"SELECT * FROM {table}")
                    tables[table] = sorted((tuple(sorted(row.items())) for row in rows), key=repr)
    finally:
        datastore.close()
    return tables
