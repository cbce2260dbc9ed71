"""The regulator's replay: `pumpkin verify` and GET /audit/players/{id}/verify.

For every stream (or one player's): the hash chain from the first event, the player rebuilt by
replay and compared with the balances view (when the projections have caught up with it), and
every round re-derived by the engine from its recorded state, stake, seed and model version and
compared with the recorded events (infrastructure.audit.stream_check,
infrastructure.audit.round_check).

The answer: {"ok", "events_checked", "rounds_rederived", "problems": [...], ...}; `ok` only if
nothing disagrees. Streams are independent, so a big store is checked by worker processes, each
reading its own streams from the store.

Each problem: {kind, stream, player_id, version, round_id, field, expected, found, detail}, kind:
- hash chain: version_gap, bad_genesis, broken_link, undecodable (a row that does not decode)
- replay: replay_failed (an event the player cannot apply), snapshot_mismatch (the snapshot the
  service loads from differs from replay, or lies beyond the stream's end)
- rounds: incomplete_round, state_mismatch (StakePlaced's state before vs replay),
  rederivation_failed (e.g. model version not published), events_mismatch (names or order),
  fact_mismatch (a payload field), settlement_mismatch (total win, balances, state after)
- read model: balance_view_mismatch, missing_events (the view saw events the store lost)
- provably fair sessions (infrastructure.audit.fair_check): commitment_mismatch, seed_mismatch,
  nonce_out_of_sequence, seed_not_revealed; "fair_sessions" counts sessions verified, still
  open, and opened before commitments (counted apart)
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson
import typer
from eventsourcing.domain import Snapshot

from domain.ledger.event_names import stored_class
from domain.ledger.player import player_aggregate_id
from infrastructure.audit.round_check import MAX_FIELD_PROBLEMS, differences
from infrastructure.audit.stream_check import StreamChecker, StreamResult
from infrastructure.audit.view_check import compare_balance_view
from infrastructure.store.event_rows import EventRows
from infrastructure.store.snapshot_seal import SealedSnapshot
from infrastructure.transparency.log_check import log_section
from infrastructure.transparency.log_store import LogStore

MAX_PROBLEMS = 1_000  # listed in the answer; the count says how many there were in all
PARALLEL_FROM_EVENTS = 50_000  # below this, starting worker processes costs more than it saves
_CHUNK = 64  # streams per worker task at most: small enough that both stay busy to the end


# -- streams -------------------------------------------------------------------------------------


def check_stream(
    application: Any, rows: EventRows, stream: str, capture_round: str | None = None,
    collect_leaves: bool = False, since_version: int = 1,
) -> StreamResult:
    """One stream: chain, replay, every round re-derived, and its latest snapshot compared
    (with its transparency-log leaves, when the log is recomputed). From `since_version` on
    only (verify --since): the events before it rebuild the player from its snapshot
    (infrastructure.audit.stream_start), chain checked, nothing else counted."""
    checker = StreamChecker(application.mapper.to_domain_event, stream, capture_round,
                            collect_leaves)
    start = 0
    if since_version > 1:
        from infrastructure.audit.stream_start import feed_open_sessions, player_before

        checker.warm = True
        resumed = player_before(application, stream, since_version)
        if resumed is not None:
            feed_open_sessions(checker, rows, resumed)
            checker.resume(resumed)
            start = resumed.version
    try:
        snapshot = _latest_snapshot(application, stream)
    except (LookupError, TypeError, ValueError, AttributeError):
        snapshot = None  # the service loads from the events alone then; the change is named
        checker.problem("snapshot_unreadable", 0,
                        "the snapshot the service loads players from cannot be read: it was "
                        "changed outside the service", field="snapshot")
    if snapshot is not None and snapshot[0] < since_version:
        snapshot = None  # written before the kept checkpoint: compared by the check then
    for row in rows.rows(stream, after=start):
        if checker.warm and row.version >= since_version:
            checker.warm = False
        checker.feed(row)
        if snapshot is not None and checker.player is not None and (
            checker.player.version == snapshot[0] == row.version
        ):
            _compare_snapshot(application, checker, snapshot)
            snapshot = None
    result = checker.finish()
    if snapshot is not None and result.player_id is not None:
        checker.problem("snapshot_mismatch", snapshot[0],
                        "a snapshot exists at a version the stream does not replay to: events "
                        "were deleted (or the stream stopped replaying before it)",
                        field="originator_version", expected=snapshot[0],
                        found=result.last_version)
    return result


_LEGACY_FIELDS = ("chain_head", "balance", "level", "spins_to_next_level",
                  "hold_and_win_halves", "free_spins_halves", "rounds")


def _latest_snapshot(application: Any, stream: str) -> tuple[int, dict[str, Any], bool] | None:
    """(version, state in its stored layout upcast to the aggregate's class version, sealed) of
    the stream's newest snapshot. The aggregate class is found in the product's registry alone.
    A snapshot from before seals (the library's own class) is never loaded by the service
    (infrastructure.store.snapshot_seal), and its release kept less state: it is compared on
    the fields that release knew."""
    if application.snapshots is None:
        return None
    for snapshot in application.snapshots.get(UUID(stream), desc=True, limit=1):
        cls = stored_class(str(snapshot.topic))
        state = dict(snapshot.state)
        from_version = state.pop("class_version", 1)
        while from_version < getattr(cls, "class_version", 1):
            getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(state)
            from_version += 1
        sealed = isinstance(snapshot, SealedSnapshot)
        return int(snapshot.originator_version), _stored_layout(application, state), sealed
    return None


def _stored_layout(application: Any, state: dict[str, Any]) -> dict[str, Any]:
    """A state as the store's transcoder writes it (value objects in their stored layouts),
    read back as plain JSON: two states compare equal only if they would be stored alike."""
    plain: dict[str, Any] = orjson.loads(application.mapper.transcoder.encode(state))
    plain.pop("class_version", None)
    return plain


def _compare_snapshot(
    application: Any, checker: StreamChecker, snapshot: tuple[int, dict[str, Any], bool]
) -> None:
    """The snapshot in full against the replayed player at its version: every field."""
    version, state, sealed = snapshot
    assert checker.player is not None  # compared only once the player has replayed to it
    replayed = _stored_layout(application, Snapshot.take(checker.player).state)
    if not sealed:
        replayed = {name: replayed.get(name) for name in _LEGACY_FIELDS}
        state = {name: state.get(name) for name in _LEGACY_FIELDS}
    if replayed == state:
        return
    for path, expected, found in itertools.islice(
        differences(replayed, state, "snapshot"), MAX_FIELD_PROBLEMS
    ):
        checker.problem("snapshot_mismatch", version,
                        "the snapshot the service loads players from differs from replay",
                        field=path, expected=expected, found=found)


_WORKER_APPLICATION: Any = None


def _start_worker(database_url: str) -> None:
    """Worker process: its own application on the store, opened once."""
    global _WORKER_APPLICATION  # noqa: PLW0603 - one per worker process, by design
    from infrastructure.application import PumpkinApplication
    from infrastructure.store.persistence import event_store_env

    # The parent opened the store, so its tables exist; workers creating them again at the
    # same moment would race in PostgreSQL's catalog ("tuple concurrently updated").
    env = {**event_store_env(database_url), "CREATE_TABLE": "no"}
    _WORKER_APPLICATION = PumpkinApplication(env=env)


def _check_chunk(task: tuple[list[str], bool]) -> list[StreamResult]:
    streams, collect_leaves = task
    rows = EventRows(_WORKER_APPLICATION)
    return [check_stream(_WORKER_APPLICATION, rows, stream, collect_leaves=collect_leaves)
            for stream in streams]


def _results(
    application: Any,
    streams: list[str],
    workers: int,
    database_url: str | None,
    on_events: Callable[[int], object],
    collect_leaves: bool = False,
) -> Iterator[StreamResult]:
    if workers <= 1 or database_url is None or len(streams) < 2:
        rows = EventRows(application)
        for stream in streams:
            result = check_stream(application, rows, stream, collect_leaves=collect_leaves)
            on_events(result.events)
            yield result
        return
    size = max(1, min(_CHUNK, len(streams) // (workers * 8)))
    chunks = [(streams[i : i + size], collect_leaves) for i in range(0, len(streams), size)]
    # Fork where there is fork: workers start in milliseconds with the engine loaded and see
    # the very models the parent published. Each opens its own connections (the parent's are
    # never touched in a child, and a pool worker leaves by os._exit, closing nothing of them).
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(workers, initializer=_start_worker, initargs=(database_url,)) as pool:
        for done in pool.imap_unordered(_check_chunk, chunks):
            for result in done:
                on_events(result.events)
                yield result


# -- the report ----------------------------------------------------------------------------------


def verify_store(
    application: Any,
    player_id: str | None = None,
    *,
    workers: int = 1,
    database_url: str | None = None,
    on_events: Callable[[int], object] = lambda n: None,
    log: LogAnchor | None = None,
) -> dict[str, Any]:
    """The whole store (or one player's stream) replayed and checked: the verify report. The
    whole store's also recomputes the transparency log and checks it (against `log`'s kept
    checkpoint and pinned keys, if given: infrastructure.transparency.log_check)."""
    rows = EventRows(application)
    if player_id is not None:
        streams = [str(player_aggregate_id(player_id))]
    else:
        streams = rows.streams()
    whole = player_id is None
    results = sorted(_results(application, streams, workers, database_url, on_events, whole),
                     key=lambda result: result.stream)
    problems = [p for result in results for p in result.problems]
    view, view_problems = compare_balance_view(rows, results, single=player_id is not None)
    problems.extend(view_problems)
    fair = fair_totals(results)
    section = None
    if whole:
        anchor = log or LogAnchor()
        section = log_section(LogStore(rows), [r.leaves for r in results], anchor.note,
                              anchor.log_key, anchor.witness_keys)
        problems.extend(section.pop("problems"))
        for result in results:
            result.leaves = []
    report = stores_report(results, problems, view, fair)
    report["problems"] = problems[:MAX_PROBLEMS]
    if section is not None:
        report["log"] = section
        report["checkpoints"] = section["checkpoints"]
    return report


@dataclass(frozen=True)
class LogAnchor:
    """What the regulator kept: a checkpoint (its signed note) and the keys they pinned."""

    note: str | None = None
    log_key: str | None = None
    witness_keys: list[str] = field(default_factory=list)


def stores_report(
    results: list[StreamResult], problems: list[dict[str, Any]], view: Any, fair: dict[str, int]
) -> dict[str, Any]:
    """What a verify (whole, or --since) answers about the streams it checked."""
    return {
        "ok": not problems,
        "events_checked": sum(r.events for r in results),
        "rounds_rederived": sum(r.rounds for r in results),
        "streams_checked": len(results),
        "players_checked": sum(1 for r in results if r.player_id is not None),
        "balance_view": view,
        "fair_sessions": fair,
        "burned_nonces": fair.get("burned_nonces", 0),
        "problems_total": len(problems),
        "problems": problems,
    }


def fair_totals(results: list[StreamResult]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for result in results:
        for name, count in result.fair.items():
            totals[name] = totals.get(name, 0) + count
    return totals


def verify_player(application: Any, player_id: str) -> dict[str, Any]:
    """GET /audit/players/{id}/verify: the player's stream replayed and checked. Whether the
    player exists is asked of the stored rows, not the service: its snapshot may be tampered."""
    from domain.errors import PlayerNotFound
    from domain.ledger.identifiers import check_player_id

    check_player_id(player_id)
    if not EventRows(application).has_events_after(str(player_aggregate_id(player_id)), 0):
        raise PlayerNotFound(f"no player {player_id!r}")
    return verify_store(application, player_id)


# -- the command ---------------------------------------------------------------------------------


def verify_command(
    settings: Any,
    player: str | None,
    json_out: bool,
    workers: int | None = None,
    checkpoint: Any = None,
    public_key: str | None = None,
    log_key: str | None = None,
    witness_keys: list[str] | None = None,
    since: Any = None,
) -> int:
    """`pumpkin verify [--player ID] [--json] [--checkpoint FILE --log-key VKEY [--witness-key
    WVKEY...]]`: exit 0 only if everything agrees. The whole store's verify recomputes the
    transparency log and checks it against the checkpoint FILE the regulator kept (a signed
    note, signed by VKEY); a FILE of the earlier stream-heads format is checked as before
    (infrastructure.audit.checkpoints), and so is the latest such checkpoint stored."""
    from domain.errors import RuleViolation
    from domain.ledger.identifiers import check_player_id
    from infrastructure.application import PumpkinApplication

    if since is not None:  # the daily check (infrastructure.audit.since_check)
        from infrastructure.audit.since_check import since_command

        return since_command(settings, since, log_key, json_out,
                             bool(player or checkpoint or witness_keys or public_key))

    application = PumpkinApplication.from_url(settings.database_url)
    try:
        rows = EventRows(application)
        if player is not None:
            # Asked of the stored rows, not the service: its snapshot may be what was tampered.
            try:
                check_player_id(player)
            except RuleViolation as exc:
                typer.echo(f"pumpkin verify: {exc}", err=True)
                return 2
            if not rows.has_events_after(str(player_aggregate_id(player)), 0):
                typer.echo(f"pumpkin verify: no player {player!r} in this store", err=True)
                return 2
        total = rows.max_notification_id()
        if workers is None:
            workers = 2 if player is None and total >= PARALLEL_FROM_EVENTS else 1
        kept = checkpoint.read_text(encoding="utf-8") if checkpoint is not None else None
        legacy = kept is not None and kept.lstrip().startswith("{")
        anchor = LogAnchor(None if legacy else kept, log_key, list(witness_keys or []))
        with _progress_bar(total if player is None else None) as bar:
            report = verify_store(
                application, player, workers=workers, database_url=settings.database_url,
                on_events=bar.update if bar is not None else (lambda n: None), log=anchor,
            )
        if player is None:
            from infrastructure.audit.checkpoint_commands import checkpoint_section

            section = checkpoint_section(application, checkpoint if legacy else None,
                                         public_key)
            if section is not None:
                report["checkpoint"] = section
                report["problems"].extend(section["problems"])
                report["problems_total"] += len(section["problems"])
                report["ok"] = report["ok"] and not section["problems"]
    finally:
        application.close()
    typer.echo(json.dumps(report, indent=2, default=str) if json_out else report_text(report))
    return 0 if report["ok"] else 1


def _progress_bar(total: int | None) -> Any:
    if not sys.stderr.isatty():
        return nullcontext(None)
    from tqdm import tqdm

    return tqdm(total=total, unit="events", unit_scale=True, file=sys.stderr)


def report_text(report: dict[str, Any]) -> str:
    lines = [
        f"events checked     {report['events_checked']:,}",
        f"rounds re-derived  {report['rounds_rederived']:,}",
        f"streams            {report['streams_checked']:,} "
        f"({report['players_checked']:,} players)",
        f"balances view      {report['balance_view']['note']} "
        f"({report['balance_view']['compared']:,} compared)",
    ]
    if report.get("log", {}).get("since"):
        log = report["log"]
        lines.append(f"since checkpoint   {log['checkpoint_size'] or 0:,} leaves (FILE, signed by "
                     f"the pinned log key); the log now {log['tree_size'] or 0:,}: only the "
                     "events after FILE were checked")
    elif "log" in report:
        log = report["log"]
        lines.append(f"transparency log   {log['tree_size']:,} leaves recomputed from the "
                     f"events ({log['stored_tree_size']:,} in the stored log, "
                     f"{log['stored_checkpoints']:,} stored checkpoints)")
        if log["checkpoints"] == "anchored":
            lines.append(f"checkpoints        anchored: the kept checkpoint of "
                         f"{log['checkpoint_size']:,} leaves, signed by the pinned log key")
        else:
            lines.append("WARNING checkpoints unanchored: no checkpoint kept outside the store "
                         "and signed by a pinned key (--checkpoint FILE --log-key VKEY) was "
                         "checked; a key or checkpoint found beside the store proves nothing")
    if "checkpoint" in report:
        section = report["checkpoint"]
        lines.append(f"checkpoint         {section['source']} of {section['created_at']}: "
                     f"{section['streams']:,} stream heads, root {section['merkle_root']}"
                     + ("" if section["signer_checked"] else " (signer not compared)"))
    fair = report.get("fair_sessions", {})
    if fair:
        lines.append(
            f"fair sessions      {fair.get('sessions_verified', 0):,} verified, "
            f"{fair.get('sessions_open', 0):,} open (seed not revealed yet), "
            f"{fair.get('sessions_before_commitments', 0):,} from before commitments"
        )
    lines.extend(problem_lines(report["problems"]))
    if report["problems_total"] > len(report["problems"]):
        lines.append(f"... and {report['problems_total'] - len(report['problems']):,} more")
    lines.append("OK: every stream, player and round agrees" if report["ok"] else
                 f"FAILED: {report['problems_total']:,} problem(s)")
    return "\n".join(lines)


def problem_lines(problems: Iterable[dict[str, Any]]) -> Iterator[str]:
    for p in problems:
        where = f"stream {p['stream']} version {p['version']}"
        if p.get("player_id"):
            where += f" (player {p['player_id']})"
        if p.get("round_id"):
            where += f" round {p['round_id']}"
        what = f" field {p['field']}: expected {p['expected']!r}, found {p['found']!r}" if p.get(
            "field") else ""
        yield f"PROBLEM {p['kind']}: {where}{what} - {p['detail']}"
