"""The open-session cache remembers only open sessions, briefly, and forgets a closed one."""

from __future__ import annotations

import time

from http_support import OPERATOR, Journey, bearer, client_for

from infrastructure.application import PumpkinApplication
from infrastructure.http.token_cache import OpenSessionCache
from infrastructure.ports import SessionRef

OPEN = SessionRef("s1", "ann", True)


def test_it_remembers_an_open_session_until_its_time_is_up() -> None:
    cache = OpenSessionCache(ttl_seconds=0.05)
    cache.remember("tok", OPEN)
    assert cache.get("tok") == OPEN
    time.sleep(0.06)
    assert cache.get("tok") is None


def test_it_never_remembers_a_closed_session() -> None:
    cache = OpenSessionCache()
    cache.remember("tok", SessionRef("s1", "ann", False))
    assert cache.get("tok") is None


def test_closing_forgets_the_sessions_tokens_and_is_bounded() -> None:
    cache = OpenSessionCache(max_entries=2)
    cache.remember("a", OPEN)
    cache.remember("b", SessionRef("s2", "bob", True))
    cache.remember("c", SessionRef("s3", "cy", True))
    assert cache.get("a") is None  # the oldest went first
    cache.forget_session("s2")
    assert cache.get("b") is None and cache.get("c") is not None


def test_a_session_closed_behind_the_caches_back_still_cannot_spin(service: object) -> None:
    with client_for(service) as client:
        j = Journey(client)
        assert j.spin().status_code == 200  # the token is now cached as open
        service.close_session(j.session_id)  # type: ignore[attr-defined]  # another instance
        refused = j.spin()
        assert (refused.status_code, refused.json()["error"]["code"]) == (409, "session_closed")
        closed = client.post(f"/sessions/{j.session_id}/close", headers=bearer(OPERATOR))
        assert closed.status_code == 200
        assert client.get(f"/players/{j.player_id}", headers=bearer(j.token)).status_code == 401


def test_a_close_through_one_instance_is_effective_on_another_at_once(service: object) -> None:
    """Issue 17, finding 7: a closed session's token kept reading ~2 s through another worker's
    cache. Two app instances on one store, each with its own caches."""
    assert isinstance(service, PumpkinApplication)
    other_service = PumpkinApplication(env=service.store.env)
    try:
        with client_for(service) as first, client_for(other_service) as second:
            j = Journey(first)
            token = bearer(j.token)
            for _ in range(3):  # the second instance has seen the session open, and spun on it
                assert second.get(f"/players/{j.player_id}", headers=token).status_code == 200
                assert j.spin().status_code == 200
            played = second.post(
                f"/sessions/{j.session_id}/spins",
                json={"stake": 100, "request_id": "through-the-second"},
                headers=token,
            )
            assert played.status_code == 200
            closed = first.post(f"/sessions/{j.session_id}/close", headers=bearer(OPERATOR))
            assert closed.status_code == 200

            for path in (f"/players/{j.player_id}", f"/players/{j.player_id}/rounds"):
                answer = second.get(path, headers=token)
                assert answer.status_code == 401, (path, answer.text)
            refused = second.post(
                f"/sessions/{j.session_id}/spins",
                json={"stake": 100, "request_id": "after-the-close"},
                headers=token,
            )
            assert (refused.status_code, refused.json()["error"]["code"]) == (409, "session_closed")
    finally:
        other_service.close()


def test_a_spin_past_the_caches_time_is_named_by_what_the_process_holds(service: object) -> None:
    """Once the process knows the token and holds the player, a spin whose cache entry has
    expired needs no store read (nor a worker thread); the session closed meanwhile through
    another instance is still refused, judged on the newest state."""
    assert isinstance(service, PumpkinApplication)
    with client_for(service) as client:
        j = Journey(client)
        assert j.spin().status_code == 200
        cache: OpenSessionCache = client.app.state.open_sessions  # type: ignore[attr-defined]
        cache._entries.clear()  # its time is up

        def no_store_read(token: str) -> None:
            raise AssertionError("read the store for a token the process knows")

        original = service.session_for_token
        service.session_for_token = no_store_read  # type: ignore[method-assign,assignment]
        try:
            assert j.spin().status_code == 200
        finally:
            service.session_for_token = original  # type: ignore[method-assign]
        other = PumpkinApplication(env=service.store.env)
        try:
            other.close_session(j.session_id)
        finally:
            other.close()
        cache._entries.clear()
        refused = j.spin()
        assert (refused.status_code, refused.json()["error"]["code"]) == (409, "session_closed")
