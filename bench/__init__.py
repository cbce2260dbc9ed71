"""Benchmarks and the fault tools the soak and the end-to-end tests share."""
