"""THE composition root: settings -> event store and application -> read models -> HTTP app.

Nothing is built at import time; each builder is called by the CLI (or a test) that needs it.
Heavy modules (projections, verification) are imported lazily, when a builder needs them.
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI

from domain.game.rules_document import current_rules_document
from domain.ledger.protection import Profile, profile_named
from infrastructure.audit.read_models_access import (
    ReadYourWritesRounds,
    RoundSource,
    WriteSideRounds,
    player_verifier,
)
from infrastructure.engine_warm_up import warm_up_engine
from infrastructure.http.app import create_app
from infrastructure.http.audit_export import AuditExports
from infrastructure.http.deps import AuditReads, HttpDeps
from infrastructure.http.metrics import Metrics
from infrastructure.http.ratelimit import RateLimiter
from infrastructure.http.read_models_health import ReadModelsHealth
from infrastructure.http.shared_buckets import SHARED_LIMITS_ENV, SharedBuckets
from infrastructure.logging import REVEAL, configure_logging, get_logger
from infrastructure.pages.keys import PageKeys
from infrastructure.pages.sign_ins import SignIns
from infrastructure.ports import Service
from infrastructure.rounds.round_reads import SettledRounds
from infrastructure.settings import Settings

if TYPE_CHECKING:
    from infrastructure.application import PumpkinApplication
    from projections.queries import RecallReader

log = get_logger("pumpkin.bootstrap")


@dataclass
class Runtime:
    """Everything `serve` runs, and how to stop it in reverse order."""

    settings: Settings
    application: Service
    http_app: FastAPI
    closers: list[Callable[[], object]] = field(default_factory=list)

    def close(self) -> None:
        closers, self.closers = self.closers, []  # closing twice closes once
        for close in reversed(closers):
            try:
                close()
            except Exception:  # noqa: BLE001 - shutting down: log and keep closing the rest
                log.exception("close_failed", closer=getattr(close, "__qualname__", "?"))


def build_application(settings: Settings) -> PumpkinApplication:
    """The game service on PUMPKIN_DATABASE_URL, with the seed key (PUMPKIN_SEED_KEY, or the
    key file: created at first start, read after) that seals open sessions' seeds and the
    service's snapshots, and the wallet the settings ask for (infrastructure/wallet/)."""
    from infrastructure.application import PumpkinApplication
    from infrastructure.sessions.seed_vault import SeedVault, default_key_file, load_seed_key
    from infrastructure.store.snapshot_seal import SnapshotSeal
    from infrastructure.wallet.wiring import wallet_for

    configured = settings.seed_key.get_secret_value()
    if not configured and not settings.seed_key_file and settings.database_url.endswith(
        ":memory:"
    ):  # a store that dies with the process: so may its keys
        vault, seal = SeedVault.for_this_process(), SnapshotSeal.for_this_process()
    else:
        key_file = Path(settings.seed_key_file or default_key_file(settings.database_url))
        key = load_seed_key(configured, key_file)
        vault, seal = SeedVault(key), SnapshotSeal.from_seed_key(key)
    application = PumpkinApplication.from_url(
        settings.database_url, seed_vault=vault, seal=seal,
        wallet=lambda runner, rules: wallet_for(settings, runner, rules),
    )
    application.profile = profile_named(settings.jurisdiction)
    return application


def build_projection_rounds(settings: Settings) -> RecallReader:
    """The read models' reader (projections.queries.RecallReader)."""
    from projections.queries import RecallReader

    return RecallReader(settings.database_url)


def build_http_app(
    settings: Settings,
    application: Service,
    projection_rounds: RoundSource | None = None,
    on_shutdown: Callable[[], object] | None = None,
    audit: AuditReads | None = None,
    console_sign_ins: SignIns | None = None,
    read_models: ReadModelsHealth | None = None,
) -> FastAPI:
    metrics = Metrics()
    application.on_conflict_retry = metrics.store_retries.inc
    application.bind_metrics(metrics.registry)
    if read_models is not None:
        read_models.bind_metrics(metrics.registry)
    rounds = SettledRounds(
        ReadYourWritesRounds(projection_rounds, WriteSideRounds(application)), application
    )
    deps = HttpDeps(
        service=application,
        rounds=rounds,
        verify_player=player_verifier(application),
        rules_document=rules_with_jurisdiction(profile_named(settings.jurisdiction)),
        operator_key=settings.operator_key.get_secret_value(),
        auditor_key=settings.auditor_key.get_secret_value(),
        metrics=metrics,
        max_body_bytes=settings.max_body_bytes,
        rate_limit_per_second=settings.rate_limit_per_second,
        token_cache_seconds=settings.token_cache_seconds,
        audit=audit,
        audit_trail=_audit_exports(settings, audit),
        docs=settings.docs,
        limiter=_shared_limiter(settings),
        unknown_token_cache_seconds=settings.unknown_token_cache_seconds,
        pages_keys=PageKeys(settings.pages_key.get_secret_value(), settings.pages_key_file),
        console_sign_ins=console_sign_ins,
        currency=settings.currency,
        public_url=settings.public_base_url(),
        wallet_owed=application.wallet_owed,
        background=application.background,
        transparency=transparency_log(settings, application),
        read_models=read_models,
    )
    return create_app(deps, on_shutdown)


def read_models_health(reader: RecallReader) -> ReadModelsHealth:
    """The read models' failures as the runner records them (projections/view_health.py)."""

    def read() -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
        health = reader.views_health()
        return health.failing, health.errors

    return ReadModelsHealth(read)


def jurisdiction_problems(settings: Settings) -> list[str]:
    """Why `serve` cannot play under PUMPKIN_JURISDICTION (empty when it can): `de` plays the
    no-jackpot model of the game, and a model plays jackpots unless its definition says
    `"jackpots": false`; this build has no such model, so `de` is not served rather than served
    with jackpots."""
    from domain.game.model import current_model
    from domain.ledger.protection import profile_problems

    plays_jackpots = current_model().definition.get("jackpots", True) is not False
    return [
        f"PUMPKIN_JURISDICTION={settings.jurisdiction}: {problem}"
        for problem in profile_problems(profile_named(settings.jurisdiction), plays_jackpots)
    ]


def transparency_log(settings: Settings, application: Any) -> Any:
    """The transparency log the HTTP API answers from, signed with the operator's log key."""
    from infrastructure.audit.checkpoint_commands import signing_key_file
    from infrastructure.transparency.log_service import TransparencyLog

    retry = max(1, int(settings.checkpoint_seconds or 60))
    return TransparencyLog(application, signing_key_file(settings), retry)


def rules_with_jurisdiction(profile: Profile) -> Callable[[], dict[str, Any]]:
    """The rules document with the profile under "jurisdiction" (CONTRACT.md), built once."""

    @cache
    def document() -> dict[str, Any]:
        return {**current_rules_document(), "jurisdiction": profile.document()}

    return document


def _shared_limiter(settings: Settings) -> RateLimiter:
    """The request limits, in the table every `serve --workers N` process shares (its file made
    by the supervisor), or in this process's memory when it serves alone."""
    return RateLimiter(
        settings.rate_limit_per_second,
        failures_per_minute=settings.auth_failures_per_minute,
        anonymous_per_second=settings.anonymous_per_second,
        buckets=SharedBuckets(os.environ.get(SHARED_LIMITS_ENV) or None),
    )


def _audit_exports(settings: Settings, audit: AuditReads | None) -> AuditExports | None:
    """The audit trail export, read through the read models' one pool (the reader's)."""
    rows = getattr(audit, "audit_rows", None)
    if rows is None:
        return None
    return AuditExports(
        rows,
        max_concurrent=settings.audit_exports_max,
        send_timeout_seconds=settings.audit_send_timeout_seconds,
    )


def announce_generated_keys(settings: Settings) -> None:
    """Keys not set in the environment were made up for this run: say them ONCE, here."""
    operator_generated, auditor_generated = settings.keys_were_generated
    shown: dict[str, Any] = {}
    if operator_generated:
        shown["operator_key"] = settings.operator_key.get_secret_value()
    if auditor_generated:
        shown["auditor_key"] = settings.auditor_key.get_secret_value()
    if shown:
        log.warning("generated_keys_for_this_run", **shown, **{REVEAL: True})


def start_projections_in_process(settings: Settings) -> Callable[[], object] | None:
    """Run the projections beside the API (the one-command default); returns how to stop them."""
    from projections.runner import start_in_process

    handle = start_in_process(settings)
    stop = getattr(handle, "stop", None) or getattr(handle, "close", None)
    return stop if callable(stop) else None


def build_runtime(settings: Settings, with_projections: bool = False) -> Runtime:
    warm_up_engine()
    application = build_application(settings)
    runtime = Runtime(settings, application, FastAPI())
    runtime.closers.append(application.close)
    runtime.closers.append(start_sweeper(settings, application, with_log=with_projections))
    if with_projections:
        stop = start_projections_in_process(settings)
        if stop is not None:
            runtime.closers.append(stop)
    reader = build_projection_rounds(settings)
    runtime.closers.append(reader.close)
    runtime.http_app = build_http_app(
        settings,
        application,
        reader,
        on_shutdown=runtime.close,
        audit=reader,
        console_sign_ins=build_console_sign_ins(settings, application),
        read_models=read_models_health(reader),
    )
    log.info("service_built", database=settings.database_url_for_log)
    return runtime


def build_console_sign_ins(settings: Settings, application: PumpkinApplication) -> SignIns:
    """The console's sign-ins, in a table of the service's own database (every worker sees a
    sign-out at once)."""
    from infrastructure.pages.sign_ins import SignInTable
    from infrastructure.store.event_rows import EventRows
    from infrastructure.store.persistence import schema_lock

    rows = EventRows(application.store)
    with schema_lock(settings.database_url):  # workers starting together create it once
        return SignInTable(rows.datastore, rows.postgres)


def start_sweeper(
    settings: Settings, application: PumpkinApplication, *, with_log: bool = True
) -> Callable[[], object]:
    """The background closes of idle sessions and, `with_log`, the transparency log following
    the store (start_log_follower); returns how to stop them."""
    from infrastructure.sessions.session_sweeper import Sweeper

    sweeper = Sweeper(application, application.store, settings.session_idle_seconds).start()
    stop_log = start_log_follower(settings, application) if with_log else None

    def stop() -> None:
        sweeper.stop()
        if stop_log is not None:
            stop_log()

    return stop


def start_log_follower(
    settings: Settings, application: PumpkinApplication
) -> Callable[[], object] | None:
    """The transparency log following the store, with its periodic signed checkpoint (built by
    one process per store: the lease's holder). It runs where the read models run (beside them,
    behind the write), never in a process that answers spins: in `serve`'s parent process with
    --workers N, in `pumpkin projections run`, or in the one `serve` process with its projections.
    None when PUMPKIN_LOG_FOLLOW_SECONDS is 0."""
    if settings.log_follow_seconds <= 0:
        return None
    from infrastructure.audit.checkpoint_commands import signing_key_file
    from infrastructure.audit.checkpoints import load_signing_key
    from infrastructure.transparency.log_builder import LogBuilder
    from infrastructure.transparency.log_follower import LogFollower
    from infrastructure.transparency.log_lease import LogLease

    builder = LogBuilder(application.store)

    def checkpoint() -> None:
        key = load_signing_key(signing_key_file(settings))
        assert key is not None  # created on first use
        signed = builder.sign_checkpoint(key)
        if signed is not None:
            log.info("checkpoint_signed", tree_size=int(signed.split("\n")[1]))

    follower = LogFollower(builder, checkpoint, settings.checkpoint_seconds,
                           LogLease(settings.database_url), settings.log_follow_seconds).start()
    return follower.stop


def start_log_on_its_own(settings: Settings) -> Callable[[], object]:
    """`serve --workers N`'s parent process: the log follows the store here, on an application
    of its own, so no worker's event loop shares its interpreter with the log's hashing."""
    application = build_application(settings)
    stop_log = start_log_follower(settings, application)

    def stop() -> None:
        if stop_log is not None:
            stop_log()
        application.close()

    return stop


def worker_http_app() -> FastAPI:
    """The app of one `pumpkin serve --workers N` process (a uvicorn factory). Settings come from
    the environment, where the parent process has put the keys so every worker shares them; the
    parent, not the workers, runs the projections."""
    _end_with_parent()
    from infrastructure.http.server_limits import uvicorn_options

    settings = Settings()
    configure_logging(settings.log_format, settings.log_level)
    uvicorn_options(settings)  # this process's header deadline (the parent passed the rest)
    runtime = build_runtime(settings, with_projections=False)
    settle_heap()
    return runtime.http_app


def settle_heap() -> None:
    """Move everything built at start-up (modules, the game kernel, the app) out of the garbage
    collector's sight, once the service is built and before it serves.

    The collector's full pass walks every tracked object: in a worker, nearly all made at start-up
    and alive for good, so each pass held the event loop every few seconds, and every spin in
    flight waited (figures in bench/RESULTS.md).
    Frozen, they are still freed by reference counting if dropped; only the cycle search skips
    them, and it still runs over everything made after this."""
    gc.collect()
    gc.freeze()


def _end_with_parent() -> None:
    """Ask Linux to SIGTERM this worker when the `pumpkin serve` process that started it dies,
    even by SIGKILL (which the supervisor, infrastructure/http/workers.py, cannot pass on):
    otherwise the orphaned workers go on serving, holding the port and store connections. Elsewhere:
    nothing."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)
