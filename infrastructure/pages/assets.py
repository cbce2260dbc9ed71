"""The pages' static files under a name made of their contents, served from memory.

The pages link `/static/pages-<12 hex of SHA-256 over every file's path and bytes>/...`, answered
`Cache-Control: public, max-age=31536000, immutable`: a browser that has seen a page loads it again
with no request for its files, and a deploy that changes any file changes the name (no module kept
stale). The files are read once, when the service starts (they are what the name says, whatever
happens on disk later), and each answer is one message: no file system call, no thread hop, which
is most of what a page's first load costs a busy server (about 17 files for /play)."""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from starlette.types import Receive, Scope, Send

IMMUTABLE = (b"cache-control", b"public, max-age=31536000, immutable")
_TEXT = ("text/", "application/javascript", "application/json")


@dataclass(frozen=True)
class _File:
    body: bytes
    content_type: bytes
    etag: bytes


def contents_version(root: Path) -> str:
    """12 hex digits of SHA-256 over every file's path and bytes: a new file, a new name."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _content_type(name: str) -> bytes:
    guessed = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return (guessed + "; charset=utf-8" if guessed.startswith(_TEXT) else guessed).encode()


class ContentsNamedFiles:
    """An ASGI app answering GET and HEAD for the files under `root`, from memory, each with
    `headers` (the pages' security headers) and IMMUTABLE."""

    def __init__(self, root: Path, headers: list[tuple[bytes, bytes]]) -> None:
        self.files: dict[str, _File] = {}
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            body = path.read_bytes()
            name = path.relative_to(root).as_posix()
            etag = b'"' + hashlib.sha256(body).hexdigest()[:32].encode() + b'"'
            self.files[name] = _File(body, _content_type(name), etag)
        self.version = contents_version(root)
        self.prefix = f"/static/pages-{self.version}"
        self.headers = [*headers, IMMUTABLE]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        path: str = scope["path"]
        if path.startswith(self.prefix):  # mounted: the path as the client sent it
            path = path[len(self.prefix):]
        found = self.files.get(path.lstrip("/"))
        method = scope["method"]
        if found is None or method not in ("GET", "HEAD"):
            status, body = (404, b"Not Found") if found is None else (405, b"Method Not Allowed")
            head = [(b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()), *self.headers[:-1]]
            await send({"type": "http.response.start", "status": status, "headers": head})
            await send({"type": "http.response.body", "body": body})
            return
        asked = dict(scope["headers"]).get(b"if-none-match")
        status = 304 if asked == found.etag else 200
        head = [(b"content-type", found.content_type), (b"etag", found.etag), *self.headers]
        if status == 200:
            head.append((b"content-length", str(len(found.body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": head})
        body = found.body if status == 200 and method == "GET" else b""
        await send({"type": "http.response.body", "body": body})
