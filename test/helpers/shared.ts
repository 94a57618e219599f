// ../shared (the contract's examples) is found through ASSAY_SHARED_DIR. On a fresh clone the
// tests that need it skip; under CI=true its absence is a failure.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";

export const SHARED_DIR = resolve(process.env["ASSAY_SHARED_DIR"] ?? new URL("../../../shared", import.meta.url).pathname);
export const HAVE_SHARED = existsSync(resolve(SHARED_DIR, "examples"));
export const REQUIRE_SHARED = process.env["CI"] === "true";

/** Where large test corpora go: memory-backed when the machine has it, so tests don't fight over the disk. */
export const SCRATCH = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
