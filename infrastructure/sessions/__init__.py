"""Provably fair sessions: sealed server seeds, reveal, idle close."""
