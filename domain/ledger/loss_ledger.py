"""Loss limits' rolling windows (CONTRACT.md "Player protection"): what a player lost over the
last day, week or month, kept in a structure whose size and cost do not grow with time played.

A window that starts at `edge` (now - its length) counts every round that started after the edge,
its stake minus its win (a free round stakes nothing; its win counts). Play is kept in buckets of
BUCKET_SECONDS (an hour): each holds its rounds' stakes, their stakes minus wins, and the minutes
its first and last round started in. A bucket entirely after the edge counts its stakes minus wins;
one entirely before counts nothing; the one bucket whose rounds the edge falls among counts its
stakes alone. So a window's loss is never less than the exact loss (those rounds staked at most
that and won >= 0), and it is exact whenever the edge falls outside a bucket's rounds (in an hour
the player did not play across). With one-minute buckets this is exactly the rule the loss ledger
kept before (one entry per minute played, domain.ledger.guard's old layout).

Per spin: a round adds to the newest bucket (or opens the next one) in O(1); a window's loss is
two prefix sums and a binary search over at most 30 days of hour buckets (721). The structure is an
immutable value shared by the player's copies; only the newest bucket is rebuilt per round.

Stored layout (a snapshot holds it through the guard's transcoding): {"bucket_seconds",
"buckets": [[index, first_minute, last_minute, staked, net]...] oldest first, "round": the bucket
of the round being recorded, or None}. index = start // bucket_seconds; minutes = epoch // 60.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

MINUTE = 60
BUCKET_SECONDS = 3600


@dataclass(frozen=True, slots=True)
class Bucket:
    """The rounds started in one bucket of time."""

    index: int  # its start // bucket_seconds
    first_minute: int  # the minute (epoch seconds // 60) its first round started in
    last_minute: int  # ... and its last
    staked: int
    net: int  # stakes minus wins

    def counted(self, edge: float, least: bool = False) -> int:
        """What it adds to a window starting at `edge` (rounds started after the edge count);
        where the edge falls among its rounds, its stakes (the most those rounds can have lost),
        or with `least` minus its wins (the least)."""
        if self.first_minute * MINUTE > edge:
            return self.net
        if (self.last_minute + 1) * MINUTE <= edge:
            return 0
        return self.net - self.staked if least else self.staked

    def with_round(self, minute: int, stake: int) -> Bucket:
        return Bucket(
            self.index, min(self.first_minute, minute), max(self.last_minute, minute),
            self.staked + stake, self.net + stake,
        )

    def with_win(self, win: int) -> Bucket:
        return Bucket(self.index, self.first_minute, self.last_minute, self.staked, self.net - win)

    def stored(self) -> list[int]:
        return [self.index, self.first_minute, self.last_minute, self.staked, self.net]


def _prefix(nets: Iterable[int]) -> array[int]:
    return array("q", (0, *accumulate(nets)))


def _no_buckets() -> array[int]:
    return array("q")


def _no_nets() -> array[int]:
    return array("q", (0,))


@dataclass(frozen=True, slots=True)
class LossLedger:
    """The player's play of the last 30 days, by bucket. `current` is the newest bucket (the
    one rounds are added to); the older ones are sealed, oldest first, in flat arrays of 64-bit
    integers (a few bytes a bucket, where objects took hundreds), never changed in place:
    sealing a bucket (once a bucket's time) makes new ones."""

    indexes: array[int] = field(default_factory=_no_buckets)  # the sealed buckets' indexes
    spans: array[int] = field(default_factory=_no_buckets)  # each: first, last minute, staked, net
    current: Bucket | None = None
    round_bucket: int | None = None  # the bucket of the round being recorded
    bucket_seconds: int = BUCKET_SECONDS
    # The sealed buckets' nets summed: nets[k] is the sum of the first k (derived: not compared).
    nets: array[int] = field(default_factory=_no_nets, compare=False, repr=False)

    def sealed(self) -> tuple[Bucket, ...]:
        return tuple(self._sealed(k) for k in range(len(self.indexes)))

    def _sealed(self, k: int) -> Bucket:
        first, last, staked, net = self.spans[4 * k : 4 * k + 4]
        return Bucket(self.indexes[k], first, last, staked, net)

    # -- the rule ------------------------------------------------------------------------------

    def loss(self, seconds: int, now: float, least: bool = False) -> int:
        """Stakes minus wins of the rounds started in the `seconds` before `now` (module doc):
        never less than the exact loss; with `least`, never more (verify's bound: a round is
        named as breaking a loss limit only if it surely did, whatever the bucket)."""
        edge = now - seconds
        at = math.floor(edge / self.bucket_seconds)  # the bucket the edge falls in
        current = self.current
        if current is None or current.index < at:
            return 0
        total = current.net if current.index > at else current.counted(edge, least)
        after = bisect_right(self.indexes, at)  # the sealed buckets from `after` on are after it
        total += self.nets[-1] - self.nets[after]
        if after and self.indexes[after - 1] == at:
            total += self._sealed(after - 1).counted(edge, least)
        return total

    def losses(
        self, windows: Mapping[str, int], now: float, least: bool = False
    ) -> dict[str, int]:
        return {name: self.loss(seconds, now, least) for name, seconds in windows.items()}

    # -- what events assign ----------------------------------------------------------------------

    def with_round(self, at: float, stake: int, keep: float) -> LossLedger:
        """A round started at `at` staking `stake`; buckets whose every minute is more than
        `keep` seconds old leave (no window reaches them)."""
        index = math.floor(at / self.bucket_seconds)
        minute = math.floor(at / MINUTE)
        kept = self._trimmed(math.floor((at - keep) / MINUTE))
        current = kept.current
        if current is None or index > current.index:
            indexes, spans, nets = kept.indexes, kept.spans, kept.nets
            if current is not None:
                indexes = indexes + array("q", (current.index,))
                spans = spans + array("q", current.stored()[1:])
                nets = nets + array("q", (nets[-1] + current.net,))
            fresh = Bucket(index, minute, minute, stake, stake)
            return LossLedger(indexes, spans, fresh, index, self.bucket_seconds, nets)
        if index == current.index:
            played = current.with_round(minute, stake)
            return LossLedger(
                kept.indexes, kept.spans, played, index, self.bucket_seconds, kept.nets
            )
        # The clock went back past the newest bucket (rare): the older bucket is rebuilt.
        older = {b.index: b for b in kept.sealed()}
        bucket = older.get(index)
        older[index] = (
            Bucket(index, minute, minute, stake, stake)
            if bucket is None
            else bucket.with_round(minute, stake)
        )
        return LossLedger.of([*older.values(), current], index, self.bucket_seconds)

    def with_win(self, win: int) -> LossLedger:
        """The round being recorded won `win`."""
        index = self.round_bucket
        current = self.current
        if index is None or current is None:
            return self
        if index == current.index:
            return LossLedger(
                self.indexes, self.spans, current.with_win(win), None, self.bucket_seconds,
                self.nets,
            )
        if index not in self.indexes:
            return self
        sealed = [b.with_win(win) if b.index == index else b for b in self.sealed()]
        return LossLedger.of([*sealed, current], None, self.bucket_seconds)

    def _trimmed(self, oldest_minute: int) -> LossLedger:
        """Without the sealed buckets whose last minute is before `oldest_minute`."""
        drop = 0
        while drop < len(self.indexes) and self.spans[4 * drop + 1] < oldest_minute:
            drop += 1
        if not drop:
            return self
        base = self.nets[drop]
        return LossLedger(
            self.indexes[drop:], self.spans[4 * drop :], self.current, self.round_bucket,
            self.bucket_seconds, array("q", (n - base for n in self.nets[drop:])),
        )

    # -- stored layout -----------------------------------------------------------------------

    def buckets(self) -> tuple[Bucket, ...]:
        sealed = self.sealed()
        return sealed if self.current is None else (*sealed, self.current)

    def stored(self) -> dict[str, Any]:
        return {
            "bucket_seconds": self.bucket_seconds,
            "buckets": [b.stored() for b in self.buckets()],
            "round": self.round_bucket,
        }

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> LossLedger:
        buckets = [Bucket(*(int(v) for v in b)) for b in stored["buckets"]]
        return cls.of(buckets, stored["round"], int(stored["bucket_seconds"]))

    @classmethod
    def of(
        cls, buckets: list[Bucket], round_bucket: int | None,
        bucket_seconds: int = BUCKET_SECONDS,
    ) -> LossLedger:
        """The ledger holding these buckets (any order): the newest is the current one."""
        ordered = sorted(buckets, key=lambda b: b.index)
        if not ordered:
            return cls(bucket_seconds=bucket_seconds)
        sealed = ordered[:-1]
        return cls(
            array("q", (b.index for b in sealed)),
            array("q", (v for b in sealed for v in b.stored()[1:])),
            ordered[-1], round_bucket, bucket_seconds, _prefix(b.net for b in sealed),
        )

    @classmethod
    def from_minutes(
        cls, ledger: Mapping[str, Any], minute: str, bucket_seconds: int = BUCKET_SECONDS
    ) -> LossLedger:
        """The ledger the guard's old layout kept ({minute: [staked, won]}, and the minute of
        the round being recorded, "" between rounds), in buckets: what replaying the same
        events builds."""
        buckets: dict[int, Bucket] = {}
        for key, (staked, won) in sorted(ledger.items(), key=lambda item: int(item[0])):
            m = int(key)
            index = m * MINUTE // bucket_seconds
            bucket = buckets.get(index, Bucket(index, m, m, 0, 0))
            buckets[index] = bucket.with_round(m, int(staked)).with_win(int(won))
        round_bucket = int(minute) * MINUTE // bucket_seconds if minute else None
        return cls.of(list(buckets.values()), round_bucket, bucket_seconds)


EMPTY_LEDGER = LossLedger()
