"""Loss limits' rolling windows (CONTRACT.md "Player protection"): what a player lost over the
last day, week or month, kept in a structure whose size and cost do not grow with time played.

The rule is the loss ledger's of old (one entry per minute played, scanned): a window that
starts at `edge` (now - its length) counts every minute that began after the edge, its stakes
minus its wins (a free round stakes nothing; its win counts), and the minute the edge falls in
its stakes alone (the most its rounds after the edge can have lost: never less than the exact
loss, exact again a minute later). With `least` (verify's bound) that minute counts minus its
wins instead (the least).

Play is kept in buckets of BUCKET_SECONDS (an hour): each holds its rounds' stakes, their stakes
minus wins, the minutes its first and last round started in, and its rows: for each minute
played in it, that minute's stakes and stakes minus wins (one bit a minute says which minutes
were played). A bucket entirely after the edge counts its stakes minus wins; one entirely before
counts nothing; the one bucket the edge falls among sums its rows from the edge's minute on, as
the old rule did. (A bucket read from a snapshot written before the rows were kept has none: the
edge falling among its rounds counts its stakes, as the code of then did.)

Per spin: a round adds to the newest bucket (or opens the next one) in O(1) (at most 60 rows
copied); a window's loss is two prefix sums, a binary search over at most 30 days of hour buckets
(721) and the sum of one bucket's rows. The structure is an immutable value shared by the
player's copies; only the newest bucket is rebuilt per round, and a sealed bucket's rows are a
compact array (16-, 32- or 64-bit integers, the narrowest that holds them).

Stored layout (a snapshot holds it through the guard's transcoding): {"bucket_seconds",
"buckets": [[index, first_minute, last_minute, staked, net]...] oldest first, "round": the bucket
of the round being recorded, or None, "round_minute": its minute, or None, "rows": for each bucket
[played, staked..., net...] (`played`'s bit k: minute first_minute + k was played; then one
stake and one net per minute played, in minute order), or None where not known}. index =
start // bucket_seconds; minutes = epoch // 60. A layout without "rows" (written before) reads
as buckets without rows.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

MINUTE = 60
BUCKET_SECONDS = 3600
Rows = array  # the played minutes' stakes, then their stakes minus wins (module doc)


def _below(played: int, k: int) -> int:
    """The minutes played before bit k: the row of minute k."""
    return (played & ((1 << k) - 1)).bit_count()


@dataclass(frozen=True, slots=True)
class Bucket:
    """The rounds started in one bucket of time."""

    index: int  # its start // bucket_seconds
    first_minute: int  # the minute (epoch seconds // 60) its first round started in
    last_minute: int  # ... and its last
    staked: int
    net: int  # stakes minus wins
    played: int = 0  # bit k: a round started in minute first_minute + k (0 with no rows)
    rows: Rows[int] | None = None  # None: not known (stored before rows were kept)

    def counted(self, edge: float, least: bool = False) -> int:
        """What it adds to a window starting at `edge` (module doc: the old rule, minute by
        minute; without rows, where the edge falls among its rounds, its stakes, or with
        `least` minus its wins)."""
        if self.first_minute * MINUTE > edge:
            return self.net
        if (self.last_minute + 1) * MINUTE <= edge:
            return 0
        rows = self.rows
        if rows is None:
            return self.net - self.staked if least else self.staked
        played, k = self.played, math.floor(edge / MINUTE) - self.first_minute
        n, at = played.bit_count(), _below(played, k)
        edge_minute = 0
        if played >> k & 1:  # the minute the edge falls in
            edge_minute = rows[n + at] - rows[at] if least else rows[at]
            at += 1
        return edge_minute + sum(rows[n + at :])

    def with_round(self, minute: int, stake: int) -> Bucket:
        first, last = min(self.first_minute, minute), max(self.last_minute, minute)
        staked, net = self.staked + stake, self.net + stake
        if self.rows is None:
            return Bucket(self.index, first, last, staked, net)
        played, k = self.played << (self.first_minute - first), minute - first
        n, at = self.played.bit_count(), _below(played, k)
        values = self.rows.tolist()
        stakes, nets = values[:n], values[n:]
        if played >> k & 1:
            stakes[at] += stake
            nets[at] += stake
        else:
            stakes.insert(at, stake)
            nets.insert(at, stake)
            played |= 1 << k
        return Bucket(self.index, first, last, staked, net, played, array("q", stakes + nets))

    def with_win(self, minute: int | None, win: int) -> Bucket:
        rows, played = self.rows, self.played
        if rows is not None:
            k = -1 if minute is None else minute - self.first_minute
            if 0 <= k and played >> k & 1:
                rows = array("q", rows)
                rows[played.bit_count() + _below(played, k)] -= win
            else:  # the round's minute is not known here: the bucket's rows no longer are
                rows, played = None, 0
        return Bucket(
            self.index, self.first_minute, self.last_minute, self.staked, self.net - win,
            played, rows,
        )

    def sealed(self) -> Bucket:
        """The same bucket, its rows in the narrowest array that holds them."""
        if self.rows is None:
            return self
        return Bucket(
            self.index, self.first_minute, self.last_minute, self.staked, self.net,
            self.played, _compact(self.rows),
        )

    def stored(self) -> list[int]:
        return [self.index, self.first_minute, self.last_minute, self.staked, self.net]

    def stored_rows(self) -> list[int] | None:
        return None if self.rows is None else [self.played, *self.rows]

    @classmethod
    def from_stored(cls, stored: Sequence[Any], rows: Sequence[Any] | None) -> Bucket:
        index, first, last, staked, net = (int(v) for v in stored)
        if rows is None:
            return cls(index, first, last, staked, net)
        return cls(index, first, last, staked, net, int(rows[0]), array("q", rows[1:]))


def _compact(rows: Iterable[int]) -> Rows[int]:
    values = list(rows)
    for typecode in "hi":
        try:
            return array(typecode, values)
        except OverflowError:
            continue
    return array("q", values)


def _fresh(index: int, minute: int, stake: int) -> Bucket:
    return Bucket(index, minute, minute, stake, stake, 1, array("q", (stake, stake)))


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
    integers and one compact array of rows each, never changed in place: sealing a bucket (once a
    bucket's time) makes new ones."""

    indexes: array[int] = field(default_factory=_no_buckets)  # the sealed buckets' indexes
    spans: array[int] = field(default_factory=_no_buckets)  # each: first, last minute, staked, net
    played: array[int] = field(default_factory=_no_buckets)  # each: its minutes played (bits)
    rows: tuple[Rows[int] | None, ...] = ()  # each: its rows
    current: Bucket | None = None
    round_bucket: int | None = None  # the bucket of the round being recorded
    round_minute: int | None = None  # ... and its minute
    bucket_seconds: int = BUCKET_SECONDS
    # The sealed buckets' nets summed: nets[k] is the sum of the first k (derived: not compared).
    nets: array[int] = field(default_factory=_no_nets, compare=False, repr=False)

    def sealed(self) -> tuple[Bucket, ...]:
        return tuple(self._sealed(k) for k in range(len(self.indexes)))

    def _sealed(self, k: int) -> Bucket:
        first, last, staked, net = self.spans[4 * k : 4 * k + 4]
        return Bucket(self.indexes[k], first, last, staked, net, self.played[k], self.rows[k])

    # -- the rule ------------------------------------------------------------------------------

    def loss(self, seconds: int, now: float, least: bool = False) -> int:
        """Stakes minus wins of the minutes played in the `seconds` before `now` (module doc):
        never less than the exact loss; with `least`, never more (verify's bound: a round is
        named as breaking a loss limit only if it surely did)."""
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
            indexes, spans, played, rows, nets = (
                kept.indexes, kept.spans, kept.played, kept.rows, kept.nets
            )
            if current is not None:
                done = current.sealed()
                indexes = indexes + array("q", (done.index,))
                spans = spans + array("q", done.stored()[1:])
                played = played + array("q", (done.played,))
                rows = (*rows, done.rows)
                nets = nets + array("q", (nets[-1] + done.net,))
            return LossLedger(
                indexes, spans, played, rows, _fresh(index, minute, stake), index, minute,
                self.bucket_seconds, nets,
            )
        if index == current.index:
            return LossLedger(
                kept.indexes, kept.spans, kept.played, kept.rows,
                current.with_round(minute, stake), index, minute, self.bucket_seconds, kept.nets,
            )
        # The clock went back past the newest bucket (rare): the older bucket is rebuilt.
        older = {b.index: b for b in kept.sealed()}
        bucket = older.get(index)
        older[index] = (
            _fresh(index, minute, stake) if bucket is None else bucket.with_round(minute, stake)
        )
        return LossLedger.of([*older.values(), current], index, self.bucket_seconds, minute)

    def with_win(self, win: int) -> LossLedger:
        """The round being recorded won `win`."""
        index, minute = self.round_bucket, self.round_minute
        current = self.current
        if index is None or current is None:
            return self
        if index == current.index:
            return LossLedger(
                self.indexes, self.spans, self.played, self.rows, current.with_win(minute, win),
                None, None, self.bucket_seconds, self.nets,
            )
        if index not in self.indexes:
            return self
        sealed = [b.with_win(minute, win) if b.index == index else b for b in self.sealed()]
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
            self.indexes[drop:], self.spans[4 * drop :], self.played[drop:], self.rows[drop:],
            self.current, self.round_bucket, self.round_minute, self.bucket_seconds,
            array("q", (n - base for n in self.nets[drop:])),
        )

    # -- stored layout -----------------------------------------------------------------------

    def buckets(self) -> tuple[Bucket, ...]:
        sealed = self.sealed()
        return sealed if self.current is None else (*sealed, self.current)

    def stored(self) -> dict[str, Any]:
        buckets = self.buckets()
        return {
            "bucket_seconds": self.bucket_seconds,
            "buckets": [b.stored() for b in buckets],
            "round": self.round_bucket,
            "round_minute": self.round_minute,
            "rows": [b.stored_rows() for b in buckets],
        }

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> LossLedger:
        rows = stored.get("rows") or [None] * len(stored["buckets"])
        buckets = [Bucket.from_stored(b, r) for b, r in zip(stored["buckets"], rows, strict=True)]
        minute = stored.get("round_minute")
        return cls.of(
            buckets, stored["round"], int(stored["bucket_seconds"]),
            None if minute is None else int(minute),
        )

    @classmethod
    def of(
        cls, buckets: list[Bucket], round_bucket: int | None,
        bucket_seconds: int = BUCKET_SECONDS, round_minute: int | None = None,
    ) -> LossLedger:
        """The ledger holding these buckets (any order): the newest is the current one."""
        ordered = sorted(buckets, key=lambda b: b.index)
        if not ordered:
            return cls(bucket_seconds=bucket_seconds)
        sealed = [b.sealed() for b in ordered[:-1]]
        return cls(
            array("q", (b.index for b in sealed)),
            array("q", (v for b in sealed for v in b.stored()[1:])),
            array("q", (b.played for b in sealed)),
            tuple(b.rows for b in sealed),
            ordered[-1], round_bucket, round_minute, bucket_seconds,
            _prefix(b.net for b in sealed),
        )

    @classmethod
    def from_minutes(
        cls, ledger: Mapping[str, Any], minute: str, bucket_seconds: int = BUCKET_SECONDS
    ) -> LossLedger:
        """The ledger the guard's old layout kept ({minute: [staked, won]}, and the minute of
        the round being recorded, "" between rounds), in buckets with their rows: what
        replaying the same events builds."""
        buckets: dict[int, Bucket] = {}
        for key, (staked, won) in sorted(ledger.items(), key=lambda item: int(item[0])):
            m = int(key)
            index = m * MINUTE // bucket_seconds
            bucket = buckets.get(index)
            played = (
                _fresh(index, m, int(staked)) if bucket is None
                else bucket.with_round(m, int(staked))
            )
            buckets[index] = played.with_win(m, int(won))
        round_bucket = int(minute) * MINUTE // bucket_seconds if minute else None
        return cls.of(
            list(buckets.values()), round_bucket, bucket_seconds,
            int(minute) if minute else None,
        )


EMPTY_LEDGER = LossLedger()
