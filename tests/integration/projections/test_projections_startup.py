"""`pumpkin projections run` waits for a store that refuses it at start, instead of exiting."""

from __future__ import annotations

import threading
import time

from projections.runner import run


def test_the_runner_keeps_trying_while_the_store_refuses_and_stops_when_told() -> None:
    stop = threading.Event()
    refused = "postgresql://postgres@127.0.0.1:1/nowhere"  # nothing listens on port 1
    follower = threading.Thread(target=run, args=(refused, stop), daemon=True)
    follower.start()
    time.sleep(2.0)
    assert follower.is_alive()  # still trying, not exited
    stop.set()
    follower.join(timeout=15)
    assert not follower.is_alive()
