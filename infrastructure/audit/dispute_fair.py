"""The provably fair part of a dispute report: the session's commitment, its revealed seed and
the round's derivation, spelled out so a player can redo it with any SHA-256 / HMAC tool."""

from __future__ import annotations

import hmac
from typing import Any

from domain.errors import RuleViolation
from domain.ledger.fairness import commitment_of, derivation_message, round_seed


def fairness_section(application: Any, played: dict[str, Any]) -> dict[str, Any] | None:
    """None for a round recorded before provably fair seeds (its seed is simply recorded)."""
    nonce = played.get("nonce")
    commitment = played.get("seed_commitment")
    if not isinstance(nonce, int) or not commitment:
        return None
    session_id, client_seed = str(played["session_id"]), str(played.get("client_seed", ""))
    try:
        reveal = application.session(session_id).get("server_seed")
    except (RuleViolation, ValueError):
        reveal = None
    message = derivation_message(session_id, nonce, client_seed)
    section: dict[str, Any] = {
        "seed_commitment": commitment,
        "server_seed": reveal,
        "nonce": nonce,
        "client_seed": client_seed,
        "message": message,
        "seed": played["seed"],
        "how_to_check": (
            "SHA-256(server_seed as bytes) must equal seed_commitment, and "
            "HMAC-SHA256(key = server_seed as bytes, message UTF-8) must equal seed; e.g. "
            f"printf '%s' '{message}' | openssl dgst -sha256 -mac HMAC -macopt hexkey:<server_seed>"
        ),
        "commitment_agrees": None,
        "seed_agrees": None,
    }
    if isinstance(reveal, str):
        server_seed = bytes.fromhex(reveal)
        section["commitment_agrees"] = hmac.compare_digest(commitment_of(server_seed),
                                                           str(commitment))
        section["seed_agrees"] = round_seed(server_seed, session_id, nonce,
                                            client_seed).hex() == played["seed"]
    return section
