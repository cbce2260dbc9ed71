"""Player protection: the application's limits, exclusions, checks."""
