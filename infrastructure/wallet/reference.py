"""A reference seamless wallet (CONTRACT.md "The operator's seamless wallet"), for development,
tests and benchmarks: a small real HTTP server, not a mock.

It keeps balances in memory, answers a repeated `transaction_id` exactly as the first time,
refuses a debit that arrives after its rollback, checks every request's signature, and can be
told to misbehave (fault injection) on the next calls of a kind, or at random:

- `fail_before`: answer 500 without applying;
- `fail_after`:  apply, then answer 500;
- `timeout`:     apply, then answer only after `delay` seconds (past the caller's timeout);
- `refuse`:      answer 403 (another 4xx: the service's `wallet_refused`) without applying;
- `drop`:        apply, then close the connection without an answer.

Control (no signature; loopback only): `POST /_control/players {"player_id", "balance"}`,
`POST /_control/faults {"call", "fault", "count"?, "rate"?, "delay"?}`, `POST /_control/reset`
(faults off), `GET /_control/state` (balances and every transaction applied).

Run standalone: `python -m infrastructure.wallet.reference --port 9000 --secret S [--balance N]`
(every unknown player starts with --balance).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import random
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("fail_before", "fail_after", "timeout", "refuse", "drop")
CALLS = ("debit", "credit", "rollback", "balance")


def signature(secret: str, body: bytes) -> str:
    """The X-Pumpkin-Signature header's value for `body`."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


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
            }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the service's pooled client reuses connections
    # Headers and body go out in two writes: with Nagle's algorithm the second waited for the
    # client's delayed ACK (40 ms) on every call.
    disable_nagle_algorithm = True
    server: _WalletServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        return  # quiet: a benchmark sends thousands

    def do_GET(self) -> None:  # noqa: N802 - the base's name
        if self.path == "/_control/state":
            self._send(200, self.server.ledger.state())
        else:
            self._send(404, {"error": "not_found"})

    def do_POST(self) -> None:  # noqa: N802 - the base's name
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.strip("/")
        if path.startswith("_control/"):
            self._control(path.removeprefix("_control/"), raw)
            return
        if path not in CALLS:
            self._send(404, {"error": "not_found"})
            return
        expected = signature(self.server.secret, raw)
        if not hmac.compare_digest(self.headers.get("X-Pumpkin-Signature", ""), expected):
            self._send(401, {"error": "bad_signature"})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, {"error": "invalid_json"})
            return
        fault = self.server.ledger.fault_for(path)
        if fault is not None and fault.fault == "fail_before":
            self._send(500, {"error": "injected"})
            return
        if fault is not None and fault.fault == "refuse":
            self._send(403, {"error": "refused"})
            return
        try:
            status, answer = self.server.ledger.apply(path, body)
        except (KeyError, TypeError, ValueError):
            self._send(400, {"error": "invalid_request"})
            return
        if fault is None:
            self._send(status, answer)
        elif fault.fault == "fail_after":
            self._send(500, {"error": "injected"})
        elif fault.fault == "timeout":
            time.sleep(fault.delay)
            self._send(status, answer)
        else:  # drop
            self.close_connection = True
            self.connection.close()

    def _control(self, what: str, raw: bytes) -> None:
        ledger = self.server.ledger
        body = json.loads(raw or b"{}")
        if what == "players":
            with ledger.lock:
                ledger.balances[str(body["player_id"])] = int(body["balance"])
        elif what == "faults":
            if body.get("fault") not in FAULTS:
                self._send(422, {"error": f"fault is one of {FAULTS}"})
                return
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
            self._send(404, {"error": "not_found"})
            return
        self._send(200, {"ok": True})

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True  # the caller gave up (its timeout): nobody to answer


class _WalletServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 reset a pool's burst of connections

    def __init__(self, address: tuple[str, int], secret: str, ledger: Ledger) -> None:
        super().__init__(address, _Handler)
        self.secret = secret
        self.ledger = ledger


class ReferenceWallet:
    """The wallet on 127.0.0.1 (port 0: a free one) in a thread of this process."""

    def __init__(self, secret: str, port: int = 0, default_balance: int = 0) -> None:
        self.ledger = Ledger(default_balance=default_balance)
        self._server = _WalletServer(("127.0.0.1", port), secret, self.ledger)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="reference-wallet", daemon=True
        )

    def __enter__(self) -> ReferenceWallet:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

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
    wallet = ReferenceWallet(args.secret, args.port, args.balance)
    try:
        wallet._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        wallet._server.server_close()


if __name__ == "__main__":
    main()
