"""Where the repository and its test data are, from any test folder."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
