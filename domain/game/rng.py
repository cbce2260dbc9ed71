# mypy: disable-error-code="assignment, arg-type, return-value"
# (numba-compiled: numpy int64 scalars stand for Python ints here)
"""The round's random stream: ChaCha20 (RFC 8439) keyed by the round's 256-bit seed.

Key = the seed, nonce = 0, block counter from 0: the stream is the standard ChaCha20 keystream,
so a testing lab can check it against any implementation. Integers are drawn from it with
rejection sampling (no modulo bias). The generator is an array of uint32 words so that the
compiled engine can carry it around:
    [0:16]  the ChaCha20 input block (constants, key, counter, nonce)
    [16:32] the current output block
    [32]    the index of the next unused output word (16 = block used up)
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numba import njit

_MASK = 0xFFFFFFFF
STATE_WORDS = 33
_POS = 32
_CONSTANTS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)
SEED_BYTES = 32


def new_generator(seed: bytes) -> np.ndarray:
    """A generator at the start of the stream keyed by `seed` (32 bytes)."""
    if len(seed) != SEED_BYTES:
        raise ValueError("a round seed is 32 bytes (256 bits)")
    state = np.zeros(STATE_WORDS, dtype=np.uint32)
    key = np.frombuffer(seed, dtype="<u4")
    rekey(state, key.astype(np.int64))
    return state


@njit(cache=True)
def rekey(state: np.ndarray, key_words: np.ndarray) -> None:
    state[0] = 0x61707865
    state[1] = 0x3320646E
    state[2] = 0x79622D32
    state[3] = 0x6B206574
    for i in range(8):
        state[4 + i] = key_words[i]
    for i in range(12, 16):
        state[i] = 0
    state[_POS] = 16


@njit(cache=True, inline="always")
def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & _MASK


@njit(cache=True)
def _refill(state: np.ndarray) -> None:
    x0 = np.int64(state[0])
    x1 = np.int64(state[1])
    x2 = np.int64(state[2])
    x3 = np.int64(state[3])
    x4 = np.int64(state[4])
    x5 = np.int64(state[5])
    x6 = np.int64(state[6])
    x7 = np.int64(state[7])
    x8 = np.int64(state[8])
    x9 = np.int64(state[9])
    x10 = np.int64(state[10])
    x11 = np.int64(state[11])
    x12 = np.int64(state[12])
    x13 = np.int64(state[13])
    x14 = np.int64(state[14])
    x15 = np.int64(state[15])
    for _ in range(10):
        # column rounds
        x0 = (x0 + x4) & _MASK
        x12 = _rotl(x12 ^ x0, 16)
        x8 = (x8 + x12) & _MASK
        x4 = _rotl(x4 ^ x8, 12)
        x0 = (x0 + x4) & _MASK
        x12 = _rotl(x12 ^ x0, 8)
        x8 = (x8 + x12) & _MASK
        x4 = _rotl(x4 ^ x8, 7)
        x1 = (x1 + x5) & _MASK
        x13 = _rotl(x13 ^ x1, 16)
        x9 = (x9 + x13) & _MASK
        x5 = _rotl(x5 ^ x9, 12)
        x1 = (x1 + x5) & _MASK
        x13 = _rotl(x13 ^ x1, 8)
        x9 = (x9 + x13) & _MASK
        x5 = _rotl(x5 ^ x9, 7)
        x2 = (x2 + x6) & _MASK
        x14 = _rotl(x14 ^ x2, 16)
        x10 = (x10 + x14) & _MASK
        x6 = _rotl(x6 ^ x10, 12)
        x2 = (x2 + x6) & _MASK
        x14 = _rotl(x14 ^ x2, 8)
        x10 = (x10 + x14) & _MASK
        x6 = _rotl(x6 ^ x10, 7)
        x3 = (x3 + x7) & _MASK
        x15 = _rotl(x15 ^ x3, 16)
        x11 = (x11 + x15) & _MASK
        x7 = _rotl(x7 ^ x11, 12)
        x3 = (x3 + x7) & _MASK
        x15 = _rotl(x15 ^ x3, 8)
        x11 = (x11 + x15) & _MASK
        x7 = _rotl(x7 ^ x11, 7)
        # diagonal rounds
        x0 = (x0 + x5) & _MASK
        x15 = _rotl(x15 ^ x0, 16)
        x10 = (x10 + x15) & _MASK
        x5 = _rotl(x5 ^ x10, 12)
        x0 = (x0 + x5) & _MASK
        x15 = _rotl(x15 ^ x0, 8)
        x10 = (x10 + x15) & _MASK
        x5 = _rotl(x5 ^ x10, 7)
        x1 = (x1 + x6) & _MASK
        x12 = _rotl(x12 ^ x1, 16)
        x11 = (x11 + x12) & _MASK
        x6 = _rotl(x6 ^ x11, 12)
        x1 = (x1 + x6) & _MASK
        x12 = _rotl(x12 ^ x1, 8)
        x11 = (x11 + x12) & _MASK
        x6 = _rotl(x6 ^ x11, 7)
        x2 = (x2 + x7) & _MASK
        x13 = _rotl(x13 ^ x2, 16)
        x8 = (x8 + x13) & _MASK
        x7 = _rotl(x7 ^ x8, 12)
        x2 = (x2 + x7) & _MASK
        x13 = _rotl(x13 ^ x2, 8)
        x8 = (x8 + x13) & _MASK
        x7 = _rotl(x7 ^ x8, 7)
        x3 = (x3 + x4) & _MASK
        x14 = _rotl(x14 ^ x3, 16)
        x9 = (x9 + x14) & _MASK
        x4 = _rotl(x4 ^ x9, 12)
        x3 = (x3 + x4) & _MASK
        x14 = _rotl(x14 ^ x3, 8)
        x9 = (x9 + x14) & _MASK
        x4 = _rotl(x4 ^ x9, 7)
    state[16] = (x0 + state[0]) & _MASK
    state[17] = (x1 + state[1]) & _MASK
    state[18] = (x2 + state[2]) & _MASK
    state[19] = (x3 + state[3]) & _MASK
    state[20] = (x4 + state[4]) & _MASK
    state[21] = (x5 + state[5]) & _MASK
    state[22] = (x6 + state[6]) & _MASK
    state[23] = (x7 + state[7]) & _MASK
    state[24] = (x8 + state[8]) & _MASK
    state[25] = (x9 + state[9]) & _MASK
    state[26] = (x10 + state[10]) & _MASK
    state[27] = (x11 + state[11]) & _MASK
    state[28] = (x12 + state[12]) & _MASK
    state[29] = (x13 + state[13]) & _MASK
    state[30] = (x14 + state[14]) & _MASK
    state[31] = (x15 + state[15]) & _MASK
    state[12] = (np.int64(state[12]) + 1) & _MASK
    state[_POS] = 0


@njit(cache=True)
def next_u32(state: np.ndarray) -> int:
    """The next 32-bit word of the keystream (little-endian words, in stream order)."""
    if state[_POS] >= 16:
        _refill(state)
    i = np.int64(state[_POS])
    state[_POS] = i + 1
    return np.int64(state[16 + i])


@njit(cache=True)
def below(state: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n), 1 <= n <= 2**32, by rejection: no modulo bias."""
    limit = (1 << 32) - ((1 << 32) % n)
    while True:
        x = next_u32(state)
        if x < limit:
            return x % n


@njit(cache=True)
def chance(state: np.ndarray, parts_per_million: int) -> bool:
    """True with probability parts_per_million / 1,000,000 (always draws one number)."""
    return below(state, 1_000_000) < parts_per_million


@njit(cache=True)
def weighted(state: np.ndarray, weights: np.ndarray, first: int, count: int) -> int:
    """An index in [0, count) drawn with probability weights[first + i] / their sum."""
    total = 0
    for i in range(count):
        total += weights[first + i]
    r = below(state, total)
    for i in range(count):
        r -= weights[first + i]
        if r < 0:
            return i
    return count - 1


def keystream(seed: bytes, n_bytes: int) -> bytes:
    """The first n bytes of the stream a round keyed by `seed` draws from (for lab testing)."""
    state = new_generator(seed)
    words = (n_bytes + 3) // 4
    out = np.empty(words, dtype=np.uint32)
    _fill(state, out)
    return out.astype("<u4").tobytes()[:n_bytes]


@njit(cache=True)
def _fill(state: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        out[i] = next_u32(state)


def keystream_chunks(seed: bytes, n_bytes: int, chunk: int) -> Iterator[bytes]:
    """The same stream as `keystream`, in pieces of `chunk` bytes (a multiple of 4)."""
    state = new_generator(seed)
    left = n_bytes
    while left > 0:
        size = min(chunk, left)
        out = np.empty((size + 3) // 4, dtype=np.uint32)
        _fill(state, out)
        yield out.astype("<u4").tobytes()[:size]
        left -= size
