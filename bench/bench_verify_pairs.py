"""`bench_verify.py --vs TREE`: verify's CPU seconds per round in this tree and in another
checkout, side by side: each tree builds its own store (same players and rounds: a store is
written by the code that reads it), then `verify` of one process runs in each tree in turn
(this, other, this, other...), each in a fresh interpreter, and the ratio is taken pair by pair
(rounds per CPU-second here / there): pairing keeps it meaningful on a machine whose speed
drifts. The median pair is the figure."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def _run(tree: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, str(HERE / "bench" / "bench_verify.py"), *args],
                          cwd=tree, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def side_by_side(other: str, players: int, rounds: int, pairs: int) -> None:
    from bench.bench_verify import drop

    trees = {"this": HERE, "other": Path(other).resolve()}
    stores = {label: _run(tree, "--build-only", "--players", str(players), "--rounds",
                          str(rounds)) for label, tree in trees.items()}
    print(f"stores: {players} players x {rounds} rounds each: {stores}")
    try:
        ratios = []
        for n in range(pairs):
            got: dict[str, Any] = {}
            for label, tree in trees.items():
                got[label] = json.loads(_run(tree, "--verify-only", "--database",
                                             stores[label]))
                if not got[label]["ok"]:
                    raise SystemExit(f"{label}: verify failed")
            per = {label: g["rounds"] / g["cpu"] for label, g in got.items()}
            ratios.append(per["this"] / per["other"])
            print(f"pair {n + 1}: this {per['this']:,.0f} rounds per CPU-second "
                  f"({got['this']['cpu']:.2f} s), {other} {per['other']:,.0f} "
                  f"({got['other']['cpu']:.2f} s): ratio {ratios[-1]:.3f}; load "
                  f"{os.getloadavg()[0]:.1f}")
        print(f"median ratio (this / {other}, rounds per CPU-second): "
              f"{statistics.median(ratios):.3f} over {pairs} pairs "
              f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    finally:
        for name in stores.values():
            drop(name)
