"""`pumpkin simulate`, `pumpkin rules`, `pumpkin rng` as a lab would run them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from domain.engine import play_round
from domain.progress import state_progress
from domain.rng import keystream

PUMPKIN = [str(Path(sys.executable).parent / "pumpkin")]


def pumpkin(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*PUMPKIN, *args], capture_output=True, timeout=300, check=False)


def test_simulate_json_has_the_contracts_figures() -> None:
    done = pumpkin(
        "simulate",
        "--spins",
        "20000",
        "--level",
        "5",
        "--hw-mult",
        "2",
        "--fs-mult",
        "3",
        "--seed",
        "lab",
        "--workers",
        "2",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for key in (
        "rtp",
        "ci99_low",
        "ci99_high",
        "hit_frequency",
        "free_spins_frequency",
        "hold_and_win_frequency",
        "spins",
    ):
        assert key in result
    assert result["spins"] == 20000
    assert result["ci99_low"] <= result["rtp"] <= result["ci99_high"]
    assert (result["hold_and_win_multiplier"], result["free_spins_multiplier"]) == (2.0, 3.0)


def test_simulate_is_repeatable_with_a_seed_whatever_the_workers() -> None:
    one = pumpkin("simulate", "--spins", "30000", "--seed", "same", "--workers", "1", "--json")
    two = pumpkin("simulate", "--spins", "30000", "--seed", "same", "--workers", "2", "--json")
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    for key in ("rtp", "hit_frequency", "free_spins_frequency", "largest_win_x_stake"):
        assert a[key] == b[key]


def test_the_largest_simulated_win_replays_alone_from_its_round_seed() -> None:
    result = json.loads(pumpkin("simulate", "--spins", "5000", "--level", "3", "--json").stdout)
    seed = bytes.fromhex(result["largest_win_round_seed"])
    replayed = play_round(state_progress(3), 20, seed)
    assert replayed.total_win == round(result["largest_win_x_stake"] * 20)


def test_simulate_refuses_states_outside_the_rules() -> None:
    assert pumpkin("simulate", "--spins", "10", "--level", "2", "--hw-mult", "2").returncode == 2
    assert pumpkin("simulate", "--spins", "10", "--level", "5", "--fs-mult", "3.5").returncode == 2
    assert pumpkin("simulate", "--spins", "10", "--level", "9").returncode == 2


def test_simulate_report_writes_charts(tmp_path: object) -> None:
    done = pumpkin("simulate", "--spins", "20000", "--report", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    names = {p.rsplit("/", 1)[-1] for p in json.loads(done.stdout)["report"]}
    assert {"rtp_convergence.png", "win_distribution.png"} <= names


def test_rng_writes_the_rounds_raw_stream() -> None:
    seed = "0f" * 32
    done = pumpkin("rng", "--seed", seed, "--bytes", "100000")
    assert done.returncode == 0
    assert done.stdout == keystream(bytes.fromhex(seed), 100_000)


def test_rng_refuses_a_seed_that_is_not_256_bits() -> None:
    assert pumpkin("rng", "--seed", "abc", "--bytes", "10").returncode != 0


def test_rules_json_is_the_contracts_document() -> None:
    document = json.loads(pumpkin("rules", "--json").stdout)
    for key in (
        "model_version",
        "stakes",
        "paylines",
        "paytable",
        "symbols",
        "states",
        "max_win",
        "disclosures",
    ):
        assert key in document
    assert len(document["paylines"]) == 10 and len(document["states"]) == 21
    assert set(document["paytable"]["WITCH"]) == {"3", "4", "5"}
    assert any("fall" in d for d in document["disclosures"])
