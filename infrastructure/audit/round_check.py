"""One recorded round against the engine: the round is played again from what its StakePlaced
recorded (state before, stake, seed, model version) and every recorded fact, the settlement and
the balances are compared with the re-derived ones, field by field.

Old math models stay published (domain.game.model.registry), so a round re-derives on the model it
was played on even after the current model changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from domain.errors import RuleViolation, UnknownModelVersion
from domain.game.engine import RoundOutcome, play_round
from domain.game.progress import Progress
from domain.ledger.player import round_id_of
from domain.ledger.recorded_progress import HALVES_FIELDS, recorded_progress

MAX_FIELD_PROBLEMS = 20  # per round: a wholly different round is named, not listed cell by cell
# As the events record them (read through their upcasts, so in halves whatever their version).
PROGRESS_FIELDS = ("level", "spins_to_next_level", *HALVES_FIELDS)


@dataclass
class RecordedEvent:
    """One event of a round as stored, with its place in the chain."""

    name: str
    version: int
    notification_id: int
    prev_hash: str
    hash: str
    payload: dict[str, Any]


@dataclass
class RoundRecord:
    round_id: str
    stake_placed: RecordedEvent
    facts: list[RecordedEvent] = field(default_factory=list)
    settled: RecordedEvent | None = None
    replayed_before: dict[str, Any] = field(default_factory=dict)
    rederived: dict[str, Any] | None = None


@dataclass(frozen=True)
class Finding:
    kind: str
    version: int
    field: str
    expected: Any
    found: Any
    detail: str


def rederive(progress: Progress, stake: int, seed: bytes, model_version: str) -> RoundOutcome:
    """domain.game.engine.play_round on the recorded model version (only published models
    re-derive)."""
    return play_round(progress, stake, seed, model_version)


def plain(value: Any) -> Any:
    """A value as JSON reads it back (tuples become lists), for a like-for-like comparison."""
    return json.loads(json.dumps(value))


def differences(expected: Any, found: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """(path, expected, found) of every leaf that differs."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in [*expected, *(k for k in found if k not in expected)]:
            yield from differences(
                expected.get(key, "<absent>"), found.get(key, "<absent>"), f"{path}.{key}"
            )
    elif isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found):
        for i, (e, f) in enumerate(zip(expected, found, strict=True)):
            yield from differences(e, f, f"{path}[{i}]")
    elif expected != found or isinstance(expected, bool) != isinstance(found, bool):
        yield path, expected, found


def check_round(record: RoundRecord, player_id: str) -> list[Finding]:
    """Everything about the round that disagrees with replay and with the engine."""
    found: list[Finding] = []
    start = record.stake_placed
    stake_payload = start.payload
    before = record.replayed_before
    number = int(before.get("rounds", 0)) + 1
    if record.round_id != round_id_of(player_id, number):
        found.append(Finding("state_mismatch", start.version, "StakePlaced.round_id",
                             round_id_of(player_id, number), record.round_id,
                             "rounds are numbered 1, 2, ... per player"))
    for name in ("balance_before", *PROGRESS_FIELDS):
        replayed = before.get("balance" if name == "balance_before" else name)
        if stake_payload.get(name) != replayed:
            found.append(Finding("state_mismatch", start.version, f"StakePlaced.{name}",
                                 replayed, stake_payload.get(name),
                                 "the state before the round differs from the replayed player"))
    stake = stake_payload.get("stake")
    balance_before = stake_payload.get("balance_before")
    if isinstance(stake, int) and isinstance(balance_before, int):
        paid = 0 if stake_payload.get("free_round") else stake  # a free round stakes nothing
        if stake_payload.get("balance_after") != balance_before - paid:
            found.append(Finding("settlement_mismatch", start.version, "StakePlaced.balance_after",
                                 balance_before - paid, stake_payload.get("balance_after"),
                                 "balance_after = balance_before - stake (0 for a free round)"))
    try:
        outcome = rederive(
            recorded_progress(stake_payload), stake,  # type: ignore[arg-type]
            bytes.fromhex(str(stake_payload["seed"])), str(stake_payload["model_version"]),
        )
    except UnknownModelVersion as exc:
        found.append(Finding("rederivation_failed", start.version, "StakePlaced.model_version",
                             "a published model version", stake_payload.get("model_version"),
                             str(exc)))
        return found
    except (RuleViolation, ValueError, TypeError, KeyError, AttributeError) as exc:
        found.append(Finding("rederivation_failed", start.version, "StakePlaced",
                             None, None, f"the round cannot be played again: {exc}"))
        return found
    found.extend(_compare_facts(record, outcome))
    found.extend(_compare_settlement(record, outcome, balance_before))
    record.rederived = {
        "ok": not found,
        "events": ["StakePlaced", *(f.name for f in outcome.facts), "RoundSettled"],
        "total_win": outcome.total_win,
        "progress_after": outcome.progress_after.shown(),
        "max_win_hit": outcome.max_win_hit,
    }
    return found


def _compare_facts(record: RoundRecord, outcome: RoundOutcome) -> list[Finding]:
    found: list[Finding] = []
    expected_names = [fact.name for fact in outcome.facts]
    found_names = [event.name for event in record.facts]
    if expected_names != found_names:
        first = next(
            (i for i, (e, f) in enumerate(zip(expected_names, found_names, strict=False))
             if e != f),
            min(len(expected_names), len(found_names)),
        )
        version = record.facts[first].version if first < len(record.facts) else (
            record.settled.version if record.settled else record.stake_placed.version)
        found.append(Finding("events_mismatch", version, "events", expected_names, found_names,
                             f"the round's events differ from the engine's from fact {first}"))
    for fact, event in zip(outcome.facts, record.facts, strict=False):
        if fact.name != event.name:
            break
        if fact.payload == event.payload:
            continue  # the common case, compared at C speed; only a difference is walked
        for path, expected, got in differences(plain(fact.payload), event.payload, event.name):
            found.append(Finding("fact_mismatch", event.version, path, expected, got,
                                 "the recorded fact differs from the re-derived one"))
            if len(found) >= MAX_FIELD_PROBLEMS:
                return found
    return found


def _compare_settlement(
    record: RoundRecord, outcome: RoundOutcome, balance_before: Any
) -> list[Finding]:
    settled = record.settled
    if settled is None:
        return []
    stake = int(record.stake_placed.payload.get("stake", 0))
    if record.stake_placed.payload.get("free_round"):
        stake = 0  # a free round's stake was never paid
    expected: dict[str, Any] = {
        "total_win": outcome.total_win,
        "max_win_hit": outcome.max_win_hit,
        **outcome.progress_after.recorded(),
    }
    if isinstance(balance_before, int):
        expected["balance_after"] = balance_before - stake + outcome.total_win
    return [
        Finding("settlement_mismatch", settled.version, f"RoundSettled.{name}", value,
                settled.payload.get(name),
                "balance_after = balance_before - stake + total_win"
                if name == "balance_after" else "the settlement differs from the re-derived one")
        for name, value in expected.items()
        if settled.payload.get(name) != value
        or isinstance(value, bool) != isinstance(settled.payload.get(name), bool)
    ]
