# mypy: disable-error-code="no-untyped-def"
"""Clover Moon Swap and the zero-win probability, exactly, by the kernel's rules.

A screen is its skeleton plus free cells that land independently (skeleton.py). Cells are read
in 11 classes: the 9 paying symbols, WILD, and OTHER (anything that neither pays nor substitutes:
a scatter, a Collector, a Booster, a coin). Each skeleton cell is FREE, WILD or OTHER, so a reel's
status is one of 9 (free, wild, or the set of rows that hold a fixed OTHER cell).

Conditions the kernel puts on a swap, and how they enter:
- the screen won nothing: a line wins iff its first three cells win, so "no line win" and the
  swap's candidates (a line whose first three cells are paying or wild without winning) depend on
  reels 1-3 only;
- no Pumpkin activates: each coin fails independently with 1 - p_act, so a free cell's OTHER
  class weighs P(coin) (1 - p_act) (a sub-stochastic distribution); with a Collector on the screen
  any coin is a win, so OTHER weighs 0;
- no Booster, no 3 scatters: properties of the skeleton.

Given reels 1 and 2 (enumerated), the three cells of reel 3 are independent and each line goes
through exactly one of them, so the lines through one row of reel 3 are a factor. The swap picks
a candidate line uniformly, 1 / |C|, which couples the rows; it is written
1 / |C| = integral over [0, 1] of t^(|C| - 1) dt, and t^|C| is a product over the rows. |C| <= 10,
so 5-point Gauss-Legendre quadrature integrates it exactly.

After the swap of line L into symbol s, a line L' pays iff its first three cells are all s or
wild: a cell it shares with L on reels 1-3 is (it was paying or wild and became s or stayed
wild), another must have been s or wild already (no line won before, so L' = L or it shares a
cell with L). So the expected pay is sum over (L, L', s) of
  K[L, L', s] = E[no win, coins fail, L a candidate, L' wins after the swap into s; / |C|]
(reels 1-3) times
  tau[L, L', s] = E[mean over lengths 3..run(L) of L''s pay after the swap]
(reels 4-5: the length of L's run and how far L' runs, with the cells L' shares with L swapped
when the length reaches them).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import njit

from domain.game.board import PAYLINES
from domain.game.calculator.lines import N_CLASSES, OTHER_CLASS, WILD_CLASS
from domain.game.state_vector import LINE_BET_UNITS
from domain.game.symbols import N_PAYING

_LINES = np.array(PAYLINES, dtype=np.int64)
N_LINES = len(PAYLINES)
# a skeleton cell's status (skeleton.py uses the same)
CELL_FREE = 0
CELL_WILD = 1
CELL_OTHER = 2
REEL_STATUSES = 9  # 0 free, 1 wild, 1 + m: the rows in bit mask m hold a fixed OTHER cell
REELS_1_3 = REEL_STATUSES**3
REELS_4_5 = REEL_STATUSES**2
_NODES, _NODE_WEIGHTS = np.polynomial.legendre.leggauss(5)
_T = (_NODES + 1.0) / 2.0  # on [0, 1]
_W_OVER_T = _NODE_WEIGHTS / 2.0 / _T  # the rule's weight, and the 1 / t of t^(|C| - 1)
_N_NODES = len(_T)
_ALL_SYMBOLS = (1 << N_PAYING) - 1


def _sharing() -> np.ndarray:
    """Lines that share a cell of reels 1-3."""
    return np.array(
        [[any(a[k] == b[k] for k in range(3)) for b in PAYLINES] for a in PAYLINES], dtype=np.bool_
    )


_SHARES = _sharing()


# --- statuses ---------------------------------------------------------------------------------


@njit(cache=True)
def reel_status(status, reel):
    """A reel's status (0 free, 1 wild, 1 + rows holding OTHER) from the cells' FREE/WILD/OTHER."""
    if status[reel * 3] == CELL_WILD:
        return 1
    rows = 0
    for row in range(3):
        if status[reel * 3 + row] == CELL_OTHER:
            rows |= 1 << row
    return 0 if rows == 0 else 1 + rows


@njit(cache=True)
def cell_status(reel_code, row):
    if reel_code == 1:
        return CELL_WILD
    if reel_code > 1 and ((reel_code - 1) >> row) & 1:
        return CELL_OTHER
    return CELL_FREE


@njit(cache=True)
def free_cells(code, reels):
    """How many FREE cells the reels of a combined status code have."""
    n = 0
    for r in range(reels):
        reel_code = (code // REEL_STATUSES**r) % REEL_STATUSES
        for row in range(3):
            if cell_status(reel_code, row) == CELL_FREE:
                n += 1
    return n


# --- reels 1 to 3 -----------------------------------------------------------------------------


@njit(cache=True)
def _line_state(a, b, c):
    """A line's first three cells: 0 neither wins nor can be swapped, 1 a swap candidate, 2 wins."""
    if a == OTHER_CLASS or b == OTHER_CLASS or c == OTHER_CLASS:
        return 0
    symbol = -1
    for x in (a, b, c):
        if x != WILD_CLASS:
            if symbol < 0:
                symbol = x
            elif x != symbol:
                return 1
    return 2


@njit(cache=True)
def _cell_options(status, dist, coins, classes, weights, degrees):
    """A cell's classes and weights; a free cell's OTHER (a coin) has weight 1 and degree 1: its
    weight q is a variable, so figures come out as polynomials in q."""
    degrees[:] = 0
    if status == CELL_WILD:
        classes[0] = WILD_CLASS
        weights[0] = 1.0
        return 1
    if status == CELL_OTHER:
        classes[0] = OTHER_CLASS
        weights[0] = 1.0
        return 1
    n = 0
    for c in range(OTHER_CLASS):
        if dist[c] > 0.0:
            classes[n] = c
            weights[n] = dist[c]
            n += 1
    if coins:
        classes[n] = OTHER_CLASS
        weights[n] = 1.0
        degrees[n] = 1
        n += 1
    return n


@njit(cache=True)
def _rows_of_reel_3():
    lines = np.zeros((3, N_LINES), dtype=np.int64)
    counts = np.zeros(3, dtype=np.int64)
    for line in range(N_LINES):
        r = _LINES[line, 2]
        lines[r, counts[r]] = line
        counts[r] += 1
    return lines, counts


@njit(cache=True)
def _symbols_allowed(x, line, other):
    """The swap symbols s for which `other`'s first two cells are s or wild after `line` is
    swapped (cells shared with `line` always are), as a bit mask."""
    allowed = _ALL_SYMBOLS
    for reel in range(2):
        row = _LINES[other, reel]
        if row == _LINES[line, reel]:
            continue
        c = x[reel * 3 + row]
        if c == WILD_CLASS:
            continue
        if c < N_PAYING:
            allowed &= 1 << c
        else:
            return 0
    return allowed


@njit(cache=True)
def _product_of_rows(rows):
    """The product of three polynomials of degree 1 (rows[r, degree])."""
    out = np.zeros(4)
    for a in range(2):
        for b in range(2):
            for c in range(2):
                out[a + b + c] += rows[0, a] * rows[1, b] * rows[2, c]
    return out


@njit(cache=True)
def reels_1_to_3(code, dist, coins, with_swaps):
    """For reels 1-3 of status `code`, free cells drawn from `dist` (paying symbols and WILD;
    OTHER too if `coins`, of weight q): the coefficients in q of (E[no win, no candidate],
    E[no win, a candidate], K[L, L', s]; K only if `with_swaps`)."""
    classes = np.zeros((9, N_CLASSES), dtype=np.int64)
    weights = np.zeros((9, N_CLASSES))
    degrees = np.zeros((9, N_CLASSES), dtype=np.int64)
    n_options = np.zeros(9, dtype=np.int64)
    for cell in range(9):
        status = cell_status((code // REEL_STATUSES ** (cell // 3)) % REEL_STATUSES, cell % 3)
        n_options[cell] = _cell_options(
            status, dist, coins, classes[cell], weights[cell], degrees[cell]
        )
    row_lines, row_counts = _rows_of_reel_3()
    t_power = np.ones((5, _N_NODES))
    for c in range(1, 5):
        t_power[c] = t_power[c - 1] * _T
    alive = np.zeros((3, N_CLASSES))  # weight of the option if no line of the row wins
    count = np.zeros((3, N_CLASSES), dtype=np.int64)  # candidates among the row's lines
    marks = np.zeros((3, N_CLASSES), dtype=np.int64)  # which lines are candidates
    row_total = np.zeros((3, 2))
    row_zero = np.zeros((3, 2))
    work = (
        np.zeros((3, 2, _N_NODES)),  # E[no win; t^count] of a row of reel 3, by degree
        np.zeros((N_LINES, _N_NODES)),  # the same with line L a candidate (degree 0)
        np.zeros((3, N_PAYING, _N_NODES)),  # the same with the cell s or wild (degree 0)
        np.zeros((3, 3, _N_NODES)),
        np.zeros((3, 3, N_PAYING, 2, _N_NODES)),
        np.zeros((3, N_PAYING, 2)),
        np.zeros(3),
    )
    degree = 10
    none = np.zeros(degree)
    some = np.zeros(degree)
    k_out = np.zeros((N_LINES, N_LINES, N_PAYING, degree))
    x = np.zeros(6, dtype=np.int64)
    pick = np.zeros(6, dtype=np.int64)
    while True:
        wx = 1.0
        jx = 0
        for cell in range(6):
            x[cell] = classes[cell, pick[cell]]
            wx *= weights[cell, pick[cell]]
            jx += degrees[cell, pick[cell]]
        row_total[:] = 0.0
        row_zero[:] = 0.0
        for r in range(3):
            cell = 6 + r
            for k in range(n_options[cell]):
                y = classes[cell, k]
                ok = 1.0
                n = 0
                m = 0
                for j in range(row_counts[r]):
                    line = row_lines[r, j]
                    state = _line_state(x[_LINES[line, 0]], x[3 + _LINES[line, 1]], y)
                    if state == 2:
                        ok = 0.0
                        break
                    if state == 1:
                        n += 1
                        m |= 1 << line
                alive[r, k] = ok * weights[cell, k]
                count[r, k] = n
                marks[r, k] = m
                row_total[r, degrees[cell, k]] += alive[r, k]
                if n == 0:
                    row_zero[r, degrees[cell, k]] += alive[r, k]
        total = _product_of_rows(row_total)
        zero = _product_of_rows(row_zero)
        candidates = False
        for d in range(4):
            none[jx + d] += wx * zero[d]
            some[jx + d] += wx * (total[d] - zero[d])
            candidates = candidates or total[d] > zero[d]
        if with_swaps and candidates:
            _accumulate_swaps(
                x, wx, jx, classes, degrees, n_options, alive, count, marks, t_power, work, k_out
            )
        cell = 5
        while cell >= 0:
            pick[cell] += 1
            if pick[cell] < n_options[cell]:
                break
            pick[cell] = 0
            cell -= 1
        if cell < 0:
            break
    return none, some, k_out


@njit(cache=True)
def _accumulate_swaps(
    x, wx, jx, classes, degrees, n_options, alive, count, marks, t_power, work, k_out
):
    """Add one (reels 1-2) outcome's part of K: by rows of reel 3, at each quadrature node.
    A candidate's cell and an s-or-wild cell are never OTHER, so they have degree 0."""
    rows, marked, by_symbol, same, other_row, pair, v_same = work
    rows[:] = 0.0
    marked[:] = 0.0
    by_symbol[:] = 0.0
    for r in range(3):
        cell = 6 + r
        for k in range(n_options[cell]):
            if alive[r, k] == 0.0:
                continue
            y = classes[cell, k]
            m = marks[r, k]
            d = degrees[cell, k]
            for g in range(_N_NODES):
                term = alive[r, k] * t_power[count[r, k], g]
                rows[r, d, g] += term
                for line in range(N_LINES):
                    if m & (1 << line):
                        marked[line, g] += term
                if y == WILD_CLASS:
                    for s in range(N_PAYING):
                        by_symbol[r, s, g] += term
                elif y < N_PAYING:
                    by_symbol[r, y, g] += term
    # L' through the same cell of reel 3 as L (swapped with it), or through row r2 whose cell
    # must be s or wild, the third row free
    same[:] = 0.0
    for r in range(3):
        o1 = 1 if r == 0 else 0
        o2 = 1 if r == 2 else 2
        for a in range(2):
            for b in range(2):
                for g in range(_N_NODES):
                    same[r, a + b, g] += _W_OVER_T[g] * rows[o1, a, g] * rows[o2, b, g]
        for r2 in range(3):
            if r2 != r:
                o = 3 - r - r2
                for s in range(N_PAYING):
                    for d in range(2):
                        for g in range(_N_NODES):
                            other_row[r, r2, s, d, g] = (
                                _W_OVER_T[g] * by_symbol[r2, s, g] * rows[o, d, g]
                            )
    for line in range(N_LINES):
        if marked[line, 0] == 0.0:
            continue
        r = _LINES[line, 2]
        v_same[:] = 0.0
        for d in range(3):
            for g in range(_N_NODES):
                v_same[d] += marked[line, g] * same[r, d, g]
        for r2 in range(3):
            if r2 != r:
                for s in range(N_PAYING):
                    for d in range(2):
                        v = 0.0
                        for g in range(_N_NODES):
                            v += marked[line, g] * other_row[r, r2, s, d, g]
                        pair[r2, s, d] = v
        for other in range(N_LINES):
            if not _SHARES[line, other]:
                continue  # its first three cells are as they were: no win
            allowed = _symbols_allowed(x, line, other)
            if allowed == 0:
                continue
            r2 = _LINES[other, 2]
            for s in range(N_PAYING):
                if allowed & (1 << s):
                    if r2 == r:
                        for d in range(3):
                            k_out[line, other, s, jx + d] += wx * v_same[d]
                    else:
                        for d in range(2):
                            k_out[line, other, s, jx + d] += wx * pair[r2, s, d]


# --- reels 4 and 5 ----------------------------------------------------------------------------

_S = 0  # a reel 4-5 cell seen from a swap into s: s, wild, another paying symbol, OTHER
_SW = 1
_PAYING = 2
_NONE = 3


@njit(cache=True)
def _after_swap(c, shared, reached):
    """A cell of L' after the swap: another paying symbol on a cell swapped becomes s."""
    if shared and reached and c == _PAYING:
        return _S
    return c


@njit(cache=True)
def _mean_pay(paytable, s, cu, cv, cu2, cv2, shared_4, shared_5):
    """Mean over the swap lengths 3..run(L) of L''s pay after the swap (its first three cells
    are s or wild), from L's cells (cu, cv) and L''s (cu2, cv2) on reels 4 and 5."""
    run = 3
    if cu != _NONE:
        run = 4
        if cv != _NONE:
            run = 5
    total = 0.0
    for length in range(3, run + 1):
        n = 3
        if _after_swap(cu2, shared_4, length >= 4) <= _SW:
            n = 4
            if _after_swap(cv2, shared_5, length >= 5) <= _SW:
                n = 5
        total += paytable[s, n - 3]
    return total / (run - 2)


@njit(cache=True)
def reels_4_and_5(code, dist, paytable):
    """tau[L, L', s] for reels 4-5 of status `code`, free cells from `dist`: the expected mean
    pay of L' after the swap times the weight of every free cell of reels 4-5 (sub-stochastic:
    the coins' failures)."""
    mass = dist.sum()
    n_free = free_cells(code, 2)
    tau = np.zeros((N_LINES, N_LINES, N_PAYING))
    view = np.zeros((2, 3, 4))  # [reel, row, class] weight for one s
    for s in range(N_PAYING):
        for reel in range(2):
            reel_code = (code // REEL_STATUSES**reel) % REEL_STATUSES
            for row in range(3):
                view[reel, row, :] = 0.0
                status = cell_status(reel_code, row)
                if status == CELL_WILD:
                    view[reel, row, _SW] = 1.0
                elif status == CELL_OTHER:
                    view[reel, row, _NONE] = 1.0
                else:
                    view[reel, row, _S] = dist[s]
                    view[reel, row, _SW] = dist[WILD_CLASS]
                    view[reel, row, _PAYING] = dist[:N_PAYING].sum() - dist[s]
                    view[reel, row, _NONE] = dist[OTHER_CLASS]
        for line in range(N_LINES):
            for other in range(N_LINES):
                tau[line, other, s] = _tau(paytable, s, view, line, other, code, mass, n_free)
    return tau


@njit(cache=True)
def _free_among(reel_code, row, row2):
    """How many distinct FREE cells rows `row` and `row2` of a reel are."""
    n = 1 if cell_status(reel_code, row) == CELL_FREE else 0
    if row2 != row and cell_status(reel_code, row2) == CELL_FREE:
        n += 1
    return n


@njit(cache=True)
def _tau(paytable, s, view, line, other, code, mass, n_free):
    u, v = _LINES[line, 3], _LINES[line, 4]
    u2, v2 = _LINES[other, 3], _LINES[other, 4]
    shared_4 = u == u2
    shared_5 = v == v2
    involved = _free_among(code % REEL_STATUSES, u, u2)
    involved += _free_among(code // REEL_STATUSES, v, v2)
    total = 0.0
    for cu in range(4):
        for cu2 in range(4):
            if shared_4 and cu2 != cu:
                continue
            w4 = view[0, u, cu] * (1.0 if shared_4 else view[0, u2, cu2])
            if w4 == 0.0:
                continue
            for cv in range(4):
                for cv2 in range(4):
                    if shared_5 and cv2 != cv:
                        continue
                    w = w4 * view[1, v, cv] * (1.0 if shared_5 else view[1, v2, cv2])
                    if w == 0.0:
                        continue
                    total += w * _mean_pay(paytable, s, cu, cv, cu2, cv2, shared_4, shared_5)
    return total * mass ** (n_free - involved)


# --- a state's figures --------------------------------------------------------------------------

_REELS_1_3_DONE: dict[tuple[int, bytes, bool], tuple[np.ndarray, np.ndarray, Any]] = {}


def reels_1_to_3_at(
    code: int, dist: np.ndarray, coins: bool, with_swaps: bool
) -> tuple[float, float, Any]:
    """reels_1_to_3 at q = dist[OTHER_CLASS]. The polynomials are kept for the process: they
    depend only on the status and the cell weights, the same in every state (the coins'
    activations only move q)."""
    key = (code, dist[:OTHER_CLASS].tobytes(), coins)
    done = _REELS_1_3_DONE.get(key)
    if done is None or (with_swaps and done[2] is None):
        none, some, k = reels_1_to_3(code, dist, coins, with_swaps)
        done = (none, some, k if with_swaps else None)
        _REELS_1_3_DONE[key] = done
    powers = float(dist[OTHER_CLASS]) ** np.arange(done[0].shape[0])
    k_at = done[2] @ powers if with_swaps else None
    return float(done[0] @ powers), float(done[1] @ powers), k_at


def _reels_4_and_5_once(code: int, dist: np.ndarray, paytable: np.ndarray) -> np.ndarray:
    return _reels_4_and_5_kept(code, dist.tobytes(), paytable.tobytes(), paytable.shape)


@functools.lru_cache(maxsize=2048)
def _reels_4_and_5_kept(
    code: int, dist: bytes, paytable: bytes, paytable_shape: tuple[int, ...]
) -> np.ndarray:
    """reels_4_and_5, kept for the states that share a cell table. Bounded: unlike reels 1-3,
    it depends on the coin's weight, which differs in every state and every tuning step."""
    table = np.frombuffer(paytable).reshape(paytable_shape).copy()
    tau: np.ndarray = reels_4_and_5(code, np.frombuffer(dist).copy(), table)
    return tau


def whole_screens(
    screens: np.ndarray,
    dist: np.ndarray,
    coins: bool,
    paytable: np.ndarray,
    clover_weights: np.ndarray,
    p_swap: float,
) -> tuple[float, float]:
    """Over skeletons of probability screens[reels 1-3 status, reels 4-5 status], free cells from
    `dist` (paying symbols, WILD and, if `coins`, OTHER: the weight of a coin that must fail to
    activate, 0 where any coin would win): (P(no line win, no swap), E[Clover Moon Swap's pays]
    in units), a swap following with chance p_swap on a screen that won nothing and has a
    candidate (0: no swap allowed)."""
    mass = float(dist.sum())
    symbols = clover_weights / clover_weights.sum()
    zero = 0.0
    pays = 0.0
    for code13 in np.flatnonzero(screens.sum(axis=1)):
        none, some, k = reels_1_to_3_at(int(code13), dist, coins, p_swap > 0.0)
        row = screens[code13]
        for code45 in np.flatnonzero(row):
            weight = float(row[code45]) * mass ** free_cells(int(code45), 2)
            zero += weight * (none + some * (1.0 - p_swap))
            if p_swap > 0.0:
                tau = _reels_4_and_5_once(int(code45), dist, paytable)
                pays += float(row[code45]) * p_swap * float((k * tau * symbols).sum())
    return float(zero), float(pays) * LINE_BET_UNITS
