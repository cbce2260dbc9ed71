"""A writer killed with SIGKILL mid-play leaves no partial round; a new process carries on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from itertools import groupby

from repo_paths import REPO

from domain.ledger.player import Player, player_aggregate_id
from infrastructure.application import PumpkinApplication

SPINNER = textwrap.dedent(
    """
    import sys
    from infrastructure.application import PumpkinApplication

    app = PumpkinApplication.from_url(sys.argv[1])
    app.register_player("kim")
    app.deposit("kim", 10_000_000, "funding")
    session_id, _ = app.open_session("kim")
    n = 0
    while True:
        n += 1
        answer = app.spin(session_id, 20, f"spin-{n}")
        print(answer["round_id"], flush=True)
    """
)


def test_a_killed_writer_leaves_whole_rounds_and_a_new_one_continues(store_url: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    spinner = subprocess.Popen(
        [sys.executable, "-c", SPINNER, store_url], stdout=subprocess.PIPE, env=env, text=True
    )
    assert spinner.stdout is not None
    answered = [spinner.stdout.readline().strip() for _ in range(40)]
    os.kill(spinner.pid, signal.SIGKILL)  # mid-round, most likely: it never stops spinning
    spinner.wait(timeout=30)
    assert answered[-1] == "kim.40"

    with PumpkinApplication.from_url(store_url) as app:
        events = list(app.events.get(player_aggregate_id("kim")))
        round_events = [e for e in events if hasattr(e, "round_id")]
        rounds = [
            [type(e).__name__ for e in group]
            for _, group in groupby(round_events, key=lambda e: e.round_id)
        ]
        assert len(rounds) >= 40
        for names in rounds:
            assert names[0] == "StakePlaced" and names[-1] == "RoundSettled"
            assert names.count("StakePlaced") == 1 and names.count("RoundSettled") == 1
        assert app.check_player_chain("kim") == []

        last = app.round_ids("kim")[0]
        session_id, _ = app.open_session("kim")
        answer = app.spin(session_id, 20, "after-the-crash")
        assert answer["round_id"] == f"kim.{int(last.split('.')[1]) + 1}"
        stakes = sum(e.stake for e in events if isinstance(e, Player.StakePlaced)) + 20
        wins = sum(e.total_win for e in events if isinstance(e, Player.RoundSettled))
        wins += answer["total_win"]
        assert app.player_state("kim")["balance"] == 10_000_000 - stakes + wins
