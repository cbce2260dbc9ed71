"""Logic written once as a coroutine, run in an event loop OR blocking, without a loop.

The group commit (infrastructure/store/group_commit.py) and the application's save are coroutines
that await their steps (an insert, a snapshot write) through functions they are given. In an
event loop they are awaited as usual, with steps that wait on the network without blocking.
Given steps that never suspend (`at_once`: a blocking function, done in the calling thread),
the same coroutine runs to its end in one `send`: `run_blocking`. So that logic has one body
and two faces: blocking and async.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


def at_once(function: Callable[P, T]) -> Callable[P, Awaitable[T]]:
    """`function` as a step that finishes at once (it blocks the calling thread instead)."""

    async def step(*args: P.args, **kwargs: P.kwargs) -> T:
        return function(*args, **kwargs)

    return step


async def in_this_thread(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Call a blocking function here: the blocking counterpart of `asyncio.to_thread`."""
    return function(*args, **kwargs)


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that awaits only `at_once` steps to its end, in this thread; its result
    (or its exception, raised)."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        result: T = finished.value
        return result
    coroutine.close()
    raise RuntimeError("a blocking run awaited a step that suspends")
