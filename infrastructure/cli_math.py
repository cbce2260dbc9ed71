"""`pumpkin simulate`, `math`, `rules` and `tune`: the math model's commands (`register` puts
them on infrastructure.cli's app). Without --variant they read the RTP variant in force
(PUMPKIN_RTP_VARIANT), with --no-jackpots (or where PUMPKIN_JURISDICTION forbids jackpots) its
no-jackpot model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def _exit_with(code: object) -> None:
    raise typer.Exit(int(code) if isinstance(code, int) else 0)

HwMult = Annotated[
    float, typer.Option("--hw-mult", help="Hold & Win multiplier at level 5 (1.5-3).")
]
FsMult = Annotated[
    float, typer.Option("--fs-mult", help="Free Spins multiplier at level 5 (1.5-3).")
]
Variant = Annotated[
    str | None,
    typer.Option("--variant", help="RTP variant (96, 94, 92); default: PUMPKIN_RTP_VARIANT."),
]
NoJackpots = Annotated[
    bool, typer.Option("--no-jackpots", help="The variant's no-jackpot model (as for de).")
]


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
    variant: Variant = None,
    no_jackpots: NoJackpots = False,
) -> None:
    """Play N rounds with the live engine and report RTP and frequencies.

    Prints RTP with its 99% confidence interval, hit frequency, feature frequencies and the
    largest win.
    """
    from infrastructure.mathtools.commands import simulate as run

    _exit_with(run(
        spins=spins, level=level, hw_mult=hw_mult, fs_mult=fs_mult, seed=seed, workers=workers,
        json_out=json_out, report_dir=report, ray_address=ray, variant=variant,
        no_jackpots=no_jackpots,
    ))


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
    variant: Variant = None,
    no_jackpots: NoJackpots = False,
) -> None:
    """Print the computed (not simulated) figures: RTP and its parts, hit frequency, feature
    frequencies, sd and volatility index, max-win odds with their method."""
    from infrastructure.mathtools.math_figures import math_command

    _exit_with(math_command(
        level=level, hw_mult=hw_mult, fs_mult=fs_mult, json_out=json_out, screens=screens,
        workers=workers, variant=variant, no_jackpots=no_jackpots,
    ))


def rules(
    json_out: Annotated[bool, typer.Option("--json", help="Print the document as JSON.")] = False,
    variant: Variant = None,
    no_jackpots: NoJackpots = False,
) -> None:
    """Print the rules document: stakes, paylines, paytable, per-level RTP, max win."""
    from infrastructure.mathtools.commands import rules as print_rules

    _exit_with(print_rules(json_out=json_out, variant=variant, no_jackpots=no_jackpots))


def tune(
    name: Annotated[str, typer.Option(help="The new model's name, e.g. pumpkin-v3-94.")],
    rtp: Annotated[float, typer.Option(help="The target RTP of every state, e.g. 0.94.")],
    max_win: Annotated[int, typer.Option(help="The max win (the cap), x stake.", min=1)],
    no_jackpots: NoJackpots = False,
    base: Annotated[
        str, typer.Option("--from", help="The model whose tables it starts from.")
    ] = "pumpkin-v2",
    rounds: Annotated[
        int, typer.Option(help="Importance-sampling rounds per state (what the cap keeps back).")
    ] = 400_000,
    workers: Annotated[int, typer.Option(help="Processes.", min=1)] = 2,
    out: Annotated[Path | None, typer.Option(help="Folder (default: domain/game/models).")] = None,
) -> None:
    """Tune a model version onto a target RTP on the calculator (an RTP variant, or with
    --no-jackpots its no-jackpot model) and write it with its max-win figures."""
    from infrastructure.mathtools.variant_tuning import MODELS, base_model, build

    if not 0.5 < rtp < 1.0:
        typer.echo("pumpkin: --rtp is a fraction, e.g. 0.94", err=True)
        raise typer.Exit(2)
    model = build(
        base_model(base), name, rtp, max_win, not no_jackpots, rounds, workers, out or MODELS
    )
    typer.echo(model.version)


def register(app: typer.Typer) -> None:
    app.command()(simulate)
    app.command("math")(math_figures)
    app.command()(rules)
    app.command()(tune)
