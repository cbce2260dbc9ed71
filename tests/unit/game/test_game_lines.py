"""Line wins on explicit screens: left to right, highest per line, wilds substitute."""

from __future__ import annotations

import numpy as np
from game_support import cells_of

from domain.game.kernel import _evaluate_lines
from domain.game.model import current_model
from domain.game.state_vector import REC
from domain.game.symbols import PAYING

PAYS = current_model().paytable


def line_wins(reels: list[str]) -> dict[int, tuple[str, int, int]]:
    """{line (from 1): (symbol, count, pays in line bets)} of a screen."""
    cells, _ = cells_of(reels)
    params = current_model().params(0, 2, 2)
    trace = np.zeros(1024, dtype=np.int64)
    trace[0] = 1
    _evaluate_lines(params, cells, trace, True, 0)
    wins = {}
    for p in range(1, int(trace[0]), REC):
        _, _, line, symbol, count, units = (int(x) for x in trace[p : p + 6])
        wins[line + 1] = (PAYING[symbol], count, units // 2)
    return wins


def line_units(reels: list[str]) -> int:
    """Total line wins in line bets."""
    return sum(pays for _, _, pays in line_wins(reels).values())


def test_three_of_a_kind_on_the_middle_line_pays_from_the_paytable() -> None:
    screen = ["Q A K", "J A Q", "Q A J", "K Q TEN", "TEN K J"]
    assert line_units(screen) == PAYS["A"][0]


def test_a_win_must_start_on_reel_one() -> None:
    screen = ["Q TEN K", "J A Q", "Q A J", "K A TEN", "TEN K J"]
    assert line_units(screen) == 0


def test_wilds_substitute_for_paying_symbols() -> None:
    screen = ["Q A K", "J WILD Q", "Q A J", "K WILD TEN", "TEN Q J"]
    assert line_units(screen) == PAYS["A"][1]  # A WILD A WILD = four A


def test_a_line_of_wilds_followed_by_a_symbol_pays_as_that_symbol() -> None:
    screen = ["Q WILD K", "J WILD Q", "Q CAT J", "K TEN TEN", "TEN Q J"]
    assert line_units(screen) == PAYS["CAT"][0]


def test_five_wilds_pay_the_highest_five_of_a_kind() -> None:
    screen = ["Q WILD K", "J WILD Q", "Q WILD J", "K WILD TEN", "TEN WILD J"]
    assert line_wins(screen)[1] == ("WITCH", 5, PAYS["WITCH"][2])


def test_only_the_highest_win_per_line_is_paid() -> None:
    # WILD WILD WILD TEN: TEN x4 pays less than WITCH x3 from the wilds alone
    screen = ["Q WILD K", "J WILD Q", "Q WILD J", "K TEN K", "J Q J"]
    assert line_wins(screen)[1] == ("WITCH", 3, max(PAYS["TEN"][1], PAYS["WITCH"][0]))
    # WILD WILD WILD CAT CAT: five CAT beat three WITCH
    screen = ["Q WILD K", "J WILD Q", "Q WILD J", "K CAT K", "J CAT J"]
    assert line_wins(screen)[1] == ("CAT", 5, PAYS["CAT"][2])


def test_wild_does_not_substitute_for_coin_or_scatter() -> None:
    screen = ["Q A K", "J COIN:5 Q", "Q A J", "K A TEN", "TEN A J"]
    assert line_units(screen) == 0
    screen = ["Q SCATTER K", "J A Q", "Q A J", "K A TEN", "TEN A J"]
    assert line_units(screen) == 0


def test_wins_on_different_lines_add() -> None:
    screen = ["A A A", "A A A", "A A A", "K Q J", "Q J K"]
    assert line_units(screen) == 10 * PAYS["A"][0]
