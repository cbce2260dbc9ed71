"""The line pays' second moments (domain/game/calculator/pairs.py) equal a brute-force enumeration
of every screen of a reduced alphabet, read by the kernel's own line evaluation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from domain.game.board import PAYLINES
from domain.game.calculator.lines import N_CLASSES, OTHER_CLASS, WILD_CLASS, line_moments
from domain.game.calculator.pairs import (
    PAIR_MASKS,
    PAIRS,
    coin_split_by_pattern,
    line_moment,
    pair_moment,
    pattern_weights,
    transitions,
)
from domain.game.kernel import _evaluate_lines
from domain.game.model import current_model
from domain.game.symbols import COIN, PAYING, WILD

PARAMS = current_model().params(0, 2, 2)
PAYTABLE = np.array([current_model().paytable[s] for s in PAYING], dtype=np.float64)
NXT, FAC = transitions(PAYTABLE)
# a reduced alphabet: the top symbol (wild pays as it), one other, WILD and a non-paying cell
CLASSES = {0: 0.3, 4: 0.25, WILD_CLASS: 0.2, OTHER_CLASS: 0.25}


def _dist() -> np.ndarray:
    d = np.zeros(N_CLASSES)
    for c, p in CLASSES.items():
        d[c] = p
    return d


def _kernel_cell(c: int) -> int:
    return WILD if c == WILD_CLASS else COIN if c == OTHER_CLASS else c


def _line_pays(cells: dict[int, int], line: int) -> float:
    """The kernel's pay (line bets) of one line on a screen whose other cells are OTHER."""
    screen = np.full(15, COIN, dtype=np.int64)
    for i, c in cells.items():
        screen[i] = _kernel_cell(c)
    only = np.zeros(15, dtype=np.int64)
    for reel in range(5):
        only[reel * 3 + PAYLINES[line][reel]] = 1
    masked = np.where(only == 1, screen, COIN)
    trace = np.zeros(1, dtype=np.int64)
    return float(_evaluate_lines(PARAMS, masked, trace, False, 0)) / 2


def _brute_pair(i: int, j: int) -> float:
    cells = sorted({r * 3 + PAYLINES[line][r] for line in (i, j) for r in range(5)})
    total = 0.0
    for classes in itertools.product(CLASSES, repeat=len(cells)):
        p = float(np.prod([CLASSES[c] for c in classes]))
        screen = dict(zip(cells, classes, strict=True))
        total += p * _line_pays(screen, i) * _line_pays(screen, j)
    return total


@pytest.mark.parametrize("k", [0, 3, 8, 20, 44])
def test_a_pair_of_lines_second_moment_equals_the_enumeration(k: int) -> None:
    i, j = (int(x) for x in PAIRS[k])
    shared = np.array([(PAIR_MASKS[k] >> r) & 1 == 1 for r in range(5)])
    w = np.zeros((5, N_CLASSES))
    pattern_weights(0, _dist(), w)
    assert pair_moment(w, w, shared, NXT, FAC) == pytest.approx(_brute_pair(i, j), rel=1e-12)


def test_a_line_with_itself_is_its_closed_form_second_moment() -> None:
    d = current_model().definition
    dist = np.array(d["base_weights"][:10] + [d["base_weights"][10]], dtype=np.float64)
    dist /= dist.sum()
    w = np.zeros((5, N_CLASSES))
    for code in (0, 1, 2 * 81, 3 + 27):  # free; a wild first reel; OTHER on reel 5; wilds
        pattern_weights(code, dist, w)
        mean, second, _ = line_moments(PAYTABLE, list(w))
        assert pair_moment(w, w, np.ones(5, dtype=np.bool_), NXT, FAC) == pytest.approx(second)
        assert line_moment(w, NXT, FAC) == pytest.approx(mean)


def test_the_coin_split_adds_up_to_the_lines_pay() -> None:
    dist = _dist()
    split = coin_split_by_pattern(dist, NXT, FAC)
    w = np.zeros((5, N_CLASSES))
    for code in range(3**5):
        pattern_weights(code, dist, w)
        assert split[code].sum() == pytest.approx(line_moment(w, NXT, FAC), rel=1e-12)
    # a coin on reel 4 stops the line at three: the first three cells' pay, enumerated
    cells = [r * 3 + PAYLINES[0][r] for r in range(3)]
    three = 0.0
    for classes in itertools.product(CLASSES, repeat=3):
        p = float(np.prod([CLASSES[c] for c in classes]))
        three += p * _line_pays(dict(zip(cells, classes, strict=True)), 0)
    assert split[0, 1, :].sum() == pytest.approx(dist[OTHER_CLASS] * three, rel=1e-12)
