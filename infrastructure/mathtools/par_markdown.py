"""docs/PAR.md, written from a PAR run's figures (infrastructure.mathtools.par_report): the
table of every state, the verdict, and the max win's odds per state with their method."""

from __future__ import annotations

from typing import Any

from domain.game.max_win_odds import (
    RELIABLE_EFFECTIVE_HITS,
    RELIABLE_RELATIVE_ERROR,
    cantelli_of,
    stated_odds,
)
from infrastructure.mathtools.par_lab_view import lab_view_section, ordered_keys
from infrastructure.mathtools.par_report import CERTIFICATION_SPINS, CI_CHECK, verdict


def markdown(math_figures: dict[str, Any], par: dict[str, Any]) -> str:
    n = par["spins_per_state"]
    lines = [
        "# PAR report: Pumpkin",
        "",
        f"Model `{par['model_version']}`, generated {par['generated']} by "
        f"`python -m infrastructure.mathtools.par_report --spins {n}` with the live engine.",
        "",
        "Computed figures (`pumpkin math`, the calculator: skeletons and the symbols that decide "
        "line wins and Clover Moon Swap enumerated exactly, Hold & Win by a Markov chain, Free "
        "Spins by Wald's identity, so RTP, hit frequency and feature frequencies are exact; the "
        "sd too, by the same enumeration, but Clover Moon Swap's second moment, from "
        f"{math_figures['screens']:,} fixed-seed screens with each swap averaged exactly) beside "
        "a simulation of "
        f"{n:,} rounds per state. Master seed `{par['master_seed']}`, fixed before the run "
        '(SHA-256 of "pumpkin-par:" and the model name); each state\'s seed is SHA-256(master '
        "seed + state key). No state was re-simulated.",
    ]
    if n < CERTIFICATION_SPINS:
        lines += [
            "",
            f"**This run is short** ({n:,} rounds per state, what the shared 2-core development "
            "machine allows): its intervals are wide. The certification run is "
            f"`python -m infrastructure.mathtools.par_report --spins {CERTIFICATION_SPINS}` "
            "(see docs/MATH.md for running it on a cluster).",
        ]
    lines += [
        "",
        "| state | computed RTP | simulated RTP | 99% CI | hit computed / sim. | FS 1 in | "
        "H&W 1 in | sd | VI | lines / NGC / clover / H&W / FS | checks |",
        "|---|---:|---:|---|---|---:|---:|---:|---:|---|---|",
    ]
    for key in ordered_keys(par["states"]):
        s = par["states"][key]
        c = math_figures["states"][key]
        p = c["rtp_parts"]
        missed = [name for name, passed in s["checks"].items() if not passed]
        targets = [name for name in missed if not name.startswith(CI_CHECK)]
        outside = [_figure_name(name) for name in missed if name.startswith(CI_CHECK)]
        verdict = (
            "FAIL: " + ", ".join(targets)
            if targets
            else "outside its 99% interval: " + ", ".join(outside)
            if outside
            else "pass"
        )
        lines.append(
            f"| {key} | {_computed_rtp(c)} | {s['rtp']:.3%} "
            f"| {s['ci99_low']:.3%} .. {s['ci99_high']:.3%} "
            f"| {c['hit_frequency']:.2%} / {s['hit_frequency']:.2%} "
            f"| {c['free_spins_one_in']:,.1f} | {c['hold_and_win_one_in']:,.1f} "
            f"| {c['sd']:.2f} | {c['volatility_index']:.2f} "
            f"| {p['base_lines']:.2%} / {p['normal_game_collector']:.2%} / "
            f"{p['clover_moon_swap']:.2%} / {p['hold_and_win']:.2%} / {p['free_spins']:.2%} "
            f"| {verdict} |"
        )
    lines += [
        "",
        *_verdict_lines(par),
        "",
        *max_win_section(par["model_version"], math_figures["states"], par["states"]),
        *lab_view_section(math_figures["states"], par["states"]),
    ]
    return "\n".join(lines)


def _computed_rtp(figures: dict[str, Any]) -> str:
    """The computed RTP, with its standard error where it has one (a sampled part)."""
    error = figures["rtp_standard_error"]
    return f"{figures['rtp']:.4%}" + (f" (+-{error:.4%})" if error else "")


def _figure_name(check: str) -> str:
    return check.removeprefix(CI_CHECK + "contains_computed_").replace("_", " ")


def _verdict_lines(par: dict[str, Any]) -> list[str]:
    found = par.get("verdict") or verdict(par["states"])
    misses = found["ci99_misses"]
    return [
        f"Every target met in every state: **{'yes' if not found['targets_missed'] else 'NO'}**"
        + (f" (missed: {'; '.join(found['targets_missed'])})" if found["targets_missed"] else "")
        + ".",
        "",
        f"99% intervals containing their computed figure: {found['ci99_intervals'] - len(misses)} "
        f"of {found['ci99_intervals']}"
        + (f" (outside: {'; '.join(misses)})" if misses else "")
        + f". With {found['ci99_intervals']} intervals at 99%, chance alone leaves about "
        f"{found['ci99_intervals'] / 100:.1f} outside, and up to {found['ci99_misses_allowed']} "
        "at the 1% level; more would mean a computed figure is wrong.",
        "",
        f"All checks pass: **{'yes' if found['all_pass'] else 'NO'}**.",
    ]


def max_win_section(version: str, computed: dict[str, Any], simulated: dict[str, Any]) -> list[str]:
    """The max win's odds per state: what is published (domain.game.max_win_odds), the
    importance-sampling run behind it, Cantelli's bound and the simulation's count."""
    lines = [
        "## Max win (10,000 x stake)",
        "",
        "Importance sampling (`python -m infrastructure.mathtools.max_win`, docs/MATH.md): "
        "rounds of the live kernel drawn from the model and two tilts refined by the "
        "cross-entropy method, each weighted by its exact likelihood ratio. Published where it "
        f"is reliable (at least {RELIABLE_EFFECTIVE_HITS} effective hits, standard error at "
        f"most {RELIABLE_RELATIVE_ERROR:.0%} of the estimate) and not rejected by the "
        "simulation's count of max wins; otherwise a bound that holds: the exact binomial "
        "(Clopper-Pearson) 99% upper confidence bound from the simulation's count of max wins "
        "in the state, or Cantelli's bound (true of any distribution) where that is tighter. "
        "Logarithms base 10 of the probability.",
        "",
        "| state | published | IS log10 P | 99% CI | rel. se | hits (effective) | tilted "
        "rounds | Cantelli: 1 in at least | max wins simulated |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for key in ordered_keys(computed):
        c = computed[key]
        s = simulated.get(key, {})
        seen = (int(s["spins"]), int(s.get("max_win_hits", 0))) if s else None
        odds = stated_odds(version, key, cantelli_of(c["max_win_odds"]), seen)
        m = odds["importance_sampling"] or {}
        low, high = m.get("log10_ci99") or (None, None)
        error = m.get("relative_standard_error")
        lines.append(
            f"| {key} | {odds['statement']} | {_figure(m.get('log10_probability'))} "
            f"| {_figure(low)} .. {_figure(high)} | {_figure(error, '.2f')} "
            f"| {m.get('hits', '-')} ({_figure(m.get('effective_hits'), '.1f')}) "
            f"| {m.get('rounds') or 0:,} | {odds['cantelli']['one_in_at_least']:,.0f} "
            f"| {s.get('max_win_hits', '-')} in {s.get('spins', 0):,} |"
        )
    return [*lines, ""]


def _figure(x: float | None, spec: str = ".2f") -> str:
    return "-" if x is None else format(x, spec)
