"""Which read models are failing, kept where every process sees it: the table `view_errors`, in
the views' database, written by the runner (projections/runner.py) in a transaction of its own
(the view's own rolled back), read by the API for `/health`, `/metrics` and the console's
banner (CONTRACT.md "The operator's seamless wallet": a failing view is never silent), even
when the runner is another process (`pumpkin projections run`, or `serve --workers N`'s
parent).

A row per view that ever failed: whether it is failing now, where it stands, the last error,
and how many batches it failed in all (the counter pumpkin_read_model_errors_total).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from projections.database import Datastore, dialect_of
from projections.recorders import Row, Sql

TABLE = "view_errors"
ERROR_TEXT_LIMIT = 500  # characters of an error kept (a view's error may quote a whole row)
DDL = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (name TEXT PRIMARY KEY, failing {{boolean}} NOT NULL, "
    "position BIGINT NOT NULL, error TEXT NOT NULL, errors BIGINT NOT NULL, "
    "updated_at {timestamp} NOT NULL)"
)


@dataclass(frozen=True)
class ViewsHealth:
    """failing: view -> {"position", "error"} (CONTRACT.md's /health); errors: view -> the
    batches it failed in all."""

    failing: dict[str, dict[str, Any]]
    errors: dict[str, int]


HEALTHY = ViewsHealth({}, {})


def error_text(error: BaseException) -> str:
    """What /health says of an error: its kind and message, bounded."""
    text = f"{type(error).__name__}: {error}".strip()
    return text if len(text) <= ERROR_TEXT_LIMIT else text[: ERROR_TEXT_LIMIT - 1] + "…"


class ViewErrors:
    """The runner's side: a view failed, or works again."""

    def __init__(self, datastore: Datastore) -> None:
        self.datastore = datastore
        self.dialect = dialect_of(datastore)
        with datastore.transaction(commit=True) as cursor:
            Sql(cursor, self.dialect).execute(self.dialect.ddl(DDL))

    def failing_names(self) -> set[str]:
        with self.datastore.transaction(commit=False) as cursor:
            rows = Sql(cursor, self.dialect).all(
                f"SELECT name FROM {TABLE} WHERE failing = :yes", {"yes": True}
            )
        return {str(row["name"]) for row in rows}

    def failed(self, name: str, position: int, error: BaseException) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            Sql(cursor, self.dialect).execute(
                f"INSERT INTO {TABLE} VALUES (:name, :yes, :position, :error, 1, :now) "
                "ON CONFLICT (name) DO UPDATE SET failing = :yes, position = :position, "
                f"error = :error, errors = {TABLE}.errors + 1, updated_at = :now",
                {"name": name, "yes": True, "position": position, "error": error_text(error),
                 "now": self.dialect.time(datetime.now(UTC))},
            )

    def recovered(self, name: str) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            Sql(cursor, self.dialect).execute(
                f"UPDATE {TABLE} SET failing = :no, updated_at = :now "
                "WHERE name = :name AND failing = :yes",
                {"name": name, "no": False, "yes": True,
                 "now": self.dialect.time(datetime.now(UTC))},
            )


def read_health(rows: Callable[[str, Mapping[str, Any] | None], list[Row]]) -> ViewsHealth:
    """The views' health from `rows` (a reader's query); healthy while no view ever failed
    (no table yet)."""
    try:
        found = rows(f"SELECT name, failing, position, error, errors FROM {TABLE}", None)
    except Exception:  # noqa: BLE001 - no table yet: no view has failed
        return HEALTHY
    return ViewsHealth(
        failing={
            str(row["name"]): {"position": int(row["position"]), "error": str(row["error"])}
            for row in found if row["failing"]
        },
        errors={str(row["name"]): int(row["errors"]) for row in found},
    )
