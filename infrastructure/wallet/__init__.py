"""The operator's seamless wallet (CONTRACT.md): its client, the outbox of credits and
rollbacks, the spin that debits first, and a reference wallet for tests and benchmarks."""
