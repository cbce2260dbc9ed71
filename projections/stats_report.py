"""The statistics view read back: each bucket's actual RTP beside its theoretical RTP."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.game.rules_document import current_rules_document
from projections.free_round_stats import read_free_rounds
from projections.recorders import Row

Read = Callable[[str, Mapping[str, Any]], list[Row]]


def read_stats(
    read: Read,
    *,
    since: str | None = None,
    until: str | None = None,
    model_version: str | None = None,
) -> dict[str, Any]:
    """{"buckets": [...], "largest_wins": [...]}, for days since..until (exclusive)."""
    where, params = ["1 = 1"], {}
    for value, clause, name in (
        (since, "day >= :since", "since"),
        (until, "day < :until", "until"),
        (model_version, "model_version = :model_version", "model_version"),
    ):
        if value is not None:
            where.append(clause)
            params[name] = value
    condition = " AND ".join(where)
    days = " AND ".join(w for w in where if "model_version" not in w)
    day_params = {k: v for k, v in params.items() if k != "model_version"}
    buckets = read(
        f"SELECT * FROM view_stats WHERE {condition} ORDER BY day, level, state, model_version",
        params,
    )
    jackpots = read(f"SELECT * FROM view_stats_jackpots WHERE {condition}", params)
    largest = read(
        f"SELECT * FROM view_stats_largest_wins WHERE {condition} "
        "ORDER BY total_win DESC, position ASC",
        params,
    )
    tiers: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in jackpots:
        key = (row["day"], row["state"], row["model_version"])
        tier = {"count": row["count"], "amount": row["amount"], "prize": row["prize"]}
        tiers.setdefault(key, {})[row["tier"]] = tier
    days = " AND ".join(c for c in where if "model_version" not in c)  # protection has none
    protection = read(
        f"SELECT day, event, rule, count FROM view_protection WHERE {days} "
        "ORDER BY day, event, rule",
        params,
    )
    return {
        "protection": [dict(row) for row in protection],
        "buckets": [
            _bucket(row, tiers.get((row["day"], row["state"], row["model_version"]), {}))
            for row in buckets
        ],
        "largest_wins": [{k: v for k, v in row.items() if k != "position"} for row in largest],
        "free_rounds": read_free_rounds(read, days, day_params),
    }


def _bucket(row: Row, jackpots: dict[str, Any]) -> dict[str, Any]:
    bucket = dict(row)
    staked, won = int(row["staked"]), int(row["won"])
    bucket["actual_rtp"] = won / staked if staked else None
    bucket["theoretical_rtp"] = theoretical_rtp(str(row["state"]), str(row["model_version"]))
    bucket["jackpots"] = jackpots
    return bucket


def theoretical_rtp(state: str, model_version: str) -> float | None:
    """The rules document's RTP of a state: its PAR figure once published, else the design
    target; None for a model version the document does not describe."""
    document = current_rules_document()
    if document.get("model_version") != model_version:
        return None
    for described in document.get("states", []):
        if described.get("state") == state and described.get("rtp") is not None:
            return float(described["rtp"])
    target = document.get("target_rtp")
    return float(target) if isinstance(target, int | float) else None
