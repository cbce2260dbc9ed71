"""The player's ledger: the Player aggregate, its hash chain and game recall."""
