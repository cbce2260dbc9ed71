"""A recorded round (CONTRACT.md's round) laid out for people: every step's screens as reels,
line wins marked on them, feature and Hold & Win details, settlement and fairness figures.

Cells hold short labels; any prize is shown as a multiple of the stake (a coin's or a jackpot's
money would not fit a cell), with its amount in minor units in the cell's title."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.game.board import JACKPOTS_X_STAKE, PAYLINES

_KIND = {"base": "Base game spin", "free_spin": "Free spin", "hold_and_win": "Hold & Win"}


@dataclass
class Cell:
    text: str
    classes: list[str] = field(default_factory=list)
    title: str = ""


@dataclass
class Screen:
    caption: str
    rows: list[list[Cell]]  # rows top to bottom, each reel 1..5 left to right


@dataclass
class StepView:
    index: int
    title: str
    kind: str
    win: int
    multiplier: float
    screens: list[Screen]
    line_wins: list[dict[str, Any]]
    facts: list[tuple[str, str]]


def cell_label(cell: str, stake: int) -> Cell:
    """A cell's short label: symbols by name, prizes as multiples of the stake."""
    name, _, value = cell.partition(":")
    if name == "COIN":
        return Cell(f"{value}×", ["coin"], f"coin worth {value} × stake")
    if name == "CANDY":
        times = JACKPOTS_X_STAKE.get(value)
        shown = f"{value} {times:g}×" if times is not None else value
        return Cell(shown, ["candy"], f"{value} jackpot candy ({times} × stake)")
    if name == "BOOSTER":
        return Cell("BOOST " + value, ["booster"], f"bonus booster ({value})")
    if name == "COLLECTOR":
        return Cell("COLLECT", ["collector"], "collector: collects every coin on its board")
    css = {
        "WILD": "wild",
        "SCATTER": "scatter",
        "NGC": "ngc",
        "COLLECTOR": "collector",
        "EMPTY": "empty",
    }.get(name, "symbol")
    return Cell(cell.replace("_", " "), [css], cell)


def screen_rows(
    screen: Sequence[Sequence[str]],
    stake: int,
    marks: Mapping[tuple[int, int], str] | None = None,
) -> list[list[Cell]]:
    """The screen (5 reels of 3 cells, top to bottom) as rows; `marks` adds a class to cells
    keyed by (reel 1..5, row 0..2)."""
    rows: list[list[Cell]] = []
    for row in range(len(screen[0]) if screen else 0):
        line = []
        for reel_index, reel in enumerate(screen):
            cell = cell_label(str(reel[row]), stake)
            mark = (marks or {}).get((reel_index + 1, row))
            if mark:
                cell.classes.append(mark)
            line.append(cell)
        rows.append(line)
    return rows


def step_view(index: int, step: Mapping[str, Any], stake: int) -> StepView:
    screen = step.get("screen") or []
    landed = step.get("landed_screen")
    screens = []
    feature_marks = _feature_marks(step)
    if landed and landed != screen:
        screens.append(Screen("As landed", screen_rows(landed, stake)))
        screens.append(
            Screen(
                "Final screen (after Wild Reels / Clover Moon Swap)",
                screen_rows(screen, stake, feature_marks),
            )
        )
    else:
        caption = "Board" if step.get("kind") == "hold_and_win" else "Screen"
        screens.append(Screen(caption, screen_rows(screen, stake, feature_marks)))
    wins = []
    for win in step.get("line_wins") or []:
        line = PAYLINES[int(win["line"]) - 1]
        count = int(win["count"])
        marks = {
            (reel + 1, row): "hit" if reel < count else "path" for reel, row in enumerate(line)
        }
        wins.append({**win, "rows": screen_rows(screen, stake, marks)})
    return StepView(
        index=index,
        title=_KIND.get(str(step.get("kind")), str(step.get("kind"))),
        kind=str(step.get("kind")),
        win=int(step.get("win") or 0),
        multiplier=float(step.get("multiplier") or 1),
        screens=screens,
        line_wins=wins,
        facts=list(_facts(step, stake)),
    )


def _feature_marks(step: Mapping[str, Any]) -> dict[tuple[int, int], str]:
    marks: dict[tuple[int, int], str] = {}
    for reel in step.get("wild_reels") or []:
        for row in range(3):
            marks[(int(reel), row)] = "wild-reel"
    swap = step.get("clover_moon_swap") or {}
    for reel, row in swap.get("positions") or []:
        marks[(int(reel), int(row))] = "swapped"
    for reel in step.get("collectors") or []:
        for row in range(3):
            marks.setdefault((int(reel), row), "collector-reel")
    return marks


def _facts(step: Mapping[str, Any], stake: int) -> Iterable[tuple[str, str]]:
    if step.get("wild_reels"):
        yield "Wild Reels", "reels " + ", ".join(str(r) for r in step["wild_reels"])
    swap = step.get("clover_moon_swap")
    if swap:
        yield (
            "Clover Moon Swap",
            (f"{len(swap.get('positions') or [])} cells became {swap.get('symbol')}"),
        )
    collector = step.get("normal_game_collector")
    if collector:
        yield (
            "Normal Game Collector",
            (
                f"{len(collector.get('coins') or [])} coins collected, "
                f"{multiple(collector.get('win'), stake)}"
            ),
        )
    booster = step.get("booster")
    if booster:
        yield (
            "Bonus Booster",
            (f"{booster.get('bonus')} multiplier becomes {booster.get('multiplier')}"),
        )
    if step.get("pumpkins_activated"):
        yield "Pumpkins activated", "reels " + ", ".join(str(r) for r in step["pumpkins_activated"])
    if step.get("free_spins_awarded"):
        yield (
            "Free spins awarded",
            (f"{step['free_spins_awarded']} ({step.get('free_spins_left')} left)"),
        )
    if step.get("collectors"):
        yield "Collector reels", ", ".join(str(r) for r in step["collectors"])
    if "respins_left" in step:
        yield "Respins left", str(step["respins_left"])
    coins = step.get("collections") or []
    if coins:
        yield (
            "Coins on the board",
            ", ".join(
                f"reel {c['reel']} row {int(c['row']) + 1}: {multiple(c['value'], stake)}"
                + (f" × {c['times']} collectors" if c.get("times") else "")
                for c in coins
            ),
        )
    for jackpot in step.get("jackpots") or []:
        yield (
            "Jackpot candy",
            (
                f"{jackpot.get('tier')} on reel {jackpot.get('reel')}: "
                f"{multiple(jackpot.get('value'), stake)}"
            ),
        )
    for won in step.get("jackpots_won") or []:
        yield "Jackpot won", f"{won.get('tier')}: {multiple(won.get('amount'), stake)}"
    if "collected" in step:
        yield "Collected so far (before the multiplier)", multiple(step["collected"], stake)
    if step.get("max_win_reached"):
        yield "Max win", "reached: the round stops here"


def multiple(amount: Any, stake: int) -> str:
    """A prize as a multiple of the stake, with its amount: "25× stake = 25.00"."""
    if not isinstance(amount, int) or not stake:
        return str(amount)
    times = f"{amount / stake:,.2f}".rstrip("0").rstrip(".")
    return f"{times}× stake = {amount / 100:,.2f}"


def fairness(played: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The figures that let anyone re-check the round, those the record holds."""
    shown = [("model version", str(played.get("model_version"))), ("seed", str(played.get("seed")))]
    for key, label in (
        ("nonce", "nonce"),
        ("client_seed", "client seed"),
        ("seed_commitment", "server seed commitment (SHA-256)"),
    ):
        if played.get(key) is not None:
            shown.append((label, str(played[key])))
    return shown
