"""The tilted kernel's source goes beside the package's bytecode, or, where that cannot be
written (an installed, read-only package), into the next place that can hold it."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.game.tilted_kernel import written


def test_the_source_goes_to_the_first_place_that_can_hold_it(tmp_path: Path) -> None:
    read_only = tmp_path / "package"
    read_only.mkdir()
    read_only.chmod(0o555)
    fallback = tmp_path / "cache" / "pumpkin-rgs"
    try:
        blocked = read_only / "__pycache__"
        if _writable(read_only):  # e.g. running as root: make the first place a file instead
            blocked = tmp_path / "a-file"
            blocked.write_text("")
        target = written("x = 1\n", [blocked, fallback])
    finally:
        read_only.chmod(0o755)
    assert target == fallback / "tilted_kernel_source.py"
    assert target.read_text() == "x = 1\n"
    assert written("x = 1\n", [fallback]) == target  # found unchanged: not written again


def test_no_place_at_all_is_a_clear_error(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(RuntimeError, match="nowhere to write the tilted kernel"):
        written("x = 1\n", [a_file])


def _writable(directory: Path) -> bool:
    probe = directory / ".probe"
    try:
        probe.write_text("")
    except OSError:
        return False
    probe.unlink()
    return True
