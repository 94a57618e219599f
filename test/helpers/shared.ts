// ../shared (the contract's examples) is found through ASSAY_SHARED_DIR. On a fresh clone the
// tests that need it skip; under CI=true its absence is a failure. Scratch folders are made here too.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, onTestFinished } from "vitest";

export const SHARED_DIR = resolve(
  process.env["ASSAY_SHARED_DIR"] ?? new URL("../../../shared", import.meta.url).pathname,
);
export const HAVE_SHARED = existsSync(resolve(SHARED_DIR, "examples"));
export const REQUIRE_SHARED = process.env["CI"] === "true";

/** Whether the tests of a part of ../shared run: when `path` (in that part) is there, and always under CI=true, where they must fail without it. */
export const runsWithShared = (path: string): boolean => existsSync(path) || REQUIRE_SHARED;

/** Fails the tests of a part of ../shared that run without it (under CI=true), naming what is missing. */
export function expectShared(path: string): void {
  if (!existsSync(path)) throw new Error(`CI=true but ${path} is missing`);
}

/** Where large test corpora go: memory-backed when the machine has it, so tests don't fight over the disk. */
export const SCRATCH = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

/**
 * How a scratch folder is removed: by Node's rmSync, or by GNU rm, which walks with openat and so
 * removes a tree deeper than PATH_MAX (rmSync cannot), waited for or, for a tree that takes seconds
 * of system time, left to a detached rm.
 */
export type Removal = "rmSync" | "rm" | "rm detached";

function remover(dir: string, removal: Removal): () => void {
  if (removal === "rm") return () => void execFileSync("rm", ["-rf", dir]);
  if (removal === "rm detached") return () => spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" }).unref();
  return () => rmSync(dir, { recursive: true, force: true });
}

export interface Scratch {
  dir: string;
  /** A path inside it. */
  at: (p: string) => string;
  /** A new numbered folder inside it for each call (a job, a corpus), so no two tests share one. */
  fresh: (name: string) => string;
}

function inside(dir: string): Scratch {
  let serial = 0;
  const fresh = (name: string) => {
    const made = join(dir, `${name}-${++serial}`);
    mkdirSync(made, { recursive: true });
    return made;
  };
  return { dir, at: (p) => join(dir, p), fresh };
}

/**
 * A scratch folder in `base`, made now and removed after the tests of the file or describe block
 * that calls this (inside a test, use scratchInTest). A skipped block's hooks never run: in one that
 * may be skipped, make the folder in its beforeAll instead, or it is left behind.
 */
export function scratch(prefix: string, base: string = tmpdir(), removal: Removal = "rmSync"): Scratch {
  const dir = mkdtempSync(join(base, prefix));
  afterAll(remover(dir, removal));
  return inside(dir);
}

/** A scratch folder in `base` for the running test, removed when it finishes, passed or failed. */
export function scratchInTest(prefix: string, base: string = tmpdir()): Scratch {
  const dir = mkdtempSync(join(base, prefix));
  onTestFinished(remover(dir, "rmSync"));
  return inside(dir);
}

/** A scratch folder in SCRATCH for the file or block, and a new numbered folder inside it for each call. */
export const freshFolders = (prefix: string): ((name: string) => string) => scratch(prefix, SCRATCH).fresh;
