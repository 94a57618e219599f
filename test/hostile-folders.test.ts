// Folder bombs (issue 21 item 1): a chain of 100,000 nested empty folders under a root ended the
// whole run with "internal error: Maximum call stack size exceeded" (the discovery walk recursed,
// a generator per level; it broke at ~1,400). The walk is iterative now: it descends as far as the
// file system can name (PATH_MAX), says in one line where it stopped, and scores everything else.
// Chains of one-letter folders inside a bundle and a Harbor trial (~2,000 levels, each path within
// PATH_MAX) are listed iteratively too. Built with relative mkdir + chdir in a child process (no
// path grows past PATH_MAX); removed with `rm -rf` (it walks with openat; Node's rmSync would meet ENAMETOOLONG).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { BundleEntry } from "../src/core/results.js";
import { listEntries } from "../src/io/bundle-source.js";
import { bundle, escaped, game, live, writeFiles } from "./helpers/bundle.js";
import { spawnCli, spawnMeasured } from "./helpers/cli.js";
import { writeTrial } from "./helpers/harbor.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-folders-", tmpdir(), "rm detached");
let root: string;
const LEVELS = 100_000;

/** `levels` nested folders named `d` below `dir`, made by a child that never names a long path. */
function chainOf(dir: string, levels: number): void {
  const r = spawnSync(
    process.execPath,
    [
      "-e",
      `const fs = require("fs"); process.chdir(process.argv[1]); for (let i = 0; i < ${levels}; i++) { fs.mkdirSync("d", { recursive: true }); process.chdir("d"); }`,
      dir,
    ],
    { encoding: "utf8" },
  );
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
}

const win = (trial: string) =>
  bundle(game({ trial, seed: `${trial.length}`.padStart(32, "a"), states: [live(), escaped()] }));

beforeAll(() => {
  root = join(tmp, "runs");
  writeFiles(join(root, "exp", "top", "a1"), win("top"));
  // A bundle 1,000 folders down (a path of ~2 KB): the walk must reach it past the old limit.
  writeFiles(join(root, ...Array.from({ length: 1000 }, () => "d"), "b", "a1"), win("deep"));
  chainOf(join(root), LEVELS);
  // Inside a bundle and inside a Harbor trial: chains as deep as PATH_MAX allows, each path nameable.
  writeFiles(join(tmp, "inner", "exp", "t", "a1"), win("t"));
  chainOf(join(tmp, "inner", "exp", "t", "a1"), 1900);
  const trial = writeTrial(join(tmp, "harbor"), { name: "t-chain" });
  chainOf(trial, 1900);
}, 120_000);

describe.sequential("a chain of 100,000 nested folders under a root", () => {
  it("score: every bundle within reach scored, one line says where the walk stopped, exit 0", () => {
    const r = spawnCli(["score", root, "--format", "json", "--quiet"]);
    expect(r.stderr).not.toMatch(/internal error|call stack/);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { bundles: BundleEntry[] };
    expect(doc.bundles.map((b) => `${b.trial} ${b.validity}`).sort()).toEqual(["deep valid", "top valid"]);
    const skipped = r.stderr.split("\n").filter((l) => l.startsWith("assay: skipped "));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(
      /: its path is longer than the file system can name \(PATH_MAX\): nothing below it is read$/,
    );
  });

  it("seal walks it the same way (one skipped line, the two bundles sealed)", () => {
    const key = join(tmp, "key");
    writeFileSync(key, "k".repeat(32), { mode: 0o600 });
    const r = spawnCli(["seal", root, "--hmac-key-file", key]);
    expect(r.stderr).not.toMatch(/internal error|call stack/);
    expect(r.stderr).toMatch(/2 sealed, 0 already sealed, 0 not sealed/);
    expect(r.code).toBe(0);
  });
});

describe("a job-shaped result.json nested 16 million levels deep", () => {
  it("is judged unreadable from its text, never built by JSON.parse on the main thread: bounded memory, exit 0", () => {
    const dir = join(tmp, "deep-job");
    writeFiles(join(dir, "exp", "t", "a1"), win("t"));
    const levels = 16 * 1024 * 1024;
    writeFiles(join(dir, "job"), {
      "result.json": `{"n_total_trials": 1, "stats": ${"[".repeat(levels)}${"]".repeat(levels)}}`,
    });
    const r = spawnMeasured(["score", dir, "--format", "json", "--quiet"], ["--max-old-space-size=128"]);
    expect(r.stderr).not.toMatch(/internal error|heap/i);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { bundles: BundleEntry[] }).bundles.map((b) => b.trial)).toEqual(["t"]);
    expect(r.maxRssKb).toBeLessThan(400 * 1024);
  });
});

describe("a Harbor job's lock.json nested 8 million levels deep", () => {
  it("gives no Harbor version (unreadable) rather than being built on the main thread: bounded memory, exit 0", () => {
    const dir = join(tmp, "deep-lock");
    writeFiles(join(dir, "job1"), { "job.log": "", "lock.json": "[".repeat(8_000_000) + "]".repeat(8_000_000) });
    writeTrial(join(dir, "job1"), { name: "t1" });
    const r = spawnMeasured(["score", dir, "--format", "json", "--quiet"], ["--max-old-space-size=128"]);
    expect(r.stderr).not.toMatch(/internal error|heap/i);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { bundles: BundleEntry[] }).bundles.map((b) => b.validity)).toEqual(["valid"]);
    expect(r.maxRssKb).toBeLessThan(400 * 1024);
  });
});

describe.sequential("chains of ~1,900 one-letter folders inside evidence", () => {
  it("are listed without a call per level, every entry in order", () => {
    const listed = listEntries(join(tmp, "inner", "exp", "t", "a1"));
    const dirs = listed.filter((e) => e.kind === "dir");
    expect(dirs).toHaveLength(1900);
    expect(dirs.at(-1)!.path).toBe(Array.from({ length: 1900 }, () => "d").join("/"));
  });

  it("score of the bundle (a worker) and of the trial: verdicts, not tool errors", () => {
    const b = spawnCli(["score", join(tmp, "inner"), "--format", "json", "--quiet"]);
    expect(b.code).toBe(0);
    expect((JSON.parse(b.stdout) as { bundles: BundleEntry[] }).bundles[0]).toMatchObject({
      trial: "t",
      validity: "valid",
    });
    const t = spawnCli(["score", join(tmp, "harbor"), "--format", "json", "--quiet"]);
    expect(t.code).toBe(0);
    expect((JSON.parse(t.stdout) as { bundles: BundleEntry[] }).bundles[0]).toMatchObject({
      validity: "valid",
      state: "scored",
    });
  });
});
