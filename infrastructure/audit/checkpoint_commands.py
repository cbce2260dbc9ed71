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
    public_key_hex,
    record_checkpoint,
    verify_checkpoint,
)
from infrastructure.store.event_rows import EventRows


def signing_key_file(settings: Any) -> Path:
    return Path(settings.checkpoint_key_file or default_key_file(settings.database_url))


def checkpoint_command(settings: Any, out: Path | None) -> int:
    """Record a signed checkpoint of the store; with --out, also write it for a regulator."""
    from infrastructure.application import PumpkinApplication

    key = load_signing_key(signing_key_file(settings))
    assert key is not None
    application = PumpkinApplication.from_url(settings.database_url)
    try:
        document = record_checkpoint(application, key)
    finally:
        application.close()
    if out is not None:
        out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    typer.echo(f"checkpoint of {document['streams']:,} streams, merkle root "
               f"{document['merkle_root']}, public key {document['public_key']}")
    return 0


def checkpoint_section(
    application: Any, settings: Any, file: Path | None, public_key: str | None
) -> dict[str, Any] | None:
    """The store checked against a checkpoint: the one in `file`, else the latest stored (None
    if there is none). The expected signer: --public-key, else the operator's key file's."""
    document = (json.loads(file.read_text(encoding="utf-8")) if file is not None
                else latest_checkpoint(application))
    if document is None:
        return None
    if public_key is None:
        key = load_signing_key(signing_key_file(settings), create=False)
        public_key = public_key_hex(key) if key is not None else None
    problems = verify_checkpoint(document, EventRows(application), public_key)
    return {
        "source": str(file) if file is not None else "latest stored",
        "created_at": document.get("created_at"),
        "streams": document.get("streams"),
        "merkle_root": document.get("merkle_root"),
        "signer_checked": public_key is not None,
        "problems": problems,
    }
