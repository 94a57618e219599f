// §15.2–15.3 crypto parts of attestations, each rule on both sides: the RFC 6962 Merkle Tree Hash
// against the certificate-transparency reference vectors, audit paths, the evidence root's sorting;
// DSSE's PAE and every published DSSE test vector; strict base64; ed25519 keys and keyids (against
// openssl when it is installed).

import { execFileSync } from "node:child_process";
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  decodeBase64,
  decodeEnvelope,
  envelope,
  IN_TOTO_PAYLOAD_TYPE,
  pae,
  sign,
  signEnvelope,
  verifyAny,
  type Envelope,
} from "../src/core/attest/dsse.js";
import {
  ED25519_SPKI_PREFIX,
  generateKeys,
  keyidOf,
  privateKeyFrom,
  publicHex,
  publicKeyFrom,
} from "../src/core/attest/keys.js";
import {
  auditPath,
  EMPTY_ROOT,
  evidenceRoot,
  leafHash,
  merkleRoot,
  nodeHash,
  verifyAuditPath,
} from "../src/core/attest/merkle.js";
import { UsageError } from "../src/errors.js";
import { scratchInTest } from "./helpers/shared.js";

const hex = (s: string) => Buffer.from(s, "hex");
const sha = (s: string) => createHash("sha256").update(s).digest();

// transparency-dev/merkle testonly/constants.go (the CT reference tree): leaf inputs, the root of
// every prefix, and the complete subtrees' hashes by level.
const CT_LEAVES = [
  "",
  "00",
  "10",
  "2021",
  "3031",
  "40414243",
  "5051525354555657",
  "606162636465666768696a6b6c6d6e6f",
].map(hex);
const CT_ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
const CT_NODES = [
  [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
    "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
    "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
    "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
  ],
  [
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
  ],
  [
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
  ],
];
const node = (level: number, i: number) => CT_NODES[level]?.[i] as string;

/** MTH written straight from RFC 6962 §2.1, recursively (depth log₂ n), to hold the one-pass stack to. */
function mthByDefinition(leaves: Uint8Array[]): Buffer {
  if (leaves.length === 0) return sha("");
  if (leaves.length === 1)
    return createHash("sha256")
      .update(Buffer.of(0))
      .update(leaves[0] as Uint8Array)
      .digest();
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  const [l, r] = [mthByDefinition(leaves.slice(0, k)), mthByDefinition(leaves.slice(k))];
  return createHash("sha256").update(Buffer.of(1)).update(l).update(r).digest();
}

const digestsOf = (n: number, tag = "d") => Array.from({ length: n }, (_, i) => sha(`${tag}${i}`));

describe("Merkle Tree Hash (RFC 6962 §2.1)", () => {
  it("reproduces the certificate-transparency reference roots for 0 to 8 leaves", () => {
    for (let n = 0; n <= 8; n++) expect(merkleRoot(CT_LEAVES.slice(0, n)).toString("hex"), `n=${n}`).toBe(CT_ROOTS[n]);
    expect(EMPTY_ROOT.toString("hex")).toBe(CT_ROOTS[0]);
  });

  it("hashes a leaf with 0x00 and a node with 0x01: swapping the prefixes gives another root", () => {
    expect(leafHash(hex("")).toString("hex")).toBe(node(0, 0));
    expect(nodeHash(hex(node(0, 0)), hex(node(0, 1))).toString("hex")).toBe(node(1, 0));
    expect(nodeHash(hex(node(0, 1)), hex(node(0, 0))).toString("hex")).not.toBe(node(1, 0));
    // A two-leaf tree is not the leaf hash of its 64 concatenated bytes (second-preimage separation).
    const two = Buffer.concat([leafHash(hex("00")), leafHash(hex("10"))]);
    expect(leafHash(two).equals(merkleRoot([hex("00"), hex("10")]))).toBe(false);
  });

  it("equals the recursive definition for every size to 70 and at 2^k ± 1, and depends on the order", () => {
    const sizes = [...Array.from({ length: 71 }, (_, n) => n), 127, 128, 129, 1023, 1024, 1025];
    for (const n of sizes) {
      const leaves = digestsOf(n);
      expect(merkleRoot(leaves).equals(mthByDefinition(leaves)), `n=${n}`).toBe(true);
    }
    const leaves = digestsOf(5);
    expect(merkleRoot([...leaves].reverse()).equals(merkleRoot(leaves))).toBe(false);
  });

  it("takes any iterable, in one pass: 131,075 leaves from a generator, no array of them", () => {
    const n = 131_075; // 2^17 + 3: a stack three subtrees deep at the end
    function* gen() {
      for (let i = 0; i < n; i++) {
        const d = Buffer.alloc(32, 7); // distinct leaves, cheaply
        d.writeUInt32BE(i);
        yield d;
      }
    }
    expect(merkleRoot(gen()).equals(mthByDefinition([...gen()]))).toBe(true);
  });
});

describe("audit paths (RFC 9162 §2.1.3)", () => {
  it("match the reference tree's subtree hashes", () => {
    const hexes = (p: Buffer[]) => p.map((h) => h.toString("hex"));
    expect(hexes(auditPath(CT_LEAVES, 0))).toEqual([node(0, 1), node(1, 1), node(2, 1)]);
    expect(hexes(auditPath(CT_LEAVES, 5))).toEqual([node(0, 4), node(1, 3), node(2, 0)]);
    expect(hexes(auditPath(CT_LEAVES.slice(0, 3), 2))).toEqual([node(1, 0)]);
    expect(hexes(auditPath(CT_LEAVES.slice(0, 1), 0))).toEqual([]);
  });

  it("verify for every leaf of every tree of 1 to 40 leaves, at most ⌈log₂ n⌉ hashes long", () => {
    for (let n = 1; n <= 40; n++) {
      const leaves = digestsOf(n);
      const root = merkleRoot(leaves);
      for (let i = 0; i < n; i++) {
        const path = auditPath(leaves, i);
        expect(path.length).toBeLessThanOrEqual(Math.ceil(Math.log2(n)));
        expect(verifyAuditPath(leaves[i] as Buffer, i, n, path, root), `n=${n} i=${i}`).toBe(true);
      }
    }
  });

  it("fail for a wrong leaf, index, size, root, path hash or path length", () => {
    const leaves = digestsOf(13);
    const root = merkleRoot(leaves);
    const [i, d] = [6, leaves[6] as Buffer];
    const path = auditPath(leaves, i);
    expect(verifyAuditPath(d, i, 13, path, root)).toBe(true);
    expect(verifyAuditPath(leaves[7] as Buffer, i, 13, path, root)).toBe(false);
    expect(verifyAuditPath(d, 7, 13, path, root)).toBe(false);
    // The size is bound only as far as it shapes the path: leaf 6's path is the same in trees of 9 to
    // 16 leaves, so n must come from the signed statement (annotations.leaves), never the prover.
    expect(verifyAuditPath(d, i, 16, path, root)).toBe(true);
    expect(verifyAuditPath(d, i, 8, path, root)).toBe(false);
    expect(verifyAuditPath(d, i, 17, path, root)).toBe(false);
    expect(verifyAuditPath(d, i, 13, path, merkleRoot(leaves.slice(1)))).toBe(false);
    const flipped = path.map((h, k) => (k === 1 ? Buffer.from(h).fill(h[0] === 0 ? 1 : 0, 0, 1) : h));
    expect(verifyAuditPath(d, i, 13, flipped, root)).toBe(false);
    expect(verifyAuditPath(d, i, 13, path.slice(0, -1), root)).toBe(false);
    expect(verifyAuditPath(d, i, 13, [...path, root], root)).toBe(false);
    expect(verifyAuditPath(d, i, 13, [...path.slice(0, -1), Buffer.alloc(31)], root)).toBe(false);
    expect(verifyAuditPath(d, 13, 13, path, root)).toBe(false);
    expect(verifyAuditPath(d, -1, 13, path, root)).toBe(false);
    expect(() => auditPath(leaves, 13)).toThrow(RangeError);
    expect(() => auditPath([], 0)).toThrow(RangeError);
  });
});

describe("the evidence root (§15.3)", () => {
  const digests = digestsOf(9).map((b) => b.toString("hex"));
  const sortedRoot = merkleRoot([...digests].sort().map(hex)).toString("hex");

  it("sorts the digests by byte value: any input order gives the root of the sorted leaves", () => {
    expect(evidenceRoot(digests)).toEqual({ root: sortedRoot, leaves: 9 });
    expect(evidenceRoot([...digests].reverse()).root).toBe(sortedRoot);
    // Unsorted, the same leaves give another root: the sort is what makes it order-free.
    expect(merkleRoot(digests.map(hex)).toString("hex")).not.toBe(sortedRoot);
  });

  it("keeps duplicates: two byte-identical copies are two leaves", () => {
    const twice = evidenceRoot([...digests, digests[0] as string]);
    expect(twice.leaves).toBe(10);
    expect(twice.root).not.toBe(sortedRoot);
  });

  it("gives §15.9's example root: that Harbor job's trial and its job folder's own files", () => {
    // `assay score …/Imdhiraj007--Assignment/jobs/test-oracle`: the trial's entry digest, and the §7
    // digest of the job folder's config.json, job.log and result.json (computed apart, in Python).
    const trial = "a3e2c1b59cdbacd78e754c6da4cd5a5c691b2a47884471035fd9f1c3cf59ec4e";
    const job = "b8753a7de463688188ddfab3fb5b003a451973e764889c118db0b3ff619beb39";
    const root = "5f0947772a59cc618fb06a0a8b7a0efb6a182727cc44314694d14853bb7c1e5e";
    expect(evidenceRoot([job, trial])).toEqual({ root, leaves: 2 });
    expect(nodeHash(leafHash(hex(trial)), leafHash(hex(job))).toString("hex")).toBe(root);
  });

  it("is SHA-256 of nothing for no leaves, and refuses what is no §7 digest", () => {
    expect(evidenceRoot([])).toEqual({ root: CT_ROOTS[0], leaves: 0 });
    expect(() => evidenceRoot([(digests[0] as string).toUpperCase()])).toThrow(/not a §7 digest/);
    expect(() => evidenceRoot([(digests[0] as string).slice(1)])).toThrow(/not a §7 digest/);
  });
});

const vectors = JSON.parse(readFileSync(new URL("fixtures/attest/dsse-vectors.json", import.meta.url), "utf8")) as {
  keys: Record<string, { seed: string; public: string }>;
  vectors: {
    id: string;
    envelope: unknown;
    trustedKeys: string[];
    threshold: number;
    supportedPayloadTypes: string[];
    pae: string;
    expect: "accept" | "reject";
  }[];
};
/** An RFC 8032 seed as a PKCS#8 key (the DER prefix of an ed25519 private key, then the 32 bytes). */
const seedKey = (seed: string) =>
  createPrivateKey({ key: hex(`302e020100300506032b657004220420${seed}`), format: "der", type: "pkcs8" });
const decoded = (text: string): Envelope => {
  const d = decodeEnvelope(text);
  if (!d.ok) throw new Error(d.reason);
  return d.envelope;
};

describe("DSSE (§15.2) against DSSE's published test vectors", () => {
  it("derives each vector key's published public key from its seed", () => {
    for (const k of Object.values(vectors.keys)) expect(publicHex(createPublicKey(seedKey(k.seed)))).toBe(k.public);
  });

  for (const v of vectors.vectors) {
    it(`${v.id}: PAE as published, ${v.expect}ed`, () => {
      const env = decoded(JSON.stringify(v.envelope));
      const trusted = v.trustedKeys.map((name) => publicKeyFrom(vectors.keys[name]?.public as string));
      const { ok } = verifyAny(env, trusted, v.threshold);
      // The vector's verifier rejects an unsupported payload type after checking signatures.
      const accepted = ok && v.supportedPayloadTypes.includes(env.payloadType);
      expect(accepted ? "accept" : "reject").toBe(v.expect);
      // Each vector's PAE is what its signatures cover: the envelope's own, except where the type was swapped.
      if (v.id !== "payload-type-swapped") expect(pae(env.payloadType, env.payload).toString("hex")).toBe(v.pae);
    });
  }

  it("signs the single-signature vector byte for byte (ed25519 is deterministic)", () => {
    const v = vectors.vectors.find((x) => x.id === "single-signature");
    const sig = sign(hex(v?.pae as string), seedKey(vectors.keys["A"]?.seed as string));
    expect(sig.toString("base64")).toBe(
      "2WAfaHm5jluo0w+0rk8uVkluELJYWjSmU9x7EUzx+AyteDGJ4/nqyJXfmAUVFIAoQafWm7AxBZNw5M9ixNHiCA==",
    );
  });

  it("the payload-type-swapped vector verifies under the type its signature covers, not the one it claims", () => {
    const v = vectors.vectors.find((x) => x.id === "payload-type-swapped");
    const env = decoded(JSON.stringify(v?.envelope));
    const a = [publicKeyFrom(vectors.keys["A"]?.public as string)];
    expect(verifyAny(env, a).ok).toBe(false);
    expect(verifyAny({ ...env, payloadType: IN_TOTO_PAYLOAD_TYPE }, a).ok).toBe(true);
  });
});

describe("PAE", () => {
  it("is DSSE's example, and counts bytes, not characters", () => {
    expect(pae("http://example.com/HelloWorld", Buffer.from("hello world")).toString()).toBe(
      "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
    );
    expect(pae("t", Buffer.alloc(0)).toString()).toBe("DSSEv1 1 t 0 ");
    expect(pae("é", Buffer.from("ü")).toString()).toBe("DSSEv1 2 é 2 ü");
  });
});

describe("base64: written standard and padded, read strictly", () => {
  it("accepts exactly what encoding gives, in either alphabet", () => {
    for (const b of [Buffer.alloc(0), hex("fb"), hex("fbff"), hex("fbffbf"), hex("fbffbf3e3f")]) {
      expect(decodeBase64(b.toString("base64"))?.equals(b)).toBe(true);
      expect(decodeBase64(b.toString("base64").replace(/\+/g, "-").replace(/\//g, "_"))?.equals(b)).toBe(true);
    }
  });

  it("refuses what Node's lenient decoder would take", () => {
    // Buffer.from(s, "base64") gives bytes for every one of these.
    for (const s of ["ab=c", "a!b@c d", "QQ", "QQ=", "QQ===", "QR==", "+-//", "Q Q==", "QQ==\n", "QUJD\u00e9"])
      expect(decodeBase64(s), JSON.stringify(s)).toBeNull();
  });
});

describe("envelopes", () => {
  const { privateKey: k1, publicKey: p1 } = generateKeyPairSync("ed25519");
  const { privateKey: k2, publicKey: p2 } = generateKeyPairSync("ed25519");
  const payload = Buffer.from('{"_type":"https://in-toto.io/Statement/v1"}');
  const line = signEnvelope(payload, IN_TOTO_PAYLOAD_TYPE, [k1]);

  it("are written as one JSON line, §15.9's field order, standard padded base64 and the signer's keyid", () => {
    expect(line.endsWith("}\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    const o = JSON.parse(line) as {
      payloadType: string;
      payload: string;
      signatures: { keyid: string; sig: string }[];
    };
    expect(Object.keys(o)).toEqual(["payloadType", "payload", "signatures"]);
    expect(o.payload).toBe(payload.toString("base64"));
    expect(o.signatures).toHaveLength(1);
    expect(o.signatures[0]?.keyid).toBe(keyidOf(p1));
    expect(o.signatures[0]?.sig).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    expect(decoded(line)).toEqual({ payloadType: IN_TOTO_PAYLOAD_TYPE, payload, signatures: [expect.anything()] });
  });

  it("verify under the signing key only; an edited payload, payload type or signature fails", () => {
    const env = decoded(line);
    expect(verifyAny(env, [p1])).toEqual({ verified: [0], ok: true });
    expect(verifyAny(env, [p2])).toEqual({ verified: [], ok: false });
    expect(verifyAny(env, [p2, p1])).toEqual({ verified: [1], ok: true });
    const bit = Buffer.from(payload);
    bit[3] = (bit[3] as number) ^ 1;
    expect(verifyAny({ ...env, payload: bit }, [p1]).ok).toBe(false);
    expect(verifyAny({ ...env, payloadType: "application/vnd.in-toto+jsom" }, [p1]).ok).toBe(false);
    const sig = Buffer.from(env.signatures[0]?.sig as Buffer);
    sig[10] = (sig[10] as number) ^ 1;
    expect(verifyAny({ ...env, signatures: [{ keyid: keyidOf(p1), sig }] }, [p1]).ok).toBe(false);
    expect(verifyAny({ ...env, signatures: [{ keyid: "", sig: sig.subarray(0, 63) }] }, [p1]).ok).toBe(false);
    expect(verifyAny({ ...env, signatures: [] }, [p1]).ok).toBe(false);
  });

  it("count distinct keys toward a threshold: a key given twice or signing twice counts once", () => {
    const both = decoded(signEnvelope(payload, IN_TOTO_PAYLOAD_TYPE, [k1, k2]));
    expect(verifyAny(both, [p1, p2], 2)).toEqual({ verified: [0, 1], ok: true });
    expect(verifyAny(both, [p1, p1], 2)).toEqual({ verified: [0], ok: false });
    expect(verifyAny(both, [p1, createPublicKey(k1)], 2).ok).toBe(false);
    const twice = decoded(signEnvelope(payload, IN_TOTO_PAYLOAD_TYPE, [k1, k1]));
    expect(verifyAny(twice, [p1, p2], 2)).toEqual({ verified: [0], ok: false });
    expect(verifyAny(twice, [p1, p2], 1).ok).toBe(true);
    expect(() => verifyAny(twice, [p1], 0)).toThrow(RangeError);
  });

  it("sign and verify with ed25519 keys only (node:crypto would sign with an RSA key too)", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(() => sign(payload, rsa.privateKey)).toThrow(/an ed25519 key, not rsa/);
    expect(() => verifyAny(decoded(line), [p1, rsa.publicKey])).toThrow(/an ed25519 key, not rsa/);
    expect(sign(payload, k1)).toHaveLength(64);
  });

  it("ignore keyids: a wrong or absent keyid still verifies, a right keyid on a bad signature does not", () => {
    const env = decoded(line);
    const sig = env.signatures[0]?.sig as Buffer;
    expect(verifyAny({ ...env, signatures: [{ keyid: keyidOf(p2), sig }] }, [p1]).ok).toBe(true);
    expect(verifyAny(decoded(envelope(payload, IN_TOTO_PAYLOAD_TYPE, [{ keyid: "", sig }])), [p1]).ok).toBe(true);
    expect(verifyAny({ ...env, signatures: [{ keyid: keyidOf(p1), sig: Buffer.alloc(64) }] }, [p1]).ok).toBe(false);
  });

  it("decode strictly: each broken part is named, with the payload type when there is one", () => {
    const o = JSON.parse(line) as Record<string, unknown>;
    const sig0 = (o["signatures"] as { sig: string }[])[0]?.sig as string;
    const cases: [unknown, string][] = [
      [{ ...o, payload: "ab=c" }, "payload is not base64"],
      [{ ...o, payload: 7 }, "payload is absent or not a string"],
      [{ payloadType: o["payloadType"], signatures: o["signatures"] }, "payload is absent"],
      [{ ...o, signatures: {} }, "signatures is absent or not an array"],
      [{ ...o, signatures: ["x"] }, "signatures[0] is not an object"],
      [{ ...o, signatures: [{ sig: sig0 }, { sig: `${sig0}=` }] }, "signatures[1].sig is not base64"],
      [{ ...o, signatures: [{ keyid: 1, sig: sig0 }] }, "signatures[0].keyid is not a string"],
      [{ ...o, signatures: [{ keyid: "k" }] }, "signatures[0].sig is absent"],
    ];
    for (const [value, reason] of cases) {
      const d = decodeEnvelope(JSON.stringify(value));
      expect(d.ok).toBe(false);
      if (!d.ok) {
        expect(d.reason).toContain(reason);
        expect(d.payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
      }
    }
    expect(decodeEnvelope(JSON.stringify({ ...o, payloadType: 3 }))).toMatchObject({ ok: false, payloadType: null });
    expect(decodeEnvelope("[1]")).toMatchObject({ ok: false, payloadType: null, reason: "not a JSON object" });
    expect(decodeEnvelope("{")).toMatchObject({ ok: false, payloadType: null });
  });

  it("refuse duplicate keys (two payloads two readers could tell apart) and ignore unknown fields", () => {
    const dup = line.replace('{"payloadType"', `{"payload":"${Buffer.from("other").toString("base64")}","payloadType"`);
    expect(decodeEnvelope(dup)).toMatchObject({ ok: false, payloadType: null });
    const extra = decoded(line.replace('{"payloadType"', '{"note":"hi","payloadType"'));
    expect(verifyAny(extra, [p1]).ok).toBe(true);
    // keyid may be absent: DSSE treats it as empty.
    expect(decoded(line.replace(/"keyid":"[0-9a-f]+",/, "")).signatures[0]?.keyid).toBe("");
  });
});

describe("keys (§15.2)", () => {
  const made = generateKeys();
  const pub = publicKeyFrom(made.publicPem);
  const priv = privateKeyFrom(made.privatePem);

  it("generate a PKCS#8 and SPKI ed25519 pair whose keyid is SHA-256 of the SPKI DER", () => {
    expect(made.privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(made.publicPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const der = pub.export({ type: "spki", format: "der" });
    expect(der.subarray(0, 12).equals(ED25519_SPKI_PREFIX)).toBe(true);
    expect(der).toHaveLength(44);
    expect(made.keyid).toBe(createHash("sha256").update(der).digest("hex"));
    expect(made.keyid).toMatch(/^[0-9a-f]{64}$/);
    expect(keyidOf(priv)).toBe(made.keyid);
    expect(generateKeys().keyid).not.toBe(made.keyid);
  });

  it("read a public key as 64 hex digits: the same key, the same keyid", () => {
    const fromHex = publicKeyFrom(publicHex(pub));
    expect(keyidOf(fromHex)).toBe(made.keyid);
    expect(keyidOf(publicKeyFrom(` ${publicHex(pub).toUpperCase()}\n`))).toBe(made.keyid);
    const env = decoded(signEnvelope(Buffer.from("x"), IN_TOTO_PAYLOAD_TYPE, [priv]));
    expect(verifyAny(env, [fromHex]).ok).toBe(true);
  });

  it("refuse other algorithms, private keys where a public one goes and back, and junk, each saying why", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const x = generateKeyPairSync("x25519");
    const spki = (k: KeyObject) => k.export({ type: "spki", format: "pem" }) as string;
    const pkcs8 = (k: KeyObject) => k.export({ type: "pkcs8", format: "pem" }) as string;
    const refused = (f: () => unknown, why: RegExp) => {
      expect(f).toThrow(UsageError);
      expect(f).toThrow(why);
    };
    refused(() => publicKeyFrom(spki(rsa.publicKey), "k.pub"), /^k\.pub is a key of type rsa: .*ed25519 keys only/);
    refused(() => publicKeyFrom(spki(ec.publicKey)), /type ec:/);
    refused(() => publicKeyFrom(spki(x.publicKey)), /type x25519:/);
    refused(() => publicKeyFrom(made.privatePem), /is a private key/);
    refused(() => publicKeyFrom(publicHex(pub).slice(2)), /neither an SPKI PEM .* nor 64 hex digits/);
    refused(() => publicKeyFrom(""), /neither/);
    refused(() => publicKeyFrom("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"), /PEM "CERTIFICATE"/);
    refused(() => publicKeyFrom("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"), /does not decode/);
    refused(() => publicKeyFrom(made.publicPem + made.publicPem), /neither/);
    refused(() => privateKeyFrom(pkcs8(rsa.privateKey)), /type rsa:/);
    refused(() => privateKeyFrom(made.publicPem, "k.pub"), /^k\.pub is a public key/);
    const encrypted = priv.export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pw" }) as string;
    refused(() => privateKeyFrom(encrypted), /is encrypted/);
    refused(() => privateKeyFrom("not a key"), /not a PEM/);
  });

  const hasOpenssl = (() => {
    try {
      execFileSync("openssl", ["version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();
  it.runIf(hasOpenssl)("match openssl: it reads both PEMs, and its SPKI DER hashes to the keyid", () => {
    const dir = scratchInTest("attest-keys-");
    writeFileSync(dir.at("k.key"), made.privatePem);
    writeFileSync(dir.at("k.pub"), made.publicPem);
    const derOf = (args: string[]) => execFileSync("openssl", ["pkey", ...args, "-outform", "DER"]);
    const fromPub = derOf(["-pubin", "-in", dir.at("k.pub")]);
    const fromKey = derOf(["-in", dir.at("k.key"), "-pubout"]);
    expect(createHash("sha256").update(fromPub).digest("hex")).toBe(made.keyid);
    expect(fromKey.equals(fromPub)).toBe(true);
    const text = execFileSync("openssl", ["pkey", "-in", dir.at("k.key"), "-noout", "-text"]).toString();
    expect(text).toMatch(/ED25519 Private-Key/);
  });
});
