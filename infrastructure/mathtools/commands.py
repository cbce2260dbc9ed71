"""`pumpkin simulate`, `pumpkin rules` and `pumpkin rng`: the math model's command line."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import sys
from pathlib import Path
from typing import Any

from domain.game.board import MAX_LEVEL
from domain.game.model import current_model
from domain.game.progress import X1, X1_5, X3, halves_of, multiplier_of
from domain.game.rng import SEED_BYTES, keystream
from domain.game.rules_document import rules_document
from domain.ledger.protection import profile_named
from infrastructure.mathtools.simulator import RunSpec, spec_for
from infrastructure.mathtools.simulator import simulate as run_simulation

_HEX_SEED = re.compile(r"^[0-9a-fA-F]{64}$")
_CURVE_POINTS = 200


class UsageError(ValueError):
    """A command-line value outside what the command accepts."""


def master_seed(text: str | None) -> bytes:
    """64 hex digits are the seed itself; any other text is hashed into one (SHA-256)."""
    if text is None:
        return secrets.token_bytes(SEED_BYTES)
    if _HEX_SEED.match(text):
        return bytes.fromhex(text)
    return hashlib.sha256(text.encode()).digest()


def state_halves(level: int, hw_mult: float, fs_mult: float) -> tuple[int, int]:
    if not 0 <= level <= MAX_LEVEL:
        raise UsageError(f"--level must be 0 to {MAX_LEVEL}")
    halves = []
    for name, mult in (("--hw-mult", hw_mult), ("--fs-mult", fs_mult)):
        try:
            h = halves_of(mult)
        except ValueError:
            raise UsageError(f"{name} moves in steps of 0.5") from None
        if level < MAX_LEVEL:
            if h != X1:
                raise UsageError(f"{name} is 1 below level {MAX_LEVEL}")
        else:
            h = X1_5 if h == X1 else h  # level 5 starts at x1.5
            if not X1_5 <= h <= X3:
                raise UsageError(f"{name} is 1.5, 2, 2.5 or 3 at level {MAX_LEVEL}")
        halves.append(h)
    return halves[0], halves[1]


def simulate(
    spins: int,
    level: int,
    hw_mult: float,
    fs_mult: float,
    seed: str | None,
    workers: int,
    json_out: bool,
    report_dir: Path | None,
    ray_address: str | None = None,
) -> int:
    try:
        hw, fs = state_halves(level, hw_mult, fs_mult)
        if spins < 1:
            raise UsageError("--spins must be at least 1")
        if ray_address is not None:
            _ray_installed()
    except UsageError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    model = current_model()
    seed_bytes = master_seed(seed)
    every = max(1, spins // _CURVE_POINTS) if report_dir else 0
    spec = spec_for(
        model,
        level=level,
        hw_halves=hw,
        fs_halves=fs,
        master_seed=seed_bytes,
        spins=spins,
        curve_every=every,
    )
    show = sys.stderr.isatty() and spins >= 2_000_000
    totals = _run_with_progress(spec, workers, show, ray_address)
    summary: dict[str, Any] = {
        "model_version": model.version,
        "level": level,
        "hold_and_win_multiplier": multiplier_of(hw),
        "free_spins_multiplier": multiplier_of(fs),
        "master_seed": seed_bytes.hex(),
        "workers": workers,
        **({"ray": ray_address} if ray_address is not None else {}),
        **totals.summary(),
    }
    largest_index = int(summary["largest_win_round_index"])
    summary["largest_win_round_seed"] = (
        seed_bytes[:24] + largest_index.to_bytes(8, "little")
    ).hex()
    if report_dir is not None:
        from infrastructure.mathtools.charts import write_simulation_report

        summary["report"] = [str(p) for p in write_simulation_report(report_dir, summary, totals)]
    if json_out:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        sys.stdout.write(_text(summary))
    return 0


def _ray_installed() -> None:
    from infrastructure.mathtools.ray_simulator import RayMissing, ray_module

    try:
        ray_module()
    except RayMissing as missing:
        raise UsageError(str(missing)) from None


def _run_with_progress(spec: RunSpec, workers: int, show: bool, ray_address: str | None) -> Any:
    def run(on_progress: Any = None) -> Any:
        if ray_address is not None:
            from infrastructure.mathtools.ray_simulator import simulate_on_ray

            return simulate_on_ray(spec, ray_address, on_progress=on_progress)
        return run_simulation(spec, workers, on_progress=on_progress)

    if not show:
        return run()
    from tqdm import tqdm

    with tqdm(total=spec.spins, unit="rounds", unit_scale=True, file=sys.stderr) as bar:
        return run(bar.update)


def _text(s: dict[str, Any]) -> str:
    def one_in(x: float | None) -> str:
        return f"1 in {x:,.1f}" if x else "never"

    return "\n".join(
        [
            f"model          {s['model_version']}",
            f"state          level {s['level']}, Hold & Win x{s['hold_and_win_multiplier']:g}, "
            f"Free Spins x{s['free_spins_multiplier']:g}",
            f"spins          {s['spins']:,}",
            f"RTP            {s['rtp']:.4%}  (99% CI {s['ci99_low']:.4%} .. {s['ci99_high']:.4%})",
            f"  base game    {s['base_game_rtp']:.4%}",
            f"  free spins   {s['free_spins_rtp']:.4%}",
            f"  hold & win   {s['hold_and_win_rtp']:.4%}",
            f"hit frequency  {s['hit_frequency']:.4%}",
            f"free spins     {one_in(s['free_spins_one_in'])}",
            f"hold & win     {one_in(s['hold_and_win_one_in'])}",
            f"largest win    {s['largest_win_x_stake']:,.2f} x stake "
            f"(round seed {s['largest_win_round_seed']})",
            f"max-win hits   {s['max_win_hits']}",
            f"master seed    {s['master_seed']}",
            "",
        ]
    )


def rules(json_out: bool) -> int:
    from infrastructure.settings import Settings

    jurisdiction = profile_named(Settings().jurisdiction).document()
    document = {**rules_document(), "jurisdiction": jurisdiction}
    if json_out:
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    lines = [f"Pumpkin — rules document, model {document['model_version']}", ""]
    lines.append("Jurisdiction: " + ", ".join(f"{k} {v}" for k, v in jurisdiction.items()))
    lines.append("Stakes (minor units): " + ", ".join(map(str, document["stakes"])))
    lines.append("Paylines (row on reels 1-5, row 0 at the top):")
    lines += [
        f"  {i}: {' '.join(map(str, line))}" for i, line in enumerate(document["paylines"], 1)
    ]
    lines.append("Paytable (x line bet; line bet = stake / 10):")
    for symbol, pays in document["paytable"].items():
        lines.append(f"  {symbol:6} 3: {pays['3']:>4}  4: {pays['4']:>4}  5: {pays['5']:>4}")
    lines.append("States (RTP computed, or from the PAR run where no computed figures exist):")
    for s in document["states"]:
        rtp = f"{s['rtp']:.3%} ({s['rtp_method']})" if s["rtp"] is not None else "n/a"
        sd = f", sd {s['sd']:.2f}, VI {s['volatility_index']:.2f}" if s.get("sd") else ""
        lines.append(
            f"  level {s['level']} HWx{s['hold_and_win_multiplier']:g} "
            f"FSx{s['free_spins_multiplier']:g}: RTP {rtp}{sd}, "
            f"scatter {s['scatter_chance_per_reel']:.4f}/reel, "
            f"pumpkin {s['pumpkin_activation_chance_per_coin']:.5f}/coin"
        )
    lines.append(
        f"Max win: {document['max_win']['x_stake']:,} x stake, odds "
        f"{_odds(document['max_win']['odds'])}"
    )
    lines.append("Disclosures:")
    lines += [f"  - {d}" for d in document["disclosures"]]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _odds(odds: dict[str, Any] | None) -> str:
    if odds and odds.get("statement"):
        return f"{odds['statement']} ({odds['most_likely_state']}, the likeliest state)"
    if odds and odds.get("one_in_at_least"):
        return (
            f"1 in {odds['one_in_at_least']:,} rounds or longer ({odds['most_likely_state']}; "
            f"{odds['method']})"
        )
    if not odds or not odds.get("estimated_one_in"):
        return "n/a"
    return f"about 1 in {odds['estimated_one_in']:,} rounds ({odds['most_likely_state']})"


def rng(seed_hex: str, n_bytes: int) -> int:
    if not _HEX_SEED.match(seed_hex or ""):
        sys.stderr.write("error: --seed must be 64 hex digits (256 bits)\n")
        return 2
    if n_bytes < 0:
        sys.stderr.write("error: --bytes must be 0 or more\n")
        return 2
    seed = bytes.fromhex(seed_hex)
    out = sys.stdout.buffer
    chunk = 1 << 22
    if n_bytes <= chunk:
        out.write(keystream(seed, n_bytes))
    else:
        from domain.game.rng import keystream_chunks

        for block in keystream_chunks(seed, n_bytes, chunk):
            out.write(block)
    out.flush()
    return 0
