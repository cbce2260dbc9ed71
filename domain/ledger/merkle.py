"""The Merkle tree of the transparency log, RFC 9162 section 2.1: hashes, roots and proofs.

leaf hash = SHA-256(0x00 || leaf), node = SHA-256(0x01 || left || right); the root of n leaves
splits them at the largest power of two below n. The tree is read through `Nodes`: the hash of
the perfect subtree of 2**level leaves starting at leaf index * 2**level, which the store keeps
(infrastructure.transparency.log_store) or a test computes, so a root or a proof of a tree of
any size costs O(log n) lookups, never a pass over the leaves.

`Frontier` folds leaves one at a time into the root with O(log n) memory (verify recomputing
the log from the events alone), and names every perfect subtree each leaf completes (what the
log stores beside the leaf).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from domain.ledger.hashchain import canonical_json

Nodes = Callable[[int, int], bytes]  # (level, index) -> hash of a perfect subtree
EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof that does not hold, or does not fit the sizes it claims."""


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(size: int) -> int:
    """The largest power of two smaller than size (size > 1)."""
    return 1 << ((size - 1).bit_length() - 1)


def subtree_hash(start: int, end: int, nodes: Nodes) -> bytes:
    """MTH of the leaves [start, end), where start is a multiple of the split's power (as in
    every range RFC 9162's definitions visit)."""
    size = end - start
    if size & (size - 1) == 0 and start % size == 0:
        return nodes(size.bit_length() - 1, start // size)
    k = _split(size)
    return node_hash(subtree_hash(start, start + k, nodes), subtree_hash(start + k, end, nodes))


def root_hash(size: int, nodes: Nodes) -> bytes:
    return EMPTY_ROOT if size == 0 else subtree_hash(0, size, nodes)


def inclusion_proof(index: int, size: int, nodes: Nodes) -> list[bytes]:
    """PATH(index, D[0:size]) of RFC 9162 section 2.1.3.1, leaf to root."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size}")
    proof: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            proof.append(subtree_hash(start + k, end, nodes))
            end = start + k
        else:
            proof.append(subtree_hash(start, start + k, nodes))
            start += k
    proof.reverse()
    return proof


def consistency_proof(first: int, second: int, nodes: Nodes) -> list[bytes]:
    """PROOF(first, D[0:second]) of RFC 9162 section 2.1.4.1, for 0 < first < second."""
    if not 0 < first < second:
        raise ProofError(f"no consistency proof from {first} to {second}")
    proof: list[bytes] = []
    start, end, whole = 0, second, True  # SUBPROOF(m, D[start:end], whole)
    m = first
    while True:
        size = end - start
        if m == size:
            if not whole:
                proof.append(subtree_hash(start, end, nodes))
            break
        k = _split(size)
        if m <= k:
            proof.append(subtree_hash(start + k, end, nodes))
            end = start + k
        else:
            proof.append(subtree_hash(start, start + k, nodes))
            start, m, whole = start + k, m - k, False
    proof.reverse()
    return proof


def root_from_inclusion(
    index: int, size: int, leaf_digest: bytes, proof: Sequence[bytes]
) -> bytes:
    """The root an inclusion proof leads to (RFC 9162 section 2.1.3.2); compare it with a
    signed root."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size}")
    fn, sn, r = index, size - 1, leaf_digest
    for p in proof:
        if sn == 0:
            raise ProofError("the proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the proof is shorter than the tree is deep")
    return r


def check_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, proof: Sequence[bytes]
) -> None:
    """RFC 9162 section 2.1.4.2: raise ProofError unless the tree of `second` leaves with
    `second_root` extends the tree of `first` leaves with `first_root`."""
    if first == second:
        if proof or first_root != second_root:
            raise ProofError("equal sizes must have equal roots and an empty proof")
        return
    if first == 0:
        if proof:
            raise ProofError("an empty tree is consistent with any, with an empty proof")
        return
    if not 0 < first < second or not proof:
        raise ProofError(f"no consistency from {first} to {second}")
    path = list(proof)
    if first & (first - 1) == 0:  # a power of two: its root is the first node of the path
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the proof is longer than the trees are deep")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0 or fr != first_root or sr != second_root:
        raise ProofError(f"the tree of {second} does not extend the tree of {first}")


class Frontier:
    """The perfect subtrees on the right edge of a growing tree: leaves folded in one at a
    time, the root of the leaves so far at any moment, in O(log n) memory."""

    def __init__(self) -> None:
        self.size = 0
        self._stack: list[bytes] = []  # the perfect subtrees, largest (leftmost) first

    @classmethod
    def resumed(cls, size: int, subtrees: Sequence[bytes]) -> Frontier:
        """The frontier of a tree of `size` leaves from its perfect subtrees, largest first
        (one per bit set in size)."""
        if len(subtrees) != bin(size).count("1"):
            raise ValueError(f"a tree of {size} leaves has {bin(size).count('1')} subtrees")
        frontier = cls()
        frontier.size, frontier._stack = size, list(subtrees)
        return frontier

    def append(self, leaf_digest: bytes) -> list[tuple[int, int, bytes]]:
        """Add a leaf hash; (level, index, hash) of every perfect subtree it completes, the
        leaf itself (level 0) first."""
        done = [(0, self.size, leaf_digest)]
        node, index, level = leaf_digest, self.size, 0
        while index & 1:  # a right child: it completes its parent
            node = node_hash(self._stack.pop(), node)
            index, level = index >> 1, level + 1
            done.append((level, index, node))
        self._stack.append(node)
        self.size += 1
        return done

    def push(self, leaf_digest: bytes) -> None:
        """append, without naming the subtrees completed (verify only folds the root)."""
        node, index, stack = leaf_digest, self.size, self._stack
        while index & 1:
            node = hashlib.sha256(b"\x01" + stack.pop() + node).digest()
            index >>= 1
        stack.append(node)
        self.size += 1

    def root(self) -> bytes:
        if not self._stack:
            return EMPTY_ROOT
        node = self._stack[-1]
        for left in reversed(self._stack[:-1]):
            node = node_hash(left, node)
        return node


def log_leaf(stream: str, version: int, topic: str, digest: str, round_id: str | None) -> bytes:
    """One stored event as a leaf of the log: canonical JSON (sorted keys, no spaces, UTF-8) of
    its stream, version, stored name and chained hash, and the round it settles if it does.

    Written out field by field in the canonical order (hash, round_id, stream, topic, version),
    each string by the canonical encoder itself: byte for byte canonical_json of the record (a
    test holds the two equal), without building and sorting a dict for every event."""
    if type(version) is not int:
        return _leaf_record(stream, version, topic, digest, round_id)
    encoded = _TOPICS.get(topic)
    if encoded is None:
        encoded = canonical_json(topic)
        if len(_TOPICS) < 4_096:  # the product's own names; a store's others are not kept
            _TOPICS[topic] = encoded
    middle = b"" if round_id is None else b',"round_id":' + canonical_json(round_id)
    return b"".join((b'{"hash":', canonical_json(digest), middle, b',"stream":',
                     canonical_json(stream), b',"topic":', encoded, b',"version":',
                     str(version).encode(), b"}"))


_TOPICS: dict[str, bytes] = {}


def _leaf_record(stream: str, version: object, topic: str, digest: str,
                 round_id: str | None) -> bytes:
    record: dict[str, object] = {"hash": digest, "stream": stream, "topic": topic,
                                 "version": version}
    if round_id is not None:
        record["round_id"] = round_id
    return canonical_json(record)
