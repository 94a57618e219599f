// A small run is scored in the main thread (src/pipeline/in-thread.ts): no worker starts, and the
// document is the one the workers give, byte for byte apart from the run's start time. Each side of
// each limit (things, bytes), each way out of it (--bundle-timeout, a worker module of the test's
// own), and a throw in the main thread handled as a worker's. Workers run compiled code: build first.
import { existsSync, statSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import type { BundleEntry, Results } from "../src/core/results.js";
import { IN_THREAD, inThreadAllowed, within } from "../src/pipeline/in-thread.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { BundlePool } from "../src/pool/pool.js";
import { bundle, DEADLINE, escaped, game, killed, live, T0, writeFiles, type State } from "./helpers/bundle.js";
import { CLI, spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const FAULTY = new URL("./fixtures/faulty-worker.mjs", import.meta.url).href;
const COUNT_WORKERS = fileURLToPath(new URL("./fixtures/count-workers.mjs", import.meta.url));
const BASE = { schedules: [], ...DEFAULT_BATCH } satisfies ScoreRunOptions;
const { dir: tmp } = scratch("assay-in-thread-");

const seedOf = (i: number) => i.toString(16).padStart(32, "0");
/** Trials exp/tNNN/a1 numbered from `from`, won and lost in turn. */
function corpus(root: string, n: number, from = 1): void {
  for (let i = from; i < from + n; i++) {
    const trial = `t${String(i).padStart(3, "0")}`;
    const states = i % 2 === 0 ? [live(), escaped()] : [live(), killed()];
    writeFiles(join(root, "exp", trial, "a1"), bundle(game({ trial, seed: seedOf(i), states })));
  }
}
/** A valid native game of `n` observations: a journal of n × ~200 bytes. */
function bigGame(trial: string, n: number, seed: string) {
  const states: State[] = [];
  for (let k = 0; k < n; k++) states.push(live({ turn: 10 + k, playerturn: 5 + k, died_from: "x".repeat(60) }));
  states.push(killed({ turn: 10 + n, playerturn: 5 + n }));
  return bundle(game({ trial, seed, states, deadline: T0 + 10 * n * 1000 + DEADLINE - T0 }));
}

/** `assay score` as a whole process: its exit code, its JSON document and how many worker threads it started. */
function score(args: string[]) {
  const file = join(tmp, "workers-started");
  rmSync(file, { force: true });
  const r = spawnCli(["score", ...args, "--quiet", "--format", "json"], {
    node: ["--import", COUNT_WORKERS],
    env: { WORKERS_FILE: file },
  });
  return { code: r.code, stderr: r.stderr, doc: r.stdout, workers: Number(readFileSync(file, "utf8")) };
}
/** The document's text with its start time blanked: the only byte a thread may change. */
const unstarted = (text: string) => text.replace(/"started_at": "[^"]*"/, '"started_at": ""').trimEnd();
const docText = (doc: Results) => unstarted(JSON.stringify(doc, null, 2));

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(new URL("../dist/pool/worker.js", import.meta.url)))
    throw new Error("these tests run the compiled CLI and workers: build first (npm run build)");
});

describe("the limits", () => {
  it("64 things and 1 MiB are within; one more thing or one more byte is not", () => {
    expect(IN_THREAD).toEqual({ things: 64, bytes: 1024 * 1024 });
    expect(within(IN_THREAD, 64, 1024 * 1024)).toBe(true);
    expect(within(IN_THREAD, 65, 10)).toBe(false);
    expect(within(IN_THREAD, 1, 1024 * 1024 + 1)).toBe(false);
  });

  it("a run with a time limit, a memory limit or a worker module of its own is never scored in the main thread", () => {
    expect(inThreadAllowed({})).toEqual(IN_THREAD);
    expect(inThreadAllowed({ inThread: { things: 2, bytes: 3 } })).toEqual({ things: 2, bytes: 3 });
    expect(inThreadAllowed({ inThread: null })).toBeNull();
    expect(inThreadAllowed({ bundleTimeoutMs: 60_000 })).toBeNull();
    expect(inThreadAllowed({ workerMemoryMb: 512 })).toBeNull();
    expect(inThreadAllowed({ workerFile: FAULTY })).toBeNull();
  });
});

describe.sequential("a whole process: the main thread below the limits, workers above, the same document", () => {
  let small: string;
  let extra: string;
  let big: string;
  beforeAll(() => {
    small = join(tmp, "small");
    corpus(small, 64);
    extra = join(tmp, "extra");
    corpus(extra, 1, 65);
    big = join(tmp, "big");
    writeFiles(join(big, "exp", "huge", "a1"), bigGame("huge", 6000, seedOf(7))); // past 1 MiB
    corpus(big, 1);
  });

  it("64 small bundles: no worker; with --bundle-timeout (only a worker can be stopped) one, and the same bytes", () => {
    const here = score([small]);
    expect(here).toMatchObject({ code: 0, stderr: "", workers: 0 });
    const pool = score([small, "--bundle-timeout", "60"]);
    expect(pool).toMatchObject({ code: 0, stderr: "" });
    expect(pool.workers).toBeGreaterThanOrEqual(1);
    expect(unstarted(here.doc)).toBe(unstarted(pool.doc));
    expect((JSON.parse(here.doc) as Results).bundles).toHaveLength(64);
  });

  it("an Inspect log, however small, goes to a worker (its size does not bound what it decodes to); a small folder beside it does not keep it here", () => {
    const log = fileURLToPath(new URL("./fixtures/inspect/log_read_sample.eval", import.meta.url));
    expect(statSync(log).size).toBeLessThan(64 * 1024);
    for (const roots of [[log], [small, log]]) {
      const r = score(roots);
      expect(r.code, r.stderr).toBeLessThanOrEqual(1);
      expect(r.workers, roots.join(" ")).toBeGreaterThanOrEqual(1);
    }
  });

  it("65: workers, and the document the main thread gives with wider limits", async () => {
    const r = score([small, extra]);
    expect(r).toMatchObject({ code: 0, stderr: "", workers: expect.any(Number) });
    expect(r.workers).toBeGreaterThanOrEqual(1);
    const wide = await scoreRoots([small, extra], { ...BASE, inThread: { things: 65, bytes: 2 ** 30 } });
    expect(wide.bundles).toHaveLength(65);
    expect(docText(wide)).toBe(unstarted(r.doc));
  });

  it("two bundles past 1 MiB together: workers; the same document as the main thread's with wider limits", async () => {
    const r = score([big]);
    expect(r.code).toBe(0);
    expect(r.workers).toBeGreaterThanOrEqual(1);
    const wide = await scoreRoots([big], { ...BASE, inThread: { things: 64, bytes: 2 ** 30 } });
    const pooled = await scoreRoots([big], { ...BASE, inThread: null });
    expect(docText(wide)).toBe(docText(pooled));
    expect(wide.bundles.map((b) => b.validity)).toEqual(["valid", "valid"]);
  });

  it("a rerun from the store in the main thread takes every bundle from it, as the workers' would", () => {
    const store = join(tmp, "small.sqlite");
    const first = score([small, "--store", store]);
    const again = score([small, "--store", store]);
    expect(first).toMatchObject({ code: 0, workers: 0 });
    expect(again).toMatchObject({ code: 0, workers: 0 });
    expect(unstarted(again.doc)).toBe(unstarted(first.doc));
  });
});

describe.sequential("a throw while scoring in the main thread is handled as a worker's", () => {
  let root: string;
  let here: BundlePool;
  let pool: BundlePool;
  const ref = (i: number) => {
    const t = `t${String(i).padStart(3, "0")}`;
    return { dir: join(root, "exp", t, "a1"), path: `r/exp/${t}/a1` };
  };
  beforeAll(() => {
    root = join(tmp, "faulty");
    corpus(root, 3);
    writeFileSync(join(ref(2).dir, "FAULT"), "throw");
    here = new BundlePool({ jobs: 1, workerFile: FAULTY });
    pool = new BundlePool({ jobs: 1, workerFile: FAULTY });
  });
  afterAll(async () => {
    await Promise.all([here.destroy(), pool.destroy()]);
  });

  it("the culprit alone is WORKER_FAILED, its batch-mates scored; the answers are the workers' to the byte", async () => {
    const batch = [1, 2, 3].map(ref);
    const inThread = (await here.scoreHere(batch)) as BundleEntry[];
    expect(inThread.map((e) => (e.validity === "error" ? e.errors[0]!.code : "ok"))).toEqual([
      "ok",
      "WORKER_FAILED",
      "ok",
    ]);
    expect(inThread[1]!.errors[0]!.message).toMatch(/injected fault/);
    expect(JSON.stringify(inThread)).toBe(JSON.stringify(await pool.score(batch)));
  });
});
