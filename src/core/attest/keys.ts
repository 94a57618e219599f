// §15.2 keys: ed25519 only. Private keys are PKCS#8 PEM; public keys SPKI PEM or 64 hex digits
// (securesystemslib's keyval.public); a keyid is the lowercase hex SHA-256 of the SPKI DER, as
// `openssl pkey -pubin -outform DER | sha256sum` gives. Texts in, KeyObjects out: files are the CLI's.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { UsageError } from "../../errors.js";

/** The SPKI DER of an ed25519 key is these 12 bytes, then the 32 of the key (RFC 8410). */
export const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

const spkiDer = (key: KeyObject): Buffer => key.export({ type: "spki", format: "der" });

/** Lowercase hex SHA-256 of the public key's SPKI DER (a private key gives its public key's). */
export const keyidOf = (key: KeyObject): string =>
  createHash("sha256")
    .update(spkiDer(key.type === "private" ? createPublicKey(key) : key))
    .digest("hex");

/** The 32 raw bytes of an ed25519 public key, as lowercase hex (securesystemslib's keyval.public). */
export const publicHex = (key: KeyObject): string => spkiDer(key).subarray(ED25519_SPKI_PREFIX.length).toString("hex");

/** A new ed25519 pair as PEM texts, and its keyid. */
export function generateKeys(): { privatePem: string; publicPem: string; keyid: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    publicPem: publicKey.export({ type: "spki", format: "pem" }) as string,
    keyid: keyidOf(publicKey),
  };
}

/** One PEM block (whitespace around it aside), its label. */
const PEM = /^-----BEGIN ([A-Z0-9 ]+)-----\r?\n[A-Za-z0-9+/=\r\n]+-----END \1-----$/;

function ed25519Only(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== "ed25519")
    throw new UsageError(
      `${what} is a key of type ${key.asymmetricKeyType ?? "unknown"}: attestations take ed25519 keys only`,
    );
  return key;
}

/**
 * A public key from SPKI PEM (`-----BEGIN PUBLIC KEY-----`) or 64 hex digits; `what` names it in errors.
 * A private key, another algorithm or anything else is refused, each with its own reason.
 */
export function publicKeyFrom(text: string, what = "the public key"): KeyObject {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t))
    return createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(t, "hex")]),
      format: "der",
      type: "spki",
    });
  const label = PEM.exec(t)?.[1];
  if (label === undefined)
    throw new UsageError(`${what} is neither an SPKI PEM (BEGIN PUBLIC KEY) nor 64 hex digits of an ed25519 key`);
  if (label.includes("PRIVATE KEY"))
    throw new UsageError(`${what} is a private key: verifying takes the public one (the .pub file)`);
  if (label !== "PUBLIC KEY")
    throw new UsageError(`${what} is a PEM "${label}", not an SPKI public key (BEGIN PUBLIC KEY)`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: t, format: "pem", type: "spki" });
  } catch (e) {
    throw new UsageError(`${what} does not decode as an SPKI public key: ${(e as Error).message}`);
  }
  return ed25519Only(key, what);
}

/** A private key from unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, as `attest keygen` writes). */
export function privateKeyFrom(pem: string, what = "the private key"): KeyObject {
  const label = PEM.exec(pem.trim())?.[1];
  if (label === "ENCRYPTED PRIVATE KEY")
    throw new UsageError(`${what} is encrypted: assay reads unencrypted PKCS#8 keys (protect the file instead)`);
  if (label === "PUBLIC KEY")
    throw new UsageError(`${what} is a public key: signing takes the private one (the .key file)`);
  if (label !== "PRIVATE KEY")
    throw new UsageError(
      `${what} is ${label === undefined ? "not a PEM" : `a PEM "${label}"`}: give a PKCS#8 key (BEGIN PRIVATE KEY), as assay attest keygen writes`,
    );
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem.trim(), format: "pem", type: "pkcs8" });
  } catch (e) {
    throw new UsageError(`${what} does not decode as a PKCS#8 private key: ${(e as Error).message}`);
  }
  return ed25519Only(key, what);
}
