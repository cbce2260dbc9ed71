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


def test_a_save_handed_the_lead_as_it_joins_leads_and_commits(
    group_commit_recorder: GroupCommitRecorder,
) -> None:
    """The leader may hand the lead to a save between its join and its next step (another
    thread): the save still leads, commits and frees the queue. (It used to overwrite the
    hand-off with its own join's answer: its events were never written, it returned no ids as
    if saved, and every later save waited for a leader that never came: bench_http hung.)"""
    recorder = group_commit_recorder
    queue = recorder._queue
    leader = _Write([stored(uuid4(), 1)])
    assert queue.join(leader) and queue.take() == [leader]  # the leader commits its group...
    real_join = queue.join

    def join_then_handed_the_lead(write: _Write) -> bool:
        joined = real_join(write)  # False: the leader still leads
        handed = queue.next_leader()  # ... and, done, hands the lead to the save queued
        assert handed is write
        handed.leads = True
        handed.woken.set()
        return joined

    queue.join = join_then_handed_the_lead  # type: ignore[method-assign]
    aggregate = uuid4()
    ids = recorder.insert_events([stored(aggregate, 1)])
    queue.join = real_join  # type: ignore[method-assign]
    assert ids is not None and len(ids) == 1
    assert [e.originator_version for e in recorder.select_events(aggregate)] == [1]
    assert recorder.insert_events([stored(uuid4(), 1)]) is not None  # the queue leads again
