"""The live kernel's own source (domain/game/kernel.py) compiled a second time, with its random
draws taken from domain.game.draws instead of domain.game.rng: the round logic exists once, and
the live build is untouched (not one instruction added to live play).

Only the line `from domain.game.rng import below, chance, weighted` differs. The swapped source
is written beside the package's bytecode (__pycache__, never committed), or where the package is
read-only (an installed image) into the user's cache directory, and imported from there as its
own module, so that numba caches its compiled functions apart from the live kernel's.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

_LIVE_IMPORT = "from domain.game.rng import below, chance, weighted\n"
_TILTED_IMPORT = "from domain.game.draws import below, chance, weighted\n"
MODULE_NAME = "domain.game._tilted_kernel_source"


def _build() -> Any:
    if MODULE_NAME in sys.modules:
        return sys.modules[MODULE_NAME]
    here = Path(__file__).resolve().parent
    source = (here / "kernel.py").read_text()
    if source.count(_LIVE_IMPORT) != 1:
        raise RuntimeError("domain/game/kernel.py no longer imports its draws in one line")
    tilted = source.replace(_LIVE_IMPORT, _TILTED_IMPORT)
    target = written(tilted, [here / "__pycache__", user_cache_dir()])
    spec = importlib.util.spec_from_file_location(MODULE_NAME, target)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {target}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    spec.loader.exec_module(module)
    return module


def user_cache_dir() -> Path:
    """Where the tilted source goes when the package's own __pycache__ cannot be written."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pumpkin-rgs"


def written(source: str, directories: list[Path]) -> Path:
    """The source written (or found unchanged) as tilted_kernel_source.py in the first of
    `directories` that can hold it."""
    failures = []
    for directory in directories:
        target = directory / "tilted_kernel_source.py"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            if not target.exists() or target.read_text() != source:  # only when kernel.py changed
                partial = target.with_suffix(f".{os.getpid()}.tmp")
                partial.write_text(source)
                os.replace(partial, target)  # whole, even with other processes building at once
        except OSError as error:  # read-only, or no such place: try the next
            failures.append(f"{directory}: {error}")
            continue
        return target
    raise RuntimeError("nowhere to write the tilted kernel: " + "; ".join(failures))


play = _build().play
