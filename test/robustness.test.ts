// Fixes from the review of the pool and store: each case once broke a whole run, hung it, or let
// a verdict depend on batching.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import type { BundleEntry } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { ResultStore } from "../src/store/store.js";
import { synthWorld, TARGET } from "../src/synth/world.js";
import { toolError } from "../src/io/tool-error.js";
import { bundleScorer } from "../src/kinds/bundle/scorer.js";
import { bundle, game, killed, live, score, sha, writeFiles, ZERO } from "./helpers/bundle.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const FAULTY = new URL("./fixtures/faulty-worker.mjs", import.meta.url).href;
const BASE = { schedules: [], ...DEFAULT_BATCH } satisfies ScoreRunOptions;
// GNU rm walks with openat, so it removes a tree deeper than PATH_MAX (Node's rmSync cannot).
const { dir: tmp } = scratch("assay-robust-", tmpdir(), "rm");
const put = writeFiles;
const trialDir = (root: string, i: number) => join(root, "exp", `t${i}`, "a1");
const corpus = (root: string, n: number) => {
  for (let i = 0; i < n; i++)
    put(
      trialDir(root, i),
      bundle(game({ trial: `t${i}`, seed: `${i}`.padStart(32, "0"), states: [live(), killed()] })),
    );
};

describe.sequential("pool and pipeline", () => {
  it("the time limit is per bundle, whatever its batch: slow batch-mates pass, the one slow bundle times out", async () => {
    const root = join(tmp, "per-bundle");
    corpus(root, 6);
    for (let i = 0; i < 6; i++) writeFileSync(join(trialDir(root, i), "FAULT"), i === 3 ? "slow:2500" : "slow:500");
    const r = await scoreRoots([root], { ...BASE, jobs: 1, batchSize: 8, workerFile: FAULTY, bundleTimeoutMs: 1000 });
    const byTrial = new Map(r.bundles.map((b) => [b.trial, b]));
    expect(byTrial.get("t3")).toMatchObject({
      validity: "error",
      errors: [expect.objectContaining({ code: "TIMEOUT" })],
    });
    for (const t of ["t0", "t1", "t2", "t4", "t5"]) expect(byTrial.get(t)!.validity, t).toBe("valid"); // 6 × 500 ms > 1 s, each < 1 s
  }, 30_000);

  it("a bundle holding a folder chain deeper than PATH_MAX is invalid (UNSAFE_PATH), not a tool error; the rest of the run is scored", async () => {
    const root = join(tmp, "unlistable");
    corpus(root, 3);
    // A folder inside t1 whose full path exceeds PATH_MAX: created step by step with relative paths.
    const part = "d".repeat(250);
    execFileSync("python3", [
      "-c",
      `import os\nos.chdir(${JSON.stringify(trialDir(root, 1))})\nfor _ in range(20):\n  os.mkdir("${part}"); os.chdir("${part}")`,
    ]);
    const r = await scoreRoots([root], { ...BASE, jobs: 1 });
    const byTrial = new Map(r.bundles.map((b) => [b.trial, b]));
    expect(byTrial.get("t1")).toMatchObject({
      validity: "invalid",
      errors: [expect.objectContaining({ code: "UNSAFE_PATH" })],
    });
    expect(byTrial.get("t0")!.validity).toBe("valid");
    expect(byTrial.get("t2")!.validity).toBe("valid");
    expect(r.experiments[0]!.invalid).toEqual([{ trial: "t1", codes: ["UNSAFE_PATH"] }]);
    expect(r.experiments[0]!.unscored).toEqual([]);
    expect(r.run.complete).toBe(true);
  });

  it("a FIFO journal in a bundle that times out never blocks the main thread", () => {
    const root = join(tmp, "fifo");
    const dir = trialDir(root, 0);
    mkdirSync(dir, { recursive: true });
    execFileSync("mkfifo", [join(dir, "journal.jsonl")]);
    writeFileSync(join(dir, "big.bin"), Buffer.alloc(60 * 1024 * 1024, 7)); // hashing it outlasts the limit
    const r = spawnCli(["score", root, "--bundle-timeout", "0.005", "--jobs", "1", "--quiet", "--format", "json"], {
      timeout: 30_000,
    });
    expect(r.signal, "the run hung").toBeNull();
    expect([0, 3]).toContain(r.code); // UNSAFE_PATH if it finished in time, TIMEOUT if not: never a hang
    const entry = JSON.parse(r.stdout).bundles[0] as BundleEntry;
    expect(["UNSAFE_PATH", "TIMEOUT"]).toContain(entry.errors[0]!.code);
  }, 40_000);

  it("--bundle-timeout refuses values a timer cannot hold", async () => {
    for (const v of ["Infinity", "200000", "0", "-1", "x"]) {
      const r = await run(["score", tmp, "--bundle-timeout", v]);
      expect(r.code, v).toBe(2);
      expect(r.stderr, v).toMatch(/--bundle-timeout/);
    }
  });
});

describe.sequential("store keys and merge", () => {
  it("seal.json is part of the store key: changing it alone rescores the bundle", async () => {
    const root = join(tmp, "seal");
    corpus(root, 2);
    writeFileSync(join(trialDir(root, 0), "seal.json"), '{"format":"assay.seal/1","alg":"HMAC-SHA256","mac":"00"}');
    const store = new ResultStore(join(tmp, "seal.sqlite"));
    try {
      const cached: string[] = [];
      const progress = { done: (e: BundleEntry, _b: number, c: boolean) => void (c && cached.push(e.trial!)) };
      await scoreRoots([root], { ...BASE, jobs: 1, store, progress });
      writeFileSync(join(trialDir(root, 0), "seal.json"), '{"format":"assay.seal/1","alg":"HMAC-SHA256","mac":"11"}');
      await scoreRoots([root], { ...BASE, jobs: 1, store, progress });
      expect(cached).toEqual(["t1"]); // t0's digest is unchanged (seal.json is not in it), its key is not
      expect(store.rows()).toBe(3);
    } finally {
      store.close();
    }
  });

  it("merge refuses shards scored over roots spelled differently (their partitions differ)", () => {
    const root = join(tmp, "roots");
    corpus(root, 6);
    const a = join(tmp, "s0.json");
    const b = join(tmp, "s1.json");
    expect(spawnCli(["score", root, "--shard", "0/2", "--out", a, "--quiet"]).code).toBe(0);
    expect(spawnCli(["score", `${root}/.`, "--shard", "1/2", "--out", b, "--quiet"]).code).toBe(0);
    const r = spawnCli(["merge", a, b]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/roots .* spelled the same way/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("world rules stay linear", () => {
  it("60,000 unknown retries and 60,000 effects needing approval are judged in one pass", { timeout: 15_000 }, () => {
    const base = synthWorld({ experiment: "w", trial: "t", attempt: 1, seed: "ab".repeat(8), scenario: "clean" });
    const lines = (f: string) =>
      base
        .get(f)!
        .toString()
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const jl = lines("journal.jsonl").filter((r) => r["type"] !== "end"); // unterminated: valid without a summary
    const wl = lines("world.jsonl");
    const req = jl.find((r) => r["type"] === "request")!;
    const extraJ: Record<string, unknown>[] = [];
    const extraW: Record<string, unknown>[] = [];
    for (let i = 0; i < 60_000; i++) {
      extraJ.push({ type: "policy", request: "rq-1", attempt: `x-${i}`, decision: "allow", reason: "ok" });
      extraJ.push({ type: "attempt", attempt: `x-${i}`, request: "rq-1", outcome: "unknown", receipt: null });
      extraW.push({
        type: "effect",
        effect: `E-${i}`,
        kind: "request.create",
        intent_key: `k${i}`,
        attempt: `x-${i}`,
        args: req["args"],
        repo: TARGET,
      });
    }
    const cut = jl.length - 2; // before the last budget and the report
    const rechain = (recs: Record<string, unknown>[]) => {
      let prev = ZERO;
      let at = 1_789_000_000_000;
      return recs
        .map((r, i) => {
          const { seq: _s, prev: _p, at: _a, type, ...rest } = r;
          const line = JSON.stringify({ seq: i, at: (at += 1), type, prev, ...rest });
          prev = sha(line);
          return line + "\n";
        })
        .join("");
    };
    const e = score({
      "journal.jsonl": rechain([...jl.slice(0, cut), ...extraJ, ...jl.slice(cut)]),
      "world.jsonl": rechain([...wl.slice(0, -2), ...extraW, ...wl.slice(-2)]),
      "scenario.json": base.get("scenario.json")!,
    });
    expect(e.validity).toBe("valid");
    expect(e.dimensions!["recovery"]!.pass).toBe(false);
    expect(e.dimensions!["recovery"]!.detail).toMatch(/and \d+ more/); // details stay short
    expect(e.dimensions!["world_integrity"]!.pass).toBe(false);
  });
});

describe("tool errors keep their declared profile", () => {
  it("a world bundle the tool could not finish is still a world bundle (its experiment stays world-shaped)", () => {
    const dir = join(tmp, "tool-world");
    writeFiles(
      dir,
      Object.fromEntries(
        synthWorld({ experiment: "w", trial: "t", attempt: 1, seed: "ab".repeat(8), scenario: "clean" }),
      ),
    );
    const e = toolError(dir, "tool-world", "TIMEOUT", "ran out of time", "bundle", bundleScorer.attribute);
    expect(e).toMatchObject({ profile: "world", experiment: "w", trial: "t", attempt: 1, validity: "error" });
  });

  it("a bundle whose line 1 cannot be read names nothing: profile and attribution unknown", () => {
    const dir = join(tmp, "tool-unread");
    writeFiles(dir, { "journal.jsonl": Buffer.from("not json\n") });
    const e = toolError(dir, "tool-unread", "TIMEOUT", "ran out of time", "bundle", bundleScorer.attribute);
    expect(e).toMatchObject({
      profile: null,
      experiment: null,
      trial: null,
      attempt: null,
      seed: null,
      task: null,
      validity: "error",
    });
  });

  it("a kind of one profile is named by it, whatever its files say; a bundle without its scorer's reading names none", () => {
    const dir = join(tmp, "tool-world-named");
    writeFiles(
      dir,
      Object.fromEntries(
        synthWorld({ experiment: "w", trial: "t", attempt: 1, seed: "ab".repeat(8), scenario: "clean" }),
      ),
    );
    expect(toolError(dir, "tool-world", "TIMEOUT", "ran out of time", "harbor", bundleScorer.attribute)).toMatchObject({
      profile: "harbor",
      experiment: null,
      trial: null,
    });
    expect(toolError(dir, "tool-world", "TIMEOUT", "ran out of time", "bundle")).toMatchObject({
      profile: null,
      experiment: null,
      trial: null,
    });
  });
});
