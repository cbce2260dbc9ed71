"""The id and amount rules are defined once (domain.ledger.identifiers): the HTTP checks and the
Player aggregate accept and refuse exactly the same values, with the same named errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.errors import RuleViolation
from domain.ledger.identifiers import check_player_id, check_request_id
from domain.ledger.player import Player, parse_round_id
from infrastructure.http import checks

PLAYER_IDS = ["a", "A-z_09", "x" * 64, "", "x" * 65, "sp ace", "dot.ted", "caf\u00e9"]
REQUEST_IDS = ["r", "!~", "x" * 128, "", "x" * 129, "a space", "tab\there", "caf\u00e9"]


def outcome(check: object, value: str) -> str:
    try:
        check(value)  # type: ignore[operator]
    except RuleViolation as error:
        return error.code
    return "ok"


@pytest.mark.parametrize("player_id", PLAYER_IDS)
def test_http_and_the_aggregate_judge_a_player_id_alike(player_id: str) -> None:
    expected = outcome(check_player_id, player_id)
    assert outcome(checks.player_id, player_id) == expected
    assert outcome(Player.register, player_id) == expected
    assert (parse_round_id(f"{player_id}.1") is not None) == (expected == "ok")


@pytest.mark.parametrize("request_id", REQUEST_IDS)
def test_http_and_the_aggregate_judge_a_request_id_alike(request_id: str) -> None:
    expected = outcome(check_request_id, request_id)
    assert outcome(checks.request_id, request_id) == expected
    player = Player.register("p")
    assert outcome(lambda r: player.deposit(5, r, datetime.now(UTC)), request_id) == expected
    assert expected == ("ok" if request_id in ("r", "!~", "x" * 128) else "invalid_request_id")
