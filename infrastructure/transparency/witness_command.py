"""`pumpkin witness ...` as the command line runs it (infrastructure.transparency.witness)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from infrastructure.transparency.notes import NoteError
from infrastructure.transparency.witness import WitnessRefusal, load_key, new_key, witness_once


def witness_command(
    log_url: str | None, log_key: str | None, key_file: Path | None, state: Path | None,
    new_key_file: Path | None, name: str | None,
) -> int:
    if new_key_file is not None:
        if not name:
            typer.echo("pumpkin witness: --new-key needs --name", err=True)
            return 2
        try:
            typer.echo(new_key(new_key_file, name).verifier().vkey())
        except (NoteError, FileExistsError) as exc:
            typer.echo(f"pumpkin witness: {exc}", err=True)
            return 2
        return 0
    if not (log_url and log_key and key_file and state):
        typer.echo("pumpkin witness: --log URL --log-key VKEY --key FILE --state DIR", err=True)
        return 2
    import httpx

    try:
        witness = load_key(key_file)
        with httpx.Client(base_url=log_url.rstrip("/"), timeout=30) as client:
            checkpoint = witness_once(client, log_key, witness, state,
                                      os.environ.get("PUMPKIN_AUDITOR_KEY", ""))
    except WitnessRefusal as exc:
        typer.echo(f"pumpkin witness: refused, {exc}", err=True)
        return 1
    except (NoteError, OSError, httpx.HTTPError) as exc:
        typer.echo(f"pumpkin witness: {exc}", err=True)
        return 2
    typer.echo(f"cosigned the checkpoint of {checkpoint.size:,} leaves of {checkpoint.origin}")
    return 0
