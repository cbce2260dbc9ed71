"""Found by bench/soak.py (the same holds for the computed figures, <name>.math.json): once
`python -m infrastructure.mathtools.par_report` published its results
beside the model (domain/game/models/pumpkin-v1.par.json, which the rules document reads), every
spin of a freshly started server answered 500: the model registry took the PAR file for a model
(KeyError: 'name')."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from domain.game import model as model_module


@pytest.fixture
def models_folder_with_par_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A copy of the published models, with PAR results beside them."""
    for entry in resources.files("domain.game.models").iterdir():
        if entry.name.endswith(".json") and not entry.name.endswith((".par.json", ".math.json")):
            (tmp_path / entry.name).write_text(entry.read_text())
    (tmp_path / "pumpkin-v1.par.json").write_text(json.dumps({"all_pass": True, "rtp": 0.96}))
    (tmp_path / "pumpkin-v2.math.json").write_text(json.dumps({"states": {}}))
    monkeypatch.setattr(model_module.resources, "files", lambda _package: tmp_path)
    model_module.registry.cache_clear()
    model_module.current_model.cache_clear()
    try:
        yield tmp_path
    finally:
        model_module.registry.cache_clear()
        model_module.current_model.cache_clear()


def test_par_results_beside_the_models_are_not_taken_for_a_model(
    models_folder_with_par_results: Path,
) -> None:
    models = model_module.registry()
    names = {m.name for m in models.values()}
    assert "pumpkin-v1" in names and names <= {"pumpkin-v1", "pumpkin-v2"}
    assert model_module.current_model().name == model_module.CURRENT_MODEL_NAME
