"""Another player's data answers a player's token exactly as data that does not exist (issue 17,
finding 10: another player's round answered 403 while a missing one answered 404)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from http_support import Journey, bearer


def test_another_players_data_answers_exactly_as_missing_data(api: TestClient) -> None:
    mine, theirs = Journey(api), Journey(api)
    their_round = theirs.spin().json()["round_id"]
    missing_player = "nobody-at-all"
    pairs = [
        ("GET", f"/rounds/{their_round}", f"/rounds/{missing_player}.1"),
        ("GET", f"/players/{theirs.player_id}", f"/players/{missing_player}"),
        ("GET", f"/players/{theirs.player_id}/rounds", f"/players/{missing_player}/rounds"),
        ("POST", f"/sessions/{theirs.session_id}/close", f"/sessions/{'0' * 32}/close"),
        ("POST", f"/sessions/{theirs.session_id}/spins", f"/sessions/{'0' * 32}/spins"),
    ]
    spin = {"stake": 100, "request_id": "probe"}
    for method, theirs_path, missing_path in pairs:
        body = spin if theirs_path.endswith("/spins") else None  # bodies are exact
        existing = api.request(method, theirs_path, json=body, headers=bearer(mine.token))
        missing = api.request(method, missing_path, json=body, headers=bearer(mine.token))
        assert existing.status_code == missing.status_code == 404, (theirs_path, existing.text)
        code = existing.json()["error"]["code"]
        assert code == missing.json()["error"]["code"]
        shown = existing.json()["error"]["message"]
        assert shown.replace(theirs_path.split("/")[2], "X") == missing.json()["error"][
            "message"
        ].replace(missing_path.split("/")[2], "X")
