"""The round's random stream: standard ChaCha20, unbiased integers, reproducible."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

from domain.game.rng import below, keystream, new_generator, weighted


def test_the_stream_is_the_standard_chacha20_keystream_of_the_seed() -> None:
    for _ in range(5):
        seed = os.urandom(32)
        reference = Cipher(algorithms.ChaCha20(seed, b"\0" * 16), mode=None).encryptor()
        assert keystream(seed, 4096) == reference.update(b"\0" * 4096)


def test_the_same_seed_gives_the_same_stream() -> None:
    seed = bytes(range(32))
    assert keystream(seed, 1000) == keystream(seed, 1000)
    assert keystream(seed, 10) == keystream(seed, 1000)[:10]


def test_below_stays_in_range_and_covers_it_evenly() -> None:
    rng = new_generator(bytes(32))
    counts = Counter(below(rng, 3) for _ in range(30_000))
    assert set(counts) == {0, 1, 2}
    assert all(abs(c - 10_000) < 500 for c in counts.values())


def test_below_rejects_the_biased_tail_instead_of_folding_it() -> None:
    # n = 3 * 2**30: a modulo would make 0..2**30-1 twice as likely as the rest.
    rng = new_generator(os.urandom(32))
    n = 3 * 2**30
    draws = [below(rng, n) for _ in range(20_000)]
    low = sum(1 for d in draws if d < 2**30)
    assert abs(low / len(draws) - 1 / 3) < 0.02


def test_weighted_draws_follow_the_weights() -> None:
    rng = new_generator(os.urandom(32))
    weights = np.array([1, 0, 3], dtype=np.int64)
    counts = Counter(weighted(rng, weights, 0, 3) for _ in range(40_000))
    assert counts[1] == 0
    assert abs(counts[2] / 40_000 - 0.75) < 0.01
