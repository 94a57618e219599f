// ../shared (the contract's examples) is found through ASSAY_SHARED_DIR. On a fresh clone the
// tests that need it skip; under CI=true its absence is a failure.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll } from "vitest";

export const SHARED_DIR = resolve(process.env["ASSAY_SHARED_DIR"] ?? new URL("../../../shared", import.meta.url).pathname);
export const HAVE_SHARED = existsSync(resolve(SHARED_DIR, "examples"));
export const REQUIRE_SHARED = process.env["CI"] === "true";

/** Where large test corpora go: memory-backed when the machine has it, so tests don't fight over the disk. */
export const SCRATCH = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

/**
 * A scratch folder in SCRATCH for one test file, made before its tests and removed after them, and
 * a new numbered folder inside it for each call (a job, a corpus), so no two tests share one.
 */
export function freshFolders(prefix: string): (name: string) => string {
  let tmp = "";
  let serial = 0;
  beforeAll(() => void (tmp = mkdtempSync(join(SCRATCH, prefix))));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  return (name) => {
    const dir = join(tmp, `${name}-${++serial}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
}
