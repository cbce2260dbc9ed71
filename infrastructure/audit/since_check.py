"""`pumpkin verify --since FILE --log-key VKEY`: the daily check, costing the events after FILE.

FILE is a checkpoint the regulator kept (a signed note, `GET /log/checkpoint` or `pumpkin
checkpoint --out`). The check:
1. FILE is signed by the pinned log key (else `log_mismatch`, field checkpoint.signature);
2. the log stored beside the events still holds FILE's tree: the perfect subtrees of its first
   M leaves (the stored nodes) give FILE's root, and the newest stored checkpoint, signed by the
   same key, is consistent with FILE (an RFC 9162 consistency proof from the stored nodes,
   checked against both signed roots). A history rewritten before FILE's point, its log rebuilt
   and re-signed, fails here (`log_mismatch`, field log.root / log.consistency);
3. every event after FILE's point (the notification id of its leaf M - 1) is checked as the full
   verify checks it: each stream from the player as it stood before its first new event
   (infrastructure.audit.stream_start), the new events' chains, rules and rounds, snapshots
   written since; their leaves are recomputed and folded onto FILE's tree, which must give the
   stored checkpoints' roots after it and the stored log's (`log_mismatch`, field log.root).
Its time grows with the events after FILE (and, per stream with new events, at most one
snapshot interval before them), not with the store.
"""

from __future__ import annotations

import heapq
import json
from pathlib import Path
from typing import Any

from domain.ledger.merkle import (
    Frontier,
    ProofError,
    check_consistency,
    consistency_proof,
    root_hash,
)
from infrastructure.audit.stream_check import StreamResult
from infrastructure.audit.view_check import compare_balance_view
from infrastructure.store.event_rows import EventRows
from infrastructure.transparency.log_check import log_problem, read_checkpoint, roots_from
from infrastructure.transparency.log_store import LogStore
from infrastructure.transparency.notes import (
    Checkpoint,
    NoteError,
    open_note,
    parse_checkpoint,
    parse_vkey,
    split_note,
)


class SinceFileError(ValueError):
    """FILE is not a checkpoint at all (unreadable, or not a signed note of a tree)."""


def read_since_file(text: str) -> None:
    """Raise SinceFileError unless `text` parses as a signed checkpoint (its signature is
    checked against the pinned key later, and a wrong one is a finding, not an error)."""
    try:
        body, _ = split_note(text)
        parse_checkpoint(body)
    except NoteError as exc:
        raise SinceFileError(f"not a checkpoint (a C2SP signed note): {exc}") from None


def verify_since(application: Any, note: str, log_key: str) -> dict[str, Any]:
    """The report of verify --since (the keys of verify's, with "since" beside "log")."""
    from infrastructure.audit.verification import check_stream, fair_totals, stores_report

    rows = EventRows(application)
    store = LogStore(rows)
    kept, problems = read_checkpoint(note, log_key, [])
    section: dict[str, Any] = {"checkpoints": "anchored" if kept is not None else "unanchored",
                               "checkpoint_size": kept.size if kept is not None else None,
                               "tree_size": None, "stored_tree_size": store.position()[1],
                               "stored_checkpoints": None, "since": True}
    results: list[StreamResult] = []
    anchor = _anchor(store, kept, log_key, problems) if kept is not None else None
    if anchor is not None:
        point, frontier = anchor
        touched = rows.streams_after(point)
        results = [check_stream(application, rows, stream, collect_leaves=True,
                                since_version=first) for stream, first in sorted(touched.items())]
        problems.extend(p for r in results for p in r.problems)
        problems.extend(_new_leaves(store, frontier, [r.leaves for r in results], section))
        section["point"] = point
        for result in results:
            result.leaves = []
    view, view_problems = compare_balance_view(rows, results, single=True)
    problems.extend(view_problems)
    fair = fair_totals(results)
    report = stores_report(results, problems, view, fair)
    report["log"] = section
    report["checkpoints"] = section["checkpoints"]
    return report


def _anchor(store: LogStore, kept: Checkpoint, log_key: str,
            problems: list[dict[str, Any]]) -> tuple[int, Frontier] | None:
    """(FILE's point, the frontier of FILE's tree from the stored nodes), once the stored log
    is shown to hold FILE's tree and the newest stored checkpoint to extend it; None (and the
    problems said) if it does not."""
    stored_size = store.position()[1]
    if stored_size < kept.size:
        problems.append(log_problem("the log stored beside the events is shorter than the kept "
                                 "checkpoint: it was emptied or cut", expected=kept.size,
                                 found=stored_size, field="log.size"))
        return None
    try:
        frontier = store.frontier(kept.size)
    except LookupError as exc:
        problems.append(log_problem(f"the stored log lacks FILE's tree: {exc}",
                                    field="log.nodes"))
        return None
    if frontier.root() != kept.root:
        problems.append(log_problem(
            "the stored log's first leaves do not give the root FILE signed: history before "
            "FILE was rewritten", expected=kept.root.hex(), found=frontier.root().hex(),
            field="log.root"))
        return None
    newest = store.newest_checkpoint()
    if newest is None or newest[0] < kept.size:
        problems.append(log_problem("the store holds no checkpoint as large as FILE: its "
                                 "checkpoint table was emptied or cut", expected=kept.size,
                                 found=newest[0] if newest else None, field="checkpoint_table"))
        return None
    try:
        text, _ = open_note(newest[1], parse_vkey(log_key))
        now = parse_checkpoint(text)
        if now.size > kept.size:
            proof = consistency_proof(kept.size, now.size, store.node)
        else:
            proof = []
        check_consistency(kept.size, now.size, kept.root, now.root, proof)
    except (NoteError, ProofError, LookupError) as exc:
        problems.append(log_problem(f"the log now is not consistent with FILE: {exc}",
                                 field="log.consistency"))
        return None
    point = store.notification_at(kept.size - 1) if kept.size else 0
    if point is None:
        problems.append(log_problem("the stored log lacks FILE's last leaf", field="log.leaves"))
        return None
    return point, frontier


def _new_leaves(store: LogStore, frontier: Frontier, leaves: list[list[tuple[int, bytes]]],
                section: dict[str, Any]) -> list[dict[str, Any]]:
    """The new events' leaves folded onto FILE's tree, against the stored checkpoints after it
    and the stored log."""
    problems = []
    start = frontier.size
    stored = store.checkpoints(after=start)
    stored_size = store.position()[1]
    total, roots = roots_from(frontier, heapq.merge(*leaves),
                              {size for size, _ in stored} | {stored_size})
    section.update(tree_size=total, stored_checkpoints=len(stored))
    for size, root_hex in stored:
        if roots.get(size, b"").hex() != root_hex:
            problems.append(log_problem(
                f"the stored checkpoint of {size} leaves does not match the events after FILE",
                expected=roots.get(size, b"").hex() or f"{total} leaves", found=root_hex,
                field="log.root"))
    if stored_size > total:
        problems.append(log_problem("the log stored beside the events has more leaves than the "
                                 "store has events: events were deleted", expected=total,
                                 found=stored_size, field="log.size"))
    elif stored_size > start and root_hash(stored_size, store.node) != roots.get(stored_size):
        problems.append(log_problem("the log stored beside the events differs from the events "
                                 "after FILE", field="log.root"))
    return problems


def since_command(settings: Any, file: Path, log_key: str | None, json_out: bool,
                  with_others: bool) -> int:
    """`pumpkin verify --since FILE --log-key VKEY [--json]`: exit 0 if everything after FILE
    agrees, 1 with the problems, 2 if the command cannot run (FILE not a checkpoint, no
    --log-key, options that do not go with it)."""
    import typer

    from infrastructure.application import PumpkinApplication
    from infrastructure.audit.verification import report_text

    def refuse(message: str) -> int:
        typer.echo(f"pumpkin verify --since: {message}", err=True)
        return 2

    if with_others:
        return refuse("checks the whole store after FILE: it takes only --log-key and --json")
    if not log_key:
        return refuse("--log-key VKEY is required: FILE proves nothing without the key you "
                      "pinned")
    try:
        parse_vkey(log_key)
        text = file.read_text(encoding="utf-8")
        read_since_file(text)
    except (OSError, UnicodeDecodeError) as exc:
        return refuse(f"{file}: cannot be read ({exc.__class__.__name__}: {exc})")
    except (NoteError, SinceFileError) as exc:
        return refuse(f"{file if isinstance(exc, SinceFileError) else '--log-key'}: {exc}")
    application = PumpkinApplication.from_url(settings.database_url)
    try:
        report = verify_since(application, text, log_key)
    finally:
        application.close()
    typer.echo(json.dumps(report, indent=2, default=str) if json_out else report_text(report))
    return 0 if report["ok"] else 1
