"""The transparency log's tables, beside the events (SQLite or PostgreSQL):

- pumpkin_log_leaves: leaf index -> the notification id it stands for, its round (if it settles
  one) and the leaf (canonical JSON);
- pumpkin_log_nodes: (level, index) -> the hash of the perfect subtree of 2**level leaves from
  leaf index * 2**level (level 0: the leaf hashes). A leaf adds two rows on average, and a root
  or proof of any tree size reads O(log n) of them: the storage scales with the leaves;
- pumpkin_log_position: how far the log has followed the store (notification id, tree size),
  written in the same transaction as the leaves and nodes it covers, so the log stops anywhere
  and resumes exactly once (a second writer's transaction fails on the leaf's key);
- pumpkin_log_checkpoints (tree size -> the signed note) and pumpkin_log_cosignatures (the
  witnesses' lines per tree size).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.ledger.merkle import Frontier
from infrastructure.store.event_rows import EventRows
from infrastructure.store.persistence import SCHEMA_LOCK

LEAVES = "pumpkin_log_leaves"
NODES = "pumpkin_log_nodes"
POSITION = "pumpkin_log_position"
CHECKPOINTS = "pumpkin_log_checkpoints"
COSIGNATURES = "pumpkin_log_cosignatures"


class LogStore:
    def __init__(self, rows: EventRows) -> None:
        self.rows = rows
        self.blob = "BYTEA" if rows.postgres else "BLOB"
        self._ready = False

    # -- plumbing ------------------------------------------------------------------------------

    def _sql(self, statement: str) -> str:
        return statement if self.rows.postgres else statement.replace("%s", "?")

    def _read(self, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
        self.ensure_tables()
        with self.rows.datastore.transaction(commit=False) as cursor:
            cursor.execute(self._sql(statement), params)
            return list(cursor.fetchall())

    def ensure_tables(self) -> None:
        if self._ready:
            return
        statements = [
            f"CREATE TABLE IF NOT EXISTS {LEAVES} (idx BIGINT PRIMARY KEY, notification_id "
            "BIGINT NOT NULL, round_id TEXT, leaf TEXT NOT NULL)",
            f"CREATE INDEX IF NOT EXISTS {LEAVES}_round ON {LEAVES} (round_id)",
            f"CREATE TABLE IF NOT EXISTS {NODES} (level INTEGER NOT NULL, idx BIGINT NOT NULL, "
            f"hash {self.blob} NOT NULL, PRIMARY KEY (level, idx))",
            f"CREATE TABLE IF NOT EXISTS {POSITION} (name TEXT PRIMARY KEY, notification_id "
            "BIGINT NOT NULL, tree_size BIGINT NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {CHECKPOINTS} (tree_size BIGINT PRIMARY KEY, "
            "root TEXT NOT NULL, note TEXT NOT NULL, created_at TEXT NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {COSIGNATURES} (tree_size BIGINT NOT NULL, "
            "line TEXT NOT NULL, PRIMARY KEY (tree_size, line))",
        ]
        with self.rows.datastore.transaction(commit=True) as cursor:
            if self.rows.postgres:  # processes creating them at once race in the catalog
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in statements:
                cursor.execute(statement)
        self._ready = True

    # -- the tree ------------------------------------------------------------------------------

    def position(self) -> tuple[int, int]:
        """(notification id followed up to, tree size)."""
        found = self._read(f"SELECT notification_id, tree_size FROM {POSITION} "
                           "WHERE name = %s", ("log",))
        return (int(found[0]["notification_id"]), int(found[0]["tree_size"])) if found else (0, 0)

    def node(self, level: int, index: int) -> bytes:
        found = self._read(f"SELECT hash FROM {NODES} WHERE level = %s AND idx = %s",
                           (level, index))
        if not found:
            raise LookupError(f"the log has no node {level}/{index}")
        return bytes(found[0]["hash"])

    def frontier(self, size: int) -> Frontier:
        """The right edge of the stored tree of `size` leaves, to grow it."""
        subtrees, start = [], 0
        for level in reversed(range(size.bit_length())):
            if size >> level & 1:
                subtrees.append(self.node(level, start >> level))
                start += 1 << level
        return Frontier.resumed(size, subtrees)

    def append(
        self, after: tuple[int, int], upto: int,
        leaves: list[tuple[int, int, str | None, str]], nodes: Iterable[tuple[int, int, bytes]],
    ) -> None:
        """Leaves (index, notification id, round id, leaf) and the nodes they complete, and
        the position moved from `after` to (upto, size), in one transaction."""
        size = after[1] + len(leaves)
        with self.rows.datastore.transaction(commit=True) as cursor:
            if after == (0, 0):
                cursor.execute(self._sql(f"INSERT INTO {POSITION} (name, notification_id, "
                                         "tree_size) VALUES (%s, %s, %s)"), ("log", upto, size))
            else:
                cursor.execute(self._sql(
                    f"UPDATE {POSITION} SET notification_id = %s, tree_size = %s "
                    "WHERE name = %s AND notification_id = %s AND tree_size = %s"),
                    (upto, size, "log", after[0], after[1]))
            # A writer that read an older position inserts leaf indexes another writer has
            # taken: the leaves' primary key fails its transaction, position included.
            cursor.executemany(self._sql(
                f"INSERT INTO {LEAVES} (idx, notification_id, round_id, leaf) "
                "VALUES (%s, %s, %s, %s)"), leaves)
            cursor.executemany(self._sql(
                f"INSERT INTO {NODES} (level, idx, hash) VALUES (%s, %s, %s)"), list(nodes))

    def notification_at(self, index: int) -> int | None:
        """The notification id of the event leaf `index` stands for."""
        found = self._read(f"SELECT notification_id FROM {LEAVES} WHERE idx = %s", (index,))
        return int(found[0]["notification_id"]) if found else None

    def leaf_for_round(self, round_id: str) -> tuple[int, str] | None:
        found = self._read(f"SELECT idx, leaf FROM {LEAVES} WHERE round_id = %s", (round_id,))
        return (int(found[0]["idx"]), str(found[0]["leaf"])) if found else None

    # -- checkpoints ---------------------------------------------------------------------------

    def record_checkpoint(self, size: int, root_hex: str, signed: str, at: str) -> None:
        with self.rows.datastore.transaction(commit=True) as cursor:
            cursor.execute(self._sql(f"INSERT INTO {CHECKPOINTS} (tree_size, root, note, "
                                     "created_at) VALUES (%s, %s, %s, %s)"),
                           (size, root_hex, signed, at))

    def newest_checkpoint(self) -> tuple[int, str] | None:
        found = self._read(f"SELECT tree_size, note FROM {CHECKPOINTS} "
                           "ORDER BY tree_size DESC LIMIT 1")
        return (int(found[0]["tree_size"]), str(found[0]["note"])) if found else None

    def checkpoint_at(self, size: int) -> str | None:
        found = self._read(f"SELECT note FROM {CHECKPOINTS} WHERE tree_size = %s", (size,))
        return str(found[0]["note"]) if found else None

    def checkpoints(self, after: int = -1) -> list[tuple[int, str]]:
        """(tree size, root hex) of every stored checkpoint (larger than `after`), oldest
        first."""
        found = self._read(f"SELECT tree_size, root FROM {CHECKPOINTS} WHERE tree_size > %s "
                           "ORDER BY tree_size", (after,))
        return [(int(row["tree_size"]), str(row["root"])) for row in found]

    def checkpoints_root(self, size: int) -> str:
        found = self._read(f"SELECT root FROM {CHECKPOINTS} WHERE tree_size = %s", (size,))
        return str(found[0]["root"]) if found else ""

    def checkpoint_covering(self, size: int) -> tuple[int, str] | None:
        """The smallest checkpoint of at least `size` leaves (tree size, note)."""
        found = self._read(f"SELECT tree_size, note FROM {CHECKPOINTS} WHERE tree_size >= %s "
                           "ORDER BY tree_size LIMIT 1", (size,))
        return (int(found[0]["tree_size"]), str(found[0]["note"])) if found else None

    def add_cosignature(self, size: int, line: str) -> None:
        with self.rows.datastore.transaction(commit=True) as cursor:
            cursor.execute(self._sql(f"DELETE FROM {COSIGNATURES} WHERE tree_size = %s AND "
                                     "line = %s"), (size, line))
            cursor.execute(self._sql(f"INSERT INTO {COSIGNATURES} (tree_size, line) VALUES "
                                     "(%s, %s)"), (size, line))

    def cosignatures(self, size: int) -> list[str]:
        found = self._read(f"SELECT line FROM {COSIGNATURES} WHERE tree_size = %s "
                           "ORDER BY line", (size,))
        return [str(row["line"]) for row in found]
