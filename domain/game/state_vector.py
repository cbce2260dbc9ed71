"""Where each number of a state's math sits in the flat parameter vector the kernel reads,
and what the kernel reports back. Built from a MathModel by domain.game.model; read by
domain.game.kernel.
"""

from __future__ import annotations

# Parameter vector (int64). Probabilities are parts per million; tables are integer weights.
P_PAY = 0  # 9 paying symbols x (3, 4, 5 of a kind), in multiples of the line bet
P_BASE_W = 27  # normal-game cell weights: 9 paying symbols, WILD, COIN
P_FS_W = 38  # free-spin cell weights: 9 paying symbols, WILD
P_COIN_W = 48  # normal-game coin value weights over COIN_VALUES
P_HW_COIN_W = 54  # hold-and-win coin value weights over COIN_VALUES
P_WR_COUNT_W = 60  # Wild Reels: weights of 1, 2, 3, 4 reels
P_CLOVER_W = 64  # Clover Moon Swap: weights of the 9 paying symbols it swaps into
P_HW_CELL_W = 73  # hold-and-win cell weights: COIN, CANDY, EMPTY
P_JACKPOT_W = 76  # Jackpot Candy tier weights: MINI, MINOR, MAJOR, MAXI
P_FS_SCATTER = 80  # free spins: scatter chance per reel 1, 3, 5
P_FS_WILD_REELS = 81
P_FS_CLOVER = 82
P_HW_ACTIVATION = 83  # hold and win: chance a landed coin activates its Pumpkin
P_SCATTER = 84  # normal game: scatter chance per reel 1, 3, 5
P_ACTIVATION = 85  # normal game: chance a coin throw activates its Pumpkin
P_WILD_REELS = 86
P_CLOVER = 87
P_COLLECTOR = 88  # Normal Game Collector
P_BOOSTER = 89
P_KERNEL = 90  # the model's kernel version (engine.kernel): rules that changed are gated on it
N_PARAMS = 91

# Kernel report (int64), in money units of stake / 20.
O_WIN = 0
O_MAX_WIN = 1
O_HW_HALVES = 2
O_FS_HALVES = 3  # right after O_HW_HALVES: a booster's bonus index picks its slot
O_FS_TRIGGERED = 4
O_HW_TRIGGERED = 5
O_BASE_WIN = 6
O_FS_WIN = 7
O_HW_WIN = 8
O_GRAND = 9
O_CANDY = 10  # 4 tiers: 10..13
O_FS_SPINS = 14
O_WILD_REELS = 15
O_CLOVER = 16
O_COLLECTOR = 17
O_BOOSTER = 18
O_STEPS = 19
N_OUT = 20

UNITS_PER_STAKE = 20  # stakes are multiples of 20 minor units: 1 unit = stake / 20
LINE_BET_UNITS = 2  # stake / 10

# Trace records: [type, step, a, b, c, d, e, f]; SYMBOLS_LANDED is followed by 15 cells, 15 values.
REC = 8
R_LANDED = 1  # kind
R_WILD_REELS = 2  # reel mask
R_CLOVER = 3  # symbol, cell mask
R_COLLECTOR = 4  # win units
R_BOOSTER = 5  # bonus (0 HW, 1 FS), new halves
R_ACTIVATED = 6  # reel (0-based), phase (0 base, 1 hold and win)
R_FS_AWARDED = 7  # count, scatters, spins left
R_LINE = 8  # line (0-based), symbol, count, units
R_SPIN_DONE = 9  # kind, halves, win units
R_HW_STARTED = 10  # collector mask, halves, collected units, win units
R_PRIZES = 11  # respins left, collector mask, collected units, win units, halves
R_JACKPOT = 12  # tier (4 = GRAND), units
R_HW_ENDED = 13  # collected units, halves, win units
R_FS_STARTED = 14  # spins, halves
R_FS_ENDED = 15  # played, halves, win units
R_MAX_WIN = 16  # cap units
