// Attestation tests' common parts: a results document scored by the real CLI (in-process), and its
// §15.4 projection with a stand-in Merkle root (core/attest/merkle.ts is wired by `assay attest`;
// here any function of the sorted digests shows which leaves went in).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { projectResults, type ProjectionSource, type Statement } from "../../src/core/attest/statement.js";
import type { Results } from "../../src/core/results.js";
import { run } from "./cli.js";

/** SHA-256 of the sorted digests joined: a different set of leaves gives a different root. */
export const standInMerkle = (digests: string[]): string =>
  createHash("sha256")
    .update([...digests].sort().join(","))
    .digest("hex");

export const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

/** `assay score ROOTS -f json -o DIR/NAME --quiet …`: the document and its bytes. */
export async function scoreDocument(
  roots: string[],
  dir: string,
  name = "results.json",
  extra: string[] = [],
): Promise<{ doc: Results; bytes: Buffer; file: string }> {
  const file = join(dir, name);
  const r = await run(["score", ...roots, "--format", "json", "--out", file, "--quiet", ...extra]);
  if (r.code > 1) throw new Error(`assay score: exit ${r.code}: ${r.stderr}`);
  const bytes = readFileSync(file);
  return { doc: JSON.parse(bytes.toString("utf8")) as Results, bytes, file };
}

/** The demo corpus (`assay demo --out DIR`, every kind) scored to DIR/demo.json. */
export async function demoDocument(dir: string): Promise<{ doc: Results; bytes: Buffer; corpus: string }> {
  const corpus = join(dir, "demo");
  const made = await run(["demo", "--out", corpus]);
  if (made.code !== 0) throw new Error(`assay demo: exit ${made.code}: ${made.stderr}`);
  const folders = ["runs", "worlds", "jobs", "logs", "swe"].map((f) => join(corpus, f));
  const { doc, bytes } = await scoreDocument(folders, dir, "demo.json");
  return { doc, bytes, corpus };
}

export const HARNESS = { runtime: "node v20.20.2", digest: { dirHash: "d".repeat(64) } };

/** A document's statement as `assay attest` would build it, with the stand-in root. */
export const project = (doc: ProjectionSource, bytes: Uint8Array | string = "", name = "results.json"): Statement =>
  projectResults(doc, {
    resultsName: name,
    resultsSha256: sha256(bytes),
    merkle: standInMerkle,
    harness: HARNESS,
    attestedAt: "2026-12-07T00:40:00Z",
  });

/** A deep copy to edit. */
export const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The independent verifier: Debian's python3 (not a PATH shim) with securesystemslib, and the script that uses it. */
export const PYTHON = "/usr/bin/python3";
export const VERIFIER = new URL("sslib-verify.py", import.meta.url).pathname;
export const HAVE_SSLIB = (() => {
  try {
    execFileSync(PYTHON, ["-c", "import securesystemslib.signer"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
