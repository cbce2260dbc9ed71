"""Where `pumpkin verify --since` starts a stream: the player as it stood just before its first
event after the kept checkpoint, rebuilt from its newest snapshot before that event (the events
from the snapshot on are then read, their chain checked, up to the new ones), so a daily check
reads a day's events and at most one snapshot interval before each stream's first new one.

The snapshot's chain head is bound to the signed tree through the chain: the events after it
must link to it, and the first new event links to the last one read, whose leaf the kept
checkpoint covers. Its other fields were compared in full with replay by the check that covered
the day it was written (snapshots written since are compared here).

The provably fair check needs every round of a session revealed after the point, also those
before it: for each session open in the snapshot, its rounds from its opening on are fed to the
fair checker (infrastructure.audit.fair_check) alone.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.ledger.event_names import stored_class, stored_name
from domain.ledger.player import Player
from infrastructure.audit.stream_check import StreamChecker
from infrastructure.store.event_rows import EventRows


def player_before(application: Any, stream: str, version: int) -> Player | None:
    """The player rebuilt from the stream's newest snapshot below `version` (None: there is
    none, or it cannot be read: the stream is then read from its first event)."""
    if application.snapshots is None or version <= 1:
        return None
    try:
        for snapshot in application.snapshots.get(UUID(stream), lte=version - 1, desc=True,
                                                  limit=1):
            cls = stored_class(str(snapshot.topic))  # the product's registry, never an import
            if not (isinstance(cls, type) and issubclass(cls, Player)):
                return None
            state = dict(snapshot.state)
            from_version = state.pop("class_version", 1)
            while from_version < getattr(cls, "class_version", 1):
                getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(state)
                from_version += 1
            state.update(_id=snapshot.originator_id, _version=snapshot.originator_version,
                         _pending_events=[])
            player = object.__new__(cls)
            object.__setattr__(player, "__dict__", state)
            return player
    except Exception:  # noqa: BLE001 - a snapshot that does not read: start from the events
        return None
    return None


def feed_open_sessions(checker: StreamChecker, rows: EventRows, player: Player) -> None:
    """The rounds (and burned nonces) of each committed session open at the snapshot, from its
    opening up to the snapshot, fed to the fair checker alone."""
    wanted = {sid for sid, entry in player.sessions.items() if entry.committed}
    if not wanted:
        return
    opened = _openings(checker, rows, wanted, player.version)
    if not opened:
        return
    for row in rows.rows(checker.result.stream, after=min(opened.values()) - 1):
        if row.version > player.version:
            break
        event = _decoded(checker, row)
        if event is not None and getattr(event, "session_id", None) in wanted and isinstance(
            event, (Player.SessionOpened, Player.StakePlaced, Player.NonceBurned)
        ):
            checker.fair.feed(event)


def _openings(
    checker: StreamChecker, rows: EventRows, wanted: set[str], upto: int
) -> dict[str, int]:
    """The version each wanted session opened at (reading the stream's openings backwards)."""
    topic = stored_name(Player.SessionOpened)
    found: dict[str, int] = {}
    before = upto + 1
    while len(found) < len(wanted):
        page = rows.rows_of_topic_before(checker.result.stream, topic, before)
        for row in page:
            event = _decoded(checker, row)
            if event is not None and event.session_id in wanted:
                found.setdefault(event.session_id, row.version)
        if not page or len(page) < 2_000:
            break
        before = page[-1].version
    return found


def _decoded(checker: StreamChecker, row: Any) -> Any:
    try:
        return checker.decode(StoredEvent(checker.stream_id, row.version, row.topic, row.state))
    except Exception:  # noqa: BLE001 - the warm-up reads these rows again and names them
        return None
