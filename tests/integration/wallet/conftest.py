"""The wallet tests' shared setup: the operator's wallet (the reference wallet of the Pumpkin
protocol, a real HTTP server in this process; a module about another protocol gives its own
`wallet`) and the service `serve` builds around it (wallet_support.wallet_service)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from wallet_kinds_support import reference_wallet
from wallet_support import wallet_service

from infrastructure.wallet.reference import ReferenceWallet


@pytest.fixture
def wallet() -> Iterator[ReferenceWallet]:
    with reference_wallet("pumpkin") as running:
        yield running


@pytest.fixture
def served(store_url: str, wallet: ReferenceWallet) -> Iterator[tuple[Any, Any, Any]]:
    """(client, the seamless service, its clock), calling `wallet`."""
    with wallet_service(store_url, wallet) as parts:
        yield parts
