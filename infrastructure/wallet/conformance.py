"""`pumpkin wallet-conformance`: the test an operator runs against their own wallet before
go-live (CONTRACT.md "The operator's seamless wallet"), on either protocol.

It talks to the wallet through the service's own adapters (client_wallet.py, hub88.py), so a
case passes exactly when the service would read the wallet's answer as the contract says. The
test player's balance never moves more than MAX_MOVE minor units from where it started, and a
wallet that keeps the contract ends where it started. Cases, in order:

- a correct signature accepted (the balance asked); a wrong one refused; a stale `t` refused and a
  signature made for another call refused (the Pumpkin protocol; Hub88 signs the body only);
- a debit applied; repeated serially, then 8 at once, answered as the first and applied once;
- a credit naming its debit, repeated serially and 8 at once, applied once;
- a rollback undoing its debit, repeated 8 at once; a rollback of a debit never seen answered as
  done, and the late debit then refused;
- a free round's credit (Hub88: its zero bet and win) moving nothing but its win of 0;
- insufficient funds refused as such (when the start balance is under MAX_MOVE);
- `balance` agreeing with the moves at every step, and at the end.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any
from uuid import uuid4

import typer
from cryptography.hazmat.primitives.asymmetric import rsa

from infrastructure.wallet.client import Signer, WalletClient
from infrastructure.wallet.client_wallet import ClientWallet
from infrastructure.wallet.hub88 import Hub88Wallet, hub88_signer, load_private_key, load_public_key
from infrastructure.wallet.port import CallOutcome, Credit, Debit, Outcome, Rollback, WalletProtocol
from infrastructure.wallet.signing import HEADER, sign

MAX_MOVE = 100  # minor units the test player's balance may move from its start
STAKE = 10
AT_ONCE = 8


@dataclass(frozen=True)
class Case:
    name: str
    ok: bool
    detail: str


@dataclass
class Report:
    url: str
    protocol: str
    player_id: str
    cases: list[Case] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return bool(self.cases) and all(case.ok for case in self.cases)

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "url": self.url, "protocol": self.protocol,
                "player_id": self.player_id, "seconds": round(self.seconds, 2),
                "cases": [asdict(case) for case in self.cases]}

    def as_text(self) -> str:
        lines = [f"Wallet conformance of {self.url} ({self.protocol} protocol), "
                 f"test player {self.player_id}"]
        width = max((len(case.name) for case in self.cases), default=0)
        lines += [f"  {'PASS' if case.ok else 'FAIL'}  {case.name.ljust(width)}  {case.detail}"
                  for case in self.cases]
        failed = [case.name for case in self.cases if not case.ok]
        lines.append(f"{len(self.cases)} cases in {self.seconds:.1f} s: "
                     f"{len(self.cases) - len(failed)} passed, {len(failed)} failed")
        if failed:
            lines.append("NOT CONFORMANT: " + "; ".join(failed))
        else:
            lines.append("CONFORMANT")
        return "\n".join(lines)


@dataclass(frozen=True)
class Wallets:
    """The adapter under test, and the same wallet reached with bad signatures (None: the
    protocol has no such signature)."""

    good: WalletProtocol
    wrong_key: WalletProtocol
    stale: WalletProtocol | None = None
    other_call: WalletProtocol | None = None


def _said(outcome: CallOutcome) -> str:
    if outcome.succeeded:
        return f"accepted, balance {outcome.balance}"
    reason = outcome.detail or f"status {outcome.status}"
    return f"{outcome.outcome.value} ({reason})"


class _Run:
    def __init__(self, wallets: Wallets, report: Report) -> None:
        self.wallet = wallets.good
        self.wallets = wallets
        self.report = report
        self.player = report.player_id
        self.session = f"conformance-{uuid4().hex[:12]}"
        self.rounds = 0

    def case(self, name: str, ok: bool, detail: str) -> bool:
        self.report.cases.append(Case(name, ok, detail))
        return ok

    def round_id(self) -> str:
        self.rounds += 1
        return f"{self.session}.{self.rounds}"

    async def balance_is(self, name: str, expected: int, before: str) -> bool:
        """A case: the wallet's `balance` is `expected` after `before`."""
        asked = await self.wallet.balance(self.player)
        ok = asked.succeeded and asked.balance == expected
        return self.case(name, ok, f"{before}; balance {asked.balance} (expected {expected})"
                         if asked.succeeded else f"{before}; balance call {_said(asked)}")

    async def repeated(
        self, name: str, send: Callable[[], Awaitable[CallOutcome]], first: CallOutcome
    ) -> None:
        """A case: `send` again serially, then AT_ONCE at once, all answered as the first."""
        again = [await send()]
        again += await asyncio.gather(*(send() for _ in range(AT_ONCE)))
        differing = [o for o in again if (o.outcome, o.balance) != (first.outcome, first.balance)]
        self.case(name, not differing,
                  f"1 + {AT_ONCE} at once answered as the first ({_said(first)})" if not differing
                  else f"{len(differing)} of {len(again)} answered otherwise: "
                       f"{_said(differing[0])} (first {_said(first)})")

    async def signatures(self) -> int | None:
        """The signature cases; the start balance (None: the wallet cannot be tested)."""
        start = await self.wallet.balance(self.player)
        if not self.case("a correct signature is accepted", start.succeeded, _said(start)):
            return None
        wrong = await self.wallets.wrong_key.balance(self.player)
        self.case("a wrong signature is refused", not wrong.succeeded, _said(wrong))
        for name, wallet in (("a stale signature (t 600 s old) is refused", self.wallets.stale),
                             ("a signature made for another call is refused",
                              self.wallets.other_call)):
            if wallet is not None:
                said = await wallet.balance(self.player)
                self.case(name, not said.succeeded, _said(said))
        assert start.balance is not None
        return start.balance

    async def debits(self, start: int) -> tuple[Debit, Debit] | None:
        first = Debit(uuid4().hex, self.player, self.session, self.round_id(), STAKE)
        debited = await self.wallet.debit(first)
        if not self.case("a debit is applied", debited.succeeded
                         and debited.balance == start - STAKE, _said(debited)):
            return None
        await self.repeated("a repeated debit is answered as the first",
                            lambda: self.wallet.debit(first), debited)
        await self.balance_is("a repeated debit is applied once", start - STAKE,
                              "after one debit sent 10 times")
        second = Debit(uuid4().hex, self.player, self.session, self.round_id(), STAKE)
        at_once = await asyncio.gather(*(self.wallet.debit(second) for _ in range(AT_ONCE)))
        same = {(o.outcome, o.balance) for o in at_once}
        self.case(f"a new debit sent {AT_ONCE} at once is answered alike",
                  same == {(Outcome.SUCCESS, start - 2 * STAKE)},
                  ", ".join(sorted({_said(o) for o in at_once})))
        await self.balance_is(f"a new debit sent {AT_ONCE} at once is applied once",
                              start - 2 * STAKE, f"after a debit sent {AT_ONCE} at once")
        return first, second

    async def credit_and_rollback(self, start: int, first: Debit, second: Debit) -> None:
        credit = Credit(uuid4().hex, self.player, self.session, first.round_id, STAKE,
                        first.transaction_id, None)
        credited = await self.wallet.credit(credit)
        self.case("a credit naming its debit is applied", credited.succeeded, _said(credited))
        await self.repeated("a repeated credit is answered as the first",
                            lambda: self.wallet.credit(credit), credited)
        await self.balance_is("a repeated credit is applied once", start - STAKE,
                              "after one credit sent 10 times")
        rollback = Rollback(uuid4().hex, self.player, self.session, second.round_id, STAKE,
                            second.transaction_id)
        rolled = await self.wallet.rollback(rollback)
        self.case("a rollback of a debit is applied", rolled.succeeded, _said(rolled))
        await self.repeated("a repeated rollback is answered as the first",
                            lambda: self.wallet.rollback(rollback), rolled)
        await self.balance_is("a rollback gives its debit back, once", start,
                              "after one rollback sent 10 times")

    async def unseen_rollback(self, start: int) -> None:
        late = Debit(uuid4().hex, self.player, self.session, self.round_id(), STAKE)
        rolled = await self.wallet.rollback(Rollback(
            uuid4().hex, self.player, self.session, late.round_id, STAKE, late.transaction_id))
        self.case("a rollback of a debit never seen is done", rolled.succeeded, _said(rolled))
        debited = await self.wallet.debit(late)
        self.case("a debit arriving after its rollback is refused", not debited.succeeded,
                  _said(debited))
        if debited.succeeded:  # broken: give it back so the player ends where it started
            await self.wallet.rollback(Rollback(uuid4().hex, self.player, self.session,
                                                late.round_id, STAKE, late.transaction_id))

    async def free_round(self, start: int) -> None:
        credit = Credit(uuid4().hex, self.player, self.session, self.round_id(), 0, None,
                        "conformance")
        credited = await self.wallet.credit(credit)
        self.case("a free round's credit (win 0) is applied", credited.succeeded, _said(credited))
        await self.balance_is("a free round stakes nothing", start, "after a free round won 0")

    async def insufficient(self, start: int) -> None:
        name = "a debit over the balance is refused as insufficient funds"
        if start + 1 > MAX_MOVE:
            self.case(name, True, f"skipped: the test player's balance ({start}) is over "
                      f"{MAX_MOVE - 1}; give it less to run this case")
            return
        over = Debit(uuid4().hex, self.player, self.session, self.round_id(), start + 1)
        debited = await self.wallet.debit(over)
        self.case(name, debited.outcome is Outcome.INSUFFICIENT, _said(debited))
        if debited.succeeded:
            await self.wallet.rollback(Rollback(uuid4().hex, self.player, self.session,
                                                over.round_id, over.amount, over.transaction_id))


async def conformance(url: str, protocol: str, player_id: str, wallets: Wallets) -> Report:
    """Every case against the wallet; the report (its `ok` is the verdict)."""
    report = Report(url, protocol, player_id)
    started = time.perf_counter()
    run = _Run(wallets, report)
    try:
        start = await run.signatures()
        if start is not None:
            debits = await run.debits(start)
            if debits is not None:
                await run.credit_and_rollback(start, *debits)
            await run.unseen_rollback(start)
            await run.free_round(start)
            await run.insufficient(start)
            await run.balance_is("the balance ends where it started", start, "after every case")
    finally:
        report.seconds = time.perf_counter() - started
    return report


def wallets_for(
    url: str, protocol: str, *, secret: str = "", private_key_file: str = "",
    public_key_file: str = "", currency: str = "EUR", game_code: str = "pumpkin_rgs",
    timeout_seconds: float = 2.0,
) -> Wallets:
    """The service's adapter of `protocol` for the wallet at `url`, and its ill-signed twins."""
    if protocol == "hub88":
        hub88_key = load_public_key(public_key_file) if public_key_file else None

        def hub88(key: rsa.RSAPrivateKey) -> WalletProtocol:
            client = WalletClient(url, timeout_seconds=timeout_seconds, signer=hub88_signer(key))
            return Hub88Wallet(client, currency, game_code, hub88_key)

        stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return Wallets(hub88(load_private_key(private_key_file)), hub88(stranger))

    def pumpkin(signer: Signer) -> WalletProtocol:
        client = WalletClient(url, timeout_seconds=timeout_seconds, signer=signer)
        return ClientWallet(client, currency)

    def signed(key: str, age: int = 0, as_call: str | None = None) -> Signer:
        return lambda call, raw: {HEADER: sign(
            key, as_call or call, raw, int(time.time()) - age)}

    return Wallets(
        pumpkin(signed(secret)), pumpkin(signed(secret + "-not-the-secret")),
        stale=pumpkin(signed(secret, age=600)), other_call=pumpkin(signed(secret, as_call="debit")),
    )


def conformance_command(
    url: str, *, protocol: str, player_id: str, json_out: bool, secret: str = "",
    private_key_file: str = "", public_key_file: str = "", currency: str = "EUR",
    game_code: str = "pumpkin_rgs", timeout_seconds: float = 2.0,
) -> int:
    """Run every case and print the report (text, or JSON); 0 when every case holds, else 1."""
    wallets = wallets_for(
        url, protocol, secret=secret, private_key_file=private_key_file,
        public_key_file=public_key_file, currency=currency, game_code=game_code,
        timeout_seconds=timeout_seconds,
    )
    report = asyncio.run(conformance(url, protocol, player_id, wallets))
    typer.echo(json.dumps(report.as_json(), indent=2) if json_out else report.as_text())
    return 0 if report.ok else 1
