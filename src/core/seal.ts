// §8 keyed seals: a bundle's seal.json against its §7 digest under the key holder's key. Pure: the
// caller gives the listed folder (already digested) and the key's bytes. The key itself is never
// put into a finding; its fingerprint (§7) names it where a name is needed.

import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { finding, type Finding } from "./codes.js";
import { SEAL, type EvidenceFolder } from "./folder.js";
import { decodeDocument } from "./json/decode.js";
import { check } from "./schema.js";

export const SEAL_FORMAT = "assay.seal/1";
export const SEAL_ALG = "HMAC-SHA256";
/** A seal is about 110 bytes: a larger seal.json is not one, and is not read. */
const MAX_SEAL_BYTES = 4096;

/** §7: what names a key in results, stores and caches, without revealing it. */
export const keyFingerprint = (key: Uint8Array): string =>
  createHmac("sha256", key).update("assay.key-id").digest("hex");

/** §8: the mac of a bundle digest (its ASCII hex) under `key`. */
export const sealMac = (key: Uint8Array, digest: string): string =>
  createHmac("sha256", key).update(digest, "ascii").digest("hex");

/** The exact bytes `assay seal` writes for a bundle of this digest. */
export const sealText = (key: Uint8Array, digest: string): string =>
  `${JSON.stringify({ format: SEAL_FORMAT, alg: SEAL_ALG, mac: sealMac(key, digest) })}\n`;

const sealSchema = z.strictObject({
  format: z.literal(SEAL_FORMAT),
  alg: z.literal(SEAL_ALG),
  mac: z.string().regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex digits"),
});

/**
 * §8: with a key, the bundle must hold a seal.json whose mac is the digest's under that key.
 * §2 problems of the file keep their own codes; everything else wrong is SEAL.
 */
export function checkSeal(folder: EvidenceFolder, digest: string, key: Uint8Array, errors: Finding[]): void {
  const fail = (message: string) => void errors.push(finding("SEAL", SEAL, null, message));
  if (!folder.has(SEAL)) return fail("seal.json is absent: with a key, every bundle must be sealed (assay seal)");
  const entry = folder.regular(SEAL);
  if (entry === null) return fail("seal.json is not a regular file");
  if (entry.size > MAX_SEAL_BYTES) return fail(`seal.json holds ${entry.size} bytes: a seal is one short JSON object`);
  const bytes = folder.read(SEAL, MAX_SEAL_BYTES) as Uint8Array; // a regular file within the limit: its bytes
  const value = decodeDocument(bytes, SEAL, errors);
  if (value === undefined) return;
  const seal = check(sealSchema, value, SEAL, null, errors, "SEAL");
  if (seal === null) return;
  // Constant time: how much of a forged mac matched must not be learnable from timing.
  if (!timingSafeEqual(Buffer.from(sealMac(key, digest), "hex"), Buffer.from(seal.mac, "hex")))
    fail(
      "the mac does not match this bundle under the given key: the evidence changed after sealing, or another key sealed it",
    );
}
