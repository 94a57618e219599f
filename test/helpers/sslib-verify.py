"""An independent DSSE verifier for assay's envelopes (contract §15.2, §15.8), written apart from assay:
Python's stdlib and securesystemslib (0.26 has no DSSE module: the PAE is built here, from DSSE's
protocol.md). Run with Debian's /usr/bin/python3.

    sslib-verify.py KEY BUNDLE...

KEY is an SPKI PEM or 64 hex digits of an ed25519 public key. For each BUNDLE (.intoto.jsonl: the first
line that is a JSON object with payloadType application/vnd.in-toto+json), prints one JSON line:
{"bundle", "keyid", "verified", "reason"}; reason is null, "signature", "payloadType" or "statement".
Exit 0 when every bundle verified, else 1.
"""

import base64
import binascii
import hashlib
import json
import sys

from securesystemslib.exceptions import UnverifiedSignatureError  # VerificationError is a subclass
from securesystemslib.signer import Signature, SSlibKey

IN_TOTO = "application/vnd.in-toto+json"
SPKI_ED25519 = bytes.fromhex("302a300506032b6570032100")


def raw_public(text):
    text = text.strip()
    if len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text):
        return bytes.fromhex(text)
    body = "".join(line for line in text.splitlines() if line and not line.startswith("-----"))
    der = base64.b64decode(body, validate=True)
    if len(der) != 44 or der[:12] != SPKI_ED25519:
        raise SystemExit("not an ed25519 SPKI public key")
    return der[12:]


def b64dec(s):
    """DSSE: verifiers accept the standard and the URL-safe alphabet."""
    try:
        return base64.b64decode(s, validate=True)
    except binascii.Error:
        return base64.b64decode(s, altchars=b"-_", validate=True)


def pae(payload_type, body):
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(t), t, len(body), body)


def first_envelope(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                env = json.loads(line)
            except ValueError:
                continue
            if isinstance(env, dict) and env.get("payloadType") == IN_TOTO:
                return env
    return None


def verify(path, key, keyid):
    env = first_envelope(path)
    if env is None:
        return "payloadType"
    body = b64dec(env["payload"])
    message = pae(env["payloadType"], body)
    ok = False
    for s in env["signatures"]:
        try:
            # securesystemslib wants the signature's keyid to equal the key's: the envelope's is a hint only.
            key.verify_signature(Signature(keyid, b64dec(s["sig"]).hex()), message)
            ok = True
        except UnverifiedSignatureError:
            pass
    if not ok:
        return "signature"
    statement = json.loads(body)  # only the bytes that verified
    if statement.get("_type") != "https://in-toto.io/Statement/v1":
        return "statement"
    return None


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        raw = raw_public(f.read())
    keyid = hashlib.sha256(SPKI_ED25519 + raw).hexdigest()  # §15.2: sha256 of the SPKI DER
    key = SSlibKey(keyid, "ed25519", "ed25519", {"public": raw.hex()})
    failed = False
    for path in sys.argv[2:]:
        reason = verify(path, key, keyid)
        failed = failed or reason is not None
        print(json.dumps({"bundle": path, "keyid": keyid, "verified": reason is None, "reason": reason}))
    sys.exit(1 if failed else 0)


main()
