"""Rounds: the spin (the hot path) and rounds read back from the write side."""
