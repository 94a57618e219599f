// §15.8: an envelope Node signs verifies under an implementation written apart from assay, Debian's
// python3-securesystemslib (0.26 on bookworm) with a PAE built in Python (test/helpers/sslib-verify.py),
// and an edit fails there too. Debian's /usr/bin/python3, never a PATH shim: that is where apt puts it.
// Without the package the tests skip locally and fail under CI=true (.ci/run installs it).

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeEnvelope, envelope, IN_TOTO_PAYLOAD_TYPE, pae, sign, signEnvelope } from "../src/core/attest/dsse.js";
import { generateKeys, keyidOf, privateKeyFrom, publicHex, publicKeyFrom } from "../src/core/attest/keys.js";
import { HAVE_SSLIB, PYTHON, VERIFIER } from "./helpers/attest.js";
import { REQUIRE_SHARED } from "./helpers/shared.js";

interface Verdict {
  bundle: string;
  keyid: string;
  verified: boolean;
  reason: null | "signature" | "payloadType" | "statement";
}

/** The Python verifier's verdict on each bundle under one public key file. */
function pythonVerifies(keyFile: string, bundles: string[]): { status: number | null; verdicts: Verdict[] } {
  const r = spawnSync(PYTHON, [VERIFIER, keyFile, ...bundles], { encoding: "utf8", timeout: 60_000 });
  if (r.stderr !== "") throw new Error(`sslib-verify.py: ${r.stderr}`);
  return {
    status: r.status,
    verdicts: r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Verdict),
  };
}

describe.runIf(HAVE_SSLIB || REQUIRE_SHARED)(
  "an independent verifier (securesystemslib) checks what Node signs",
  () => {
    const need = () => {
      if (!HAVE_SSLIB)
        throw new Error(`CI=true but ${PYTHON} cannot import securesystemslib (python3-securesystemslib)`);
    };
    const a = generateKeys();
    const b = generateKeys();
    const keyA = privateKeyFrom(a.privatePem);
    // Made in beforeAll: a skipped block's afterAll never runs, so a folder made here would stay.
    let dir = "";
    const at = (name: string) => join(dir, name);
    const files = { aPub: "", aHex: "", bPub: "" };
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "attest-independent-"));
      Object.assign(files, { aPub: at("a.pub"), aHex: at("a.hex"), bPub: at("b.pub") });
      writeFileSync(files.aPub, a.publicPem);
      writeFileSync(files.aHex, `${publicHex(publicKeyFrom(a.publicPem))}\n`);
      writeFileSync(files.bPub, b.publicPem);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const statement = Buffer.from(
      JSON.stringify({
        _type: "https://in-toto.io/Statement/v1",
        subject: [{ name: "results.json", digest: { sha256: "f7".repeat(32) } }],
        predicateType: "https://assay.invalid/attestation/eval-recount/v1",
        // "~~~" and "???" encode to "fn5+" and "Pz8/": the payload's base64 has both alphabets' differences.
        predicate: { note: "non-ASCII survives: é", both: "~~~~~~??????" },
      }),
    );
    const bundle = (name: string, lines: string) => {
      writeFileSync(at(name), lines);
      return at(name);
    };

    it("verifies Node's envelope, under the SPKI PEM and the 64 hex digits, and computes the same keyid", () => {
      need();
      const good = bundle("good.intoto.jsonl", signEnvelope(statement, IN_TOTO_PAYLOAD_TYPE, [keyA]));
      // Other lines of a bundle are ignored (in-toto Bundle): one before the envelope changes nothing.
      const withOther = bundle(
        "other-first.intoto.jsonl",
        `{"payloadType":"application/vnd.example+json","payload":"","signatures":[]}\n${signEnvelope(statement, IN_TOTO_PAYLOAD_TYPE, [keyA])}`,
      );
      for (const keyFile of [files.aPub, files.aHex]) {
        const r = pythonVerifies(keyFile, [good, withOther]);
        expect(r.verdicts.map((v) => v.reason)).toEqual([null, null]);
        expect(r.status).toBe(0);
        expect(r.verdicts[0]?.keyid).toBe(a.keyid);
      }
    });

    it("verifies an envelope with two signatures under either signer's key", () => {
      need();
      const both = bundle(
        "both.intoto.jsonl",
        signEnvelope(statement, IN_TOTO_PAYLOAD_TYPE, [keyA, privateKeyFrom(b.privatePem)]),
      );
      expect(pythonVerifies(files.aPub, [both]).verdicts[0]?.verified).toBe(true);
      expect(pythonVerifies(files.bPub, [both]).verdicts[0]?.verified).toBe(true);
    });

    it("refuses a flipped payload bit, another key, and a payload type edited into in-toto's", () => {
      need();
      const line = signEnvelope(statement, IN_TOTO_PAYLOAD_TYPE, [keyA]);
      const env = decodeEnvelope(line);
      if (!env.ok) throw new Error(env.reason);
      const sigs = env.envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig }));

      const flipped = Buffer.from(statement);
      flipped[40] = (flipped[40] as number) ^ 0x01;
      const bitFlip = bundle("flip.intoto.jsonl", envelope(flipped, IN_TOTO_PAYLOAD_TYPE, sigs));

      // Signed under another type, then relabelled as a Statement: the PAE the signature covers differs.
      const other = "application/vnd.example.other+json";
      const otherSig = sign(pae(other, statement), keyA);
      const relabelled = bundle(
        "relabelled.intoto.jsonl",
        envelope(statement, IN_TOTO_PAYLOAD_TYPE, [{ keyid: keyidOf(keyA), sig: otherSig }]),
      );
      // And the other way: a Statement's envelope relabelled away from in-toto's type is no attestation.
      const away = bundle("away.intoto.jsonl", envelope(statement, other, sigs));
      const good = bundle("good2.intoto.jsonl", line);

      const underA = pythonVerifies(files.aPub, [bitFlip, relabelled, away, good]);
      expect(underA.verdicts.map((v) => v.reason)).toEqual(["signature", "signature", "payloadType", null]);
      expect(underA.status).toBe(1);
      const underB = pythonVerifies(files.bPub, [good]);
      expect(underB.verdicts.map((v) => v.reason)).toEqual(["signature"]);
      expect(underB.status).toBe(1);
    });

    it("reads the URL-safe alphabet Node's strict reader also takes", () => {
      need();
      const line = signEnvelope(statement, IN_TOTO_PAYLOAD_TYPE, [keyA]);
      const urlSafe = line.replace(/"(payload|sig)":"([^"]*)"/g, (_, k: string, v: string) => {
        return `"${k}":"${v.replace(/\+/g, "-").replace(/\//g, "_")}"`;
      });
      expect(urlSafe).toMatch(/"payload":"[^"]*-[^"]*_/);
      expect(decodeEnvelope(urlSafe).ok).toBe(true);
      expect(pythonVerifies(files.aPub, [bundle("url.intoto.jsonl", urlSafe)]).verdicts[0]?.reason).toBeNull();
    });
  },
);
