"""The browser tests' one chromium (Debian's, /usr/bin/chromium, driven by Playwright)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import CHROMIUM, ChromiumThread


@pytest.fixture(scope="session")
def chromium() -> Iterator[ChromiumThread]:
    """ONE chromium for the whole test session."""
    assert Path(CHROMIUM).exists(), "apt-get install -y chromium (the .ci/run script does)"
    browser = ChromiumThread()
    yield browser
    browser.close()
