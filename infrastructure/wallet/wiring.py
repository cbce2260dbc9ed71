"""The wallet the settings ask for (called by the composition root): the built-in one, or the
operator's seamless wallet when PUMPKIN_WALLET_URL is set."""

from __future__ import annotations

from infrastructure.rules_in_force import RulesInForce
from infrastructure.settings import Settings
from infrastructure.store.command_runner import CommandRunner
from infrastructure.wallet.builtin import BuiltInWallet
from infrastructure.wallet.client import WalletClient
from infrastructure.wallet.client_wallet import ClientWallet
from infrastructure.wallet.outbox import Outbox
from infrastructure.wallet.port import Wallet
from infrastructure.wallet.seamless import SeamlessWallet

# An open debit older than this (seconds, past the client's timeout) was abandoned by its sender.
STALE_MARGIN = 10.0


def wallet_for(settings: Settings, runner: CommandRunner, rules: RulesInForce) -> Wallet:
    if not settings.wallet_url:
        return BuiltInWallet(runner, rules, settings.currency)
    client = WalletClient(
        settings.wallet_url, settings.wallet_secret.get_secret_value(),
        settings.wallet_timeout_seconds,
    )
    protocol = ClientWallet(client, settings.currency)
    outbox = Outbox(
        runner.store, runner.accounts, protocol, rules.now,
        stale_after=settings.wallet_timeout_seconds + STALE_MARGIN,
    )
    return SeamlessWallet(
        runner, runner.accounts, protocol, outbox, settings.currency, rules,
        timeout_seconds=settings.wallet_timeout_seconds,
    )
