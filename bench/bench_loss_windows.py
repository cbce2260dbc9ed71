"""A player's loss ledger over 30 days of play: the spin cost and the player's size, flat?

    .venv/bin/python bench/bench_loss_windows.py [--minutes 43200] [--baseline /work/base]
        [--baseline-minutes 6000] [--window 300]

One player, loss limits per day, week and month set (generous: never refusing), plays one round
every simulated minute (the clock is injected) in one session, on the in-memory store (so the
figure is the spin path's CPU: the copy of the player, protection's rules, the round, the save).
Printed at the start and at checkpoints: the mean CPU cost of the last `window` spins, and the
player's size in memory (every object it holds, counted once). The same-run baseline: this script
run again on the code at `--baseline` (the round's starting code), in a child process, for
`--baseline-minutes` (its spins slow down as its ledger grows, so 30 days of it take too long),
at the same time as this code's run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
LIMITS = {"loss_per_day": 10**12, "loss_per_week": 10**12, "loss_per_month": 10**12}


def deep_size(root: object) -> int:
    """Bytes of `root` and everything it reaches (dicts, lists, tuples, sets, objects' __dict__
    and __slots__), each object counted once; classes and modules are not followed."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or type(obj).__name__ == "module":
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        else:
            if hasattr(obj, "__dict__"):
                stack.append(vars(obj))
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(obj, name):
                        stack.append(getattr(obj, name))
    return total


def play(code: Path, minutes: int, window: int) -> dict[str, Any]:
    sys.path.insert(0, str(code))
    import domain
    from infrastructure.application import PumpkinApplication

    start = datetime(2026, 3, 1, tzinfo=UTC)
    now = [start]
    app = PumpkinApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    app.clock = lambda: now[0]
    app.register_player("warm-up")  # the engine compiles and warms on another player's rounds
    app.deposit("warm-up", 10**12, "funding")
    warm_up, _ = app.open_session("warm-up")
    for n in range(200):
        app.spin(warm_up, 100, f"w{n}")
    app.register_player("p")
    app.deposit("p", 10**12, "funding")
    app.set_limits("p", LIMITS)
    session_id, _ = app.open_session("p")
    checkpoints = sorted({window, *range(minutes // 10, minutes + 1, minutes // 10), minutes})
    rows, costs = [], []
    for minute in range(minutes):
        now[0] = start + timedelta(minutes=minute, seconds=7)
        began = time.process_time()  # CPU time: less disturbed than wall time on a shared machine
        app.spin(session_id, 100, f"r{minute}")
        costs.append(time.process_time() - began)
        if minute + 1 in checkpoints:
            recent = costs[-window:]
            player = app.load_player("p", fresh=False)
            rows.append({
                "minutes": minute + 1,
                "spin_ms": 1000 * sum(recent) / len(recent),
                "player_kib": deep_size(player) / 1024,
                "guard_kib": deep_size(player.guard) / 1024,
            })
    app.close()
    return {"code": str(Path(domain.__file__).resolve().parents[1]), "rows": rows}


def show(title: str, result: dict[str, Any]) -> None:
    print(f"{title} ({result['code']})")  # noqa: T201
    print(f"{'minutes':>8} {'spin ms':>8} {'player KiB':>11} {'guard KiB':>10}")  # noqa: T201
    for row in result["rows"]:
        print(  # noqa: T201
            f"{row['minutes']:>8} {row['spin_ms']:>8.2f} {row['player_kib']:>11.1f} "
            f"{row['guard_kib']:>10.1f}"
        )


def at_minutes(result: dict[str, Any], minutes: int) -> dict[str, Any]:
    return min(result["rows"], key=lambda row: abs(row["minutes"] - minutes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=int, default=30 * 24 * 60)
    parser.add_argument("--baseline", type=Path, default=Path("/work/base"))
    parser.add_argument("--baseline-minutes", type=int, default=6000)
    parser.add_argument("--window", type=int, default=300)
    parser.add_argument("--code", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.code is not None:  # the child: one code base, its figures as JSON
        print(json.dumps(play(args.code, args.minutes, args.window)))  # noqa: T201
        return

    def start(code: Path, minutes: int) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, str(HERE), "--code", str(code), "--minutes", str(minutes),
             "--window", str(args.window)],
            stdout=subprocess.PIPE, text=True,
        )

    def result_of(child: subprocess.Popen[str]) -> dict[str, Any]:
        out, _ = child.communicate()
        if child.returncode:
            raise SystemExit(f"the child run failed ({child.returncode})")
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return result

    # Both at once, each in its own process (CPU time per spin, so they barely disturb each other).
    base_run = start(args.baseline, args.baseline_minutes) if args.baseline.exists() else None
    this = result_of(start(HERE.parents[1], args.minutes))
    base = None if base_run is None else result_of(base_run)
    show("this code", this)
    if base is None:
        print(f"no baseline at {args.baseline}")  # noqa: T201
        return
    show("baseline", base)
    first_b, last_b = base["rows"][0], base["rows"][-1]
    first, same = this["rows"][0], at_minutes(this, last_b["minutes"])
    print(  # noqa: T201
        f"\nspin ms at the start / after {last_b['minutes']} minutes: this code "
        f"{first['spin_ms']:.2f} / {same['spin_ms']:.2f} "
        f"(after 30 days {this['rows'][-1]['spin_ms']:.2f}); baseline "
        f"{first_b['spin_ms']:.2f} / {last_b['spin_ms']:.2f}"
    )
    print(  # noqa: T201
        f"player KiB at the start / after {last_b['minutes']} minutes: this code "
        f"{first['player_kib']:.1f} / {same['player_kib']:.1f} "
        f"(after 30 days {this['rows'][-1]['player_kib']:.1f}); baseline "
        f"{first_b['player_kib']:.1f} / {last_b['player_kib']:.1f}"
    )


if __name__ == "__main__":
    main()
