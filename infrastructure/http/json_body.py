"""Every request body is JSON (docs/CONTRACT.md), whatever Content-Type the client sent.

`curl -d '{...}'` labels its body application/x-www-form-urlencoded, and some clients send no
Content-Type at all; the API reads such bodies as the JSON they are, so a well-formed request is
never refused for its label. A body that is not JSON still gets 422 invalid_request.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})
_JSON = b"application/json"


class JsonBodies:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in _WITH_BODY:
            headers = [(k, v) for k, v in scope["headers"] if k != b"content-type"]
            declared = [v for k, v in scope["headers"] if k == b"content-type"]
            if not declared or not declared[0].split(b";")[0].strip().endswith(b"json"):
                scope["headers"] = [*headers, (b"content-type", _JSON)]  # in place: routes label it
        await self.app(scope, receive, send)
