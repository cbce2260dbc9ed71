"""Group commit on PostgreSQL: saves share a transaction, and a conflict fails only its own save."""

from __future__ import annotations

from uuid import uuid4

from eventsourcing.persistence import IntegrityError
from store_kinds_support import stored

from infrastructure.store.persistence import GroupCommitRecorder, _Write


def test_a_conflict_in_a_group_fails_only_the_conflicting_save(
    group_commit_recorder: GroupCommitRecorder,
) -> None:
    recorder = group_commit_recorder
    a, b = uuid4(), uuid4()
    first = _Write([stored(a, 1), stored(a, 2)])
    rival = _Write([stored(a, 2)])
    other = _Write([stored(b, 1)])
    recorder._commit([first, rival, other])

    assert first.error is None and first.ids is not None and len(first.ids) == 2
    assert isinstance(rival.error, IntegrityError)
    assert other.error is None and other.ids is not None and len(other.ids) == 1
    assert all(write.woken.is_set() for write in (first, rival, other))
    assert [e.originator_version for e in recorder.select_events(a)] == [1, 2]


def test_a_group_is_written_in_one_transaction_in_order(
    group_commit_recorder: GroupCommitRecorder,
) -> None:
    recorder = group_commit_recorder
    writes = [_Write([stored(uuid4(), 1), stored(uuid4(), 1)]) for _ in range(5)]
    recorder._commit(writes)
    ids = [i for write in writes for i in (write.ids or [])]
    assert len(ids) == 10 and ids == sorted(ids)
