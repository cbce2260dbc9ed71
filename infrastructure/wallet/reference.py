"""A reference seamless wallet (CONTRACT.md "The operator's seamless wallet"), for development,
tests and benchmarks: a small real HTTP server, not a mock.

It keeps balances in memory, answers a repeated `transaction_id` exactly as the first time,
refuses a debit that arrives after its rollback, checks every request's signature (signing.py:
the time, the call's name and the body; 401 when wrong or more than 300 s from its clock), and
can be told to misbehave (fault injection) on the next calls of a kind, or at random:

- `fail_before`: answer 500 without applying;
- `fail_after`:  apply, then answer 500;
- `timeout`:     apply, then answer only after `delay` seconds (past the caller's timeout);
- `refuse`:      answer 403 (another 4xx: the service's `wallet_refused`) without applying;
- `drop`:        apply, then close the connection without an answer;
- `close_unanswered`: read the request, apply nothing, close the connection without an answer
  (a kept-alive connection closed under a request: a transport that resends it is caught by
  `received`, which counts every request of a transaction id);
- `accepted`:    apply, then answer 202 (a 2xx that is not 200) with the balance;
- `huge_balance`, `bool_balance`, `negative_balance`: apply, then answer with a balance
  of 2^70, `true` or -1;
- `oversized`:   apply, then answer with the balance and OVERSIZED_BYTES of padding.

Control (no signature; loopback only): `POST /_control/players {"player_id", "balance"}`,
`POST /_control/faults {"call", "fault", "count"?, "rate"?, "delay"?}`, `POST /_control/reset`
(faults off), `GET /_control/state` (balances and every transaction applied).

Run standalone: `python -m infrastructure.wallet.reference --port 9000 --secret S [--balance N]`
(every unknown player starts with --balance).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from infrastructure.wallet.signing import verified

FAULTS = (
    "fail_before", "fail_after", "timeout", "refuse", "drop", "accepted", "huge_balance",
    "bool_balance", "negative_balance", "oversized", "close_unanswered",
)
CALLS = ("debit", "credit", "rollback", "balance")
OVERSIZED_BYTES = 1024 * 1024
_BAD_BALANCES: dict[str, Any] = {
    "huge_balance": 2**70, "bool_balance": True, "negative_balance": -1,
}


@dataclass
class Fault:
    call: str  # one of CALLS or "*"
    fault: str
    count: int | None = None  # the next N matching calls; None: every call, at `rate`
    rate: float = 1.0
    delay: float = 5.0


@dataclass
class Ledger:
    """Balances and transactions; every method holds the lock."""

    default_balance: int = 0
    balances: dict[str, int] = field(default_factory=dict)
    # transaction_id -> {"call", "body", "status", "answer"}
    transactions: dict[str, dict[str, Any]] = field(default_factory=dict)
    rolled_back: set[str] = field(default_factory=set)  # debit ids a rollback named
    faults: list[Fault] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    calls: int = 0
    received: Counter[str] = field(default_factory=Counter)  # "<call> <transaction_id>" -> n

    def receive(self, call: str, body: dict[str, Any]) -> None:
        if "transaction_id" in body:
            with self.lock:
                self.received[f"{call} {body['transaction_id']}"] += 1

    def balance_of(self, player_id: str) -> int:
        return self.balances.setdefault(player_id, self.default_balance)

    def fault_for(self, call: str) -> Fault | None:
        with self.lock:
            self.calls += 1
            for fault in self.faults:
                if fault.call not in ("*", call):
                    continue
                if fault.count is not None:
                    fault.count -= 1
                    if fault.count <= 0:
                        self.faults.remove(fault)
                    return fault
                if random.random() < fault.rate:  # noqa: S311 - fault injection, not a secret
                    return fault
            return None

    def apply(self, call: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if call == "balance":
                return 200, {"balance": self.balance_of(str(body["player_id"]))}
            transaction_id = str(body["transaction_id"])
            seen = self.transactions.get(transaction_id)
            if seen is not None:
                return int(seen["status"]), dict(seen["answer"])
            status, answer = self._apply_new(call, body)
            self.transactions[transaction_id] = {
                "call": call, "body": body, "status": status, "answer": answer,
            }
            return status, answer

    def _apply_new(self, call: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        player_id = str(body["player_id"])
        balance = self.balance_of(player_id)
        if call == "debit":
            amount = int(body["amount"])
            if str(body["transaction_id"]) in self.rolled_back:
                return 409, {"error": "rolled_back"}
            if amount > balance:
                return 402, {"error": "insufficient_funds"}
            self.balances[player_id] = balance - amount
        elif call == "credit":
            self.balances[player_id] = balance + int(body["amount"])
        elif call == "rollback":
            debit_id = str(body["debit_transaction_id"])
            self.rolled_back.add(debit_id)
            debit = self.transactions.get(debit_id)
            if debit is not None and debit["status"] == 200:
                self.balances[player_id] = balance + int(debit["body"]["amount"])
        return 200, {"balance": self.balances[player_id]}

    def state(self) -> dict[str, Any]:
        with self.lock:
            return {
                "balances": dict(self.balances),
                "transactions": {
                    tx: {"call": t["call"], "status": t["status"], **t["body"]}
                    for tx, t in self.transactions.items()
                },
                "calls": self.calls,
                "received": dict(self.received),
            }


class WalletServer:
    """HTTP/1.1 with keep-alive on asyncio streams, one event loop: small and cheap enough that
    the wallet does not weigh on a benchmark sharing its cores (the standard library's threaded
    server parsed headers with the email package and took a thread per connection).

    The wire protocol is in the hooks (`call_of`, `signed`, `read`, `apply`, `refused`, ...):
    this class speaks the Pumpkin one; hub88_reference.py overrides them for Hub88's."""

    def __init__(self, secret: str, ledger: Ledger) -> None:
        self.secret = secret
        self.ledger = ledger

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    return
                method, path, *_ = request_line.decode("latin-1").split()
                headers: dict[str, str] = {}
                while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                raw = await reader.readexactly(int(headers.get("content-length") or 0))
                answer = await self._answer(method, path, headers, raw)
                if answer is None:  # fault: drop the connection without a word
                    return
                status, body = answer
                data = json.dumps(body).encode("utf-8")
                writer.write(
                    f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                    f"{self.answer_headers(data)}\r\n".encode("latin-1") + data
                )
                await writer.drain()
        except (OSError, ValueError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def _answer(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, Any]] | None:
        path = path.strip("/")
        if method == "GET":
            if path == "_control/state":
                return 200, self.ledger.state()
            return 404, {"error": "not_found"}
        if path.startswith("_control/"):
            return self._control(path.removeprefix("_control/"), raw)
        call = self.call_of(path)
        if call is None:
            return 404, {"error": "not_found"}
        if not self.signed(call, headers, raw):
            return self.bad_signature()
        try:
            body = self.read(call, json.loads(raw))
        except (KeyError, TypeError, ValueError):
            return 400, {"error": "invalid_request"}
        self.ledger.receive(self.counted_as(call, body), body)
        fault = self.ledger.fault_for(call)
        kind = None if fault is None else fault.fault
        if kind == "close_unanswered":
            return None
        if kind == "fail_before":
            return self.failed()
        if kind == "refuse":
            return self.refused()
        try:
            status, answer = self.apply(call, body)
        except (KeyError, TypeError, ValueError):
            return 400, {"error": "invalid_request"}
        if fault is None:
            return status, answer
        if kind == "fail_after":
            return self.failed()
        return await _misbehave(fault, status, answer)

    # -- the wire protocol (the Pumpkin one: CONTRACT.md) -------------------------------------

    def call_of(self, path: str) -> str | None:
        """The call (one of CALLS) a path names; None: not a wallet call."""
        return path if path in CALLS else None

    def counted_as(self, call: str, body: dict[str, Any]) -> str:
        """The call a request is counted under in `received`."""
        return call

    def signed(self, call: str, headers: dict[str, str], raw: bytes) -> bool:
        return verified(self.secret, call, raw, headers.get("x-pumpkin-signature", ""))

    def bad_signature(self) -> tuple[int, dict[str, Any]]:
        return 401, {"error": "bad_signature"}

    def refused(self) -> tuple[int, dict[str, Any]]:
        return 403, {"error": "refused"}

    def failed(self) -> tuple[int, dict[str, Any]]:
        return 500, {"error": "injected"}

    def read(self, call: str, body: Any) -> dict[str, Any]:
        """The request as the ledger takes it (CONTRACT.md's fields)."""
        if not isinstance(body, dict):
            raise TypeError("a JSON object")
        return body

    def apply(self, call: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return self.ledger.apply(call, body)

    def answer_headers(self, data: bytes) -> str:
        """Extra header lines for an answer (each ending in CRLF)."""
        return ""

    def _control(self, what: str, raw: bytes) -> tuple[int, dict[str, Any]]:
        ledger = self.ledger
        body = json.loads(raw or b"{}")
        if what == "players":
            with ledger.lock:
                ledger.balances[str(body["player_id"])] = int(body["balance"])
        elif what == "faults":
            if body.get("fault") not in FAULTS:
                return 422, {"error": f"fault is one of {FAULTS}"}
            with ledger.lock:
                ledger.faults.append(Fault(
                    call=str(body.get("call", "*")), fault=str(body["fault"]),
                    count=body.get("count"), rate=float(body.get("rate", 1.0)),
                    delay=float(body.get("delay", 5.0)),
                ))
        elif what == "reset":
            with ledger.lock:
                ledger.faults.clear()
        else:
            return 404, {"error": "not_found"}
        return 200, {"ok": True}


async def _misbehave(
    fault: Fault, status: int, answer: dict[str, Any]
) -> tuple[int, dict[str, Any]] | None:
    """The answer a fault makes of an applied call's (None: close without an answer)."""
    kind = fault.fault
    if kind == "timeout":
        await asyncio.sleep(fault.delay)
        return status, answer
    if kind == "accepted":
        return 202, answer
    if kind in _BAD_BALANCES:
        return status, {**answer, "balance": _BAD_BALANCES[kind]}
    if kind == "oversized":
        return status, {**answer, "padding": "x" * OVERSIZED_BYTES}
    return None  # drop


_REASONS = {200: "OK", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized",
            402: "Payment Required", 403: "Forbidden", 404: "Not Found", 409: "Conflict",
            422: "Unprocessable Entity", 500: "Internal Server Error"}


class ReferenceWallet:
    """The wallet on 127.0.0.1 (port 0: a free one), its event loop in a thread of this
    process (start/stop), or in the main thread (`run_forever`, the standalone command)."""

    def __init__(
        self, secret: str, port: int = 0, default_balance: int = 0,
        server: Callable[[Ledger], WalletServer] | None = None, ledger: Ledger | None = None,
    ) -> None:
        self.ledger = ledger or Ledger(default_balance=default_balance)
        self._handler = (server or (lambda ledger: WalletServer(secret, ledger)))(self.ledger)
        self._socket = socket.create_server(("127.0.0.1", port), backlog=512)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ReferenceWallet:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        ready = threading.Event()
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._serve(ready)), name="reference-wallet", daemon=True
        )
        self._thread.start()
        ready.wait(10)

    def run_forever(self) -> None:
        asyncio.run(self._serve(threading.Event()))

    async def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        server = await asyncio.start_server(self._handler.serve, sock=self._socket)
        ready.set()
        async with server:
            await self._stopped.wait()

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(10)
        self._socket.close()

    def set_balance(self, player_id: str, balance: int) -> None:
        with self.ledger.lock:
            self.ledger.balances[player_id] = balance

    def inject(self, fault: str, call: str = "*", count: int | None = 1, rate: float = 1.0,
               delay: float = 5.0) -> None:
        if fault not in FAULTS:
            raise ValueError(f"fault is one of {FAULTS}")
        with self.ledger.lock:
            self.ledger.faults.append(Fault(call, fault, count, rate, delay))

    def heal(self) -> None:
        with self.ledger.lock:
            self.ledger.faults.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description="Pumpkin RGS reference seamless wallet")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--balance", type=int, default=0, help="an unknown player's balance")
    args = parser.parse_args()
    try:
        ReferenceWallet(args.secret, args.port, args.balance).run_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
