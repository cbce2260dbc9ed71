"""The pages' files are named by their contents (issue 25, speed): a page links them under
`/static/pages-<12 hex>/`, answered `immutable` for a year, so a page seen before loads with no
request for its scripts, styles or sprite, and a changed file changes the name (no stale module
after a deploy). The plain `/static/pages/` names still answer, revalidated as before."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from http_support import served_client

from infrastructure.pages.assets import contents_version
from infrastructure.pages.web import ASSETS_PREFIX, CONTENT_SECURITY_POLICY, STATIC_PREFIX

IMMUTABLE = "public, max-age=31536000, immutable"


@pytest.fixture(scope="module")
def client(module_store_url: str) -> Iterator[TestClient]:
    with served_client(module_store_url) as test_client:
        yield test_client


def linked_files(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


def test_the_play_page_links_every_file_under_the_contents_name(client: TestClient) -> None:
    files = linked_files(client.get("/play").text)
    assert len(files) >= 15  # the stylesheets, the icon and every module (modulepreload)
    assert all(f.startswith(ASSETS_PREFIX + "/") for f in files), files
    assert re.fullmatch(r"/static/pages-[0-9a-f]{12}", ASSETS_PREFIX)


@pytest.mark.parametrize(
    "asset", ["pages.css", "play/main.js", "play/symbols.svg", "play/board.js"]
)
def test_a_file_under_the_contents_name_is_kept_for_good_with_the_pages_headers(
    client: TestClient, asset: str
) -> None:
    answer = client.get(f"{ASSETS_PREFIX}/{asset}")
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == IMMUTABLE
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    plain = client.get(f"{STATIC_PREFIX}/{asset}")
    assert answer.content == plain.content
    assert answer.headers["content-type"] == plain.headers["content-type"]
    assert answer.headers["x-frame-options"] == "DENY"


def test_a_file_under_the_contents_name_answers_head_not_modified_and_nothing_else(
    client: TestClient,
) -> None:
    asset = f"{ASSETS_PREFIX}/play/main.js"
    first = client.get(asset)
    head = client.head(asset)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(first.content))
    again = client.get(asset, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["x-content-type-options"] == "nosniff"
    assert client.post(asset).status_code == 405
    missing = client.get(f"{ASSETS_PREFIX}/play/nothing.js")
    assert missing.status_code == 404
    assert "immutable" not in missing.headers.get("cache-control", "")
    assert client.get(f"{ASSETS_PREFIX}/../web.py").status_code == 404


def test_the_plain_names_are_not_kept_for_good(client: TestClient) -> None:
    answer = client.get(f"{STATIC_PREFIX}/play/main.js")
    assert answer.status_code == 200 and "immutable" not in answer.headers.get("cache-control", "")


def test_the_sprite_is_found_beside_the_module_that_draws_it(client: TestClient) -> None:
    symbols = client.get(f"{ASSETS_PREFIX}/play/symbols.js").text
    assert 'new URL("./symbols.svg", import.meta.url)' in symbols
    assert "/static/pages/" not in symbols


def test_any_change_to_a_file_changes_the_name(tmp_path: Path) -> None:
    (tmp_path / "play").mkdir()
    (tmp_path / "play" / "main.js").write_text("one")
    first = contents_version(tmp_path)
    (tmp_path / "play" / "main.js").write_text("two")
    changed = contents_version(tmp_path)
    (tmp_path / "play" / "main.js").rename(tmp_path / "main.js")
    moved = contents_version(tmp_path)
    assert len({first, changed, moved}) == 3 and all(len(v) == 12 for v in (first, changed, moved))
