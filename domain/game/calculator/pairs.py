# mypy: disable-error-code="no-untyped-def"
"""The line pays' second moments, exactly: E[pay_i pay_j] of two paylines whose cells are
independent classes (the 9 paying symbols, WILD, OTHER), some cells shared.

A line is read reel by reel as a small automaton (lines.py's rule: the better of the leading run
of wilds, paid as the highest symbol, and the leading run of one symbol with wilds): all wild so
far (w wilds), a run of symbol s (with 0-2, 3 or 4 leading wilds: all that the wild pay needs), or
done, its pay already multiplied into the weight. Two lines are the product automaton; a cell the
lines share draws one class for both, a cell of one line alone is drawn for it alone. Weights may
be sub-stochastic (a class excluded): the figure is then E[pay_i pay_j; the cells in those
classes].

A line's pattern (lines.pattern_expectations' code: digit r in base 3, 0 a freely landing cell,
1 WILD, 2 OTHER) and a pair's sharing (bit r: the two lines use the same row of reel r) are all
that the pair's figure depends on, with the free cells' distribution.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domain.game.board import PAYLINES
from domain.game.calculator.lines import N_CLASSES, OTHER_CLASS, WILD_CLASS
from domain.game.symbols import N_PAYING

_LINES = np.array(PAYLINES, dtype=np.int64)
N_LINES = len(PAYLINES)
PATTERNS = 3**5
_N_W = 5  # all wild so far: w = 0..4 (a fifth wild ends the line)
_DONE = _N_W + 3 * N_PAYING
N_STATES = _DONE + 1


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    """The pairs i < j of paylines and their sharing masks."""
    index = []
    masks = []
    for i in range(N_LINES):
        for j in range(i + 1, N_LINES):
            index.append((i, j))
            masks.append(sum(1 << r for r in range(5) if PAYLINES[i][r] == PAYLINES[j][r]))
    return np.array(index, dtype=np.int64), np.array(masks, dtype=np.int64)


PAIRS, PAIR_MASKS = _pairs()


@njit(cache=True)
def _pay(paytable, s, n):
    return paytable[s, n - 3] if n >= 3 else 0.0


@njit(cache=True)
def transitions(paytable):
    """(next state, factor) by [reel, state, class]: factor 1 while the line goes on, its pay
    when it ends (0: it pays nothing and is dropped)."""
    nxt = np.full((5, N_STATES, N_CLASSES), _DONE, dtype=np.int64)
    fac = np.zeros((5, N_STATES, N_CLASSES))
    for r in range(5):
        for c in range(N_CLASSES):
            nxt[r, _DONE, c] = _DONE
            fac[r, _DONE, c] = 1.0
            # all wild so far (only w == r is reachable)
            w = r
            wild_pay = _pay(paytable, 0, w)
            band = 0 if w < 3 else w - 2
            if c == WILD_CLASS:
                if r == 4:
                    fac[r, w, c] = paytable[0, 2]
                else:
                    nxt[r, w, c] = w + 1
                    fac[r, w, c] = 1.0
            elif c == OTHER_CLASS:
                fac[r, w, c] = wild_pay
            else:
                if r == 4:
                    fac[r, w, c] = max(wild_pay, _pay(paytable, c, 5))
                else:
                    nxt[r, w, c] = _N_W + 3 * c + band
                    fac[r, w, c] = 1.0
            # a run of s with `band` leading wilds, r cells long so far
            for s in range(N_PAYING):
                for b in range(3):
                    state = _N_W + 3 * s + b
                    lead_pay = paytable[0, b - 1] if b > 0 else 0.0
                    if c == s or c == WILD_CLASS:
                        if r == 4:
                            fac[r, state, c] = max(lead_pay, _pay(paytable, s, 5))
                        else:
                            nxt[r, state, c] = state
                            fac[r, state, c] = 1.0
                    else:
                        fac[r, state, c] = max(lead_pay, _pay(paytable, s, r))
    return nxt, fac


@njit(cache=True)
def pair_moment(wi, wj, shared, nxt, fac):
    """E[pay_i pay_j] (line bets squared), cells' class weights wi[r], wj[r] (equal where
    shared[r])."""
    cur = np.zeros((N_STATES, N_STATES))
    tmp = np.zeros((N_STATES, N_STATES))
    cur[0, 0] = 1.0
    for r in range(5):
        new = np.zeros((N_STATES, N_STATES))
        if shared[r]:
            for c in range(N_CLASSES):
                q = wi[r, c]
                if q == 0.0:
                    continue
                for a in range(N_STATES):
                    fa = fac[r, a, c] * q
                    if fa == 0.0:
                        continue
                    na = nxt[r, a, c]
                    for b in range(N_STATES):
                        x = cur[a, b]
                        if x != 0.0 and fac[r, b, c] != 0.0:
                            new[na, nxt[r, b, c]] += x * fa * fac[r, b, c]
        else:
            tmp[:] = 0.0
            for a in range(N_STATES):
                for b in range(N_STATES):
                    x = cur[a, b]
                    if x == 0.0:
                        continue
                    for c in range(N_CLASSES):
                        q = wi[r, c] * fac[r, a, c]
                        if q != 0.0:
                            tmp[nxt[r, a, c], b] += x * q
            for a in range(N_STATES):
                for b in range(N_STATES):
                    x = tmp[a, b]
                    if x == 0.0:
                        continue
                    for c in range(N_CLASSES):
                        q = wj[r, c] * fac[r, b, c]
                        if q != 0.0:
                            new[a, nxt[r, b, c]] += x * q
        cur = new
    return cur[_DONE, _DONE]


@njit(cache=True)
def line_moment(w, nxt, fac):
    """E[pay] (line bets) of one line, cells' class weights w[r] (possibly sub-stochastic)."""
    cur = np.zeros(N_STATES)
    cur[0] = 1.0
    for r in range(5):
        new = np.zeros(N_STATES)
        for a in range(N_STATES):
            x = cur[a]
            if x == 0.0:
                continue
            for c in range(N_CLASSES):
                q = w[r, c] * fac[r, a, c]
                if q != 0.0:
                    new[nxt[r, a, c]] += x * q
        cur = new
    return cur[_DONE]


@njit(cache=True)
def pattern_weights(code, dist, out):
    """A line's cells' class weights from its pattern: a free cell by `dist`, else a point."""
    for r in range(5):
        digit = (code // 3**r) % 3
        out[r, :] = 0.0
        if digit == 0:
            out[r, :] = dist
        elif digit == 1:
            out[r, WILD_CLASS] = 1.0
        else:
            out[r, OTHER_CLASS] = 1.0


@njit(cache=True)
def can_pay(code):
    """A line pays only if none of its first three cells is OTHER."""
    for r in range(3):
        if (code // 3**r) % 3 == 2:
            return False
    return True


@njit(cache=True)
def fill_pairs(acc, cache, done, dist, nxt, fac):
    """cache[mask, code_i * 243 + code_j] = E[pay_i pay_j] for every entry with weight in `acc`
    not yet `done` (0 where either line cannot pay)."""
    wi = np.zeros((5, N_CLASSES))
    wj = np.zeros((5, N_CLASSES))
    shared = np.zeros(5, dtype=np.bool_)
    for mask in range(acc.shape[0]):
        for r in range(5):
            shared[r] = (mask >> r) & 1 == 1
        for code in range(acc.shape[1]):
            if acc[mask, code] == 0.0 or done[mask, code]:
                continue
            done[mask, code] = True
            if not (can_pay(code // PATTERNS) and can_pay(code % PATTERNS)):
                continue
            pattern_weights(code // PATTERNS, dist, wi)
            pattern_weights(code % PATTERNS, dist, wj)
            cache[mask, code] = pair_moment(wi, wj, shared, nxt, fac)


@njit(cache=True)
def squares_by_pattern(dist, nxt, fac):
    """E[pay^2] of a line by its pattern."""
    out = np.zeros(PATTERNS)
    w = np.zeros((5, N_CLASSES))
    shared = np.ones(5, dtype=np.bool_)
    for code in range(PATTERNS):
        pattern_weights(code, dist, w)
        out[code] = pair_moment(w, w, shared, nxt, fac)
    return out


@njit(cache=True)
def coin_split_by_pattern(dist, nxt, fac):
    """E[pay; the cells of reels 4 and 5 are a coin (OTHER) or not] by pattern:
    out[code, a4, a5], a = 1 a coin. A fixed (non-free) cell is never a coin."""
    out = np.zeros((PATTERNS, 2, 2))
    w = np.zeros((5, N_CLASSES))
    for code in range(PATTERNS):
        for a4 in range(2):
            for a5 in range(2):
                pattern_weights(code, dist, w)
                ok = True
                for r, a in ((3, a4), (4, a5)):
                    free = (code // 3**r) % 3 == 0
                    if not free:
                        ok = ok and a == 0
                    elif a == 1:
                        w[r, :OTHER_CLASS] = 0.0
                    else:
                        w[r, OTHER_CLASS] = 0.0
                if ok:
                    out[code, a4, a5] = line_moment(w, nxt, fac)
    return out


@njit(cache=True)
def line_codes(status, codes):
    """Each payline's pattern from a screen's cell statuses (FREE 0, WILD 1, OTHER 2)."""
    for line in range(N_LINES):
        code = 0
        base = 1
        for reel in range(5):
            code += status[reel * 3 + _LINES[line, reel]] * base
            base *= 3
        codes[line] = code


@njit(cache=True)
def add_pairs(codes, p, acc):
    """Accumulate a screen's pairs of line patterns (probability p) by sharing mask."""
    for k in range(PAIRS.shape[0]):
        acc[PAIR_MASKS[k], codes[PAIRS[k, 0]] * PATTERNS + codes[PAIRS[k, 1]]] += p


class PairTables:
    """The pair figures of one free-cell distribution and paytable, filled as states ask."""

    def __init__(self, dist: np.ndarray, paytable: np.ndarray) -> None:
        self.dist = dist.copy()
        self.nxt, self.fac = transitions(paytable)
        self.cache = np.zeros((32, PATTERNS * PATTERNS))
        self.done = np.zeros((32, PATTERNS * PATTERNS), dtype=np.bool_)
        self.squares = squares_by_pattern(self.dist, self.nxt, self.fac)
        self.coin_split = coin_split_by_pattern(self.dist, self.nxt, self.fac)

    def lines_second(self, squares_acc: np.ndarray, pair_acc: np.ndarray) -> float:
        """E[(sum of line pays)^2] in line bets squared from a state's accumulations."""
        fill_pairs(pair_acc, self.cache, self.done, self.dist, self.nxt, self.fac)
        return float(squares_acc @ self.squares) + 2.0 * float((pair_acc * self.cache).sum())


_TABLES: dict[tuple[bytes, bytes], PairTables] = {}


def pair_tables(dist: np.ndarray, paytable: np.ndarray) -> PairTables:
    """Kept for the process: every state of a model draws its free cells from the same table."""
    key = (dist.tobytes(), paytable.tobytes())
    if key not in _TABLES:
        _TABLES[key] = PairTables(dist, paytable)
    return _TABLES[key]
