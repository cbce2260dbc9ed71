"""`pumpkin`: the command line of docs/CONTRACT.md. Each command is a thin shell over the plain
function that does the work, imported inside the command (so `pumpkin --help` stays fast and a
command pays only for its own modules) and called with named, typed arguments."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from infrastructure.logging import configure_logging
from infrastructure.settings import Settings

app = typer.Typer(
    name="pumpkin",
    help="Pumpkin RGS: the remote game server of one Halloween video slot.",
    no_args_is_help=True,
    add_completion=False,
)
projections_app = typer.Typer(
    help="Keep the read models (balances, rounds, audit trail, statistics) up to date.",
    no_args_is_help=True,
)
app.add_typer(projections_app, name="projections")


def _settings() -> Settings:
    try:
        settings = Settings()
    except ValueError as exc:
        typer.echo(f"pumpkin: bad configuration: {exc}", err=True)
        raise typer.Exit(2) from None
    configure_logging(settings.log_format, settings.log_level)
    return settings


@contextmanager
def _store_reachable(settings: Settings) -> Iterator[None]:
    """A store that cannot be reached at start is a clear one-line error, not a traceback."""
    from infrastructure.http.errors import store_outage_types

    try:
        yield
    except store_outage_types() as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        typer.echo(
            f"pumpkin: cannot use the store {settings.database_url_for_log}: {message}", err=True
        )
        raise typer.Exit(3) from None


def _exit_with(code: object) -> None:
    raise typer.Exit(int(code) if isinstance(code, int) else 0)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Override PUMPKIN_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Override PUMPKIN_PORT.")] = None,
    projections: Annotated[
        bool,
        typer.Option(
            help="Also run the projections in this process (turn off when a separate "
            "`pumpkin projections run` follows the store)."
        ),
    ] = True,
    workers: Annotated[
        int, typer.Option(help="Server processes (each its own GIL); default PUMPKIN_WORKERS.")
    ] = 0,
) -> None:
    """Serve the HTTP API on PUMPKIN_DATABASE_URL (default: ./pumpkin.db, SQLite).

    Operator and auditor keys come from PUMPKIN_OPERATOR_KEY / PUMPKIN_AUDITOR_KEY; any key not
    set is generated for this run and written once to the log.
    """
    import uvicorn

    from infrastructure.bootstrap import (
        announce_generated_keys,
        build_runtime,
        jurisdiction_problems,
        settle_heap,
        start_log_on_its_own,
        start_projections_in_process,
    )
    from infrastructure.http.key_policy import key_problems
    from infrastructure.http.port_guard import PortInUse, refuse_if_port_held
    from infrastructure.http.server_limits import uvicorn_options

    settings = _settings()
    workers = workers or settings.workers
    problems = [*key_problems(settings), *jurisdiction_problems(settings)]
    for problem in problems:
        typer.echo(f"pumpkin: refusing to serve: {problem}", err=True)
    if problems:
        raise typer.Exit(2)
    where: dict[str, Any] = {"host": host or settings.host, "port": port or settings.port}
    try:
        refuse_if_port_held(where["host"], where["port"])
    except PortInUse as error:
        typer.echo(f"pumpkin: refusing to serve: {error}", err=True)
        raise typer.Exit(3) from None
    if not settings.public_url:  # the links handed out name the address served (workers too)
        listening = f"http://{where['host']}:{where['port']}"
        os.environ["PUMPKIN_PUBLIC_URL"] = listening
        settings = settings.model_copy(update={"public_url": listening})
    announce_generated_keys(settings)
    with_projections = projections and settings.serve_projections
    quiet: dict[str, Any] = {
        "log_config": None,
        "access_log": False,
        "server_header": False,
        **uvicorn_options(settings),
    }
    if workers <= 1:
        with _store_reachable(settings):
            runtime = build_runtime(settings, with_projections=with_projections)
        settle_heap()
        try:
            uvicorn.run(runtime.http_app, **where, **quiet)
        finally:
            runtime.close()
        return
    # Several processes (one GIL each): the workers read the keys this process settled on.
    os.environ["PUMPKIN_OPERATOR_KEY"] = settings.operator_key.get_secret_value()
    os.environ["PUMPKIN_AUDITOR_KEY"] = settings.auditor_key.get_secret_value()
    with _store_reachable(settings):
        stop_projections = start_projections_in_process(settings) if with_projections else None
        stop_log = start_log_on_its_own(settings) if with_projections else None
    from infrastructure.http.workers import supervise

    try:
        supervise(workers, where["host"], where["port"], quiet)
    except OSError as error:
        typer.echo(f"cannot serve on {where['host']}:{where['port']}: {error}", err=True)
        raise typer.Exit(3) from None
    finally:
        for stop in (stop_log, stop_projections):
            if stop is not None:
                stop()


HwMult = Annotated[
    float, typer.Option("--hw-mult", help="Hold & Win multiplier at level 5 (1.5-3).")
]
FsMult = Annotated[
    float, typer.Option("--fs-mult", help="Free Spins multiplier at level 5 (1.5-3).")
]


@app.command()
def simulate(
    spins: Annotated[int, typer.Option(help="How many rounds to play.", min=1)],
    level: Annotated[int, typer.Option(help="Spin Progress level the rounds start at (0-5).")] = 0,
    hw_mult: HwMult = 1.0,
    fs_mult: FsMult = 1.0,
    seed: Annotated[str | None, typer.Option(help="Master seed, for a repeatable run.")] = None,
    workers: Annotated[int, typer.Option(help="Worker processes.", min=1)] = 1,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    report: Annotated[
        Path | None, typer.Option(help="Write charts and tables into this folder.")
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="Run on a Ray cluster: an address, `auto`, or none for a local one.",
        ),
    ] = None,
) -> None:
    """Play N rounds with the live engine and report RTP and frequencies.

    Prints RTP with its 99% confidence interval, hit frequency, feature frequencies and the
    largest win.
    """
    from infrastructure.mathtools.commands import simulate as run

    _exit_with(run(
        spins=spins, level=level, hw_mult=hw_mult, fs_mult=fs_mult, seed=seed, workers=workers,
        json_out=json_out, report_dir=report, ray_address=ray,
    ))


@app.command("math")
def math_figures(
    level: Annotated[
        int | None, typer.Option(help="One state's level (0-5); all 21 states without it.")
    ] = None,
    hw_mult: HwMult = 1.0,
    fs_mult: FsMult = 1.0,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    screens: Annotated[
        int,
        typer.Option(
            help="Screens sampled for Clover Moon Swap's part of the sd (all else is exact; "
            "the calculator's DEFAULT_SCREENS)."
        ),
    ] = 50_000,
    workers: Annotated[
        int | None, typer.Option(help="Processes computing states at once (default: every core).")
    ] = None,
) -> None:
    """Print the computed (not simulated) figures: RTP and its parts, hit frequency, feature
    frequencies, sd and volatility index, max-win odds with their method."""
    from infrastructure.mathtools.math_figures import math_command

    _exit_with(math_command(
        level=level, hw_mult=hw_mult, fs_mult=fs_mult, json_out=json_out, screens=screens,
        workers=workers,
    ))


@app.command()
def rules(
    json_out: Annotated[bool, typer.Option("--json", help="Print the document as JSON.")] = False,
) -> None:
    """Print the rules document: stakes, paylines, paytable, per-level RTP, max win."""
    from infrastructure.mathtools.commands import rules as print_rules

    _exit_with(print_rules(json_out=json_out))


@app.command()
def rng(
    seed: Annotated[str, typer.Option(help="A round's 256-bit seed: 64 hex digits.")],
    n_bytes: Annotated[int, typer.Option("--bytes", help="How many bytes to write.", min=0)],
) -> None:
    """Write raw bytes of a round's random stream to stdout.

    The first N bytes of the stream that a round with SEED draws from, for testing labs'
    statistical suites: `pumpkin rng --seed <64 hex> --bytes 1000000 > stream.bin`.
    """
    from infrastructure.mathtools.commands import rng as write_stream

    _exit_with(write_stream(seed_hex=seed, n_bytes=n_bytes))


@app.command()
def verify(
    player: Annotated[str | None, typer.Option(help="Check one player only.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="The checkpoint you kept (a signed note from `pumpkin checkpoint` "
                          "or GET /log/checkpoint): the events must give its root."),
    ] = None,
    log_key: Annotated[
        str | None,
        typer.Option(help="The log's verifier key you pinned (GET /log/key when you first "
                          "trusted it): the checkpoint must be signed by it."),
    ] = None,
    witness_key: Annotated[
        list[str] | None,
        typer.Option(help="A witness's verifier key: the checkpoint must carry its "
                          "cosignature (repeatable)."),
    ] = None,
    public_key: Annotated[
        str | None,
        typer.Option(help="For a checkpoint file of the earlier stream-heads format: the "
                          "operator's Ed25519 public key (hex) it must carry."),
    ] = None,
    since: Annotated[
        Path | None,
        typer.Option(help="The daily check: a checkpoint you kept (signed by --log-key); "
                          "checks the log's consistency with it, then only the later events."),
    ] = None,
) -> None:
    """Replay the event store and check it; exit 0 only if all agrees.

    Rebuilds every player, checks each stream's hash chain, re-derives every round from its
    seed and model version, re-checks the rules the events must obey, compares every snapshot
    with replay, checks every closed session's commitment and seeds, and recomputes the
    transparency log from the events, against the checkpoint you kept (--checkpoint FILE
    --log-key VKEY); without them the checkpoints are "unanchored". With --since FILE
    --log-key VKEY: FILE's signature and its consistency with the log now, then only the
    events after it (exit 2 if FILE is not a checkpoint).
    """
    from infrastructure.audit.verification import verify_command

    settings = _settings()
    _exit_with(verify_command(
        settings, player=player, json_out=json_out, checkpoint=checkpoint,
        public_key=public_key, log_key=log_key, witness_keys=witness_key, since=since,
    ))


@app.command()
def checkpoint(
    out: Annotated[
        Path | None, typer.Option(help="Also write the newest checkpoint to this file.")
    ] = None,
) -> None:
    """Bring the transparency log up to the store and sign a checkpoint of it (a C2SP signed
    note) with the operator's Ed25519 log key (PUMPKIN_CHECKPOINT_KEY_FILE); --out writes the
    newest checkpoint, for a regulator to keep."""
    from infrastructure.audit.checkpoint_commands import checkpoint_command

    settings = _settings()
    with _store_reachable(settings):
        code = checkpoint_command(settings, out=out)
    _exit_with(code)


@app.command()
def witness(
    log: Annotated[str | None, typer.Option(help="The service's base URL.")] = None,
    log_key: Annotated[str | None, typer.Option(help="The log's verifier key you pinned.")] = None,
    key: Annotated[Path | None, typer.Option(help="This witness's key file.")] = None,
    state: Annotated[Path | None, typer.Option(help="This witness's state directory.")] = None,
    new_key: Annotated[
        Path | None, typer.Option(help="Make a witness key in this file and print its "
                                       "verifier key.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="The new key's name, e.g. "
                                                  "regulator.example/w1.")] = None,
) -> None:
    """Cosign the log's newest checkpoint if it extends the last one this witness cosigned.

    `--log URL --log-key VKEY --key FILE --state DIR`: exit 0 once cosigned, 1 naming
    `inconsistent` or `bad_signature` when refused (the auditor key in PUMPKIN_AUDITOR_KEY
    posts the cosignature). `--new-key FILE --name NAME` makes a key and prints its verifier key.
    """
    from infrastructure.transparency.witness_command import witness_command

    _exit_with(witness_command(log_url=log, log_key=log_key, key_file=key, state=state,
                               new_key_file=new_key, name=name))


@app.command()
def dispute(
    round_id: Annotated[str, typer.Argument(help="The round, e.g. alice.42.")],
    out: Annotated[
        Path | None, typer.Option(help="Write the report to this file (default: stdout).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Write JSON instead of HTML.")] = False,
) -> None:
    """Write a self-contained report of one round for a regulator (HTML, or JSON).

    State before, stake, seed and model version, every step's screen, line wins and paylines,
    collections and feature states, the settlement arithmetic, and the verdict: the round
    re-derived by the engine and its place in the stream's hash chain. Exit 0 if it verifies.
    """
    from infrastructure.audit.dispute import dispute_command

    settings = _settings()
    _exit_with(dispute_command(settings, round_id=round_id, out=out, json_out=json_out))


@app.command("wallet-conformance")
def wallet_conformance(
    url: Annotated[str, typer.Argument(help="The operator wallet's base URL.")],
    player: Annotated[str, typer.Option("--player", help="A test player known to the wallet.")],
    secret: Annotated[str, typer.Option(
        envvar="PUMPKIN_WALLET_SECRET", help="pumpkin: the HMAC key signing every call.")] = "",
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    protocol: Annotated[Literal["pumpkin", "hub88"], typer.Option(
        envvar="PUMPKIN_WALLET_PROTOCOL", help="The wallet's API.")] = "pumpkin",
    private_key: Annotated[str, typer.Option(
        envvar="PUMPKIN_WALLET_PRIVATE_KEY_FILE", help="hub88: the supplier's key (PEM).")] = "",
    public_key: Annotated[str, typer.Option(
        envvar="PUMPKIN_WALLET_PUBLIC_KEY_FILE", help="hub88: Hub88's public key (PEM).")] = "",
    currency: Annotated[str, typer.Option(envvar="PUMPKIN_CURRENCY")] = "EUR",
    game_code: Annotated[str, typer.Option(envvar="PUMPKIN_WALLET_GAME_CODE")] = "pumpkin_rgs",
    timeout: Annotated[float, typer.Option(help="Seconds one call may take.")] = 2.0,
) -> None:
    """Test an operator's wallet against the contract before go-live (signatures, debits,
    credits, idempotent repeats serially and 8 at once, rollbacks, insufficient funds, the
    balance). The test player's balance moves at most 100 minor units and ends where it
    started. Exit 0 when every case holds, else 1 with each failed case named."""
    from infrastructure.wallet.conformance import conformance_command

    if protocol == "pumpkin" and not secret:
        typer.echo("pumpkin: --secret (or PUMPKIN_WALLET_SECRET) is required", err=True)
        raise typer.Exit(2)
    if protocol == "hub88" and not private_key:
        typer.echo("pumpkin: --private-key (or PUMPKIN_WALLET_PRIVATE_KEY_FILE) is required "
                   "with --protocol hub88", err=True)
        raise typer.Exit(2)
    _exit_with(conformance_command(
        url, protocol=protocol, player_id=player, json_out=json_out, secret=secret,
        private_key_file=private_key, public_key_file=public_key, currency=currency,
        game_code=game_code, timeout_seconds=timeout,
    ))


@projections_app.command("run")
def projections_run() -> None:
    """Follow the event store into the read models, and the transparency log with its signed
    checkpoints, until stopped (SIGTERM or Ctrl-C)."""
    from infrastructure.bootstrap import start_log_on_its_own
    from projections.runner import run

    settings = _settings()
    stop_log = start_log_on_its_own(settings)
    try:
        run(settings)
    finally:
        stop_log()


@projections_app.command("rebuild")
def projections_rebuild() -> None:
    """Drop the read models and replay the whole event store into them from zero."""
    from projections.runner import rebuild

    position = rebuild(_settings())
    typer.echo(f"read models rebuilt up to event {position}")


@projections_app.command("export")
def projections_export(
    fmt: Annotated[str, typer.Option("--format", help="csv or jsonl.")] = "csv",
    player: Annotated[str | None, typer.Option(help="One player's events only.")] = None,
    out: Annotated[Path | None, typer.Option(help="Write here instead of stdout.")] = None,
) -> None:
    """Export the audit trail (every event flattened, with its hashes) as CSV or JSON lines."""
    from projections.export import export_audit

    if fmt not in ("csv", "jsonl"):
        raise typer.BadParameter("--format is csv or jsonl")
    settings = _settings()
    chosen: Literal["csv", "jsonl"] = "csv" if fmt == "csv" else "jsonl"
    if out is None:
        count = export_audit(settings, sys.stdout, chosen, player)
    else:
        with out.open("w", encoding="utf-8", newline="") as handle:
            count = export_audit(settings, handle, chosen, player)
    typer.echo(f"{count} events exported", err=True)


def with_ray_default(args: list[str]) -> list[str]:
    """`--ray` with no address (last, or followed by another option) means a local cluster."""
    out = []
    for i, arg in enumerate(args):
        out.append(arg)
        if arg == "--ray" and (i + 1 == len(args) or args[i + 1].startswith("--")):
            out.append("local")
    return out


def main() -> None:
    app(args=with_ray_default(sys.argv[1:]))
