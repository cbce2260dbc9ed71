"""Verify's part of the log: the tree recomputed from the events alone, against what the
regulator kept (a checkpoint FILE signed by the pinned log key, cosigned by pinned witnesses)
and against the log and checkpoints stored beside the events.

Every disagreement is `log_mismatch`: a deleted, altered, reordered or inserted past event; a
log or checkpoint table emptied or rewritten; a history rewritten and re-signed with the
operator's key (the regulator's checkpoint then disagrees). No key found beside the store is
trusted: without --log-key the stored checkpoints are only compared with the events, and the
section says "unanchored".
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

from domain.ledger.merkle import EMPTY_ROOT, Frontier, root_hash
from infrastructure.transparency.log_store import LogStore
from infrastructure.transparency.notes import (
    Checkpoint,
    NoteError,
    open_note,
    parse_checkpoint,
    parse_vkey,
    split_note,
    verifies,
)


def log_problem(detail: str, expected: Any = None, found: Any = None,
             field: str = "log") -> dict[str, Any]:
    return {"kind": "log_mismatch", "stream": None, "player_id": None, "version": 0,
            "round_id": None, "field": field, "expected": expected, "found": found,
            "detail": detail}


def roots_at(leaves: Iterable[tuple[int, bytes]], sizes: set[int]) -> tuple[int, dict[int, bytes]]:
    """(leaf count, root at each size asked for) of the tree of the leaves in notification
    order."""
    return roots_from(Frontier(), leaves, sizes)


def roots_from(
    frontier: Frontier, leaves: Iterable[tuple[int, bytes]], sizes: set[int]
) -> tuple[int, dict[int, bytes]]:
    """The same, the leaves folded onto a tree already of `frontier.size` leaves."""
    roots = {0: EMPTY_ROOT} if 0 in sizes else {}
    if frontier.size in sizes:
        roots[frontier.size] = frontier.root()
    push = frontier.push
    for _, digest in leaves:
        push(digest)
        if frontier.size in sizes:
            roots[frontier.size] = frontier.root()
    return frontier.size, roots


def read_checkpoint(
    signed: str, log_key: str | None, witness_keys: list[str]
) -> tuple[Checkpoint | None, list[dict[str, Any]]]:
    """The checkpoint of a note the regulator kept, checked against the pinned keys."""
    try:
        if log_key is not None:
            text, signatures = open_note(signed, parse_vkey(log_key))
        else:
            text, signatures = split_note(signed)
        checkpoint = parse_checkpoint(text)
    except NoteError as exc:
        return None, [log_problem(f"the checkpoint is not signed by the log key: {exc}",
                               field="checkpoint.signature")]
    problems = []
    for vkey in witness_keys:
        try:
            witness = parse_vkey(vkey)
        except NoteError as exc:
            problems.append(log_problem(f"the witness key does not parse: {exc}",
                                     field="witness_key"))
            continue
        if not any(verifies(text, line, witness) for line in signatures):
            problems.append(log_problem(f"the checkpoint has no valid cosignature of "
                                     f"{witness.name}", field="checkpoint.cosignature"))
    return checkpoint, problems


def log_section(
    store: LogStore,
    leaves: list[list[tuple[int, bytes]]],
    checkpoint_note: str | None,
    log_key: str | None,
    witness_keys: list[str],
) -> dict[str, Any]:
    """The log recomputed from `leaves` (per stream, each in notification order) and checked."""
    problems: list[dict[str, Any]] = []
    kept, kept_problems = (read_checkpoint(checkpoint_note, log_key, witness_keys)
                           if checkpoint_note is not None else (None, []))
    problems.extend(kept_problems)
    stored = store.checkpoints()
    stored_size = store.position()[1]
    sizes = {size for size, _ in stored} | {stored_size}
    if kept is not None:
        sizes.add(kept.size)
    total, roots = roots_at(heapq.merge(*leaves), sizes)
    for size, root_hex in stored:
        if roots.get(size, b"").hex() != root_hex:
            problems.append(log_problem(
                f"the stored checkpoint of {size} leaves does not match the events",
                expected=roots.get(size, b"").hex() or f"{total} leaves", found=root_hex))
    if stored_size > total:
        problems.append(log_problem("the log stored beside the events has more leaves than the "
                                 "store has events: events were deleted",
                                 expected=total, found=stored_size, field="log.size"))
    elif stored_size and root_hash(stored_size, _safe(store)) != roots.get(stored_size):
        problems.append(log_problem("the log stored beside the events differs from the events",
                                 field="log.root"))
    if kept is not None:
        problems.extend(_against_kept(kept, roots, total, store, stored_size))
    return {
        "checkpoints": "anchored" if kept is not None and log_key is not None else "unanchored",
        "tree_size": total,
        "stored_tree_size": stored_size,
        "stored_checkpoints": len(stored),
        "checkpoint_size": kept.size if kept is not None else None,
        "problems": problems,
    }


def _against_kept(kept: Checkpoint, roots: dict[int, bytes], total: int, store: LogStore,
                  stored_size: int) -> list[dict[str, Any]]:
    problems = []
    if kept.size > total:
        problems.append(log_problem(
            f"the regulator's checkpoint has {kept.size} leaves, the events only {total}: "
            "events were deleted", expected=kept.size, found=total, field="log.size"))
    elif roots[kept.size] != kept.root:
        problems.append(log_problem(
            "the events do not give the root the regulator's checkpoint signed: past events "
            "were changed, removed, reordered or inserted", expected=kept.root.hex(),
            found=roots[kept.size].hex(), field="log.root"))
    if store.checkpoint_covering(kept.size) is None:
        problems.append(log_problem("the store holds no checkpoint as large as the regulator's: "
                                 "its checkpoint table was emptied or cut",
                                 expected=kept.size, field="checkpoint_table"))
    if stored_size < kept.size:
        problems.append(log_problem("the log stored beside the events is shorter than the "
                                 "regulator's checkpoint: it was emptied or cut",
                                 expected=kept.size, found=stored_size, field="log.size"))
    return problems


def _safe(store: LogStore) -> Any:
    def node(level: int, index: int) -> bytes:
        try:
            return store.node(level, index)
        except LookupError:
            return b""  # a node missing from the stored log: its root differs
    return node
