// A folder chain deeper than PATH_MAX inside a bundle (issue 11 item 9) is bad evidence, not a
// tool failure: the entry the file system cannot name is UNSAFE_PATH ("nested too deep for the
// file system to name") in an assay bundle and the warning PATH_TOO_DEEP in a Harbor trial (not
// read, not in the digest) — never IO_ERROR, so a hostile bundle cannot hold a CI gate at exit 3.
//
// The chain is built without any path longer than PATH_MAX: a chain of ~3 KB inside the bundle,
// another of ~2 KB beside it, then the second renamed to the bottom of the first. Removed with a
// child `rm -rf` (it walks with openat; Node's rmSync would meet the same ENAMETOOLONG).
// Workers run compiled code: build first (`npm run build`).
import { lstatSync, mkdirSync, mkdtempSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { taskPack } from "../src/analysis/evidence.js";
import type { BundleEntry } from "../src/core/results.js";
import { listEntries } from "../src/io/bundle-source.js";
import { bundle, escaped, game, live, writeFiles } from "./helpers/bundle.js";
import { run } from "./helpers/cli.js";
import { writeTrial } from "./helpers/harbor.js";
import { scratch } from "./helpers/shared.js";

const PATH_MAX = 4096;
const NAME = "d".repeat(200);
const { dir: tmp } = scratch("assay-deep-", tmpdir(), "rm");

/** A chain of `levels` folders named NAME below `dir`; returns its deepest folder. */
function chain(dir: string, levels: number): string {
  const bottom = join(dir, ...Array.from({ length: levels }, () => NAME));
  mkdirSync(bottom, { recursive: true });
  return bottom;
}

/** A chain below `dir` whose deepest folder's path is longer than PATH_MAX; returns that path. */
function tooDeep(dir: string): string {
  const upper = chain(join(dir, "deep"), Math.floor((PATH_MAX - dir.length - 700) / (NAME.length + 1)));
  const lower = join(mkdtempSync(join(tmp, "stage-")), NAME);
  const below = chain(lower, 5);
  renameSync(lower, join(upper, NAME));
  const deepest = join(upper, NAME, below.slice(lower.length + 1));
  expect(Buffer.byteLength(deepest)).toBeGreaterThan(PATH_MAX);
  expect(() => lstatSync(deepest)).toThrow(/ENAMETOOLONG/); // really beyond what the file system names
  return deepest;
}

const win = (trial: string) =>
  bundle(game({ trial, seed: `${trial.length}`.padStart(32, "a"), states: [live(), escaped()] }));
let root: string;

beforeAll(() => {
  root = join(tmp, "runs");
  writeFiles(join(root, "exp", "deep", "a1"), win("deep"));
  tooDeep(join(root, "exp", "deep", "a1"));
  // The other side of the line: deep, but every path within PATH_MAX.
  writeFiles(join(root, "exp", "fine", "a1"), win("fine"));
  chain(join(root, "exp", "fine", "a1", "deep"), 12);
});

const entries = (doc: { bundles: BundleEntry[] }) => Object.fromEntries(doc.bundles.map((b) => [b.trial, b]));

describe.sequential("a folder chain deeper than PATH_MAX inside a bundle", () => {
  it("is listed as an entry the file system cannot name, not thrown", () => {
    const listed = listEntries(join(root, "exp", "deep", "a1"));
    const deep = listed.filter((e) => e.kind === "too-deep");
    expect(deep).toHaveLength(1);
    expect(deep[0]!.path.startsWith(`deep/${NAME}/`)).toBe(true);
    expect(listEntries(join(root, "exp", "fine", "a1")).some((e) => e.kind === "too-deep")).toBe(false);
  });

  it("score (worker pool): invalid UNSAFE_PATH, no IO_ERROR, exit 0; the bundle beside it stays valid", async () => {
    const r = await run(["score", root, "--format", "json", "--quiet"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { deep, fine } = entries(JSON.parse(r.stdout));
    expect(deep).toMatchObject({
      validity: "invalid",
      errors: [{ code: "UNSAFE_PATH", message: expect.stringMatching(/nested too deep for the file system to name$/) }],
    });
    expect(deep!.errors[0]!.file!.startsWith(`deep/${NAME}/`)).toBe(true);
    expect(fine).toMatchObject({ validity: "valid", errors: [] });
  });

  it("score --fail-on invalid: exit 1, not 3", async () => {
    const r = await run(["score", root, "--fail-on", "invalid", "--quiet"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/IO_ERROR|tool errors? [1-9]|[1-9] tool errors/);
  });

  it("verify: exit 1 with UNSAFE_PATH; the bundle just within PATH_MAX verifies valid (exit 0)", async () => {
    const deep = await run(["verify", join(root, "exp", "deep", "a1")]);
    expect(deep.code).toBe(1);
    expect(deep.stdout).toMatch(/UNSAFE_PATH .*nested too deep for the file system to name/);
    const fine = await run(["verify", join(root, "exp", "fine", "a1")]);
    expect(fine.code).toBe(0);
  });

  it("in a Harbor trial: the warning PATH_TOO_DEEP (not read, not in the digest); the trial stays valid and scored", async () => {
    const trial = writeTrial(join(tmp, "harbor"), { name: "t-deep" });
    const clean = await run(["verify", trial, "--json"]);
    tooDeep(trial);
    const r = await run(["verify", trial, "--json"]);
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout) as BundleEntry;
    expect(e).toMatchObject({ validity: "valid", state: "scored", errors: [], warnings: [{ code: "PATH_TOO_DEEP" }] });
    expect(e.digest).toBe((JSON.parse(clean.stdout) as BundleEntry).digest);
  });

  it("a task folder holding one: its evidence pack is built (the chain is passed over), nothing thrown", () => {
    const task = join(tmp, "task");
    writeFiles(task, { "instruction.md": "Do the thing.\n", "tests/test.sh": "exit 0\n" });
    tooDeep(join(task, "tests"));
    const pack = taskPack(task);
    expect(pack.text).toMatch(/tests\/test\.sh/);
  });
});
