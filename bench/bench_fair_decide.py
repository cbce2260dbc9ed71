"""The CPU of deciding one spin in memory, the part of the spin path provably fair seeds touch:
copy the cached player, derive the seed (HMAC of the opened server seed), play, trigger the
events and encode them as stored; no store write.

    .venv/bin/python bench/bench_fair_decide.py CODE_TREE SECONDS

CODE_TREE: a checkout to measure (e.g. `git archive <base> | tar -x -C /tmp/base` for the
baseline); run it and this tree alternately for a same-run ratio.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
import time
from copy import deepcopy
from typing import Any

sys.path.insert(0, sys.argv[1])

import infrastructure.application as m  # noqa: E402
from infrastructure.application import PumpkinApplication  # noqa: E402


def _spin_handler(app: Any) -> Any:
    """This tree's decision of a spin on a given copy of the player."""
    from infrastructure.rounds.spins import SpinAttempt
    from infrastructure.store.command_runner import Work
    from infrastructure.wallet.port import SpinOrder

    def decide(player: Any, sid: str, stake: int, request_id: str, _: Any = None) -> Any:
        order = SpinOrder(sid, stake, request_id)
        return app.spins.decide(Work.on(app.runner, player), order, SpinAttempt(""))

    return decide


def main() -> None:
    seconds = float(sys.argv[2])
    with tempfile.TemporaryDirectory() as directory:
        app = PumpkinApplication.from_url(f"sqlite:///{directory}/e.db")
        app.register_player("p")
        app.deposit("p", 10**11, "d")
        sid, _ = app.open_session("p")
        for n in range(50):
            app.spin(sid, 20, f"w{n}")
        # this tree's public names, or an older checkout's private ones
        load = getattr(app, "load_player", None) or app._player  # type: ignore[attr-defined]
        decide = getattr(app, "decide_spin", None) or getattr(app, "_play", None)
        if hasattr(app, "spins"):  # the spin handler (infrastructure/rounds/spins.py)
            decide = _spin_handler(app)
        cached = load("p")
        fair = hasattr(m, "SpinAttempt") or hasattr(app, "spins")
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            player = deepcopy(cached)
            if fair:
                decide(player, sid, 20, f"r{n}", getattr(m, "SpinAttempt", str)(""))
            else:
                decide(player, sid, 20, f"r{n}")
            for event in player.collect_events():
                app.mapper.to_stored_event(event)
            n += 1
        took = time.perf_counter() - start
        tree = pathlib.Path(m.__file__).parents[1].name
        sys.stdout.write(f"{tree}: {1e6 * took / n:.1f} us per spin decided ({n} spins)\n")
        app.close()


if __name__ == "__main__":
    main()
