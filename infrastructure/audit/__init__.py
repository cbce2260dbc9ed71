"""The regulator's tools: replay and verify, round checks, disputes."""
