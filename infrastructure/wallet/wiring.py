"""The wallet the settings ask for (called by the composition root): the built-in one, or the
operator's seamless wallet when PUMPKIN_WALLET_URL is set."""

from __future__ import annotations

from infrastructure.rules_in_force import RulesInForce
from infrastructure.settings import Settings
from infrastructure.store.command_runner import CommandRunner
from infrastructure.wallet.builtin import BuiltInWallet
from infrastructure.wallet.client import WalletClient
from infrastructure.wallet.client_wallet import ClientWallet
from infrastructure.wallet.hub88 import Hub88Wallet, hub88_signer, load_private_key, load_public_key
from infrastructure.wallet.outbox import Outbox
from infrastructure.wallet.port import Wallet, WalletProtocol
from infrastructure.wallet.seamless import SeamlessWallet

# An open debit older than this (seconds, past the client's timeout) was abandoned by its sender.
STALE_MARGIN = 10.0


def wallet_for(settings: Settings, runner: CommandRunner, rules: RulesInForce) -> Wallet:
    if not settings.wallet_url:
        return BuiltInWallet(runner, rules, settings.currency)
    protocol = protocol_for(settings)
    outbox = Outbox(
        runner.store, runner.accounts, protocol, rules.now,
        stale_after=settings.wallet_timeout_seconds + STALE_MARGIN,
    )
    return SeamlessWallet(
        runner, runner.accounts, protocol, outbox, settings.currency, rules,
        timeout_seconds=settings.wallet_timeout_seconds,
    )


def protocol_for(settings: Settings) -> WalletProtocol:
    """The adapter of the operator's wallet API (PUMPKIN_WALLET_PROTOCOL) over the client."""
    if settings.wallet_protocol == "hub88":
        client = WalletClient(
            settings.wallet_url, timeout_seconds=settings.wallet_timeout_seconds,
            signer=hub88_signer(load_private_key(settings.wallet_private_key_file)),
        )
        hub88_key = (
            load_public_key(settings.wallet_public_key_file)
            if settings.wallet_public_key_file else None
        )
        return Hub88Wallet(client, settings.currency, settings.wallet_game_code, hub88_key)
    client = WalletClient(
        settings.wallet_url, settings.wallet_secret.get_secret_value(),
        settings.wallet_timeout_seconds,
    )
    return ClientWallet(client, settings.currency)
