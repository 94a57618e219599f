// §15.2 DSSE v1 envelopes: PAE, the JSON line assay writes (standard padded base64), a strict reader
// (DSSE lets signers use either base64 alphabet; Node's decoder would also take junk, so each string
// is checked first), ed25519 signing, and DSSE's (t, n) check over distinct keys.

import { sign as edSign, verify as edVerify, type KeyObject } from "node:crypto";
import { isPlainObject } from "../json/decode.js";
import { parseStrictJson } from "../json/strict.js";
import { keyidOf } from "./keys.js";

export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** PAE = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body; LEN in bytes (UTF-8 for the type), ASCII decimal. */
export function pae(type: string, body: Uint8Array): Buffer {
  const t = Buffer.from(type, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${t.length} `, "ascii"),
    t,
    Buffer.from(` ${body.length} `, "ascii"),
    body,
  ]);
}

/** With a null algorithm node:crypto signs with any key type (RSA with its default digest): ed25519 only here. */
function ed25519(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== "ed25519") throw new TypeError(`an ed25519 key, not ${key.asymmetricKeyType}`);
  return key;
}

/** Pure ed25519 (RFC 8032) over the PAE bytes: `node:crypto` takes no digest for it. */
export const sign = (message: Uint8Array, privateKey: KeyObject): Buffer => edSign(null, message, ed25519(privateKey));

export interface Signature {
  /** An unauthenticated hint (DSSE): "" when absent. */
  keyid: string;
  sig: Buffer;
}

export interface Envelope {
  payloadType: string;
  payload: Buffer;
  signatures: Signature[];
}

/** The envelope as one JSON line (with its "\n"), every byte string in standard padded base64. */
export function envelope(
  payload: Uint8Array,
  payloadType: string,
  signatures: readonly { keyid: string; sig: Uint8Array }[],
): string {
  const b64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");
  const sigs = signatures.map((s) => ({ keyid: s.keyid, sig: b64(s.sig) }));
  return `${JSON.stringify({ payloadType, payload: b64(payload), signatures: sigs })}\n`;
}

/** Signs `payload` under `payloadType` with each key, in order: the JSON line of the envelope. */
export function signEnvelope(payload: Uint8Array, payloadType: string, keys: readonly KeyObject[]): string {
  const message = pae(payloadType, payload);
  const signatures = keys.map((k) => ({ keyid: keyidOf(k), sig: sign(message, k) }));
  return envelope(payload, payloadType, signatures);
}

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Strict base64 in one alphabet, padded to a multiple of four, its unused bits zero: exactly the
 * strings that encoding some bytes gives. Anything else is null.
 */
export function decodeBase64(s: string): Buffer | null {
  const standard = STANDARD.test(s);
  if (!standard && !URL_SAFE.test(s)) return null;
  if (s.length % 4 !== 0) return null;
  const bytes = Buffer.from(s, standard ? "base64" : "base64url");
  const again = bytes.toString("base64");
  return (standard ? again : again.replace(/\+/g, "-").replace(/\//g, "_")) === s ? bytes : null;
}

export type Decoded =
  | { ok: true; envelope: Envelope }
  /** `payloadType` when the text is an object with a string one: the caller tells its own type's broken envelopes (ENVELOPE_MALFORMED) from other lines (ignored). */
  | { ok: false; payloadType: string | null; reason: string };

/**
 * One line of a bundle as a DSSE envelope: strict JSON (no duplicate keys: two `payload`s could be
 * read differently by two verifiers), `payload`, `payloadType` and `signatures` present, each `sig`
 * strict base64, `keyid` a string when present. Unknown fields are ignored, as DSSE says.
 * The payload is not parsed here: it is parsed only once a signature over it verifies.
 */
export function decodeEnvelope(text: string): Decoded {
  const parsed = parseStrictJson(text.endsWith("\n") ? text.slice(0, -1) : text, " ");
  if (!parsed.ok) return { ok: false, payloadType: null, reason: `not JSON: ${parsed.issue.message}` };
  const o = parsed.value;
  if (!isPlainObject(o)) return { ok: false, payloadType: null, reason: "not a JSON object" };
  const payloadType = typeof o["payloadType"] === "string" ? o["payloadType"] : null;
  const bad = (reason: string): Decoded => ({ ok: false, payloadType, reason });
  if (payloadType === null) return bad("payloadType is absent or not a string");
  if (typeof o["payload"] !== "string") return bad("payload is absent or not a string");
  const payload = decodeBase64(o["payload"]);
  if (payload === null) return bad("payload is not base64");
  const raw = o["signatures"];
  if (!Array.isArray(raw)) return bad("signatures is absent or not an array");
  const signatures: Signature[] = [];
  for (const [i, s] of raw.entries()) {
    if (!isPlainObject(s)) return bad(`signatures[${i}] is not an object`);
    const keyid = s["keyid"] ?? "";
    if (typeof keyid !== "string") return bad(`signatures[${i}].keyid is not a string`);
    if (typeof s["sig"] !== "string") return bad(`signatures[${i}].sig is absent or not a string`);
    const sig = decodeBase64(s["sig"]);
    if (sig === null) return bad(`signatures[${i}].sig is not base64`);
    signatures.push({ keyid, sig });
  }
  return { ok: true, envelope: { payloadType, payload, signatures } };
}

/**
 * DSSE's (t, n) rule: the given keys that verify some signature over the envelope's PAE, each key
 * counted once however many signatures it made, and twice-given keys once (by keyid, the hash of
 * their SPKI). Every key is tried against every signature: a keyid is a hint and never trusted.
 * A signature of any length but 64 bytes is no ed25519 signature and simply verifies under no key.
 * `verified` lists indexes into `publicKeys` (the first of equal keys); `ok` when at least `threshold`.
 */
export function verifyAny(
  env: Envelope,
  publicKeys: readonly KeyObject[],
  threshold = 1,
): { verified: number[]; ok: boolean } {
  if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError(`threshold ${threshold}: at least 1`);
  const message = pae(env.payloadType, env.payload);
  const seen = new Set<string>();
  const verified: number[] = [];
  publicKeys.forEach((key, i) => {
    const id = keyidOf(ed25519(key));
    if (seen.has(id)) return;
    seen.add(id);
    if (env.signatures.some((s) => s.sig.length === 64 && edVerify(null, message, key, s.sig))) verified.push(i);
  });
  return { verified, ok: verified.length >= threshold };
}
