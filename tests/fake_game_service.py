"""An in-memory GameService for HTTP tests that need no store (same rules, same errors)."""

from __future__ import annotations

import hashlib
import secrets
import threading
from typing import Any

from domain import errors
from domain.board import STAKES
from infrastructure.ports import SessionRef


class FakeGameService:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.balances: dict[str, int] = {}
        self.sessions: dict[str, SessionRef] = {}
        self.tokens: dict[str, str] = {}
        self.rounds: dict[str, dict[str, Any]] = {}
        self.requests: dict[tuple[str, str], tuple[tuple[Any, ...], Any]] = {}
        self.spins: dict[str, list[str]] = {}

    def register_player(self, player_id: str) -> None:
        with self._lock:
            if player_id in self.balances:
                raise errors.PlayerExists(player_id)
            self.balances[player_id] = 0

    def _once(self, scope: str, request_id: str, body: tuple[Any, ...], act: Any) -> Any:
        key = (scope, request_id)
        if key in self.requests:
            seen_body, answer = self.requests[key]
            if seen_body != body:
                raise errors.RequestIdReused(request_id)
            return answer
        answer = act()
        self.requests[key] = (body, answer)
        return answer

    def _player(self, player_id: str) -> int:
        if player_id not in self.balances:
            raise errors.PlayerNotFound(player_id)
        return self.balances[player_id]

    def deposit(self, player_id: str, amount: int, request_id: str) -> int:
        with self._lock:
            self._player(player_id)

            def act() -> int:
                self.balances[player_id] += amount
                return self.balances[player_id]

            result: int = self._once(player_id, request_id, ("deposit", amount), act)
            return result

    def withdraw(self, player_id: str, amount: int, request_id: str) -> int:
        with self._lock:
            self._player(player_id)

            def act() -> int:
                if self.balances[player_id] < amount:
                    raise errors.InsufficientFunds("balance too low")
                self.balances[player_id] -= amount
                return self.balances[player_id]

            result: int = self._once(player_id, request_id, ("withdraw", amount), act)
            return result

    def open_session(self, player_id: str) -> tuple[str, str]:
        with self._lock:
            self._player(player_id)
            session_id = secrets.token_hex(8)
            token = secrets.token_urlsafe(24)
            self.sessions[session_id] = SessionRef(session_id, player_id, True)
            self.tokens[hashlib.sha256(token.encode()).hexdigest()] = session_id
            self.spins[session_id] = []
            return session_id, token

    def session_for_token(self, token: str) -> SessionRef | None:
        session_id = self.tokens.get(hashlib.sha256(token.encode()).hexdigest())
        return self.sessions.get(session_id) if session_id else None

    def spin(self, session_id: str, stake: int, request_id: str) -> dict[str, Any]:
        with self._lock:
            session = self.sessions.get(session_id)
            if session is None:
                raise errors.SessionNotFound(session_id)
            if not session.open:
                raise errors.SessionClosed(session_id)
            if stake not in STAKES:
                raise errors.InvalidStake(f"stake must be one of {STAKES}")
            player = session.player_id

            def act() -> dict[str, Any]:
                before = self.balances[player]
                if before < stake:
                    raise errors.InsufficientFunds("balance too low")
                win = stake * 2 if len(self.rounds) % 3 == 0 else 0
                after = before - stake + win
                self.balances[player] = after
                round_id = secrets.token_hex(8)
                played = {
                    "round_id": round_id,
                    "player_id": player,
                    "session_id": session_id,
                    "stake": stake,
                    "total_win": win,
                    "balance_before": before,
                    "balance_after": after,
                    "level_before": 0,
                    "level_after": 0,
                    "seed": "00" * 32,
                    "model_version": "fake",
                    "max_win_hit": False,
                    "steps": [],
                    "events": ["StakePlaced", "RoundSettled"],
                }
                self.rounds[round_id] = played
                self.spins[session_id].append(round_id)
                return played

            result: dict[str, Any] = self._once(session_id, request_id, ("spin", stake), act)
            return result

    def close_session(self, session_id: str) -> dict[str, Any]:
        with self._lock:
            session = self.sessions.get(session_id)
            if session is None:
                raise errors.SessionNotFound(session_id)
            self.sessions[session_id] = SessionRef(session_id, session.player_id, False)
            played = [self.rounds[r] for r in self.spins[session_id]]
            staked = sum(r["stake"] for r in played)
            won = sum(r["total_win"] for r in played)
            return {
                "session_id": session_id,
                "spins": len(played),
                "staked": staked,
                "won": won,
                "net": won - staked,
            }

    def player_state(self, player_id: str) -> dict[str, Any]:
        balance = self._player(player_id)
        return {
            "player_id": player_id,
            "balance": balance,
            "level": 0,
            "spins_to_next_level": 10,
            "hold_and_win_multiplier": 1.0,
            "free_spins_multiplier": 1.0,
        }

    # The rounds read model, as the HTTP layer asks it.
    def player_rounds(self, player_id: str, limit: int, before: str | None) -> list[dict[str, Any]]:
        mine = [r for r in reversed(self.rounds.values()) if r["player_id"] == player_id]
        if before is not None:
            ids = [r["round_id"] for r in mine]
            mine = mine[ids.index(before) + 1 :] if before in ids else []
        return [
            {"round_id": r["round_id"], "stake": r["stake"], "total_win": r["total_win"]}
            for r in mine[:limit]
        ]

    def round(self, round_id: str) -> dict[str, Any] | None:
        return self.rounds.get(round_id)
