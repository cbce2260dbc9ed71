"""A payline's pay from independent cells, in closed form.

Each cell of a line is described by its distribution over 11 classes: the 9 paying symbols,
WILD and OTHER (anything that neither pays nor substitutes). The line pays, by the kernel's rule,
the better of its leading run of wilds (as the highest symbol) and its leading run of one symbol
with wilds; the sum below runs over every (leading wilds, first symbol, run length) outcome.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from domain.game.symbols import N_PAYING

WILD_CLASS = N_PAYING
OTHER_CLASS = N_PAYING + 1
N_CLASSES = N_PAYING + 2


def line_moments(paytable: np.ndarray, cells: Sequence[np.ndarray]) -> tuple[float, float, float]:
    """(E[pay], E[pay^2], P(pay > 0)) of one line in line bets; `paytable[s, n - 3]`."""
    mean = second = hit = 0.0
    lead = 1.0  # P(the first w cells are all wild)
    for w in range(6):
        if w == 5:
            pay = float(paytable[0, 2])
            mean, second, hit = mean + lead * pay, second + lead * pay * pay, hit + lead
            break
        wild_pay = float(paytable[0, w - 3]) if w >= 3 else 0.0
        cell = cells[w]
        p_other = lead * cell[OTHER_CLASS]
        if wild_pay:
            mean, second, hit = (
                mean + p_other * wild_pay,
                second + p_other * wild_pay**2,
                hit + p_other,
            )
        for s in range(N_PAYING):
            run = lead * cell[s]  # P(w wilds, then s, then the run continues to n)
            if run == 0.0:
                continue
            for n in range(w + 1, 6):
                stop = 1.0 if n == 5 else 1.0 - cells[n][s] - cells[n][WILD_CLASS]
                pay = max(wild_pay, float(paytable[s, n - 3]) if n >= 3 else 0.0)
                p = run * stop
                if pay:
                    mean, second, hit = mean + p * pay, second + p * pay * pay, hit + p
                if n < 5:
                    run *= cells[n][s] + cells[n][WILD_CLASS]
        lead *= cell[WILD_CLASS]
    return mean, second, hit


def point(cls: int) -> np.ndarray:
    """A cell known to be of one class (a wild reel's cell: WILD; a scatter's: OTHER)."""
    d = np.zeros(N_CLASSES)
    d[cls] = 1.0
    return d


def cell_distribution(weights: Sequence[int]) -> np.ndarray:
    """A freely landing cell: weights over 9 paying symbols, WILD[, anything else]."""
    total = float(sum(weights))
    d = np.zeros(N_CLASSES)
    d[: N_PAYING + 1] = [w / total for w in weights[: N_PAYING + 1]]
    d[OTHER_CLASS] = sum(weights[N_PAYING + 1 :]) / total
    return d


def pattern_expectations(paytable: np.ndarray, free: np.ndarray) -> np.ndarray:
    """E[pay] of a line for each of the 3^5 patterns of its cells (digit r of the pattern in
    base 3: 0 a freely landing cell, 1 WILD, 2 OTHER)."""
    options = (free, point(WILD_CLASS), point(OTHER_CLASS))
    out = np.zeros(3**5)
    for code in range(3**5):
        cells = [options[(code // 3**r) % 3] for r in range(5)]
        out[code] = line_moments(paytable, cells)[0]
    return out
