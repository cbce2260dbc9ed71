"""One stream checked the way a regulator would: its hash chain from the first event, the player
rebuilt by replay, and every round re-derived from what its StakePlaced recorded.

Fed stored rows in version order (infrastructure.store.event_rows), it decodes each with the
application's mapper, checks the link to the event before (domain.hashchain: same digest, same
problem kinds), applies the event to a Player rebuilt from nothing, and, when a round's
RoundSettled arrives, plays the round again with the engine (state before, stake, seed, model
version) and compares every fact with the recorded events, field by field.

Before each event applies, the rules the events must obey are asked of the player as it stood
(domain.ledger.replay_rules: excluded_play, free_round_overdrawn, limit_broken).

A problem is a dict: {kind, stream, player_id, version, round_id, field, expected, found, detail}.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.ledger.event_names import UnknownTopic
from domain.ledger.hashchain import GENESIS, digest_of, event_state
from domain.ledger.merkle import leaf_hash
from domain.ledger.player import Player
from domain.ledger.replay_rules import rules_broken
from infrastructure.audit.fair_check import FairChecker
from infrastructure.audit.round_check import RecordedEvent, RoundRecord, check_round
from infrastructure.store.event_rows import StoredRow
from infrastructure.transparency.leaves import leaf_of_event


@dataclass
class StreamResult:
    stream: str
    player_id: str | None = None
    events: int = 0
    rounds: int = 0
    last_version: int = 0
    last_notification: int = 0
    player_state: dict[str, Any] | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)
    captured: RoundRecord | None = None
    fair: dict[str, int] = field(default_factory=dict)  # infrastructure.audit.fair_check's counts
    # (notification id, leaf hash) of every row, as the transparency log takes it in
    # (infrastructure.transparency.leaves), when the log is recomputed
    leaves: list[tuple[int, bytes]] = field(default_factory=list)


def player_state_of(player: Player) -> dict[str, Any]:
    """The player state of docs/CONTRACT.md, with the multipliers also in halves (as the round's
    events record them) and the number of rounds played."""
    return {
        **player.state(),
        "hold_and_win_halves": player.hold_and_win_halves,
        "free_spins_halves": player.free_spins_halves,
        "rounds": player.rounds,
    }


class StreamChecker:
    def __init__(
        self,
        decode: Callable[[StoredEvent], Any],
        stream: str,
        capture_round: str | None = None,
        collect_leaves: bool = False,
    ) -> None:
        self.decode = decode
        self.collect_leaves = collect_leaves
        self.result = StreamResult(stream)
        self.stream_id = UUID(stream)  # made once, not for every row the mapper decodes
        self.capture_round = capture_round
        self.head: str | None = None  # digest of the last event read (None: unknown)
        self.player: Player | None = None
        self.replaying = True
        self.round: RoundRecord | None = None
        self.fair = FairChecker(self.problem)
        # Warming up (verify --since): events before the kept checkpoint's point are read to
        # rebuild the player as it stood there; their chain is checked, but they are not
        # counted, their rounds not re-derived, their rules not asked again, their leaves not
        # collected (the kept checkpoint vouches for them).
        self.warm = False

    def resume(self, player: Player) -> None:
        """Start from a player rebuilt elsewhere (a snapshot) instead of from nothing."""
        self.player = player
        self.result.player_id = player.player_id
        self.result.last_version = player.version
        self.head = str(player.chain_head)

    # -- problems ------------------------------------------------------------------------------

    def problem(
        self,
        kind: str,
        version: int,
        detail: str,
        *,
        round_id: str | None = None,
        field: str | None = None,
        expected: Any = None,
        found: Any = None,
    ) -> None:
        self.result.problems.append(
            {
                "kind": kind,
                "stream": self.result.stream,
                "player_id": self.result.player_id,
                "version": version,
                "round_id": round_id,
                "field": field,
                "expected": expected,
                "found": found,
                "detail": detail,
            }
        )

    # -- one row -------------------------------------------------------------------------------

    def feed(self, row: StoredRow) -> None:
        result = self.result
        result.events += 0 if self.warm else 1
        result.last_notification = max(result.last_notification, row.notification_id)
        gap = row.version != result.last_version + 1
        if gap:
            where = "stream starts" if result.last_version == 0 else f"{result.last_version} is"
            self.problem(
                "version_gap", row.version,
                f"version {where} followed by {row.version}: events are missing",
                field="originator_version", expected=result.last_version + 1, found=row.version,
            )
        result.last_version = row.version
        stored = StoredEvent(self.stream_id, row.version, row.topic, row.state)
        try:
            event = self.decode(stored)
        except UnknownTopic as exc:  # found in the product's registry only, never imported
            self.problem("unknown_topic", row.version, str(exc), field="topic",
                         found=row.topic[:80])
            self._undecodable(row)
            return
        except Exception as exc:  # noqa: BLE001 - a damaged row is a finding, not a crash
            self.problem("undecodable", row.version, f"stored state cannot be read: {exc}")
            self._undecodable(row)
            return
        prev_hash = str(getattr(event, "prev_hash", ""))
        if not gap:
            self._check_link(row.version, prev_hash)
        digest = self._replay(event, row) if self.replaying else None
        if digest is None:
            digest = digest_of(event, row.topic)
        self.head = digest
        if self.collect_leaves and not self.warm:
            leaf, _ = leaf_of_event(row, event, digest)
            self.result.leaves.append((row.notification_id, leaf_hash(leaf)))

    def _undecodable(self, row: StoredRow) -> None:
        self.head = None
        self.replaying = False
        if self.collect_leaves and not self.warm:
            leaf, _ = leaf_of_event(row, None)
            self.result.leaves.append((row.notification_id, leaf_hash(leaf)))

    def _check_link(self, version: int, prev_hash: str) -> None:
        if version == 1:
            if prev_hash not in (GENESIS, ""):
                self.problem(
                    "bad_genesis", 1, "the first event's prev_hash is not the genesis value",
                    field="prev_hash", expected=GENESIS, found=prev_hash,
                )
        elif self.head is not None and prev_hash != self.head:
            self.problem(
                "broken_link", version,
                f"prev_hash does not match the digest of version {version - 1}: that event "
                "was changed, events were swapped, or this one was forged",
                field="prev_hash", expected=self.head, found=prev_hash,
            )

    # -- replay --------------------------------------------------------------------------------

    def _replay(self, event: Any, row: StoredRow) -> str | None:
        """Apply the event to the rebuilt player; its digest (the player's new chain head)."""
        is_player_event = isinstance(event, (Player.Event, Player.Registered))
        if not is_player_event:
            if self.player is not None:
                self.problem("replay_failed", row.version, f"{type(event).__name__} in a player")
                self.replaying = False
            return None
        name = type(event).__name__
        try:
            if self.player is not None and not self.warm:
                for kind, detail in rules_broken(self.player, event):
                    self.problem(kind, row.version, detail,
                                 round_id=getattr(event, "round_id", None))
            self._before_apply(name, event, row)
            if self.player is not None and event.originator_version != self.player.version + 1:
                self.player.version = event.originator_version - 1  # the gap is reported above
            player = event.mutate(self.player)
        except Exception as exc:  # noqa: BLE001 - the stream no longer replays: say where
            self.problem("replay_failed", row.version, f"{name} cannot be applied: {exc!r}")
            self.replaying = False
            return None
        if self.player is None:
            self.result.player_id = player.player_id
        self.player = player
        self.fair.feed(event)
        self._after_apply(name, event, row)
        return str(player.chain_head)

    def _recorded(self, name: str, event: Any, row: StoredRow) -> RecordedEvent:
        if isinstance(event, Player.RoundFact):
            payload = dict(event.payload)
        else:
            payload = {k: v for k, v in event_state(event).items() if k not in ("timestamp",)}
            payload.pop("prev_hash", None)
        return RecordedEvent(
            name, row.version, row.notification_id, str(getattr(event, "prev_hash", "")), "",
            payload,
        )

    def _before_apply(self, name: str, event: Any, row: StoredRow) -> None:
        player = self.player
        if name == "StakePlaced" and player is not None:
            if self.round is not None:
                self._incomplete(row.version)
            self.round = RoundRecord(event.round_id, self._recorded(name, event, row))
            self.round.replayed_before = player_state_of(player)
        elif isinstance(event, Player.RoundFact):
            if self.round is None or event.round_id != self.round.round_id:
                self.problem(
                    "incomplete_round", row.version, f"{name} outside its round",
                    round_id=event.round_id,
                )
            else:
                self.round.facts.append(self._recorded(name, event, row))
        elif name == "RoundSettled":
            if self.round is None or event.round_id != self.round.round_id:
                self.problem(
                    "incomplete_round", row.version, "RoundSettled without its StakePlaced",
                    round_id=event.round_id,
                )
                self.round = None
            else:
                self.round.settled = self._recorded(name, event, row)
        elif self.round is not None:
            self._incomplete(row.version)

    def _after_apply(self, name: str, event: Any, row: StoredRow) -> None:
        head = str(self.player.chain_head) if self.player is not None else ""
        if self.round is None:
            return
        recorded = self.round.settled if name == "RoundSettled" else None
        if name == "StakePlaced":
            recorded = self.round.stake_placed
        elif isinstance(event, Player.RoundFact) and self.round.facts:
            recorded = self.round.facts[-1]
        if recorded is not None and recorded.version == row.version:
            recorded.hash = head
        if name == "RoundSettled":
            finished, self.round = self.round, None
            self._check_round(finished)

    def _incomplete(self, version: int) -> None:
        assert self.round is not None
        self.problem(
            "incomplete_round", version,
            "the round has no RoundSettled: its events are missing or out of order",
            round_id=self.round.round_id,
        )
        self.round = None

    # -- a whole round -------------------------------------------------------------------------

    def _check_round(self, record: RoundRecord) -> None:
        if self.warm:
            return  # before the kept checkpoint: re-derived by the check that covered it
        self.result.rounds += 1
        try:
            findings = check_round(record, self.result.player_id or "")
        except Exception as exc:  # noqa: BLE001 - a round too damaged to compare is a finding
            self.problem("rederivation_failed", record.stake_placed.version,
                         f"the round cannot be compared: {exc!r}", round_id=record.round_id)
            return
        for found in findings:
            self.problem(
                found.kind, found.version, found.detail, round_id=record.round_id,
                field=found.field, expected=found.expected, found=found.found,
            )
        if self.capture_round == record.round_id:
            self.result.captured = record

    def finish(self) -> StreamResult:
        if self.round is not None:
            self._incomplete(self.result.last_version)
        if self.player is not None and self.replaying:
            self.result.player_state = player_state_of(self.player)
        self.result.fair = self.fair.finish().as_dict()
        return self.result
