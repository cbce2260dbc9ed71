"""`pumpkin simulate --ray`: the same rounds on a (local) Ray cluster give exactly the figures of
the local worker processes."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from domain.game.model import current_model
from infrastructure.mathtools.simulator import simulate, spec_for

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    """One local Ray for the whole test session (starting one takes seconds)."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    yield
    ray.shutdown()


def test_a_ray_run_equals_the_worker_processes_for_the_same_seed_and_spins(
    local_ray: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from infrastructure.mathtools import simulator
    from infrastructure.mathtools.ray_simulator import simulate_on_ray

    monkeypatch.setattr(simulator, "CHUNK", 100_000)  # short chunks: a short test

    spec = spec_for(
        current_model(),
        level=5,
        hw_halves=4,
        fs_halves=3,
        master_seed=bytes(range(32)),
        spins=250_000,  # three chunks, the last one short
        curve_every=10_000,
    )
    on_ray = simulate_on_ray(spec)
    local = simulate(spec, workers=2)
    assert on_ray.acc == local.acc
    assert on_ray.buckets == local.buckets
    assert on_ray.curve == local.curve
    assert on_ray.summary() == local.summary()


@pytest.mark.parametrize(
    ("args", "address"),
    [
        ((), None),
        (("--ray",), "local"),
        (("--ray", "auto"), "auto"),
        (("--ray", "10.0.0.5:6379"), "10.0.0.5:6379"),
    ],
)
def test_simulate_passes_the_ray_address_or_none_for_a_local_cluster(
    monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], address: str | None
) -> None:
    from typer.testing import CliRunner

    from infrastructure import cli
    from infrastructure.mathtools import commands

    seen: list[object] = []

    def run(**named: object) -> int:
        seen.append(named["ray_address"])
        return 0

    monkeypatch.setattr(commands, "simulate", run)
    argv = cli.with_ray_default(["simulate", *args, "--spins", "10"])
    result = CliRunner().invoke(cli.app, argv)
    assert result.exit_code == 0, result.output
    assert seen == [address]
