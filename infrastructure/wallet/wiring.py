"""Building the seamless wallet's service from the settings (called by the composition root)."""

from __future__ import annotations

from typing import Any

from infrastructure.settings import Settings
from infrastructure.wallet.client import WalletClient
from infrastructure.wallet.outbox import Outbox
from infrastructure.wallet.seamless import SeamlessWalletService

# An open debit older than this (seconds, past the client's timeout) was abandoned by its sender.
STALE_MARGIN = 10.0


def with_wallet(settings: Settings, application: Any) -> Any:
    """The application itself (the built-in wallet), or the seamless wallet's service around it
    when PUMPKIN_WALLET_URL is set."""
    if not settings.wallet_url:
        return application
    client = WalletClient(
        settings.wallet_url, settings.wallet_secret.get_secret_value(),
        settings.wallet_timeout_seconds,
    )
    outbox = Outbox(
        application, client, settings.currency, lambda: application.clock(),
        stale_after=settings.wallet_timeout_seconds + STALE_MARGIN,
    )
    return SeamlessWalletService(application, client, settings.currency, outbox)
