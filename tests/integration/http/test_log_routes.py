"""The transparency log over HTTP: GET /log/checkpoint, /log/key and /log/consistency to
anyone, a round's inclusion proof to whoever may read the round (409 not_in_checkpoint until a
checkpoint covers it), and witnesses' cosignatures taken from the auditor and served with the
checkpoint. Each proof is checked here with RFC 9162's verification alone."""

from __future__ import annotations

import base64
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from http_support import AUDITOR, OPERATOR, bearer
from log_support import log_client, play_session, sign_now

from domain.ledger.merkle import check_consistency, leaf_hash, root_from_inclusion
from infrastructure.application import PumpkinApplication
from infrastructure.transparency.log_builder import LogBuilder
from infrastructure.transparency.notes import (
    cosign,
    note,
    open_note,
    parse_checkpoint,
    parse_vkey,
    split_note,
)


def played(service: PumpkinApplication, spins: int) -> str:
    """ivy's session, with `spins` rounds (ivy.1, ivy.2, ...)."""
    return play_session(service, "ivy", spins)


def test_a_rounds_proof_leads_to_the_signed_checkpoint(
    service: PumpkinApplication, tmp_path: Path
) -> None:
    played(service, 3)
    with log_client(service, tmp_path / "log.key") as api:
        early = api.get("/rounds/ivy.2/proof", headers=bearer(OPERATOR))
        assert early.status_code == 409 and early.headers["Retry-After"]
        assert early.json()["error"]["code"] == "not_in_checkpoint"
        sign_now(api)
        vkey = api.get("/log/key").text.strip()
        checkpoint = api.get("/log/checkpoint")
        assert checkpoint.status_code == 200
        assert checkpoint.headers["content-type"].startswith("text/plain")
        text, _ = open_note(checkpoint.text, parse_vkey(vkey))
        head = parse_checkpoint(text)
        proof = api.get("/rounds/ivy.2/proof", headers=bearer(AUDITOR)).json()
        assert proof["tree_size"] == head.size and proof["root_hash"] == head.root.hex()
        assert '"round_id":"ivy.2"' in proof["leaf"]
        assert proof["leaf_hash"] == leaf_hash(proof["leaf"].encode()).hex()
        root = root_from_inclusion(proof["leaf_index"], proof["tree_size"],
                                   bytes.fromhex(proof["leaf_hash"]),
                                   [bytes.fromhex(p) for p in proof["inclusion"]])
        assert root == head.root
        assert api.get("/rounds/ivy.2/proof").status_code == 401
        assert api.get("/rounds/nobody.1/proof", headers=bearer(AUDITOR)).status_code == 404


def test_consistency_between_two_checkpoints_holds_and_other_sizes_are_invalid_query(
    service: PumpkinApplication, tmp_path: Path
) -> None:
    session_id = played(service, 2)
    with log_client(service, tmp_path / "log.key") as api:
        sign_now(api)
        first = parse_checkpoint(split_note(api.get("/log/checkpoint").text)[0])
        for n in range(3):
            service.spin(session_id, 20, f"later{n}")
        sign_now(api)
        second = parse_checkpoint(split_note(api.get("/log/checkpoint").text)[0])
        answer = api.get(f"/log/consistency?first={first.size}&second={second.size}")
        assert answer.status_code == 200
        check_consistency(first.size, second.size, first.root, second.root,
                          [bytes.fromhex(p) for p in answer.json()["proof"]])
        for query in (f"first={first.size + 1}&second={second.size}", "first=x&second=2",
                      f"first={second.size}&second={first.size}"):
            bad = api.get(f"/log/consistency?{query}")
            assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_query"


def test_a_witness_cosignature_is_kept_and_served_with_the_checkpoint(
    service: PumpkinApplication, tmp_path: Path
) -> None:
    played(service, 1)
    with log_client(service, tmp_path / "log.key") as api:
        sign_now(api)
        signed = api.get("/log/checkpoint").text
        text, lines = split_note(signed)
        witness = Ed25519PrivateKey.generate()
        cosigned = note(text, [*lines, cosign(text, "regulator.example/w1", witness, 1700000000)])
        refused = api.post("/log/cosignatures", content=cosigned, headers=bearer(OPERATOR))
        assert refused.status_code == 403
        taken = api.post("/log/cosignatures", content=cosigned, headers=bearer(AUDITOR))
        assert taken.status_code == 201, taken.text
        served = api.get("/log/checkpoint").text
        assert served.count("\u2014 ") == 2 and "regulator.example/w1" in served
        forged = cosigned.replace(base64.b64encode(parse_checkpoint(text).root).decode(),
                                  base64.b64encode(bytes(32)).decode())
        bad = api.post("/log/cosignatures", content=forged, headers=bearer(AUDITOR))
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_cosignature"


def test_the_log_follows_the_store_and_keeps_up(service: PumpkinApplication) -> None:
    played(service, 2)
    builder = LogBuilder(service)
    assert builder.follow() == builder.rows.max_notification_id()


def test_the_dispute_report_shows_the_rounds_inclusion_proof(
    service: PumpkinApplication, tmp_path: Path
) -> None:
    from infrastructure.audit.dispute import dispute_report
    from infrastructure.audit.dispute_html import render

    played(service, 2)
    assert not dispute_report(service, "ivy.1")["transparency"]["included"]
    with log_client(service, tmp_path / "log.key") as api:
        sign_now(api)
        served = api.get("/rounds/ivy.1/proof", headers=bearer(AUDITOR)).json()
    report = dispute_report(service, "ivy.1")
    log = report["transparency"]
    assert log["included"] and log["root_hash"] == served["root_hash"]
    assert log["inclusion"] == served["inclusion"] and "RFC 9162" in log["how_to_check"]
    page = render(report)
    assert "Transparency log" in page and served["leaf_hash"] in page


def test_the_replay_page_shows_the_rounds_inclusion_proof(
    service: PumpkinApplication, tmp_path: Path
) -> None:
    from urllib.parse import urlsplit

    played(service, 1)
    with log_client(service, tmp_path / "log.key") as api:
        link = api.post("/rounds/ivy.1/replay-links", json={}, headers=bearer(OPERATOR))
        assert link.status_code == 201, link.text
        url = urlsplit(link.json()["url"])
        path = f"{url.path}?{url.query}"
        before = api.get(path)
        assert before.status_code == 200 and "No signed checkpoint covers this round" in before.text
        sign_now(api)
        proof = api.get("/rounds/ivy.1/proof", headers=bearer(OPERATOR)).json()
        page = api.get(path)
        assert page.status_code == 200 and "Transparency log" in page.text
        assert proof["root_hash"] in page.text and proof["leaf_hash"] in page.text
