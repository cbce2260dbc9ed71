"""The read models' tests run on both wallets: `table` is the service on the built-in wallet
and on the operator's seamless wallet (tests/wallet_kinds_support.py), on each store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from wallet_kinds_support import WALLETS, Table, table_on


@pytest.fixture(params=WALLETS)
def table(request: pytest.FixtureRequest, store_url: str) -> Iterator[Table]:
    with table_on(request.param, store_url) as playing:
        yield playing
