"""The one retry policy of a command that lost a write race (another writer took its version).

It reloads, decides again and retries, up to ATTEMPTS times in a row, pausing a jittered,
doubling time between attempts so racing requests stop colliding in lockstep; then it gives up
with ConcurrentUpdate (a named error that changed nothing). Every retry loop of the write side
uses this; each retry is reported (the `pumpkin_store_retries` metric).
"""

from __future__ import annotations

import random
import time

ATTEMPTS = 10  # a command that loses a race this many times in a row gets ConcurrentUpdate
FIRST_PAUSE_SECONDS = 0.002  # the longest pause before the first retry; doubles each time


def pause_seconds(retry: int) -> float:
    """The jittered pause before retry number `retry` (1, 2, ...)."""
    return random.uniform(0, FIRST_PAUSE_SECONDS * 2 ** (retry - 1))  # noqa: S311 - not a secret


def pause_before(retry: int) -> None:
    time.sleep(pause_seconds(retry))
