"""PUMPKIN_PUBLIC_URL and PUMPKIN_TRUSTED_PROXIES (issue 27 items 4 and 5): the service's own
address is configured, never read from a request's headers, and proxy headers are believed
only from the proxies the operator lists."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from infrastructure.http.server_limits import uvicorn_options
from infrastructure.settings import Settings


def test_the_public_url_defaults_to_the_address_served() -> None:
    assert Settings(host="10.1.2.3", port=9000).public_base_url() == "http://10.1.2.3:9000"
    configured = Settings(public_url="https://games.example.com/pumpkin/")
    assert configured.public_base_url() == "https://games.example.com/pumpkin"


@pytest.mark.parametrize("url", ["games.example.com", "ftp://x", "https://x/?a=1", "https://x/#f"])
def test_a_public_url_that_is_not_a_plain_http_base_is_refused(url: str) -> None:
    with pytest.raises(ValidationError, match="PUMPKIN_PUBLIC_URL"):
        Settings(public_url=url)


def test_no_proxy_is_trusted_by_default_not_even_loopback() -> None:
    options = uvicorn_options(Settings())
    assert options["proxy_headers"] is False
    assert options["forwarded_allow_ips"] == ""


def test_only_the_listed_proxies_are_trusted() -> None:
    options = uvicorn_options(Settings(trusted_proxies="10.0.0.1, 192.168.0.0/16"))
    assert options["proxy_headers"] is True
    assert options["forwarded_allow_ips"] == ["10.0.0.1", "192.168.0.0/16"]
