"""The group commit's core (infrastructure/store/group_commit.py), without a database: who leads,
one insert per group, the split on a conflict, an answer per save; run blocking and awaited
alike."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from uuid import uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from store_kinds_support import stored

from infrastructure.store.group_commit import GroupQueue, Save, commit_group
from infrastructure.store.run_blocking import at_once, run_blocking


class FakeStore:
    """Inserts in one transaction each: all or nothing, refusing a taken (id, version)."""

    def __init__(self, fail_with: BaseException | None = None) -> None:
        self.rows: list[tuple[object, int]] = []
        self.inserts = 0
        self.fail_with = fail_with

    def insert(self, events: Sequence[StoredEvent]) -> list[int]:
        self.inserts += 1
        if self.fail_with is not None:
            raise self.fail_with
        keys = [(e.originator_id, e.originator_version) for e in events]
        if len(set(keys)) < len(keys) or set(keys) & set(self.rows):
            raise IntegrityError("taken")
        self.rows += keys
        return list(range(len(self.rows) - len(keys) + 1, len(self.rows) + 1))


def commit_blocking(group: list[Save], store: FakeStore) -> BaseException | None:
    return run_blocking(commit_group(group, at_once(store.insert)))


def test_a_group_is_one_insert_and_each_save_gets_its_own_ids_in_order() -> None:
    store = FakeStore()
    group = [Save([stored(uuid4(), 1), stored(uuid4(), 1)]) for _ in range(3)]
    assert commit_blocking(group, store) is None
    assert store.inserts == 1
    assert [save.ids for save in group] == [[1, 2], [3, 4], [5, 6]]


def test_a_conflict_splits_the_group_so_only_the_conflicting_save_fails() -> None:
    store = FakeStore()
    a = uuid4()
    first, rival, other = Save([stored(a, 1)]), Save([stored(a, 1)]), Save([stored(uuid4(), 1)])
    assert commit_blocking([first, rival, other], store) is None
    assert store.inserts == 4  # the group, then save by save
    assert first.ids == [1] and other.ids == [2]
    assert isinstance(rival.error, IntegrityError) and rival.ids is None


def test_a_failed_store_is_the_error_of_every_save_not_answered() -> None:
    lost = ConnectionError("the store went away")
    group = [Save([stored(uuid4(), 1)]) for _ in range(2)]
    assert commit_blocking(group, FakeStore(fail_with=lost)) is lost
    assert all(save.error is lost and save.ids is None for save in group)


def test_the_same_commit_is_awaited_in_an_event_loop() -> None:
    store = FakeStore()
    a = uuid4()
    group = [Save([stored(a, 1)]), Save([stored(a, 1)])]

    async def insert(events: Sequence[StoredEvent]) -> list[int]:
        await asyncio.sleep(0)  # a real wait: the loop runs other tasks meanwhile
        return store.insert(events)

    assert asyncio.run(commit_group(group, insert)) is None
    assert group[0].ids == [1] and isinstance(group[1].error, IntegrityError)


def test_a_blocking_run_refuses_a_step_that_would_suspend() -> None:
    async def suspends(events: Sequence[StoredEvent]) -> list[int]:
        await asyncio.sleep(0)
        return []

    with pytest.raises(RuntimeError, match="suspends"):
        run_blocking(commit_group([Save([stored(uuid4(), 1)])], suspends))


def test_the_first_save_leads_and_hands_on_to_the_first_save_queued_meanwhile() -> None:
    queue: GroupQueue[Save] = GroupQueue()
    first, second, third = (Save([stored(uuid4(), 1)]) for _ in range(3))
    assert queue.join(first)
    assert not queue.join(second) and not queue.join(third)  # they wait for the next group
    assert queue.take() == [first, second, third]
    assert queue.next_leader() is None  # nobody queued: the next save to join leads
    assert queue.join(first)
    assert not queue.join(second)
    assert queue.take() == [first, second]
    assert not queue.join(third)
    assert queue.next_leader() is third
    queue.resign()
    assert queue.join(first)
