"""Checkpoints are C2SP signed notes: the published examples parse and verify with this code,
key ids and verifier keys are computed as the specification says, and a cosignature v1 is
signed over "cosignature/v1", its time and the checkpoint."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from infrastructure.transparency.notes import (
    COSIGNATURE_V1,
    ED25519,
    Checkpoint,
    NoteError,
    Verifier,
    cosign,
    cosigned_message,
    key_id,
    note,
    open_note,
    parse_checkpoint,
    parse_vkey,
    raw_public,
    sign,
    split_note,
    verifies,
)

# The example of the signed-note format (golang.org/x/mod/sumdb/note, which c2sp.org/signed-note
# specifies): its verifier key and a note it signed.
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_NOTE = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
    "\n"
    "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdng"
    "otpRZb6KE6RyyBwJnAM=\n"
)
# The checkpoint of c2sp.org/tlog-checkpoint and tlog-cosignature, signed by its log and a
# witness (their keys are not published: it is read, not verified).
SOFA = (
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n"
    "\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/"
    "Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
)


def test_the_published_example_verifies_with_its_verifier_key() -> None:
    verifier = parse_vkey(PETER_VKEY)
    assert (verifier.name, verifier.kind, verifier.key_id.hex()) == (
        "PeterNeumann", ED25519, "c74f20a3")
    assert verifier.vkey() == PETER_VKEY
    text, signatures = open_note(PETER_NOTE, verifier)
    assert text.endswith("what your problem is.\n") and len(signatures) == 1


def test_a_changed_text_or_another_key_does_not_verify() -> None:
    verifier = parse_vkey(PETER_VKEY)
    with pytest.raises(NoteError):
        open_note(PETER_NOTE.replace("answer", "question"), verifier)
    other = Verifier("PeterNeumann", ED25519, raw_public(Ed25519PrivateKey.generate()))
    with pytest.raises(NoteError):
        open_note(PETER_NOTE, other)


def test_the_published_checkpoint_parses_as_origin_size_and_root() -> None:
    text, [signature] = split_note(SOFA)
    checkpoint = parse_checkpoint(text)
    assert checkpoint.origin == "example.com/behind-the-sofa" and checkpoint.size == 20852163
    assert checkpoint.text() == text and len(checkpoint.root) == 32
    assert signature.name == "example.com/behind-the-sofa" and len(signature.data) == 64


@pytest.mark.parametrize("bad", [
    "example.com/log\n012\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",  # leading zero
    "example.com/log\n12\nnot base64\n",
    "example.com/log\n12\n",
])
def test_a_malformed_checkpoint_is_refused(bad: str) -> None:
    with pytest.raises(NoteError):
        parse_checkpoint(bad)


def test_our_key_ids_and_signatures_follow_the_specification() -> None:
    key = Ed25519PrivateKey.generate()
    public = raw_public(key)
    text = Checkpoint("example.org/log", 3, bytes(32)).text()
    line = sign(text, "example.org/log", key)
    assert line.key_id == key_id("example.org/log", ED25519, public)
    import hashlib

    assert line.key_id == hashlib.sha256(b"example.org/log\n\x01" + public).digest()[:4]
    signed = note(text, [line])
    encoded = base64.b64encode(line.key_id + line.data).decode()
    assert signed == text + "\n" + f"\u2014 example.org/log {encoded}\n"
    assert open_note(signed, Verifier("example.org/log", ED25519, public))[0] == text


def test_a_cosignature_signs_its_time_and_the_checkpoint() -> None:
    witness = Ed25519PrivateKey.generate()
    text = Checkpoint("example.org/log", 3, bytes(32)).text()
    line = cosign(text, "example.org/witness", witness, 1679315147)
    assert line.key_id == key_id("example.org/witness", COSIGNATURE_V1, raw_public(witness))
    assert line.data[:8] == (1679315147).to_bytes(8, "big") and len(line.data) == 72
    assert cosigned_message(text, 1679315147) == (
        b"cosignature/v1\ntime 1679315147\nexample.org/log\n3\n"
        + base64.b64encode(bytes(32)) + b"\n")
    verifier = Verifier("example.org/witness", COSIGNATURE_V1, raw_public(witness))
    assert verifies(text, line, verifier)
    assert not verifies(text.replace("3", "4", 1), line, verifier)
    assert parse_vkey(verifier.vkey()) == verifier
