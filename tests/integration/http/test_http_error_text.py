"""Error messages never echo control characters, not even JSON-escaped (CONTRACT.md "HTTP API"):
what a caller wrote into a path or a body field's name is spelt out (`\\x00`). Both stores."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.testclient import TestClient
from http_support import OPERATOR, Journey, bearer

from infrastructure.http.errors import printable

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in strings(v))]
    return [value] if isinstance(value, str) else []


def assert_no_control_characters(raw: bytes) -> None:
    """Neither raw in the answer nor JSON-escaped in any string of it."""
    assert not any(byte < 0x20 or byte == 0x7F for byte in raw), raw
    for text in strings(json.loads(raw)):
        assert _CONTROL.search(text) is None, raw


def test_a_nul_byte_in_a_path_is_spelt_out_in_the_message(api: TestClient) -> None:
    j = Journey(api)
    for path in ("/rounds/%00%ff", f"/players/{j.player_id}%00x", "/sessions/%0d%0aX/close",
                 "/rounds/a%1b%5b31mred", "/rounds/%c2%85x%e2%80%a8y"):
        for answer in (api.get(path, headers=bearer(OPERATOR)), api.post(path, json={},
                       headers=bearer(OPERATOR))):
            assert 400 <= answer.status_code < 500, answer.text
            assert_no_control_characters(answer.content)
    nul = api.get("/rounds/%00%ff", headers=bearer(OPERATOR)).json()["error"]
    assert nul["code"] == "round_not_found" and "\\x00" in nul["message"]


def test_a_body_field_named_with_control_characters_is_named_printably(api: TestClient) -> None:
    j = Journey(api)
    answer = api.post(
        f"/sessions/{j.session_id}/spins",
        content=b'{"stake": 100, "request_id": "r", "client\\u0000seed\\n": "x"}',
        headers={**bearer(j.token), "Content-Type": "application/json"},
    )
    assert answer.status_code == 422, answer.text
    assert_no_control_characters(answer.content)
    assert answer.json()["error"]["field"] == "client\\x00seed\\x0a"


def test_printable_spells_out_every_control_character_and_keeps_the_rest() -> None:
    assert printable("no round \x00\ufffd") == "no round \\x00\ufffd"
    assert printable("a\tb\x7f\x9f\u2028") == "a\\x09b\\x7f\\x9f\\u2028"
    assert printable("plain text, ünïcode ok") == "plain text, ünïcode ok"
