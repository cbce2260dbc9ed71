"""`pumpkin checkpoint [--out FILE]` and the checkpoint part of `pumpkin verify`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from infrastructure.audit.checkpoints import (
    default_key_file,
    latest_checkpoint,
    load_signing_key,
    verify_checkpoint,
)
from infrastructure.store.event_rows import EventRows


def signing_key_file(settings: Any) -> Path:
    return Path(settings.checkpoint_key_file or default_key_file(settings.database_url))


def checkpoint_command(settings: Any, out: Path | None) -> int:
    """Bring the transparency log up to the store and sign a checkpoint of it (a C2SP signed
    note, infrastructure.transparency) if it grew; with --out, also write the newest one, for a
    regulator to keep."""
    from infrastructure.application import PumpkinApplication
    from infrastructure.transparency.log_builder import LogBuilder, log_verifier

    key = load_signing_key(signing_key_file(settings))
    assert key is not None  # created on first use
    application = PumpkinApplication.from_url(settings.database_url)
    try:
        builder = LogBuilder(application)
        builder.sign_checkpoint(key)
        newest = builder.newest_checkpoint()
    finally:
        application.close()
    if newest is None:
        typer.echo("the store holds no event yet: no checkpoint signed")
        return 0
    if out is not None:
        out.write_text(newest, encoding="utf-8")
    size = newest.split("\n")[1]
    typer.echo(f"checkpoint of {int(size):,} leaves; log key {log_verifier(key).vkey()}")
    return 0


def checkpoint_section(
    application: Any, file: Path | None, public_key: str | None
) -> dict[str, Any] | None:
    """The store checked against a checkpoint of the earlier stream-heads format: the one in
    `file`, else the latest stored (None if there is none). Its signer is compared with
    --public-key only: a key found beside the store is never trusted."""
    document = (json.loads(file.read_text(encoding="utf-8")) if file is not None
                else latest_checkpoint(application))
    if document is None:
        return None
    problems = verify_checkpoint(document, EventRows(application), public_key)
    return {
        "source": str(file) if file is not None else "latest stored",
        "created_at": document.get("created_at"),
        "streams": document.get("streams"),
        "merkle_root": document.get("merkle_root"),
        "signer_checked": public_key is not None,
        "problems": problems,
    }
