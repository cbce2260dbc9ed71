"""The compiled round: docs/GAME_RULES.md sections 3 to 5, for one round, from one random stream.

Live play and the simulator both run `play` (live play with the trace on, the simulator with it
off). Money is in units of stake / 20, so every win is an exact integer; multipliers are in
halves. The trace is a flat record of every step (see domain.game.state_vector) decoded by
domain.game.engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from domain.game.board import JACKPOTS_X_STAKE, MAX_WIN_X_STAKE, PAYLINES
from domain.game.rng import below, chance, weighted
from domain.game.state_vector import (
    LINE_BET_UNITS,
    O_BASE_WIN,
    O_BOOSTER,
    O_CANDY,
    O_CLOVER,
    O_COLLECTOR,
    O_FS_HALVES,
    O_FS_SPINS,
    O_FS_TRIGGERED,
    O_FS_WIN,
    O_GRAND,
    O_HW_HALVES,
    O_HW_TRIGGERED,
    O_HW_WIN,
    O_MAX_WIN,
    O_STEPS,
    O_WILD_REELS,
    O_WIN,
    P_ACTIVATION,
    P_BASE_W,
    P_BOOSTER,
    P_CLOVER,
    P_CLOVER_W,
    P_COIN_W,
    P_COLLECTOR,
    P_FS_CLOVER,
    P_FS_SCATTER,
    P_FS_W,
    P_FS_WILD_REELS,
    P_HW_ACTIVATION,
    P_HW_CELL_W,
    P_HW_COIN_W,
    P_JACKPOT_W,
    P_KERNEL,
    P_PAY,
    P_SCATTER,
    P_WILD_REELS,
    P_WR_COUNT_W,
    R_ACTIVATED,
    R_BOOSTER,
    R_CLOVER,
    R_COLLECTOR,
    R_FS_AWARDED,
    R_FS_ENDED,
    R_FS_STARTED,
    R_HW_ENDED,
    R_HW_STARTED,
    R_JACKPOT,
    R_LANDED,
    R_LINE,
    R_MAX_WIN,
    R_PRIZES,
    R_SPIN_DONE,
    R_WILD_REELS,
    REC,
    UNITS_PER_STAKE,
)
from domain.game.symbols import (
    BOOSTER,
    CANDY,
    COIN,
    COIN_VALUES,
    COLLECTOR,
    EMPTY,
    N_PAYING,
    NGC,
    SCATTER,
    WILD,
)

_LINES = np.array(PAYLINES, dtype=np.int64)
_COIN_VALUES = np.array(COIN_VALUES, dtype=np.int64)
_JACKPOT_UNITS = np.array(
    [JACKPOTS_X_STAKE[t] * UNITS_PER_STAKE for t in ("MINI", "MINOR", "MAJOR", "MAXI", "GRAND")],
    dtype=np.int64,
)
_CAP = MAX_WIN_X_STAKE * UNITS_PER_STAKE
_X1_5 = 3
_X3 = 6
_MAX_COINS = 12
_NO_CANDY_LEVEL = 4  # jackpots unlock at level 4; below it at most 4 Pumpkins/Collectors
_KIND_BASE = 0
_KIND_FREE_SPIN = 1
_KIND_HOLD_AND_WIN = 2


# --- trace --------------------------------------------------------------------------------


@njit(cache=True)
def _record(tr, on, kind, step, a, b, c, d, e, f):  # type: ignore[no-untyped-def]
    if not on or tr[0] < 0:
        return
    p = tr[0]
    if p + REC > tr.shape[0]:
        tr[0] = -1  # overflow: the caller runs the round again with a larger trace
        return
    tr[p] = kind
    tr[p + 1] = step
    tr[p + 2] = a
    tr[p + 3] = b
    tr[p + 4] = c
    tr[p + 5] = d
    tr[p + 6] = e
    tr[p + 7] = f
    tr[0] = p + REC


@njit(cache=True)
def _record_screen(tr, on, step, kind, cells, vals):  # type: ignore[no-untyped-def]
    if not on or tr[0] < 0:
        return
    p = tr[0]
    if p + REC + 30 > tr.shape[0]:
        tr[0] = -1
        return
    _record(tr, on, R_LANDED, step, kind, 0, 0, 0, 0, 0)
    p = tr[0]
    for i in range(15):
        tr[p + i] = cells[i]
        tr[p + 15 + i] = vals[i]
    tr[0] = p + 30


# --- money ----------------------------------------------------------------------------------


@njit(cache=True)
def _pay(out, units):  # type: ignore[no-untyped-def]
    """Pay up to the round's max-win cap; returns what was paid."""
    room = _CAP - out[O_WIN]
    paid = units if units < room else room
    out[O_WIN] += paid
    if out[O_WIN] >= _CAP:
        out[O_MAX_WIN] = 1
    return paid


# --- screens ------------------------------------------------------------------------------


@njit(cache=True)
def _scatter_row(rng, probability, reel):  # type: ignore[no-untyped-def]
    """Scatters land only on reels 1, 3 and 5, at most one per reel: its row, or -1."""
    if reel % 2 == 0 and chance(rng, probability):
        return below(rng, 3)
    return -1


@njit(cache=True)
def _land_base(rng, P, level, hw_h, fs_h, cells, vals):  # type: ignore[no-untyped-def]
    coins = 0
    for reel in range(5):
        scatter_row = _scatter_row(rng, P[P_SCATTER], reel)
        for row in range(3):
            i = reel * 3 + row
            vals[i] = 0
            if row == scatter_row:
                cells[i] = SCATTER
                continue
            s = weighted(rng, P, P_BASE_W, N_PAYING + 2)
            if s == N_PAYING + 1 and coins >= _MAX_COINS:
                s = weighted(rng, P, P_BASE_W, N_PAYING + 1)  # the coin cap: no 13th coin
            if s == N_PAYING + 1:
                cells[i] = COIN
                vals[i] = _COIN_VALUES[weighted(rng, P, P_COIN_W, 6)]
                coins += 1
            elif s == N_PAYING:
                cells[i] = WILD
            else:
                cells[i] = s
    if level >= 3 and chance(rng, P[P_COLLECTOR]):
        reel = below(rng, 5) if P[P_KERNEL] < 2 else _reel_without_scatter(rng, cells)
        top = below(rng, 2)
        for row in (top, top + 1):
            cells[reel * 3 + row] = NGC
            vals[reel * 3 + row] = 0
    if level >= 5 and (hw_h < _X3 or fs_h < _X3) and chance(rng, P[P_BOOSTER]):
        if hw_h < _X3 and fs_h < _X3:
            bonus = below(rng, 2)
        else:
            bonus = 0 if hw_h < _X3 else 1
        free = 0
        for i in range(15):
            if cells[i] != SCATTER and cells[i] != NGC:
                free += 1
        k = below(rng, free)
        for i in range(15):
            if cells[i] != SCATTER and cells[i] != NGC:
                if k == 0:
                    cells[i] = BOOSTER
                    vals[i] = bonus
                    break
                k -= 1


@njit(cache=True)
def _reel_without_scatter(rng, cells):  # type: ignore[no-untyped-def]
    """Kernel 2: the Normal Game Collector lands on a reel with no scatter (reels 2 and 4 never
    have one), uniformly, so it never covers a scatter."""
    free = 0
    for reel in range(5):
        if _count_reel(cells, reel, SCATTER) == 0:
            free += 1
    k = below(rng, free)
    for reel in range(5):
        if _count_reel(cells, reel, SCATTER) == 0:
            if k == 0:
                return reel
            k -= 1
    return 0


@njit(cache=True)
def _count_reel(cells, reel, code):  # type: ignore[no-untyped-def]
    n = 0
    for row in range(3):
        if cells[reel * 3 + row] == code:
            n += 1
    return n


@njit(cache=True)
def _swap_possible(P, cells):  # type: ignore[no-untyped-def]
    """Kernel 2 draws Clover Moon Swap's chance only on a screen where a winning swap exists
    (kernel 1 drew it first and then found nothing to swap on some screens)."""
    if P[P_KERNEL] < 2:
        return True
    runs = np.zeros(10, dtype=np.int64)
    return swap_runs(cells, runs) > 0


@njit(cache=True)
def _land_free_spin(rng, P, cells, vals):  # type: ignore[no-untyped-def]
    for reel in range(5):
        scatter_row = _scatter_row(rng, P[P_FS_SCATTER], reel)
        for row in range(3):
            i = reel * 3 + row
            vals[i] = 0
            if row == scatter_row:
                cells[i] = SCATTER
            else:
                s = weighted(rng, P, P_FS_W, N_PAYING + 1)
                cells[i] = WILD if s == N_PAYING else s


@njit(cache=True)
def _wild_reels(rng, P, probability, cells, vals):  # type: ignore[no-untyped-def]
    """Wild Reels: 1 to 4 whole reels turn wild, whatever was on them. Returns the reel mask."""
    if not chance(rng, probability):
        return 0
    count = 1 + weighted(rng, P, P_WR_COUNT_W, 4)
    order = np.arange(5)
    mask = 0
    for k in range(count):
        j = k + below(rng, 5 - k)
        order[k], order[j] = order[j], order[k]
        mask |= 1 << order[k]
    for reel in range(5):
        if mask & (1 << reel):
            for row in range(3):
                cells[reel * 3 + row] = WILD
                vals[reel * 3 + row] = 0
    return mask


@njit(cache=True)
def _count(cells, code):  # type: ignore[no-untyped-def]
    n = 0
    for i in range(15):
        if cells[i] == code:
            n += 1
    return n


@njit(cache=True)
def _coin_units(cells, vals):  # type: ignore[no-untyped-def]
    total = 0
    for i in range(15):
        if cells[i] == COIN:
            total += vals[i] * UNITS_PER_STAKE
    return total


# --- line wins ------------------------------------------------------------------------------


@njit(cache=True)
def _line_pay(P, symbol, count):  # type: ignore[no-untyped-def]
    if count < 3:
        return 0
    return P[P_PAY + symbol * 3 + count - 3]


@njit(cache=True)
def _evaluate_lines(P, cells, tr, on, step):  # type: ignore[no-untyped-def]
    """Left-to-right line wins, the highest per line; wilds substitute for paying symbols.

    Returns the sum of line wins in units (line bet x pays), before any multiplier.
    """
    total = 0
    for line in range(10):
        wilds = 0
        while wilds < 5 and cells[wilds * 3 + _LINES[line, wilds]] == WILD:
            wilds += 1
        best = _line_pay(P, 0, wilds)  # a run of wilds alone pays as the highest symbol
        best_symbol = 0
        best_count = wilds
        if wilds < 5:
            symbol = cells[wilds * 3 + _LINES[line, wilds]]
            if symbol < N_PAYING:
                count = wilds + 1
                while count < 5:
                    c = cells[count * 3 + _LINES[line, count]]
                    if c != symbol and c != WILD:
                        break
                    count += 1
                pay = _line_pay(P, symbol, count)
                if pay > best:
                    best = pay
                    best_symbol = symbol
                    best_count = count
        if best > 0:
            units = best * LINE_BET_UNITS
            total += units
            _record(tr, on, R_LINE, step, line, best_symbol, best_count, units, 0, 0)
    return total


@njit(cache=True)
def swap_runs(cells, runs):  # type: ignore[no-untyped-def]
    """Each line's run of paying symbols or wilds from reel 1 (into `runs`); returns how many
    lines could be swapped into a win (a run of 3 or more): Clover Moon Swap's candidates."""
    candidates = 0
    for line in range(10):
        m = 0
        while m < 5:
            c = cells[m * 3 + _LINES[line, m]]
            if c >= N_PAYING and c != WILD:
                break
            m += 1
        runs[line] = m
        if m >= 3:
            candidates += 1
    return candidates


@njit(cache=True)
def apply_swap(cells, symbol, line, length):  # type: ignore[no-untyped-def]
    """Swap the paying symbols of the first `length` cells of `line` into `symbol`; returns the
    mask of the cells changed."""
    mask = 0
    for reel in range(length):
        i = reel * 3 + _LINES[line, reel]
        if cells[i] < N_PAYING and cells[i] != symbol:
            cells[i] = symbol
            mask |= 1 << i
    return mask


@njit(cache=True)
def _clover_moon_swap(rng, P, cells, tr, on, step):  # type: ignore[no-untyped-def]
    """Swap paying symbols along one line into a single paying symbol so the screen wins.

    Called only on a screen that won nothing; returns True if it swapped.
    """
    runs = np.zeros(10, dtype=np.int64)
    candidates = swap_runs(cells, runs)
    if candidates == 0:
        return False
    symbol = weighted(rng, P, P_CLOVER_W, N_PAYING)
    pick = below(rng, candidates)
    line = 0
    for j in range(10):
        if runs[j] >= 3:
            if pick == 0:
                line = j
                break
            pick -= 1
    length = 3 + below(rng, runs[line] - 2)
    mask = apply_swap(cells, symbol, line, length)
    _record(tr, on, R_CLOVER, step, symbol, mask, 0, 0, 0, 0)
    return True


# --- the round ------------------------------------------------------------------------------


@njit(cache=True)
def play(rng, P, level, hw_h, fs_h, tr, on, out):  # type: ignore[no-untyped-def]
    """One whole round in `level` with multipliers `hw_h`, `fs_h` (halves); fills `out`."""
    for i in range(out.shape[0]):
        out[i] = 0
    out[O_HW_HALVES] = hw_h
    out[O_FS_HALVES] = fs_h
    if on:
        tr[0] = 1
    cells = np.empty(15, dtype=np.int64)
    vals = np.empty(15, dtype=np.int64)

    # 3. symbols land
    _land_base(rng, P, level, hw_h, fs_h, cells, vals)
    _record_screen(tr, on, 0, _KIND_BASE, cells, vals)
    # 4. Wild Reels
    if level >= 1:
        mask = _wild_reels(rng, P, P[P_WILD_REELS], cells, vals)
        if mask:
            out[O_WILD_REELS] = 1
            _record(tr, on, R_WILD_REELS, 0, mask, 0, 0, 0, 0, 0)
    # 5. line wins
    base_win = _evaluate_lines(P, cells, tr, on, 0)
    # 6. Normal Game Collector
    if _count(cells, NGC) > 0:
        collected = _coin_units(cells, vals)
        out[O_COLLECTOR] = 1
        _record(tr, on, R_COLLECTOR, 0, collected, 0, 0, 0, 0, 0)
        base_win += collected
    # 7. Booster
    boosted = False
    for i in range(15):
        if cells[i] == BOOSTER:
            boosted = True
            out[O_BOOSTER] = 1
            slot = O_HW_HALVES + vals[i]  # the booster's bonus: 0 Hold & Win, 1 Free Spins
            out[slot] = min(out[slot] + 1, _X3)
            _record(tr, on, R_BOOSTER, 0, vals[i], out[slot], 0, 0, 0, 0)
    # 8. coins thrown at the Pumpkins
    activated = 0
    n_active = 0
    for reel in range(5):
        for row in range(3):
            i = reel * 3 + row
            if cells[i] != COIN or activated & (1 << reel):
                continue
            if level < _NO_CANDY_LEVEL and n_active >= 4:
                continue
            if chance(rng, P[P_ACTIVATION]):
                activated |= 1 << reel
                n_active += 1
                _record(tr, on, R_ACTIVATED, 0, reel, 0, 0, 0, 0, 0)
    # 9. Free Spins
    free_spins = 0
    scatters = _count(cells, SCATTER)
    if scatters == 3:
        free_spins = 10
        _record(tr, on, R_FS_AWARDED, 0, 10, 3, 10, 0, 0, 0)
    # 10. Clover Moon Swap, on a screen that won and triggered nothing
    if (
        level >= 2
        and base_win == 0
        and not boosted
        and activated == 0
        and free_spins == 0
        and _swap_possible(P, cells)
        and chance(rng, P[P_CLOVER])
        and _clover_moon_swap(rng, P, cells, tr, on, 0)
    ):
        out[O_CLOVER] = 1
        base_win = _evaluate_lines(P, cells, tr, on, 0)
    paid = _pay(out, base_win)
    out[O_BASE_WIN] = paid
    _record(tr, on, R_SPIN_DONE, 0, _KIND_BASE, 2, paid, 0, 0, 0)
    step = 0
    if out[O_MAX_WIN]:
        _record(tr, on, R_MAX_WIN, step, _CAP, 0, 0, 0, 0, 0)
        out[O_STEPS] = step + 1
        return
    # 12. features: Hold & Win first, then Free Spins
    if activated:
        out[O_HW_TRIGGERED] = 1
        step = _hold_and_win(rng, P, level, cells, vals, activated, step, tr, on, out)
    if free_spins and not out[O_MAX_WIN]:
        out[O_FS_TRIGGERED] = 1
        step = _free_spins(rng, P, level, free_spins, step, tr, on, out)
    out[O_STEPS] = step + 1


@njit(cache=True)
def _hold_and_win(rng, P, level, cells, vals, activated, step, tr, on, out):  # type: ignore[no-untyped-def]
    halves = out[O_HW_HALVES]
    n_collectors = 0
    for reel in range(5):
        if activated & (1 << reel):
            n_collectors += 1
    # Start: every Collector collects every Golden Coin of the triggering screen.
    step += 1
    collected = _coin_units(cells, vals) * n_collectors
    grand = level >= _NO_CANDY_LEVEL and n_collectors == 5
    if grand:
        collected += _JACKPOT_UNITS[4]
        out[O_GRAND] = 1
    win = _pay(out, collected * halves // 2)
    _record(tr, on, R_HW_STARTED, step, activated, halves, collected, win, 0, 0)
    if grand:
        _record(tr, on, R_JACKPOT, step, 4, _JACKPOT_UNITS[4], 0, 0, 0, 0)
    total_collected = collected
    total_win = win
    respins = 3
    ended = grand or out[O_MAX_WIN] == 1
    while respins > 0 and not ended:
        respins -= 1
        step += 1
        landed = False
        candies = 0
        for reel in range(5):
            for row in range(3):
                i = reel * 3 + row
                vals[i] = 0
                if activated & (1 << reel):
                    cells[i] = COLLECTOR
                    continue
                candy_allowed = level >= _NO_CANDY_LEVEL and candies < 4
                if candy_allowed:
                    s = weighted(rng, P, P_HW_CELL_W, 3)
                else:
                    # COIN or EMPTY only: weights COIN, EMPTY (CANDY weight skipped)
                    t = P[P_HW_CELL_W] + P[P_HW_CELL_W + 2]
                    s = 0 if below(rng, t) < P[P_HW_CELL_W] else 2
                if s == 0:
                    cells[i] = COIN
                    vals[i] = _COIN_VALUES[weighted(rng, P, P_HW_COIN_W, 6)]
                    landed = True
                elif s == 1:
                    cells[i] = CANDY
                    vals[i] = weighted(rng, P, P_JACKPOT_W, 4)
                    candies += 1
                    landed = True
                else:
                    cells[i] = EMPTY
        _record_screen(tr, on, step, _KIND_HOLD_AND_WIN, cells, vals)
        if landed:
            respins = 3
        collected = _coin_units(cells, vals) * n_collectors
        for i in range(15):
            if cells[i] == CANDY:
                collected += _JACKPOT_UNITS[vals[i]]
                out[O_CANDY + vals[i]] += 1
                _record(tr, on, R_JACKPOT, step, vals[i], _JACKPOT_UNITS[vals[i]], 0, 0, 0, 0)
        collectors_before = activated
        for reel in range(5):
            if activated & (1 << reel):
                continue
            for row in range(3):
                if cells[reel * 3 + row] != COIN or activated & (1 << reel):
                    continue
                if level < _NO_CANDY_LEVEL and n_collectors >= 4:
                    continue
                if chance(rng, P[P_HW_ACTIVATION]):
                    activated |= 1 << reel
                    n_collectors += 1
                    _record(tr, on, R_ACTIVATED, step, reel, 1, 0, 0, 0, 0)
        if level >= _NO_CANDY_LEVEL and n_collectors == 5:
            collected += _JACKPOT_UNITS[4]
            out[O_GRAND] = 1
            ended = True
            _record(tr, on, R_JACKPOT, step, 4, _JACKPOT_UNITS[4], 0, 0, 0, 0)
        win = _pay(out, collected * halves // 2)
        _record(tr, on, R_PRIZES, step, respins, collectors_before, collected, win, halves, 0)
        total_collected += collected
        total_win += win
        if out[O_MAX_WIN]:
            ended = True
    if out[O_MAX_WIN]:
        _record(tr, on, R_MAX_WIN, step, _CAP, 0, 0, 0, 0, 0)
    _record(tr, on, R_HW_ENDED, step, total_collected, halves, total_win, 0, 0, 0)
    out[O_HW_WIN] = total_win
    if level >= 5:
        out[O_HW_HALVES] = _X1_5  # the multiplier returns to x1.5 once a feature used it
    return step


@njit(cache=True)
def _free_spins(rng, P, level, awarded, step, tr, on, out):  # type: ignore[no-untyped-def]
    halves = out[O_FS_HALVES]
    cells = np.empty(15, dtype=np.int64)
    vals = np.empty(15, dtype=np.int64)
    _record(tr, on, R_FS_STARTED, step + 1, awarded, halves, 0, 0, 0, 0)
    spins_left = awarded
    played = 0
    total_win = 0
    while spins_left > 0:
        spins_left -= 1
        played += 1
        step += 1
        _land_free_spin(rng, P, cells, vals)
        _record_screen(tr, on, step, _KIND_FREE_SPIN, cells, vals)
        if level >= 1:
            mask = _wild_reels(rng, P, P[P_FS_WILD_REELS], cells, vals)
            if mask:
                _record(tr, on, R_WILD_REELS, step, mask, 0, 0, 0, 0, 0)
        lines = _evaluate_lines(P, cells, tr, on, step)
        scatters = _count(cells, SCATTER)
        more = 10 if scatters == 3 else (5 if scatters == 2 else 0)
        if more:
            spins_left += more
            _record(tr, on, R_FS_AWARDED, step, more, scatters, spins_left, 0, 0, 0)
        if (
            level >= 2
            and lines == 0
            and more == 0
            and _swap_possible(P, cells)
            and chance(rng, P[P_FS_CLOVER])
            and _clover_moon_swap(rng, P, cells, tr, on, step)
        ):
            lines = _evaluate_lines(P, cells, tr, on, step)
        win = _pay(out, lines * halves // 2)
        total_win += win
        _record(tr, on, R_SPIN_DONE, step, _KIND_FREE_SPIN, halves, win, 0, 0, 0)
        if out[O_MAX_WIN]:
            _record(tr, on, R_MAX_WIN, step, _CAP, 0, 0, 0, 0, 0)
            break
    _record(tr, on, R_FS_ENDED, step, played, halves, total_win, 0, 0, 0)
    out[O_FS_WIN] = total_win
    out[O_FS_SPINS] = played
    if level >= 5:
        out[O_FS_HALVES] = _X1_5
    return step


# The steps the calculator (domain.game.calculator) reuses, so that it reads screens by the same
# rules.
land_base = _land_base
land_free_spin = _land_free_spin
wild_reels = _wild_reels
evaluate_lines = _evaluate_lines
count_cells = _count
coin_units = _coin_units
