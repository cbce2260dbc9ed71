"""Rounds read back from the players' streams (slower than the read model, always current): a
round exactly as the spin answered it (domain.ledger.recall.round_view), and a player's round ids.
Rounds are numbered 1, 2, ... per player; a round is found by a binary search of its stream for
its StakePlaced (no index needed)."""

from __future__ import annotations

from typing import Any, Protocol
from uuid import UUID

from domain.errors import PlayerNotFound, RoundNotFound
from domain.ledger.identifiers import parse_round_id, player_aggregate_id, round_id_of
from domain.ledger.player import Player
from domain.ledger.recall import round_view
from domain.ledger.round_events import in_round, round_event_payload
from infrastructure.store.player_repository import PlayerRepository

_READ_CHUNK = 64


class RoundReads:
    def __init__(self, players: PlayerRepository) -> None:
        self.players = players
        self.events = players.store.events

    def round(self, round_id: str) -> dict[str, Any]:
        """A round read back from the write side (the player's stream), as the spin answered."""
        parsed = parse_round_id(round_id)
        if parsed is None:
            raise RoundNotFound(f"no round {round_id!r}")
        player_id, number = parsed
        try:
            player = self.players.load(player_id)
        except PlayerNotFound:
            raise RoundNotFound(f"no round {round_id!r}") from None
        if number > player.rounds:
            raise RoundNotFound(f"no round {round_id!r}")
        start = self._find_round_start(player.id, number, player.version)
        return self._round_at(player.id, start)

    def round_ids(self, player_id: str) -> list[str]:
        """The player's round ids, newest first."""
        player = self.players.load(player_id)
        return [f"{player_id}.{n}" for n in range(player.rounds, 0, -1)]

    def session_round_ids(
        self, player_id: str, session_id: str, span: tuple[int, int] | None, spins: int
    ) -> list[str]:
        """The session's round ids in order. span: the player's round numbers its rounds lie
        within (None: not known, a session from before they were kept); when it holds exactly
        `spins` numbers they are all the session's, else its stretch of the stream is read."""
        aggregate_id = player_aggregate_id(player_id)
        after = 0
        if span is not None:
            first, last = span
            if last - first + 1 == spins:
                return [round_id_of(player_id, n) for n in range(first, last + 1)]
            if spins == 0 or last < first:
                return []
            after = self._find_round_start(aggregate_id, first, self._last_version(player_id)) - 1
        found: list[str] = []
        for event in self.events.get(aggregate_id, gt=after):
            if isinstance(event, Player.StakePlaced) and event.session_id == session_id:
                found.append(event.round_id)
                if len(found) == spins:
                    break
        return found

    def _last_version(self, player_id: str) -> int:
        return self.players.load(player_id).version

    def round_from(self, player_id: str, start_version: int) -> dict[str, Any]:
        """The round whose StakePlaced is at `start_version` of the player's stream."""
        return self._round_at(player_aggregate_id(player_id), start_version)

    def _round_at(self, aggregate_id: UUID, start_version: int) -> dict[str, Any]:
        parts: list[tuple[str, dict[str, Any]]] = []
        after = start_version - 1
        while True:
            chunk = list(self.events.get(aggregate_id, gt=after, limit=_READ_CHUNK))
            if not chunk:
                raise RoundNotFound("the round's events are incomplete")
            for event in chunk:
                if in_round(event):
                    parts.append(round_event_payload(event))
                if isinstance(event, Player.RoundSettled):
                    return round_view(parts)
            after = chunk[-1].originator_version

    def _find_round_start(self, aggregate_id: UUID, number: int, last_version: int) -> int:
        """Binary search of the stream for round `number`'s StakePlaced."""
        low, high = 1, last_version
        while low < high:
            middle = (low + high) // 2
            if self._round_number_at(aggregate_id, middle) >= number:
                high = middle
            else:
                low = middle + 1
        return low

    def _round_number_at(self, aggregate_id: UUID, version: int) -> int:
        """The number of the latest round begun at or before `version` (0 if none)."""
        upper: int | None = version
        while upper is not None and upper > 0:
            chunk = list(self.events.get(aggregate_id, lte=upper, desc=True, limit=_READ_CHUNK))
            for event in chunk:
                round_id = getattr(event, "round_id", None)
                if isinstance(round_id, str):
                    parsed = parse_round_id(round_id)
                    return parsed[1] if parsed else 0
            upper = chunk[-1].originator_version - 1 if chunk else None
        return 0


class Settles(Protocol):
    def settlement(self, player_id: str, round_id: str) -> dict[str, Any]: ...


class SettledRounds:
    """Round reads (the read model's or the write side's) with what the wallet adds: each
    round's settlement now (the seamless wallet; nothing for the built-in one)."""

    def __init__(self, rounds: Any, wallet: Settles) -> None:
        self._rounds = rounds
        self._wallet = wallet

    def player_rounds(self, player_id: str, limit: int, before: str | None) -> Any:
        return self._rounds.player_rounds(player_id, limit, before)

    def round(self, round_id: str) -> dict[str, Any] | None:
        played: dict[str, Any] | None = self._rounds.round(round_id)
        if played is None:
            return None
        added = self._wallet.settlement(str(played["player_id"]), round_id)
        return {**played, **added} if added else played
