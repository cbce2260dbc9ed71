"""The dispute report (infrastructure.audit.dispute) as one self-contained HTML page: no scripts, no
external files, every value escaped. Screens are tables (5 reels across, 3 rows down); a line
win repeats its step's screen with the payline's cells marked."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.25em .6em}
th{background:#f3f3f3;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.screen td{width:6.5em;height:2.2em;text-align:center;font-family:monospace}
table.screen td.on{background:#ffd27a;font-weight:bold}
table.screen td.line{background:#fff3d6}
.ok{color:#0a6b0a;font-weight:bold}.bad{color:#b00000;font-weight:bold}
.hash{font-family:monospace;font-size:.8em;word-break:break-all}
pre{background:#f7f7f7;padding:1em;overflow-x:auto;font-size:.8em}
.verdict{padding:.8em 1em;border:2px solid;display:inline-block;font-size:1.2em}
"""


def _e(value: Any) -> str:
    if isinstance(value, (dict, list)):
        value = json.dumps(value)
    return escape("" if value is None else str(value), quote=True)


def _rows(pairs: Iterable[tuple[str, Any]]) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in pairs)
    return f"<table>{body}</table>"


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(
            f'<td class="num">{_e(c)}</td>' if isinstance(c, (int, float)) and not isinstance(
                c, bool) else f"<td>{_e(c)}</td>" for c in row) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def screen_table(
    screen: Sequence[Sequence[str]],
    marked: Iterable[Sequence[int]] = (),
    line: Iterable[Sequence[int]] = (),
) -> str:
    """A screen given reel by reel (top to bottom) drawn row by row. `marked` cells ([reel,
    row]) are the winning ones; `line` cells are the rest of the payline."""
    on = {(int(reel), int(row)) for reel, row in marked}
    path = {(int(reel), int(row)) for reel, row in line}

    def cell(reel: int, row: int, value: str) -> str:
        style = ' class="on"' if (reel, row) in on else ' class="line"' if (
            reel, row) in path else ""
        return f"<td{style}>{_e(value)}</td>"

    head = "".join(f"<th>reel {r + 1}</th>" for r in range(len(screen)))
    body = ""
    for row in range(len(screen[0]) if screen else 0):
        cells = "".join(cell(r + 1, row, reel[row]) for r, reel in enumerate(screen))
        body += f"<tr>{cells}</tr>"
    return f'<table class="screen"><tr>{head}</tr>{body}</table>'


def _verdict(ok: bool, yes: str, no: str) -> str:
    return f'<span class="ok">{_e(yes)}</span>' if ok else f'<span class="bad">{_e(no)}</span>'


_FEATURES = (
    ("multiplier", "multiplier"), ("respins_left", "respins left"),
    ("collectors", "collector reels"), ("collected", "collected this step (before multiplier)"),
    ("free_spins_awarded", "free spins awarded"), ("free_spins_left", "free spins left"),
    ("wild_reels", "Wild Reels"), ("clover_moon_swap", "Clover Moon Swap"),
    ("booster", "booster"), ("normal_game_collector", "Normal Game Collector"),
    ("pumpkins_activated", "pumpkins activated (reels)"), ("jackpots_won", "jackpots won"),
    ("max_win_reached", "max win reached"),
)


def _step_html(step: dict[str, Any]) -> str:
    parts = [f"<h3>Step {_e(step['index'])}: {_e(step.get('kind'))} &mdash; "
             f"win {_e(step.get('win'))}</h3>"]
    if step.get("landed_screen") and step["landed_screen"] != step.get("screen"):
        parts.append("<p>Screen as landed:</p>" + screen_table(step["landed_screen"]))
        parts.append("<p>Final screen (after Wild Reels / Clover Moon Swap):</p>")
    parts.append(screen_table(step.get("screen", [])))
    states = [(label, step[key]) for key, label in _FEATURES if key in step]
    if states:
        parts.append("<p>Feature states:</p>" + _rows(states))
    for name, label in (("collections", "Collections (coins)"), ("jackpots", "Jackpots")):
        if step.get(name):
            items = step[name]
            keys = list(items[0])
            parts.append(f"<p>{_e(label)}:</p>" + _table(keys, ([i.get(k) for k in keys]
                                                                 for i in items)))
    for win in step.get("line_wins", []):
        parts.append(
            f"<p>Line {_e(win['line'])}: {_e(win['count'])} x {_e(win['symbol'])} pays "
            f"{_e(win['win'])} (before the step multiplier); payline rows by reel "
            f"{_e(win['payline'])} (row 0 is the top). Winning cells in bold, the rest of the "
            "payline shaded:</p>"
            + screen_table(step.get("screen", []), win["cells"][: int(win["count"])],
                           win["cells"][int(win["count"]):])
        )
    if step.get("line_wins"):
        parts.append(_table(("line", "symbol", "count", "win"),
                            ([w["line"], w["symbol"], w["count"], w["win"]]
                             for w in step["line_wins"])))
    return "".join(parts)


def render(report: dict[str, Any]) -> str:
    v = report["verification"]
    s = report["settlement"]
    ok = bool(v["round_ok"])
    chain = v["chain"]
    html = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>Dispute report {_e(report['round_id'])}</title><style>{_STYLE}</style>",
        "</head><body>",
        f"<h1>{_e(report['report'])}: round {_e(report['round_id'])}</h1>",
        f'<p class="verdict {"ok" if ok else "bad"}">'
        f"{'VERIFIED' if ok else 'NOT VERIFIED'}</p>",
        _rows([("player", report["player_id"]), ("session", report["session_id"]),
               ("generated at (UTC)", report["generated_at"])]),
        "<h2>1. What the round started from</h2>",
        _rows([("balance before", report["state_before"]["balance"]),
               *((k.replace("_", " "), val) for k, val in report["state_before"].items()
                 if k != "balance"),
               ("stake", report["stake"]), ("seed (256 bits, hex)", report["seed"]),
               ("math model version", report["model_version"])]),
        _fairness_html(report.get("fairness")),
        "<h2>2. Every step</h2>",
        *(_step_html(step) for step in report["steps"]),
        "<h2>3. Settlement</h2>",
        _table(("step", "kind", "win"),
               ([i, st.get("kind"), st.get("win")] for i, st in enumerate(report["steps"]))),
        _rows([("sum of step wins", s.get("sum_expression", s["sum_of_step_wins"])),
               ("max win cap (10,000 x stake)", s["max_win_cap"]),
               ("total win", s["total_win"]), ("max win hit", s["max_win_hit"]),
               ("balance before - stake + total win = balance after", s["equation"]),
               ("recorded balance after", s["balance_after"])]),
        "<p>Total win equals the steps' wins summed (capped): "
        + _verdict(s["total_win_agrees"], "yes", "NO") + "; balance arithmetic: "
        + _verdict(s["balance_agrees"], "agrees", "DOES NOT AGREE") + "</p>",
        _rows((k.replace("_", " ") + " after", val) for k, val in report["state_after"].items()),
        "<h2>4. Verification</h2>",
        "<p>Re-derived by the engine from the state before, the stake, the seed and the model "
        "version: " + _verdict(bool(v["rederived"] and v["rederived"]["ok"]),
                               "the same events, payloads and settlement",
                               "DIFFERENT from the record") + "</p>",
        "<p>Stream " + _e(chain["stream"]) + ", versions " + _e(chain["first_version"])
        + " to " + _e(chain["last_version"]) + " (the stream has "
        + _e(chain["stream_last_version"]) + " events); whole stream: "
        + _verdict(v["stream_ok"], "clean", f"{v['stream_problems_total']} problem(s)") + "</p>",
        _table(("version", "event", "prev_hash", "hash", "link"),
               ([e["version"], e["event"], e["prev_hash"], e["hash"],
                 "ok" if e["link_ok"] else "BROKEN"] for e in chain["events"])),
    ]
    if v["problems"]:
        html.append("<p>Problems found in this round:</p>" + _table(
            ("kind", "version", "field", "expected", "found", "detail"),
            ([p["kind"], p["version"], p["field"], p["expected"], p["found"], p["detail"]]
             for p in v["problems"])))
    html += [
        "<p>Each event's hash is the SHA-256 of its canonical JSON (stream, version, topic, "
        "every stored field); each prev_hash must equal the hash of the event before it.</p>",
        _transparency_html(report.get("transparency")),
        "<h2>5. The recorded events</h2>",
        f"<pre>{_e(json.dumps(report['events'], indent=1))}</pre>",
        "</body></html>",
    ]
    return "\n".join(html)


def _fairness_html(fair: dict[str, Any] | None) -> str:
    """The seed's provenance: committed before the bet, derived, revealed at the close."""
    if not fair:
        return "<p>A round from before provably fair seeds: its seed is recorded as drawn.</p>"
    revealed = fair["server_seed"] is not None
    rows = _rows([
        ("seed commitment (SHA-256 of the server seed)", fair["seed_commitment"]),
        ("server seed (revealed at the session's close)",
         fair["server_seed"] if revealed else "not yet revealed: the session is open"),
        ("nonce", fair["nonce"]), ("client seed", repr(fair["client_seed"])),
        ("HMAC message", fair["message"]), ("round seed = HMAC-SHA256(server seed, message)",
                                            fair["seed"]),
        ("how to check", fair["how_to_check"]),
    ])
    if not revealed:
        return rows
    return rows + ("<p>Commitment: " + _verdict(bool(fair["commitment_agrees"]), "agrees",
                                                 "DOES NOT AGREE")
                   + "; derivation: " + _verdict(bool(fair["seed_agrees"]), "agrees",
                                                 "DOES NOT AGREE") + "</p>")


def _transparency_html(log: dict[str, Any] | None) -> str:
    """The round's place in the transparency log: its leaf and inclusion proof up to a signed
    checkpoint, and how to check them."""
    if not log:
        return ""
    if not log["included"]:
        return f"<h3>Transparency log</h3><p>{_e(log['note'])}</p>"
    return "<h3>Transparency log</h3>" + _rows([
        ("leaf (canonical JSON)", log["leaf"]), ("leaf index", log["leaf_index"]),
        ("leaf hash = SHA-256(0x00 || leaf)", log["leaf_hash"]),
        ("tree size", log["tree_size"]), ("root hash", log["root_hash"]),
        ("inclusion proof (RFC 9162), leaf to root", " ".join(log["inclusion"])),
        ("how to check", log["how_to_check"]),
    ]) + f"<p>The signed checkpoint:</p><pre>{_e(log['checkpoint'])}</pre>"
