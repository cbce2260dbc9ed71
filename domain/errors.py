"""Errors named for the game rule they protect. Mapped to HTTP in one place (infrastructure)."""

from __future__ import annotations


class RuleViolation(Exception):
    """A request that would break a rule. It changes nothing."""

    code = "rule_violation"


class InvalidStake(RuleViolation):
    code = "invalid_stake"


class InvalidAmount(RuleViolation):
    code = "invalid_amount"


class InsufficientFunds(RuleViolation):
    code = "insufficient_funds"


class UnknownModelVersion(RuleViolation):
    code = "unknown_model_version"


class InvalidPlayerId(RuleViolation):
    code = "invalid_player_id"


class BalanceCap(RuleViolation):
    """A deposit or a win would take a balance past BALANCE_CAP (domain.ledger.player)."""

    code = "balance_cap"


class PlayerExists(RuleViolation):
    code = "player_exists"


class PlayerNotFound(RuleViolation):
    code = "player_not_found"


class SessionNotFound(RuleViolation):
    code = "session_not_found"


class SessionClosed(RuleViolation):
    code = "session_closed"


class RoundNotFound(RuleViolation):
    code = "round_not_found"


class RequestIdReused(RuleViolation):
    """The same request_id came back with a different body."""

    code = "request_id_reused"


class InvalidRequestId(RuleViolation):
    code = "invalid_request_id"


class ProtectionRefusal(RuleViolation):
    """A spin or session refused by player protection (domain.ledger.protection). Recorded as a
    ProtectionRefused event in the player's stream; it changes no money and no progress."""

    code = "protection_refusal"
    session_id = ""
    retry_after: int | None = None  # seconds, for a Retry-After header
    details: dict[str, object] | None = None  # more of the answer (e.g. the session)


class PlayerExcluded(ProtectionRefusal):
    code = "player_excluded"


class StakeLimit(ProtectionRefusal):
    code = "stake_limit"


class SessionLimit(ProtectionRefusal):
    """A second open session where the profile allows one at a time (de)."""

    code = "session_limit"


class LossLimit(ProtectionRefusal):
    code = "loss_limit"


class RoundTooSoon(ProtectionRefusal):
    """A spin sooner than the profile's minimum round time after the session's last round."""

    code = "round_too_soon"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SessionRefusal(ProtectionRefusal):
    """A refusal that concerns one session (named in the answer); `details`: more of the
    answer, given by the rule that refused (e.g. the session of a due reality check)."""

    def __init__(
        self, session_id: str, message: str, details: dict[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.details = details


class SessionTimeLimit(SessionRefusal):
    code = "session_time_limit"


class RealityCheckDue(SessionRefusal):
    code = "reality_check_due"


class InvalidLimits(RuleViolation):
    code = "invalid_limits"


class InvalidExclusion(RuleViolation):
    code = "invalid_exclusion"


class InvalidRealityCheck(RuleViolation):
    code = "invalid_reality_check"


class InvalidAgeBand(RuleViolation):
    code = "invalid_age_band"


class InvalidClientSeed(RuleViolation):
    """A client seed is 0 to 64 printable ASCII characters."""

    code = "invalid_client_seed"
class NoFreeRounds(RuleViolation):
    """A free round asked of a campaign with none left, expired, cancelled or unknown."""

    code = "no_free_rounds"


class CampaignExists(RuleViolation):
    """A grant under a campaign id the player already has (with another request id)."""

    code = "campaign_exists"


class InvalidFreeRounds(RuleViolation):
    """A grant of 0 or more than 1,000 rounds, or an expiry without a zone or in the past."""

    code = "invalid_free_rounds"
