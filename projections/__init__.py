"""Read models that follow the event store: balances, rounds (game recall), audit trail, stats."""
