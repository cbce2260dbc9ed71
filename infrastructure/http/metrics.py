"""Prometheus metrics of one HTTP app, in its own registry (so tests may build many apps)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

PAUSE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "pumpkin_http_requests",
            "HTTP requests answered",
            ["method", "route", "status"],
            registry=r,
        )
        self.latency = Histogram(
            "pumpkin_http_request_duration_seconds",
            "Time to answer an HTTP request",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.errors = Counter(
            "pumpkin_http_errors", "Error answers by error code", ["code"], registry=r
        )
        self.spins = Counter("pumpkin_spins", "Rounds played and settled", registry=r)
        self.staked = Counter("pumpkin_staked_minor_units", "Sum of stakes", registry=r)
        self.won = Counter("pumpkin_won_minor_units", "Sum of round wins", registry=r)
        self.store_unavailable = Counter(
            "pumpkin_store_unavailable",
            "Requests answered 503 because the store failed",
            ["error"],
            registry=r,
        )
        self.store_conflicts = Counter(
            "pumpkin_store_conflicts",
            "Commands refused because concurrent writes kept winning",
            registry=r,
        )
        self.store_retries = Counter(
            "pumpkin_store_retries",
            "Retries of commands that lost a write race (infrastructure.store.retry_policy)",
            registry=r,
        )

        self.event_loop_lag = Histogram(
            "pumpkin_event_loop_lag_seconds",
            "How much later than asked the event loop woke from a short sleep (every spin in "
            "flight waits as long)",
            buckets=PAUSE_BUCKETS,
            registry=r,
        )
        self.gc_pause = Histogram(
            "pumpkin_gc_pause_seconds",
            "Pauses of the garbage collector, by generation (2: a full pass)",
            ["generation"],
            buckets=PAUSE_BUCKETS,
            registry=r,
        )

    def round_played(self, stake: int, total_win: int) -> None:
        self.spins.inc()
        self.staked.inc(stake)
        self.won.inc(total_win)

    def store_outage(self, exc: BaseException) -> None:
        self.store_unavailable.labels(type(exc).__name__).inc()
        if type(exc).__name__ == "IntegrityError":
            self.store_conflicts.inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
