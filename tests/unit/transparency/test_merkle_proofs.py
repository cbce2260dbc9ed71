"""The log's Merkle tree is RFC 9162's: roots, inclusion and consistency proofs agree with an
independent implementation written here from the RFC's recursive definitions (section 2.1), on
every tree size up to 70 and every pair of sizes, and a proof that is changed does not hold."""

from __future__ import annotations

import hashlib

import pytest

from domain.ledger.merkle import (
    Frontier,
    ProofError,
    check_consistency,
    consistency_proof,
    inclusion_proof,
    root_from_inclusion,
    root_hash,
)

# -- the RFC's definitions, literally (lists of leaves, recursion): the reference --------------


def h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def k_of(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(d: list[bytes]) -> bytes:
    if not d:
        return h(b"")
    if len(d) == 1:
        return h(b"\x00" + d[0])
    k = k_of(len(d))
    return h(b"\x01" + mth(d[:k]) + mth(d[k:]))


def path(m: int, d: list[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = k_of(len(d))
    if m < k:
        return path(m, d[:k]) + [mth(d[k:])]
    return path(m - k, d[k:]) + [mth(d[:k])]


def subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    if m == len(d):
        return [] if b else [mth(d)]
    k = k_of(len(d))
    if m <= k:
        return subproof(m, d[:k], b) + [mth(d[k:])]
    return subproof(m - k, d[k:], False) + [mth(d[:k])]


LEAVES = [f"leaf {i}".encode() for i in range(70)]


def stored_nodes(leaves: list[bytes]):  # type: ignore[no-untyped-def]
    """What the log stores: the hash of every perfect subtree, built by the Frontier."""
    frontier, nodes = Frontier(), {}
    for leaf in leaves:
        for level, index, digest in frontier.append(h(b"\x00" + leaf)):
            nodes[(level, index)] = digest
    return frontier, lambda level, index: nodes[(level, index)]


FRONTIER, NODES = stored_nodes(LEAVES)


@pytest.mark.parametrize("size", range(71))
def test_the_root_of_every_size_is_the_rfcs(size: int) -> None:
    assert root_hash(size, NODES) == mth(LEAVES[:size])
    frontier, _ = stored_nodes(LEAVES[:size])
    assert frontier.root() == mth(LEAVES[:size])


def test_the_empty_tree_is_the_hash_of_nothing() -> None:
    assert root_hash(0, NODES) == hashlib.sha256(b"").digest() == Frontier().root()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 8, 9, 31, 64, 70])
def test_every_inclusion_proof_is_the_rfcs_path_and_leads_to_the_root(size: int) -> None:
    root = mth(LEAVES[:size])
    for index in range(size):
        proof = inclusion_proof(index, size, NODES)
        assert proof == path(index, LEAVES[:size])
        assert root_from_inclusion(index, size, h(b"\x00" + LEAVES[index]), proof) == root


def test_an_inclusion_proof_for_another_leaf_or_a_changed_node_does_not_lead_to_the_root() -> None:
    proof = inclusion_proof(5, 13, NODES)
    root = mth(LEAVES[:13])
    assert root_from_inclusion(5, 13, h(b"\x00" + LEAVES[6]), proof) != root
    changed = [proof[0][:-1] + bytes([proof[0][-1] ^ 1]), *proof[1:]]
    assert root_from_inclusion(5, 13, h(b"\x00" + LEAVES[5]), changed) != root
    with pytest.raises(ProofError):
        root_from_inclusion(5, 13, h(b"\x00" + LEAVES[5]), proof[:-1])
    with pytest.raises(ProofError):
        root_from_inclusion(13, 13, h(b"\x00" + LEAVES[5]), proof)


def test_every_consistency_proof_is_the_rfcs_and_checks() -> None:
    for second in range(2, 71):
        for first in range(1, second):
            proof = consistency_proof(first, second, NODES)
            assert proof == subproof(first, LEAVES[:second], True), (first, second)
            check_consistency(first, second, mth(LEAVES[:first]), mth(LEAVES[:second]), proof)


def test_a_forked_history_is_not_consistent() -> None:
    forked = [*LEAVES[:6], b"rewritten", *LEAVES[7:20]]
    _, fork_nodes = stored_nodes(forked)
    proof = consistency_proof(10, 20, fork_nodes)
    with pytest.raises(ProofError):
        check_consistency(10, 20, mth(LEAVES[:10]), mth(forked[:20]), proof)
    honest = consistency_proof(10, 20, NODES)
    with pytest.raises(ProofError):
        check_consistency(10, 20, mth(LEAVES[:10]), mth(LEAVES[:20]), honest[:-1])
    with pytest.raises(ProofError):
        check_consistency(10, 20, mth(LEAVES[:10]), mth(LEAVES[:21]), honest)


def test_equal_and_empty_sizes_follow_the_rfc() -> None:
    check_consistency(7, 7, mth(LEAVES[:7]), mth(LEAVES[:7]), [])
    check_consistency(0, 7, h(b""), mth(LEAVES[:7]), [])
    with pytest.raises(ProofError):
        check_consistency(7, 7, mth(LEAVES[:7]), mth(LEAVES[:8]), [])


def test_a_resumed_frontier_grows_as_if_it_had_never_stopped() -> None:
    for size in (0, 1, 6, 13, 32, 45):
        subtrees, start = [], 0
        for level in reversed(range(size.bit_length())):
            if size >> level & 1:
                subtrees.append(NODES(level, start >> level))
                start += 1 << level
        resumed = Frontier.resumed(size, subtrees)
        for leaf in LEAVES[size:60]:
            resumed.append(h(b"\x00" + leaf))
        assert resumed.root() == mth(LEAVES[:60])


def test_a_frontier_folded_by_push_has_the_rfcs_root_at_every_size() -> None:
    frontier = Frontier()
    for n, leaf in enumerate(LEAVES[:70], start=1):
        frontier.push(h(b"\x00" + leaf))
        assert frontier.size == n and frontier.root() == mth(LEAVES[:n])


def test_a_leaf_written_field_by_field_is_the_canonical_json_of_its_record() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from domain.ledger.hashchain import canonical_json
    from domain.ledger.merkle import log_leaf

    @settings(max_examples=300, deadline=None)
    @given(st.text(max_size=40), st.integers(min_value=0, max_value=2**63), st.text(max_size=40),
           st.text(max_size=70), st.none() | st.text(max_size=20))
    def same(stream: str, version: int, topic: str, digest: str, round_id: str | None) -> None:
        record: dict[str, object] = {"hash": digest, "stream": stream, "topic": topic,
                                     "version": version}
        if round_id is not None:
            record["round_id"] = round_id
        assert log_leaf(stream, version, topic, digest, round_id) == canonical_json(record)

    same()
