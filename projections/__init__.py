"""Read models that follow the event store: balances, rounds (game recall), audit trail, stats.

Each view is a library tracking recorder (recorders.py) holding its tables and its tracking
position, written in one transaction per batch, so a runner can die anywhere and resume
exactly once. runner.py follows the store (LISTEN/NOTIFY on PostgreSQL, polling on SQLite) and
feeds every view; queries.py reads them (and waits for a position: read your own writes);
export.py writes the audit trail as CSV or JSON lines.

    balances.py   money and Spin Progress per player
    rounds.py     every settled round, its whole record, columns to search by
    audit.py      every event flattened (stream, version, position, amounts, hash chain)
    statistics.py per day, state played and model version: RTP, features, jackpots, top wins
    pending.py    a round's events until its RoundSettled arrives (same transaction)
"""
