"""The transparency log: leaves, Merkle storage, signed-note checkpoints, proofs, witnesses."""
