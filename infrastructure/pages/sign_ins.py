"""The console's sign-ins, kept by the server (contract, "Pages"): a console cookie is only the
name of a row here, so signing out (the row deleted) ends it on every `serve` worker at once, and
a cookie sent again afterwards opens nothing. The same table remembers which sign-in forms have
been used: a form's CSRF pair is good for one attempt (SignIns.use_once).

Rows hold a digest of the cookie (SHA-256), never the cookie itself: whoever reads the database
cannot sign in with what they read. Expired rows are swept on every write.

SignInTable keeps the rows in the service's own database (SQLite or PostgreSQL, beside the event
store); SignInsInMemory in this process, for a service that has no database (test doubles)."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

TABLE = "console_sign_ins"

Kind = Literal["session", "form"]


@dataclass(frozen=True)
class SignIn:
    digest: str  # SHA-256 of the cookie's id
    role: str
    key_fingerprint: str  # which key of the role signed in: another key (rotated) opens nothing
    expires_at: int  # Unix seconds


class SignIns(Protocol):
    def open(self, sign_in: SignIn, now: int) -> None: ...

    def find(self, digest: str, now: int) -> SignIn | None: ...

    def end(self, digest: str) -> None: ...

    def use_once(self, digest: str, expires_at: int, now: int) -> bool:
        """Record the use of the form `digest` names; False if it had been used before."""
        ...


class Cursor(Protocol):
    def execute(self, statement: str, params: Any = ..., /) -> Any: ...

    def fetchall(self) -> Any: ...


class Datastore(Protocol):
    def transaction(self, *, commit: bool) -> AbstractContextManager[Cursor]: ...


class SignInTable:
    """The rows in the service's database, through the event store's own datastore."""

    def __init__(self, datastore: Datastore, postgres: bool) -> None:
        self._datastore = datastore
        self._postgres = postgres
        self._run(
            f"CREATE TABLE IF NOT EXISTS {TABLE} (digest TEXT PRIMARY KEY, kind TEXT NOT NULL, "
            "role TEXT NOT NULL, key_fingerprint TEXT NOT NULL, expires_at BIGINT NOT NULL)"
        )

    def open(self, sign_in: SignIn, now: int) -> None:
        self._run(
            f"INSERT INTO {TABLE} VALUES (%s, 'session', %s, %s, %s)",
            (sign_in.digest, sign_in.role, sign_in.key_fingerprint, sign_in.expires_at),
            sweep_before=now,
        )

    def find(self, digest: str, now: int) -> SignIn | None:
        rows = self._run(
            f"SELECT role, key_fingerprint, expires_at FROM {TABLE} "
            "WHERE digest = %s AND kind = 'session' AND expires_at > %s",
            (digest, now),
            fetch=True,
        )
        if not rows:
            return None
        row = rows[0]
        return SignIn(digest, str(row["role"]), str(row["key_fingerprint"]), int(row["expires_at"]))

    def end(self, digest: str) -> None:
        self._run(f"DELETE FROM {TABLE} WHERE digest = %s", (digest,))

    def use_once(self, digest: str, expires_at: int, now: int) -> bool:
        # One statement: two workers given the same form at once cannot both use it.
        rows = self._run(
            f"INSERT INTO {TABLE} VALUES (%s, 'form', '', '', %s) "
            "ON CONFLICT (digest) DO NOTHING RETURNING digest",
            (digest, expires_at),
            fetch=True,
            sweep_before=now,
        )
        return bool(rows)

    def _run(
        self,
        statement: str,
        params: tuple[Any, ...] = (),
        *,
        fetch: bool = False,
        sweep_before: int | None = None,
    ) -> list[Any]:
        if not self._postgres:
            statement = statement.replace("%s", "?")
        sweep = f"DELETE FROM {TABLE} WHERE expires_at <= " + ("%s" if self._postgres else "?")
        with self._datastore.transaction(commit=True) as cursor:
            if sweep_before is not None:
                cursor.execute(sweep, (sweep_before,))
            cursor.execute(statement, params)
            return list(cursor.fetchall()) if fetch else []


class SignInsInMemory:
    """The rows in this process only (a service with no database of its own)."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[Kind, SignIn]] = {}
        self._lock = threading.Lock()

    def open(self, sign_in: SignIn, now: int) -> None:
        with self._lock:
            self._sweep(now)
            self._rows[sign_in.digest] = ("session", sign_in)

    def find(self, digest: str, now: int) -> SignIn | None:
        with self._lock:
            kind, sign_in = self._rows.get(digest, ("form", None))
        if kind != "session" or sign_in is None or sign_in.expires_at <= now:
            return None
        return sign_in

    def end(self, digest: str) -> None:
        with self._lock:
            self._rows.pop(digest, None)

    def use_once(self, digest: str, expires_at: int, now: int) -> bool:
        with self._lock:
            self._sweep(now)
            if digest in self._rows:
                return False
            self._rows[digest] = ("form", SignIn(digest, "", "", expires_at))
            return True

    def _sweep(self, now: int) -> None:
        for digest in [d for d, (_, s) in self._rows.items() if s.expires_at <= now]:
            del self._rows[digest]
