"""Answers about the operator's wallet, named for the rule they protect (mapped to HTTP in
infrastructure/http/errors.py)."""

from __future__ import annotations

from domain.errors import RuleViolation


class ExternalWallet(RuleViolation):
    """Deposits and withdrawals: the operator's wallet keeps the money, not this service."""

    code = "external_wallet"


class WalletRefused(RuleViolation):
    """The wallet refused the debit (a 4xx other than 402): no round was played."""

    code = "wallet_refused"


class WalletUnavailable(RuleViolation):
    """The debit's outcome is unknown (timeout, 5xx, broken connection): no round was played,
    the debit is rolled back, and the same request may be sent again (503, Retry-After)."""

    code = "wallet_unavailable"


class WalletUnknownOutcome(Exception):
    """A call to the wallet got no answer it can trust (timeout, 5xx, broken connection)."""
