"""`pumpkin simulate`, `rules` and `rng`, run as the installed command line runs them."""

from __future__ import annotations

import json
import subprocess
import sys

SEED = "ab" * 32


def pumpkin(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", "from infrastructure.cli import main; main()", *args],
        capture_output=True,
        timeout=300,
        check=False,
    )


def test_simulate_json_reports_rtp_with_its_confidence_interval() -> None:
    done = pumpkin("simulate", "--spins", "2000", "--seed", "cli-test", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for key in (
        "rtp",
        "ci99_low",
        "ci99_high",
        "hit_frequency",
        "free_spins_frequency",
        "hold_and_win_frequency",
        "spins",
    ):
        assert key in report
    assert report["spins"] == 2000
    assert report["ci99_low"] <= report["rtp"] <= report["ci99_high"]


def test_simulate_with_the_same_seed_repeats_itself() -> None:
    runs = [pumpkin("simulate", "--spins", "500", "--seed", "again", "--json") for _ in range(2)]
    assert json.loads(runs[0].stdout)["rtp"] == json.loads(runs[1].stdout)["rtp"]


def test_rules_json_is_the_same_document_as_get_rules() -> None:
    from domain.game.rules_document import current_rules_document

    done = pumpkin("rules", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document.pop("jurisdiction")["name"] == "none"  # PUMPKIN_JURISDICTION's default
    assert document == json.loads(json.dumps(current_rules_document()))
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


def test_rng_writes_exactly_n_raw_bytes_repeatably() -> None:
    first = pumpkin("rng", "--seed", SEED, "--bytes", "1000")
    second = pumpkin("rng", "--seed", SEED, "--bytes", "1000")
    assert first.returncode == 0, first.stderr
    assert len(first.stdout) == 1000 and first.stdout == second.stdout
    other = pumpkin("rng", "--seed", "cd" * 32, "--bytes", "1000").stdout
    assert other != first.stdout


def test_rng_refuses_a_seed_that_is_not_256_bits_of_hex() -> None:
    assert pumpkin("rng", "--seed", "abc", "--bytes", "10").returncode != 0


def test_math_json_gives_the_computed_figures_of_one_state() -> None:
    done = pumpkin("math", "--level", "5", "--hw-mult", "2", "--screens", "2000", "--json")
    assert done.returncode == 0, done.stderr
    (state,) = json.loads(done.stdout)["states"]
    assert state["state"] == "L5/HW2/FS1.5"
    for key in (
        "rtp",
        "hit_frequency",
        "free_spins_frequency",
        "hold_and_win_frequency",
        "rtp_parts",
        "sd",
        "volatility_index",
        "max_win_odds",
    ):
        assert key in state
    assert state["max_win_odds"]["method"]


def test_math_refuses_a_multiplier_below_level_5() -> None:
    done = pumpkin("math", "--level", "2", "--hw-mult", "2")
    assert done.returncode == 2
    assert b"--hw-mult" in done.stderr


def test_simulate_ray_without_the_ray_extra_says_how_to_install_it() -> None:
    """As where `pip install -e .` left Ray out: `import ray` fails."""
    no_ray = "import sys; sys.modules['ray'] = None; from infrastructure.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", no_ray, "simulate", "--spins", "100", "--ray"],
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
    assert b"pip install -e '.[ray]'" in done.stderr, done.stderr
    assert b"Traceback" not in done.stderr + done.stdout, done.stderr
    assert done.stdout == b""
