"""Balances: each player's money and Spin Progress, as of the last event projected.

On the operator's seamless wallet the money is the wallet's: the last balance recorded, in
store order, is the one shown (SHOWN_BALANCE), be it the player's own (`balance`: the rounds'
balance_after, the debit's answer; what `pumpkin verify` compares with the replayed player) or
the wallet's answer recorded on the player's wallet account (`wallet_balance`, at
`wallet_position`: the balance asked at session open, a credit's or rollback's acknowledgement).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.game.progress import NEW_PLAYER, multiplier_of
from domain.ledger.event_names import stored_name
from domain.ledger.recorded_progress import recorded_halves
from domain.ledger.wallet_account import WalletAccount, wallet_account_id
from projections.events import RecordedEvent
from projections.recorders import Sql, View

# What a settled round leaves behind (also what a StakePlaced says, but about before the round).
# The view shows the multipliers as numbers, as the player state does; the events record halves.
_PROGRESS = ("level", "spins_to_next_level", "hold_and_win_multiplier", "free_spins_multiplier")
_COLUMNS = (
    "player_id", "balance", *_PROGRESS, "last_round_id", "position", "updated_at", "account_id",
)
# The wallet account's events that carry the operator's wallet's answer (`balance`).
_WALLET_ANSWERS = frozenset(
    stored_name(answer) for answer in (WalletAccount.BalanceReported, WalletAccount.Acknowledged)
)
_STORED = (*_COLUMNS, "wallet_balance", "wallet_position")
SHOWN_BALANCE = (
    "CASE WHEN wallet_position > position THEN wallet_balance ELSE balance END AS balance"
)
# What the view shows of a player (account_id only finds the player of an account's events).
SHOWN = ", ".join(
    ("stream_id", *(SHOWN_BALANCE if c == "balance" else c for c in _COLUMNS if c != "account_id"))
)


class BalancesView(View):
    name = "balances"
    tables = ("view_balances",)

    def ddl(self) -> list[str]:
        return [
            "CREATE TABLE IF NOT EXISTS view_balances (stream_id TEXT PRIMARY KEY, "
            "player_id TEXT NOT NULL UNIQUE, balance BIGINT NOT NULL, level INTEGER NOT NULL, "
            "spins_to_next_level INTEGER, hold_and_win_multiplier {real} NOT NULL, "
            "free_spins_multiplier {real} NOT NULL, last_round_id TEXT, "
            "position BIGINT NOT NULL, updated_at {timestamp} NOT NULL, "
            "account_id TEXT NOT NULL, wallet_balance BIGINT, wallet_position BIGINT)",
            "CREATE INDEX IF NOT EXISTS view_balances_account ON view_balances (account_id)",
        ]

    def __init__(self) -> None:
        # wallet account -> its player's stream: both follow from the player id, so what is
        # remembered (even from a transaction that rolled back) is never wrong.
        self.players_of_accounts: dict[str, str] = {}

    def apply(self, db: Sql, events: Sequence[RecordedEvent]) -> None:
        # Every field an event sets is absolute (balance_after, level...), so a batch collapses
        # to one write per player: the fields its events set, the last one winning.
        registered: dict[str, dict[str, Any]] = {}
        changed: dict[str, dict[str, Any]] = {}
        for event in events:
            if event.name == "Registered":
                registered[event.stream_id] = _new_player(event)
                self.players_of_accounts[registered[event.stream_id]["account_id"]] = (
                    event.stream_id
                )
        for event in events:
            stream_id = event.stream_id
            if event.topic in _WALLET_ANSWERS:
                player = self._player_of_account(db, event.stream_id)
                balance = event.data.get("balance")
                if player is None or not isinstance(balance, int) or isinstance(balance, bool):
                    continue
                # Beside the player's own: `position` is the player's stream's (verify checks
                # both against the replayed player).
                fields: dict[str, Any] = {"wallet_balance": balance,
                                          "wallet_position": event.position}
                stream_id = player
            else:
                fields = _fields_set_by(event)
                fields.update(
                    position=event.position, updated_at=db.dialect.time(event.timestamp)
                )
            if stream_id in registered:
                registered[stream_id].update(fields)
            else:
                changed.setdefault(stream_id, {}).update(fields)
        db.execute_many(
            f"INSERT INTO view_balances (stream_id, {', '.join(_STORED)}) "
            f"VALUES (:stream_id, {', '.join(':' + c for c in _STORED)})",
            ({"stream_id": stream_id, **row} for stream_id, row in registered.items()),
        )
        by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for stream_id, fields in changed.items():
            by_columns.setdefault(tuple(fields), []).append({"stream_id": stream_id, **fields})
        for columns, rows in by_columns.items():
            assignments = ", ".join(f"{column} = :{column}" for column in columns)
            db.execute_many(
                f"UPDATE view_balances SET {assignments} WHERE stream_id = :stream_id", rows
            )

    def _player_of_account(self, db: Sql, account_id: str) -> str | None:
        """The stream of the player whose wallet account `account_id` is (None: unknown)."""
        if account_id not in self.players_of_accounts:
            row = db.one(
                "SELECT stream_id FROM view_balances WHERE account_id = :account_id",
                {"account_id": account_id},
            )
            if row is None:
                return None
            self.players_of_accounts[account_id] = str(row["stream_id"])
        return self.players_of_accounts[account_id]


def _new_player(event: RecordedEvent) -> dict[str, Any]:
    player_id = str(event.data.get("player_id", event.stream_id))
    return {
        "player_id": player_id,
        "account_id": str(wallet_account_id(player_id)),
        "balance": 0,
        "level": NEW_PLAYER.level,
        "spins_to_next_level": NEW_PLAYER.spins_to_next_level,
        "hold_and_win_multiplier": NEW_PLAYER.hold_and_win_multiplier,
        "free_spins_multiplier": NEW_PLAYER.free_spins_multiplier,
        "last_round_id": None,
        "wallet_balance": None,
        "wallet_position": None,
    }


def _fields_set_by(event: RecordedEvent) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if "balance_after" in event.data:
        fields["balance"] = event.data["balance_after"]
    if event.name == "RoundSettled":
        hold_and_win, free_spins = recorded_halves(event.data)
        fields.update(
            level=event.data["level"],
            spins_to_next_level=event.data["spins_to_next_level"],
            hold_and_win_multiplier=multiplier_of(hold_and_win),
            free_spins_multiplier=multiplier_of(free_spins),
            last_round_id=event.round_id,
        )
    return fields
