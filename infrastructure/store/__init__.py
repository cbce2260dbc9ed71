"""The event store: database URLs, recorders, group commit, mappers."""
