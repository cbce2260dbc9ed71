"""Make the golden stores: what a release wrote, kept so later code is tested against it.

The stores in this folder were made at commit aa48bb4 (this script as it was then); it runs on
the current code too, to freeze a later release's stores beside them: from the repository root,
with PostgreSQL on 127.0.0.1:5432,

    .venv/bin/python tests/golden/make_golden.py

It plays one fixed scenario (seeds, session ids and tokens drawn from a seeded generator, so a
run is repeatable but for timestamps) on a SQLite file (gzipped) and on a new PostgreSQL
database, dumps the latter with pg_dump (plain SQL, gzipped), and writes what the service read
back afterwards (balances, levels, meters, multipliers, rounds, sessions, verify's counts) to
expected.json.
Both stores hold the same scenario, so one expected.json serves both.
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from infrastructure.application import PumpkinApplication  # noqa: E402
from infrastructure.audit.verification import verify_store  # noqa: E402
from infrastructure.rounds import spins as spin_module  # noqa: E402
from infrastructure.sessions import session_commands  # noqa: E402
from infrastructure.store.persistence import temporary_postgres_database  # noqa: E402

SQLITE_FILE = HERE / "store.sqlite.gz"
PG_DUMP_FILE = HERE / "store.sql.gz"
EXPECTED_FILE = HERE / "expected.json"
STAKE = 20
ROUND_SAMPLE = 25  # a long player's rounds kept in expected.json: every 25th, first and last
SESSION_SUMMARY = ("session_id", "spins", "staked", "won", "net", "open")


class SeededSecrets:
    """`secrets` as the application uses it, drawn from a seeded generator (repeatable)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def token_bytes(self, n: int) -> bytes:
        return self._random.randbytes(n)

    def token_urlsafe(self, n: int) -> str:
        return self._random.randbytes(n).hex()

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(bytes=self._random.randbytes(16), version=4)


def play(app: PumpkinApplication) -> dict[str, Any]:
    """The scenario; returns the sessions opened, by player."""
    sessions: dict[str, list[str]] = {}

    def session(player_id: str) -> str:
        session_id, _token = app.open_session(player_id)
        sessions.setdefault(player_id, []).append(session_id)
        return session_id

    def spins(player_id: str, session_id: str, count: int) -> None:
        for _ in range(count):
            number = len(app.round_ids(player_id)) + 1
            app.spin(session_id, STAKE, f"{player_id}-spin-{number}")

    # Level 0: registered, money in and out, a session opened and closed without play.
    app.register_player("newcomer")
    app.deposit("newcomer", 5_000, "newcomer-dep-1")
    app.withdraw("newcomer", 1_500, "newcomer-wd-1")
    app.close_session(session("newcomer"))
    app.register_player("idle")  # never deposited
    # Level 1 and 2: two sessions, the first closed, the second left open.
    for player_id, rounds in (("ada", 14), ("bo", 40)):
        app.register_player(player_id)
        app.deposit(player_id, 50_000, f"{player_id}-dep-1")
        first = session(player_id)
        spins(player_id, first, rounds // 2)
        app.close_session(first)
        app.withdraw(player_id, 1_000, f"{player_id}-wd-1")
        spins(player_id, session(player_id), rounds - rounds // 2)
    # Level 5 (260 normal spins unlock it), played on until a booster raised a multiplier.
    for player_id in ("cy", "dee"):
        app.register_player(player_id)
        app.deposit(player_id, 200_000, f"{player_id}-dep-1")
        first = session(player_id)
        spins(player_id, first, 150)
        app.close_session(first)
        app.deposit(player_id, 50_000, f"{player_id}-dep-2")
        second = session(player_id)
        while True:
            spins(player_id, second, 1)
            state = app.player_state(player_id)
            boosted = max(state["hold_and_win_multiplier"], state["free_spins_multiplier"]) > 1.5
            if state["level"] == 5 and boosted or len(app.round_ids(player_id)) > 900:
                break
        app.withdraw(player_id, 5_000, f"{player_id}-wd-1")
        if player_id == "cy":
            app.close_session(second)
    return sessions


def expected_reads(app: PumpkinApplication, sessions: dict[str, list[str]]) -> dict[str, Any]:
    players: dict[str, Any] = {}
    for player_id in ("newcomer", "idle", "ada", "bo", "cy", "dee"):
        round_ids = app.round_ids(player_id)
        count = len(round_ids)
        kept = sorted({1, count, *range(ROUND_SAMPLE, count + 1, ROUND_SAMPLE)} - {0})
        if count <= 2 * ROUND_SAMPLE:
            kept = list(range(1, count + 1))
        player = app.load_player(player_id)
        players[player_id] = {
            "state": app.player_state(player_id),
            "round_count": count,
            "rounds": {f"{player_id}.{n}": app.round(f"{player_id}.{n}") for n in kept},
            "sessions": {
                s: {key: app.session(s)[key] for key in SESSION_SUMMARY}
                for s in sessions.get(player_id, [])
            },
            "version": player.version,
            "chain_head": player.chain_head,
        }
    return {"players": players}


def build(url: str, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    secrets = SeededSecrets(seed)
    session_commands.secrets = secrets  # type: ignore[assignment]
    session_commands.uuid4 = secrets.uuid4  # type: ignore[assignment]
    spin_module.secrets = secrets  # type: ignore[assignment]
    app = PumpkinApplication.from_url(url)
    try:
        sessions = play(app)
        reads = expected_reads(app, sessions)
        report = verify_store(app)
    finally:
        app.close()
    return reads, report


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        sqlite_file = Path(directory) / "store.sqlite"
        reads, report = build(f"sqlite:///{sqlite_file}", seed=11)
        with gzip.open(SQLITE_FILE, "wb", compresslevel=9) as out:
            out.write(sqlite_file.read_bytes())
    with temporary_postgres_database("pumpkin_golden") as url:
        pg_reads, pg_report = build(url, seed=11)
        dbname = url.rsplit("/", 1)[1]
        dump = subprocess.run(
            ["pg_dump", "-h", "127.0.0.1", "-U", "postgres", "--no-owner", "--no-privileges",
             dbname],
            check=True, capture_output=True,
        ).stdout
    with gzip.open(PG_DUMP_FILE, "wb", compresslevel=9) as out:
        out.write(dump)
    for key in ("ok", "events_checked", "rounds_rederived"):
        assert report[key] == pg_report[key], (key, report[key], pg_report[key])
    assert report["ok"], report
    strip = {p: {k: v for k, v in r.items() if k != "chain_head"}
             for p, r in reads["players"].items()}
    pg_strip = {p: {k: v for k, v in r.items() if k != "chain_head"}
                for p, r in pg_reads["players"].items()}
    assert strip == pg_strip, "the two stores read differently"
    reads["verify"] = {k: report[k] for k in ("ok", "events_checked", "rounds_rederived")}
    reads["chain_heads"] = {
        "sqlite": {p: r.pop("chain_head") for p, r in reads["players"].items()},
        "postgres": {p: r["chain_head"] for p, r in pg_reads["players"].items()},
    }
    EXPECTED_FILE.write_text(json.dumps(reads, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
