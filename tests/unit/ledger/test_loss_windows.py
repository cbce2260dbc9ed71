"""Loss limits' rolling windows (domain.ledger.loss_ledger): the bucketed ledger the guard keeps
gives exactly the answers of the straightforward definitions, over random histories of rounds:

- with the hour buckets it keeps (and with one-minute buckets), exactly the answers of the loss
  ledger kept before (a dict of every minute played, scanned: the rule as it was), to the minute:
  a window counts the minutes after its start, whatever hour they were played in;
- never less than the exact loss (stakes minus wins of the rounds started after now - window);
  its lower bound (verify's) never more;
- its size bounded by the hours of 30 days, however long the player plays;
- an old snapshot's per-minute ledger reads as the buckets replay builds, and an hour-bucket
  ledger stored before the rows were kept reads as it counted then.
"""

from __future__ import annotations

import math
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.ledger.guard import Guard
from domain.ledger.loss_ledger import MINUTE, Bucket, LossLedger
from domain.ledger.protection import LEDGER_SECONDS, LOSS_WINDOWS, limit_breach

DAY = 86_400
START = 1_772_366_400.0  # 2026-03-01T12:00Z
Round = tuple[float, int, int]  # (started at, stake, win)

gaps = st.one_of(
    st.floats(0, 5), st.floats(0, 120), st.sampled_from([0.0, 59.9, 60.0, 3600.0, DAY, 7 * DAY]),
    st.floats(0, 31 * DAY),
)
rounds_of = st.lists(
    st.tuples(gaps, st.sampled_from([0, 20, 100, 500]), st.sampled_from([0, 0, 0, 10, 150, 4000])),
    max_size=60,
)
query_offsets = st.lists(
    st.one_of(st.floats(0, 2 * 3600), st.floats(0, 31 * DAY),
              st.sampled_from([0.0, DAY, 7 * DAY, 30 * DAY, DAY + 30, 30 * DAY + 59.5])),
    min_size=1, max_size=6,
)


def history(steps: list[tuple[float, int, int]]) -> list[Round]:
    at, played = START, []
    for gap, stake, win in steps:
        at += gap
        played.append((at, stake, win))
    return played


def built(rounds: list[Round], bucket_seconds: int) -> LossLedger:
    ledger = LossLedger(bucket_seconds=bucket_seconds)
    for at, stake, win in rounds:
        ledger = ledger.with_round(at, stake, LEDGER_SECONDS).with_win(win)
    return ledger


def old_rule(rounds: list[Round], seconds: int, now: float) -> int:
    """The loss ledger as it was: {minute: [staked, won]} trimmed to LEDGER_SECONDS at each
    round, scanned (the edge minute counts its stakes alone)."""
    ledger: dict[int, list[int]] = {}
    for at, stake, win in rounds:
        oldest = int(at - LEDGER_SECONDS) // MINUTE
        ledger = {m: v for m, v in ledger.items() if m >= oldest}
        entry = ledger.setdefault(int(at // MINUTE), [0, 0])
        entry[0] += stake
        entry[1] += win
    start, total = now - seconds, 0
    for minute, (staked, won) in ledger.items():
        begins = minute * MINUTE
        if begins > start:
            total += staked - won
        elif begins + MINUTE > start:
            total += staked
    return total


def bucket_scan(ledger: LossLedger, seconds: int, now: float) -> int:
    return sum(b.counted(now - seconds) for b in ledger.buckets())


def exact(rounds: list[Round], seconds: int, now: float) -> int:
    return sum(stake - win for at, stake, win in rounds if at > now - seconds)


@settings(max_examples=300, deadline=None)
@given(rounds_of, query_offsets)
def test_one_minute_buckets_give_exactly_the_old_ledgers_answers(
    steps: list[tuple[float, int, int]], offsets: list[float]
) -> None:
    rounds = history(steps)
    ledger = built(rounds, MINUTE)
    last = rounds[-1][0] if rounds else START
    for offset in offsets:
        for seconds in LOSS_WINDOWS.values():
            now = last + offset
            assert ledger.loss(seconds, now) == old_rule(rounds, seconds, now)


@settings(max_examples=300, deadline=None)
@given(rounds_of, query_offsets)
def test_hour_buckets_give_exactly_the_old_ledgers_answers_never_below_the_exact_loss(
    steps: list[tuple[float, int, int]], offsets: list[float]
) -> None:
    rounds = history(steps)
    ledger = built(rounds, 3600)
    last = rounds[-1][0] if rounds else START
    for offset in offsets:
        for seconds in LOSS_WINDOWS.values():
            now = last + offset
            loss = ledger.loss(seconds, now)
            assert loss == bucket_scan(ledger, seconds, now) == old_rule(rounds, seconds, now)
            assert loss >= exact(rounds, seconds, now)
            assert ledger.loss(seconds, now, least=True) <= exact(rounds, seconds, now)
            edge_minute = math.floor((now - seconds) / MINUTE)
            if not any(math.floor(at / MINUTE) == edge_minute for at, _, _ in rounds):
                assert loss == exact(rounds, seconds, now)


def test_a_window_starting_inside_an_hour_counts_only_the_minutes_after_its_start() -> None:
    # A loss early in an hour, a big win late in it; a day later the window starts between.
    ledger = built([(START + 5 * MINUTE, 100, 0), (START + 50 * MINUTE, 100, 10_000)], 3600)
    now = START + DAY + 30 * MINUTE
    assert ledger.loss(DAY, now) == 100 - 10_000
    assert ledger.loss(DAY, now, least=True) == 100 - 10_000
    # so a loss limit of 500 a day lets a stake of 400 through (the exact rolling rule does)
    guard = Guard.from_stored({"limits": {"loss_per_day": 500}, "pending": {}, "excluded": None,
                               "sessions": {}, "losses": ledger.stored()})
    assert limit_breach(guard, 400, now) is None
    # ... and the edge's own minute counts its stakes alone, as the old rule did
    at_the_win = START + DAY + 50 * MINUTE + 30
    assert ledger.loss(DAY, at_the_win) == 100
    assert ledger.loss(DAY, at_the_win, least=True) == -10_000


def test_a_window_counts_rounds_started_after_its_start_and_reaching_it_exactly_counts() -> None:
    ledger = built([(START, 100, 30), (START + 3 * 3600, 50, 0)], 3600)
    assert ledger.loss(DAY, START + 3 * 3600) == 70 + 50
    # A day after the first round began, the window starts at it: not after it, and its hour
    # holds only that round, so its stake alone counts until its minute has passed.
    assert ledger.loss(DAY, START + DAY) == 100 + 50
    assert ledger.loss(DAY, START + DAY + MINUTE) == 50
    assert ledger.loss(DAY, START + DAY + 3 * 3600 + MINUTE) == 0


def test_a_free_rounds_win_counts_and_its_stake_does_not() -> None:
    ledger = LossLedger().with_round(START, 0, LEDGER_SECONDS).with_win(40)
    assert ledger.loss(DAY, START + 1) == -40


def test_thirty_days_of_play_every_minute_keep_at_most_the_hours_of_thirty_days() -> None:
    ledger = LossLedger()
    for minute in range(45 * 24 * 60):
        ledger = ledger.with_round(START + minute * MINUTE, 100, LEDGER_SECONDS).with_win(50)
    assert len(ledger.buckets()) <= math.ceil(LEDGER_SECONDS / 3600) + 1
    assert sum(len(rows or ()) for rows in ledger.rows) <= 2 * LEDGER_SECONDS // MINUTE
    assert {rows.typecode for rows in ledger.rows if rows is not None} == {"h"}  # 2 bytes each
    now = START + 45 * DAY
    # A day of play, wins taken off, but for the minute the window starts in (its stake alone).
    assert ledger.loss(DAY, now) == (24 * 60 - 1) * 50 + 100
    assert ledger.loss(30 * DAY, now) == (30 * 24 * 60 - 1) * 50 + 100


def test_a_round_recorded_with_the_clock_gone_back_joins_its_own_bucket() -> None:
    ledger = built([(START + 7200, 100, 0), (START, 30, 10)], 3600)
    assert [b.index for b in ledger.buckets()] == [int(START // 3600), int(START // 3600) + 2]
    assert ledger.loss(DAY, START + 7200) == 100 + 20


@settings(max_examples=200, deadline=None)
@given(rounds_of)
def test_an_old_snapshots_minute_ledger_reads_as_the_buckets_replay_builds(
    steps: list[tuple[float, int, int]],
) -> None:
    rounds = [r for r in history(steps) if r[0] - START < 29 * DAY]  # nothing trimmed yet
    minutes: dict[str, list[int]] = {}
    for at, stake, win in rounds:
        entry = minutes.setdefault(str(int(at // MINUTE)), [0, 0])
        entry[0] += stake
        entry[1] += win
    old_layout = {"limits": {}, "pending": {}, "excluded": None, "sessions": {},
                  "ledger": minutes, "minute": ""}
    read = Guard.from_stored(old_layout)
    assert read.losses == built(rounds, 3600)
    assert Guard.from_stored(read.stored()) == read


def test_a_snapshot_taken_mid_round_keeps_the_rounds_bucket() -> None:
    old_layout = {"limits": {}, "pending": {}, "excluded": None, "sessions": {},
                  "ledger": {str(int(START // MINUTE)): [100, 0]},
                  "minute": str(int(START // MINUTE))}
    read = Guard.from_stored(old_layout).losses
    assert read == LossLedger().with_round(START, 100, LEDGER_SECONDS)
    minute = int(START // MINUTE)
    assert read.with_win(30).buckets() == (
        Bucket(int(START // 3600), minute, minute, 100, 70, 1, array("q", (100, 70))),
    )


def test_an_hour_ledger_stored_before_the_rows_were_kept_counts_as_it_did_then() -> None:
    ledger = built([(START + 5 * MINUTE, 100, 0), (START + 50 * MINUTE, 100, 10_000)], 3600)
    stored = ledger.stored()
    before = {k: v for k, v in stored.items() if k not in ("rows", "round_minute")}
    read = LossLedger.from_stored(before)
    now = START + DAY + 30 * MINUTE
    assert read.loss(DAY, now) == 200  # the edge's hour: its stakes alone
    assert read.loss(DAY, now, least=True) == -10_000  # its stakes minus wins, less its stakes
    assert read.loss(DAY, START + DAY + 4 * MINUTE) == 200 - 10_000  # before its rounds: exact
    # new play beside it keeps its rows again, and everything reads back as stored
    later = read.with_round(START + 3 * 3600, 40, LEDGER_SECONDS).with_win(0)
    assert later.loss(DAY, START + DAY + 3 * 3600 + 1) == 40
    assert LossLedger.from_stored(later.stored()) == later
    assert LossLedger.from_stored(stored) == ledger


def test_a_big_win_keeps_its_rows_in_a_wider_array() -> None:
    ledger = built([(START, 100, 0), (START + 60, 100, 10**12), (START + 3600, 1, 0)], 3600)
    (sealed,) = ledger.rows
    assert sealed is not None and sealed.typecode == "q"
    # the edge's minute its stake, the next minute its loss, the next hour its stake
    assert ledger.loss(DAY, START + DAY + 30) == 100 + (100 - 10**12) + 1
