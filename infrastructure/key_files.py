"""Key files the service creates at first start: written whole or not at all (mode 0600), so
processes starting together (the workers of one `serve`) all end up reading the same key."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def read_or_create(path: Path, make: Callable[[], bytes]) -> bytes:
    """The file's bytes; if there is no file, `make()` written to it first (whoever links
    first wins; the others read the winner's)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "wb") as handle:  # mkstemp makes it 0600
            handle.write(make())
        try:
            os.link(temporary, path)  # atomic, and refuses to replace an existing key
        except FileExistsError:
            pass
    finally:
        os.unlink(temporary)
    return path.read_bytes()
