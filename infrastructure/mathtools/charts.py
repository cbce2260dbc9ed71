"""Charts a math reviewer wants to see after a simulation, written as PNG files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from domain.game.rules_document import rules_document  # noqa: E402
from domain.game.simulation import BUCKET_EDGES_X  # noqa: E402
from domain.game.state_vector import UNITS_PER_STAKE  # noqa: E402
from domain.game.statistics import Z99, RunTotals  # noqa: E402


def write_simulation_report(
    directory: Path, summary: dict[str, Any], totals: RunTotals
) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = [
        _convergence(directory / "rtp_convergence.png", summary, totals),
        _distribution(directory / "win_distribution.png", summary, totals),
        _features_per_level(directory / "feature_frequencies_per_level.png"),
    ]
    summary_file = directory / "summary.json"
    summary_file.write_text(json.dumps(summary, indent=2) + "\n")
    written.append(summary_file)
    return written


def _convergence(path: Path, summary: dict[str, Any], totals: RunTotals) -> Path:
    rounds = [n for n, _ in totals.curve]
    rtp = [won / (n * UNITS_PER_STAKE) for n, won in totals.curve]
    sd = float(summary["std_dev"])
    band = [Z99 * sd / math.sqrt(n) for n in rounds]
    fig, ax = plt.subplots(figsize=(9, 5))
    ax.plot(rounds, rtp, label="RTP so far", color="darkorange")
    ax.fill_between(
        rounds,
        [r - b for r, b in zip(rtp, band, strict=True)],
        [r + b for r, b in zip(rtp, band, strict=True)],
        alpha=0.25,
        label="99% confidence band",
    )
    ax.axhline(0.96, color="black", linestyle="--", label="target 96.0%")
    ax.set_xscale("log")
    ax.set_xlabel("rounds")
    ax.set_ylabel("RTP")
    ax.set_title(_title("RTP convergence", summary))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _distribution(path: Path, summary: dict[str, Any], totals: RunTotals) -> Path:
    labels = ["0"] + [f"{a}-{b}" for a, b in zip(BUCKET_EDGES_X, BUCKET_EDGES_X[1:], strict=False)][
        1:
    ]
    labels = ["0", "<1"] + labels + [f"{BUCKET_EDGES_X[-1]}"]
    n = totals.rounds
    shares = [c / n for c in totals.buckets]
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.bar(range(len(shares)), shares, color="purple")
    ax.set_yscale("log")
    ax.set_xticks(range(len(shares)), labels[: len(shares)], rotation=45)
    ax.set_xlabel("round win (x stake)")
    ax.set_ylabel("share of rounds")
    ax.set_title(_title("Win distribution", summary))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _features_per_level(path: Path) -> Path:
    states = [s for s in rules_document()["states"] if s["free_spins_one_in"]]
    fig, ax = plt.subplots(figsize=(10, 5))
    if states:
        names = [s["state"] for s in states]
        ax.plot(names, [1 / s["free_spins_one_in"] for s in states], "o-", label="Free Spins")
        ax.plot(names, [1 / s["hold_and_win_one_in"] for s in states], "s-", label="Hold & Win")
        ax.plot(names, [s["hit_frequency"] for s in states], "^-", label="any win (hit)")
        ax.set_yscale("log")
        ax.tick_params(axis="x", rotation=75)
        ax.legend()
    ax.set_title("Feature frequencies per state (published PAR run)")
    ax.set_ylabel("chance per round")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _title(what: str, s: dict[str, Any]) -> str:
    return (
        f"{what}: level {s['level']}, HW x{s['hold_and_win_multiplier']:g}, "
        f"FS x{s['free_spins_multiplier']:g}, {s['spins']:,} rounds"
    )
