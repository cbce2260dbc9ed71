"""Request and answer bodies of docs/CONTRACT.md. Money fields are strict integers: 10.5, "10" and
true are refused (422 invalid_request) before any rule is asked. Range and format rules
(amount > 0, a valid player or request id) are checked by `checks.py` and answer their own codes.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)

from infrastructure.http import schema_rules


class Body(BaseModel):
    """A request body: exact, so a field the route does not define is 422 unknown_field."""

    model_config = ConfigDict(extra="forbid")


class NewPlayer(Body):
    player_id: StrictStr = Field(json_schema_extra=schema_rules.PLAYER_ID)
    # The operator's verified age band ("18-24" or "25+"; absent: unknown), judged by the domain
    # (domain.ledger.protection.check_age_band): any other value is 422 invalid_age_band.
    age_band: Any = Field(default=None, json_schema_extra={"enum": ["18-24", "25+"]})


class MoneyMovement(Body):
    amount: StrictInt = Field(json_schema_extra=schema_rules.AMOUNT)
    request_id: StrictStr = Field(json_schema_extra=schema_rules.REQUEST_ID)


class SpinRequest(Body):
    stake: StrictInt | None = Field(
        default=None,
        description="minor units, one of the rules document's `stakes` (may be left out of a "
        "free round: its campaign's)",
    )
    request_id: StrictStr = Field(json_schema_extra=schema_rules.REQUEST_ID)
    free_round: StrictStr | None = None  # a campaign id: play one of its free rounds
    # Checked by the rule (422 invalid_client_seed), not the schema.
    client_seed: Any = Field(default="", description="0 to 64 printable ASCII characters")

    @model_validator(mode="after")
    def _stake_unless_free(self) -> SpinRequest:
        if self.stake is None and self.free_round is None:
            raise ValueError("stake is required (it may be left out of a free round only)")
        return self


class FreeRoundsGrant(Body):
    campaign_id: StrictStr
    rounds: StrictInt
    stake: StrictInt
    expires_at: StrictStr | None = None
    request_id: StrictStr = Field(json_schema_extra=schema_rules.REQUEST_ID)


class Empty(Body):
    """`{}`: no fields (any is 422 unknown_field)."""


class ReadModelState(BaseModel):
    position: int
    error: str


class Health(BaseModel):
    status: str  # "ok", or "degraded" while a read model is failing
    read_models: dict[str, ReadModelState] | None = None  # the failing ones (degraded only)


class PlayerCreated(BaseModel):
    player_id: str


class Balance(BaseModel):
    balance: int


class SessionOpen(Body):
    """The session open body: the player's reality-check interval where the profile has one."""

    reality_check_minutes: StrictInt | None = None


class SessionOpened(BaseModel):
    session_id: str
    token: str
    seed_commitment: str | None = None
    balance: int | None = None  # the player's (the operator's wallet's, asked at the open)


class SessionSummary(BaseModel):
    session_id: str
    spins: int
    staked: int
    won: int
    net: int


class Session(SessionSummary):
    """The session of CONTRACT.md (also the close answer): server_seed is null while open."""

    model_config = ConfigDict(extra="allow")

    player_id: str
    open: bool
    opened_at: str | None
    closed_at: str | None
    elapsed_seconds: int
    seed_commitment: str | None
    server_seed: str | None
    # Who closed it: player, operator, idle, exclusion, reality_check, session_time_limit
    # (null while open, and for closes from before it was recorded).
    closed_by: str | None = None
    round_ids: list[str] = []  # the session's rounds, in order


class PlayerState(BaseModel):
    player_id: str
    balance: int
    level: int
    spins_to_next_level: int | None
    hold_and_win_multiplier: float
    free_spins_multiplier: float
    excluded: bool = False
    excluded_until: str | None = None


class Round(BaseModel):
    """A settled round, exactly as the spin answered it (domain.ledger.recall.round_view)."""

    model_config = ConfigDict(extra="allow")

    round_id: str
    player_id: str
    session_id: str
    stake: int
    total_win: int
    balance_before: int
    balance_after: int
    level_before: int
    level_after: int
    seed: str
    model_version: str
    max_win_hit: bool
    steps: list[dict[str, Any]]
    events: list[str]


class RoundSummary(BaseModel):
    """One line of a player's history; GET /rounds/{round_id} gives the whole round."""

    model_config = ConfigDict(extra="allow")

    round_id: str


class RoundsPage(BaseModel):
    rounds: list[RoundSummary]


class VerifyReport(BaseModel):
    model_config = ConfigDict(extra="allow")

    ok: bool
    events_checked: int
    rounds_rederived: int
    problems: list[Any]


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = Field(
        default=None, description="unknown_field only: the body field the route does not define"
    )


class ErrorBody(BaseModel):
    error: ErrorDetail


class LimitsChange(Body):
    """Any of the limits: a whole number, or null to remove it (absent: unchanged)."""

    loss_per_day: StrictInt | None = None
    loss_per_week: StrictInt | None = None
    loss_per_month: StrictInt | None = None
    session_minutes: StrictInt | None = None
    max_stake: StrictInt | None = None

    def requested(self) -> dict[str, int | None]:
        return {name: getattr(self, name) for name in sorted(self.model_fields_set)}


class PendingLimit(BaseModel):
    limit: str
    value: int | None
    effective_at: str


class Limits(BaseModel):
    limits: dict[str, int | None]
    pending: list[PendingLimit]
    excluded: bool
    excluded_until: str | None


class ExclusionRequest(Body):
    """`until` with a zone, or null for a permanent exclusion (it must be given either way)."""

    until: AwareDatetime | None
    reason: StrictStr = Field(default="", max_length=500)


class Exclusion(BaseModel):
    excluded: bool
    excluded_until: str | None


class RealityCheckAnswer(Body):
    proceed: StrictBool = Field(alias="continue")


class ProtectedSession(BaseModel):
    model_config = ConfigDict(extra="allow")

    session_id: str
    player_id: str
    open: bool
    reality_check_due: bool
