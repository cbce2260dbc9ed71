"""`pumpkin wallet-conformance` (CONTRACT.md "The operator's seamless wallet"): it passes the
reference wallets of both protocols in well under 30 s, and names each break of deliberately
broken ones, exiting 1."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from wallet_kinds_support import SECRET, hub88_keys, reference_wallet

from infrastructure.wallet.conformance import Report, conformance, wallets_for
from infrastructure.wallet.hub88_reference import Hub88ReferenceWallet, Hub88Server
from infrastructure.wallet.reference import CALLS, Ledger, ReferenceWallet, WalletServer
from infrastructure.wallet.signing import verified

START = 50  # under 100: the insufficient-funds case runs


def run_against(wallet: ReferenceWallet, player: str = "conformance-player") -> Report:
    wallet.set_balance(player, START)
    keys = hub88_keys()
    if isinstance(wallet, Hub88ReferenceWallet):
        wallets = wallets_for(wallet.url, "hub88", private_key_file=keys.supplier_file,
                              public_key_file=keys.hub88_public_file)
        return asyncio.run(conformance(wallet.url, "hub88", player, wallets))
    wallets = wallets_for(wallet.url, "pumpkin", secret=SECRET)
    return asyncio.run(conformance(wallet.url, "pumpkin", player, wallets))


def failed(report: Report) -> list[str]:
    return [case.name for case in report.cases if not case.ok]


@pytest.mark.parametrize("protocol", ["pumpkin", "hub88"])
def test_the_reference_wallet_conforms_in_under_30_seconds(protocol: str) -> None:
    with reference_wallet(protocol) as wallet:
        report = run_against(wallet)
        assert report.ok, report.as_text()
        assert report.seconds < 30
        assert wallet.ledger.balances["conformance-player"] == START  # where it started
    names = [case.name for case in report.cases]
    assert "a debit over the balance is refused as insufficient funds" in names
    assert "a new debit sent 8 at once is applied once" in names
    if protocol == "pumpkin":
        assert "a stale signature (t 600 s old) is refused" in names
        assert "a signature made for another call is refused" in names
    assert report.as_text().endswith("CONFORMANT")


class ForgetfulLedger(Ledger):
    """Applies a repeated transaction id again."""

    def apply(self, call: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if call == "balance":
                return 200, {"balance": self.balance_of(str(body["player_id"]))}
            return self._apply_new(call, body)


class OverdraftLedger(Ledger):
    """Lets a debit take the balance below zero."""

    def _apply_new(self, call: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if call == "debit":
            player = str(body["player_id"])
            self.balances[player] = self.balance_of(player) - int(body["amount"])
            return 200, {"balance": max(self.balances[player], 0)}
        return super()._apply_new(call, body)


class LateDebitLedger(Ledger):
    """Forgets the rollback of a debit it never saw, so the late debit is applied."""

    def _apply_new(self, call: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        answer = super()._apply_new(call, body)
        if call == "rollback" and str(body["debit_transaction_id"]) not in self.transactions:
            self.rolled_back.discard(str(body["debit_transaction_id"]))
        return answer


class AnySignature(WalletServer):
    def signed(self, call: str, headers: dict[str, str], raw: bytes) -> bool:
        return True


class AnyTime(WalletServer):
    """Checks the signature but not its time."""

    def signed(self, call: str, headers: dict[str, str], raw: bytes) -> bool:
        return verified(self.secret, call, raw, headers.get("x-pumpkin-signature", ""),
                        window=10**12)


class AnyCall(WalletServer):
    """Takes a signature made for any call (the old body-only check, in effect)."""

    def signed(self, call: str, headers: dict[str, str], raw: bytes) -> bool:
        header = headers.get("x-pumpkin-signature", "")
        return any(verified(self.secret, other, raw, header) for other in CALLS)


class AnyHub88Signature(Hub88Server):
    def signed(self, call: str, headers: dict[str, str], raw: bytes) -> bool:
        return True


def pumpkin_wallet(ledger: Ledger | None = None,
                   server: Callable[[Ledger], WalletServer] | None = None) -> ReferenceWallet:
    return ReferenceWallet(SECRET, server=server, ledger=ledger)


def hub88_wallet(ledger: Ledger | None = None, any_signature: bool = False) -> ReferenceWallet:
    keys = hub88_keys()
    wallet = Hub88ReferenceWallet(keys.supplier.public_key(), keys.hub88, ledger=ledger)
    if any_signature:
        wallet._handler = AnyHub88Signature(keys.supplier.public_key(), keys.hub88, wallet.ledger)
    return wallet


BROKEN: dict[str, tuple[Callable[[], ReferenceWallet], set[str]]] = {
    "pumpkin accepts any signature": (
        lambda: pumpkin_wallet(server=lambda ledger: AnySignature(SECRET, ledger)),
        {"a wrong signature is refused"}),
    "pumpkin accepts a stale signature": (
        lambda: pumpkin_wallet(server=lambda ledger: AnyTime(SECRET, ledger)),
        {"a stale signature (t 600 s old) is refused"}),
    "pumpkin accepts another call's signature": (
        lambda: pumpkin_wallet(server=lambda ledger: AnyCall(SECRET, ledger)),
        {"a signature made for another call is refused"}),
    "hub88 accepts any signature": (
        lambda: hub88_wallet(any_signature=True), {"a wrong signature is refused"}),
    "pumpkin applies repeats again": (
        lambda: pumpkin_wallet(ForgetfulLedger()),
        {"a repeated debit is answered as the first", "a repeated debit is applied once",
         "a new debit sent 8 at once is applied once", "the balance ends where it started"}),
    "hub88 forgets its transactions": (  # so a rollback finds no bet to give back
        lambda: hub88_wallet(ForgetfulLedger()),
        {"a rollback gives its debit back, once", "the balance ends where it started"}),
    "pumpkin lets a balance go negative": (
        lambda: pumpkin_wallet(OverdraftLedger()),
        {"a debit over the balance is refused as insufficient funds"}),
    "hub88 takes a late debit": (
        lambda: hub88_wallet(LateDebitLedger()),
        {"a debit arriving after its rollback is refused"}),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_wallet_fails_with_each_break_named(name: str) -> None:
    make, breaks = BROKEN[name]
    with make() as wallet:
        report = run_against(wallet)
    assert not report.ok
    assert breaks <= set(failed(report)), report.as_text()
    assert "NOT CONFORMANT: " in report.as_text()


def test_an_answer_that_is_not_a_clean_200_fails_the_debit_case() -> None:
    with pumpkin_wallet() as wallet:
        wallet.inject("accepted", "debit", count=None)  # every debit answered 202
        report = run_against(wallet)
    assert "a debit is applied" in failed(report)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from infrastructure.cli import main; main()",
         "wallet-conformance", *args],
        capture_output=True, text=True, timeout=120,
    )


def test_the_command_exits_0_on_a_conformant_wallet_and_1_naming_each_failed_case() -> None:
    with pumpkin_wallet() as wallet:
        wallet.set_balance("p", START)
        good = cli(wallet.url, "--secret", SECRET, "--player", "p")
        assert good.returncode == 0, good.stdout + good.stderr
        assert "CONFORMANT" in good.stdout and "FAIL" not in good.stdout
    with pumpkin_wallet(OverdraftLedger()) as wallet:
        wallet.set_balance("p", START)
        bad = cli(wallet.url, "--secret", SECRET, "--player", "p", "--json")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    report = json.loads(bad.stdout)
    assert report["ok"] is False
    failing = {c["name"]: c for c in report["cases"] if not c["ok"]}
    case = failing["a debit over the balance is refused as insufficient funds"]
    assert set(case) == {"name", "ok", "detail"} and case["detail"].startswith("accepted")


def test_the_hub88_command_needs_the_supplier_key() -> None:
    missing = cli("http://127.0.0.1:9", "--protocol", "hub88", "--player", "p")
    assert missing.returncode == 2 and "--private-key" in missing.stderr
