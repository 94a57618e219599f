// The worker pool (issue 3 items 1–2, contract §6 "Tool errors"): several workers give the same
// document as an in-process computation; a bundle that throws, hangs, exhausts its worker's memory
// or exits its worker becomes a tool error (validity "error", WORKER_FAILED / TIMEOUT, attributed
// from line 1, its trial unscored and in no metric), only the culprit pays, the worker is replaced
// and the run goes on; tool errors are never stored; the CLI exits 3 for them (3 wins over 1).
//
// Workers run compiled code: build first (`npx tsc -p .`). Faults are injected by a wrapper of the
// real worker (test/fixtures/faulty-worker.mjs) that acts on a file named FAULT in a bundle folder.
// All pool work lives in this one file and runs sequentially (2 cores; deadlines are timing-sensitive).
import Database from "better-sqlite3";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import { resultsSchema, type BundleEntry, type Results } from "../src/core/results.js";
import { discover } from "../src/io/discover.js";
import { BATCH_BYTES, batchFull, TaskSizer } from "../src/pipeline/batching.js";
import { assemble, scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { BundlePool } from "../src/pool/pool.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import { ResultStore } from "../src/store/store.js";
import { bundle, DEADLINE, escaped, game, killed, live, T0, type State } from "./helpers/bundle.js";
import { CLI, run, spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const FAULTY = new URL("./fixtures/faulty-worker.mjs", import.meta.url).href;
const BASE = { schedules: [], ...DEFAULT_BATCH } satisfies ScoreRunOptions;
type Fault = "throw" | "hang" | "oom" | "exit";

const { dir: tmp } = scratch("assay-pool-");

const write = (dir: string, files: Record<string, string | Buffer>) => {
  mkdirSync(dir, { recursive: true });
  for (const [p, b] of Object.entries(files)) writeFileSync(join(dir, p), b);
};
const seedOf = (i: number) => i.toString(16).padStart(32, "0");

/** One bundle of a varied kind (win, loss, liar, unterminated, abnormal…) for trial `trial`. */
function varied(i: number, trial: string, attempt = 1): Record<string, string | Buffer> {
  const o = { trial, attempt, seed: seedOf(i) };
  switch (i % 6) {
    case 0:
      return bundle(game({ ...o, states: [live(), escaped()] }));
    case 1:
      return bundle(game({ ...o, states: [live(), killed()] }));
    case 2: // a summary that lies: invalid evidence (not a tool error)
      return bundle(game({ ...o, states: [live(), killed()] }), { summary: { victory: true } });
    case 3: // killed supervisor: unterminated, no ending, no final score
      return bundle(game({ ...o, states: [live(), live({ turn: 20, playerturn: 10 })], score: "none", end: null }));
    case 4:
      return bundle(
        game({ ...o, states: [live(), live({ turn: 30, playerturn: 15 })], score: "none", end: "abnormal" }),
      );
    default:
      return bundle(
        game({ ...o, states: [live(), live({ turn: 40, playerturn: 20 })], score: "none", end: "resource-bound" }),
      );
  }
}

/** A corpus of `n` trials exp/tNN/a1 (byte order = discovery order); FAULT files where asked. */
function corpus(root: string, n: number, faults: Record<number, Fault> = {}): void {
  for (let i = 1; i <= n; i++) {
    const trial = `t${String(i).padStart(2, "0")}`;
    const dir = join(root, "exp", trial, "a1");
    write(dir, varied(i, trial));
    const fault = faults[i];
    if (fault !== undefined) writeFileSync(join(dir, "FAULT"), fault);
  }
}

/** The in-process computation: every bundle scored in this thread, then the batch rules. */
function inProcess(root: string, options: ScoreRunOptions = BASE): Results {
  const entries = [...discover([root])].map((f) => scoreDirectory(f.dir, f.path));
  return assemble(entries, options, new Date().toISOString(), { complete: true, roots: [] });
}

/** The document as text with `run` blanked (what "byte-identical apart from run" compares). */
const withoutRun = (doc: Results | Record<string, unknown>) => JSON.stringify({ ...doc, run: null });

/** A large but valid native game: `n` observations (a journal of a few MB). */
function bigGame(trial: string, n: number, seed: string) {
  const states: State[] = [];
  for (let k = 0; k < n; k++) states.push(live({ turn: 10 + k, playerturn: 5 + k, died_from: "x".repeat(60) }));
  states.push(killed({ turn: 10 + n, playerturn: 5 + n }));
  return bundle(game({ trial, seed, states, deadline: T0 + 10 * n * 1000 + DEADLINE - T0 }));
}

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(new URL("../dist/pool/worker.js", import.meta.url)))
    throw new Error("pool tests run compiled workers: build first (npx tsc -p .)");
});

describe.sequential("the pool scores like the in-process computation", () => {
  let root: string;
  beforeAll(() => {
    root = join(tmp, "equal");
    corpus(root, 22);
    // A trial with several attempts (superseded abnormal first, then a loss) and a second experiment.
    write(
      join(root, "exp", "t03", "a2"),
      bundle(game({ trial: "t03", attempt: 2, seed: seedOf(3), states: [live(), killed()] })),
    );
    write(
      join(root, "other", "w1", "a1"),
      bundle(game({ experiment: "other", trial: "w1", seed: seedOf(99), states: [live(), escaped()] })),
    );
  });

  it("several workers, small batches: the document equals scoreDirectory per bundle + assemble, apart from run", async () => {
    const pooled = await scoreRoots([root], { ...BASE, jobs: 2, batchSize: 3 });
    const local = inProcess(root);
    expect(pooled.bundles).toHaveLength(24);
    expect(pooled.run.complete).toBe(true);
    expect(resultsSchema.safeParse(pooled).success).toBe(true);
    // Sanity: the corpus exercises more than one verdict, and nothing is a tool error.
    expect(new Set(pooled.bundles.map((b) => b.validity))).toEqual(new Set(["valid", "invalid"]));
    expect(withoutRun(pooled)).toBe(withoutRun(local));
  });

  it("a task is handed out at batchSize bundles or at BATCH_BYTES, so large bundles spread over the workers", () => {
    expect(batchFull(15, BATCH_BYTES - 1, 16)).toBe(false);
    expect(batchFull(16, 0, 16)).toBe(true);
    expect(batchFull(1, BATCH_BYTES, 16)).toBe(true); // one large bundle is a task of its own
    expect(batchFull(2, BATCH_BYTES + 1, 16)).toBe(true);
  });

  it("sizes unknown until scored (the workers list): 1, 2, 4, … bundles a task, then BATCH_BYTES over the mean size seen", () => {
    const sizer = new TaskSizer(16);
    const limits: number[] = [];
    for (let i = 0; i < 6; i++) {
      limits.push(sizer.limit);
      sizer.handedOut();
    }
    expect(limits).toEqual([1, 2, 4, 8, 16, 16]);
    sizer.scored(3 * 1024 * 1024);
    expect(sizer.limit).toBe(1); // large bundles: one a task, so they spread over the workers
    const small = new TaskSizer(64);
    for (let i = 0; i < 10; i++) small.scored(20_000);
    expect(small.limit).toBe(64);
    small.scored(2 * BATCH_BYTES);
    expect(small.limit).toBe(Math.floor(BATCH_BYTES / ((10 * 20_000 + 2 * BATCH_BYTES) / 11)));
    const empty = new TaskSizer(8);
    empty.scored(0); // empty folders: as many as a task holds
    expect(empty.limit).toBe(8);
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new TaskSizer(bad)).toThrow(RangeError);
  });

  it("batch size does not change the document", async () => {
    const one = await scoreRoots([root], { ...BASE, jobs: 2, batchSize: 1 });
    const big = await scoreRoots([root], { ...BASE, jobs: 2, batchSize: 64 });
    expect(withoutRun(one)).toBe(withoutRun(big));
  });

  it("assay score --jobs 1 and --jobs 2 print the same document (apart from run)", async () => {
    const a = await run(["score", root, "--format", "json", "--jobs", "1", "--quiet"]);
    const b = await run(["score", root, "--format", "json", "--jobs", "2", "--quiet"]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const da = JSON.parse(a.stdout) as Results;
    const db = JSON.parse(b.stdout) as Results;
    expect(withoutRun(da)).toBe(withoutRun(db));
    expect(withoutRun(da)).toBe(withoutRun(inProcess(root)));
  });
});

describe.sequential("isolation: only the culprit pays, the worker is replaced, the run goes on", () => {
  // 12 trials, batches of 4 and ONE worker: the culprit t02 shares batch 1 with t01, t03, t04;
  // batches 2 and 3 can only be scored by the replacement of the worker the culprit broke.
  const N = 12;
  const CULPRIT = 2;
  // `message` checks that the injected fault is what happened (not some other failure).
  const cases: { fault: Fault; code: "WORKER_FAILED" | "TIMEOUT"; message: RegExp; opts: Partial<ScoreRunOptions> }[] =
    [
      { fault: "throw", code: "WORKER_FAILED", message: /injected fault/, opts: {} },
      // 1 s, not less: a bundle's clock starts when a worker starts it, but on two busy cores an
      // innocent bundle re-run right after the kill can still take a few hundred ms.
      { fault: "hang", code: "TIMEOUT", message: /1000 ms/, opts: { bundleTimeoutMs: 1000 } },
      { fault: "oom", code: "WORKER_FAILED", message: /memory/i, opts: { workerMemoryMb: 32 } },
      { fault: "exit", code: "WORKER_FAILED", message: /exit/i, opts: {} },
    ];

  for (const { fault, code, message, opts } of cases) {
    it(`a bundle that ${fault}s is a ${code} tool error; its batch-mates and later batches are scored normally`, async () => {
      const root = join(tmp, `iso-${fault}`);
      corpus(root, N, { [CULPRIT]: fault });
      const r = await scoreRoots([root], { ...BASE, jobs: 1, batchSize: 4, workerFile: FAULTY, ...opts });

      expect(r.run.complete).toBe(true);
      expect(r.bundles.map((b) => b.path)).toEqual([...discover([root])].map((f) => f.path));
      const culpritPath = `${root}/exp/t02/a1`;
      // Only the culprit pays: it is the one tool error of the run.
      expect(
        r.bundles
          .filter((b) => b.validity === "error")
          .map((b) => `${b.path}: ${b.errors[0]!.code} ${b.errors[0]!.message}`),
      ).toEqual([expect.stringMatching(new RegExp(`^${culpritPath}: ${code} `))]);
      const culprit = r.bundles.find((b) => b.path === culpritPath)!;
      expect(culprit.validity).toBe("error");
      expect(culprit.errors.map((e) => e.code)).toEqual([code]);
      expect(culprit.errors[0]!.message).toMatch(message);
      // Attributed from the journal's line 1, though the worker returned nothing.
      expect(culprit).toMatchObject({ experiment: "exp", trial: "t02", attempt: 1, seed: seedOf(CULPRIT) });
      expect(resultsSchema.safeParse(r).success).toBe(true);

      // Every other bundle — batch-mates and later batches — is exactly what the in-process scorer says.
      const others = r.bundles.filter((b) => b.path !== culpritPath);
      expect(others).toHaveLength(N - 1);
      for (const b of others) {
        expect(b.validity).not.toBe("error");
        expect(b).toEqual(scoreDirectory(join(root, b.path.slice(root.length + 1)), b.path));
      }

      // The trial is unscored and in no metric: the experiment equals one computed without that
      // trial, except that it was scheduled and is listed as unscored.
      const exp = r.experiments.find((e) => e.experiment === "exp")!;
      expect(exp.unscored).toEqual(["t02"]);
      const without = computeExperiments(others, [], DEFAULT_BATCH).find((e) => e.experiment === "exp")!;
      expect(exp).toEqual({ ...without, scheduled: without.scheduled + 1, unscored: ["t02"] });
      expect(exp.raw_record!.values).toHaveLength(N - 1);
      expect(exp.completion!.scheduled).toBe(N - 1);
      expect(exp.retry).not.toContain("t02");
      expect(exp.invalid.map((x) => x.trial)).not.toContain("t02");
      expect(exp.excluded.map((x) => x.trial)).not.toContain("t02");
      expect(exp.missing).not.toContain("t02");
    });
  }

  it("a tool error in a trial whose other attempt is invalid: the trial is unscored, not invalid", async () => {
    const root = join(tmp, "iso-mixed-attempts");
    corpus(root, 6, { 1: "throw" });
    // t01/a2: a summary that lies (invalid evidence). The tool error still wins: unscored.
    write(
      join(root, "exp", "t01", "a2"),
      bundle(game({ trial: "t01", attempt: 2, seed: seedOf(1), states: [live(), killed()] }), {
        summary: { victory: true },
      }),
    );
    const r = await scoreRoots([root], { ...BASE, jobs: 1, batchSize: 4, workerFile: FAULTY });
    const exp = r.experiments[0]!;
    expect(r.bundles.find((b) => b.path.endsWith("/t01/a1"))!.validity).toBe("error");
    expect(r.bundles.find((b) => b.path.endsWith("/t01/a2"))!.validity).toBe("invalid");
    expect(exp.unscored).toEqual(["t01"]);
    expect(exp.invalid.map((x) => x.trial)).not.toContain("t01");
    expect(exp.raw_record!.values).toHaveLength(5);
  });

  describe.sequential("a bundle its worker lists (a run without a store)", () => {
    let pool: BundlePool;
    beforeAll(() => {
      pool = new BundlePool({ jobs: 1 });
    });
    afterAll(async () => {
      await pool.destroy();
    });

    it("answers with its entry, its files' bytes and whether it holds seal.json; a folder gone is IO_ERROR with 0 bytes", async () => {
      const dir = join(tmp, "listed", "a1");
      write(dir, varied(0, "t00"));
      const sealed = join(tmp, "listed", "a2");
      write(sealed, { ...varied(0, "t00", 2), "seal.json": "{}" });
      const bytes = (d: string) => readdirSync(d).reduce((n, f) => n + statSync(join(d, f)).size, 0);
      const answers = await pool.score([
        { dir, path: "r/a1", answerListing: true },
        { dir: sealed, path: "r/a2", answerListing: true },
        { dir: join(tmp, "listed", "gone"), path: "r/gone", answerListing: true },
      ]);
      expect(answers[0]).toEqual({ entry: scoreDirectory(dir, "r/a1"), listing: { bytes: bytes(dir), sealed: false } });
      expect(answers[1]).toMatchObject({ listing: { bytes: bytes(sealed), sealed: true } });
      expect(answers[2]).toMatchObject({
        entry: { path: "r/gone", validity: "error", errors: [{ code: "IO_ERROR" }] },
        listing: { bytes: 0, sealed: false },
      });
    });
  });

  describe.sequential("BundlePool directly", () => {
    let pool: BundlePool;
    let root: string;
    const ref = (i: number) => {
      const t = `t${String(i).padStart(2, "0")}`;
      return { dir: join(root, "exp", t, "a1"), path: `r/exp/${t}/a1` };
    };
    beforeAll(() => {
      root = join(tmp, "direct");
      corpus(root, 8, { 2: "hang", 5: "exit" });
      // Generous: after the exit below, the next bundle's clock includes the replacement's boot.
      pool = new BundlePool({ jobs: 1, bundleTimeoutMs: 1000, workerFile: FAULTY });
    });
    afterAll(async () => {
      await pool.destroy();
    });

    it("returns one entry per bundle, in order, never rejecting; the culprit alone is the tool error", async () => {
      const batch = [1, 2, 3].map(ref);
      const entries = (await pool.score(batch)) as BundleEntry[]; // no lookup asked: entries only
      expect(entries.map((e) => e.path)).toEqual(batch.map((b) => b.path));
      expect(entries.map((e) => (e.validity === "error" ? e.errors[0]!.code : "ok"))).toEqual(["ok", "TIMEOUT", "ok"]);
      expect(entries[1]!.errors[0]!.message).toMatch(/1000 ms/);
      expect(entries[0]).toEqual(scoreDirectory(batch[0]!.dir, batch[0]!.path));
      expect(entries[2]).toEqual(scoreDirectory(batch[2]!.dir, batch[2]!.path));
    });

    it("the same pool goes on after a dead worker: an exit, then clean batches", async () => {
      const entries = (await pool.score([4, 5, 6].map(ref))) as BundleEntry[];
      expect(entries.map((e) => (e.validity === "error" ? e.errors[0]!.code : "ok"))).toEqual([
        "ok",
        "WORKER_FAILED",
        "ok",
      ]);
      expect(entries[1]).toMatchObject({ experiment: "exp", trial: "t05", attempt: 1 });
      const later = (await pool.score([7, 8, 1].map(ref))) as BundleEntry[];
      expect(later.every((e) => e.validity !== "error")).toBe(true);
    });

    it("rest() lets the workers go (a pool never started: nothing to do); the next task starts the pool afresh", async () => {
      const idle = new BundlePool({ jobs: 1 });
      await idle.rest(); // never started: no worker, no error
      await idle.destroy();
      const before = (await pool.score([1, 3].map(ref))) as BundleEntry[];
      await pool.rest();
      const after = (await pool.score([1, 3].map(ref))) as BundleEntry[];
      expect(after).toEqual(before);
      expect(after.every((e) => e.validity !== "error")).toBe(true);
    });

    it("a bundle its worker was to list and whose worker died is answered in the shape asked for, listed by the pool", async () => {
      const { dir, path } = ref(5);
      writeFileSync(join(dir, "seal.json"), "{}"); // counted as a seal not checked, whatever became of the worker
      const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
      const answers = await pool.score([
        ref(4),
        { dir, path, answerListing: true },
        { dir, path, answerListing: true, kind: "harbor" },
      ]);
      expect(answers[1]).toMatchObject({
        entry: { path, validity: "error", errors: [{ code: "WORKER_FAILED" }] },
        listing: { bytes, sealed: true },
      });
      expect(answers[2]).toMatchObject({ listing: { bytes, sealed: false } }); // a Harbor trial carries no seal
    });
  });
});

describe.sequential("a task queued behind a long one", () => {
  it("is not timed while the task ahead of it runs bundles within their limit: it runs after it, valid", async () => {
    const root = join(tmp, "queued");
    corpus(root, 4);
    for (const i of [1, 2, 3]) writeFileSync(join(root, "exp", `t0${i}`, "a1", "FAULT"), "slow:2500"); // each within its 4 s limit
    const ref = (i: number) => ({ dir: join(root, "exp", `t0${i}`, "a1"), path: `q/t0${i}` });
    // A start grace of 1 s: before, the queued task's clock started 1 s after it was handed out,
    // so it ran out at 5 s, while the task ahead of it (7.5 s) still ran: TIMEOUT for a bundle never started.
    const pool = new BundlePool({ jobs: 1, bundleTimeoutMs: 4000, startGraceMs: 1000, workerFile: FAULTY });
    try {
      const [ahead, queued] = await Promise.all([pool.score([ref(1), ref(2), ref(3)]), pool.score([ref(4)])]);
      expect((ahead as BundleEntry[]).map((e) => e.validity)).not.toContain("error");
      expect((queued[0] as BundleEntry).validity).not.toBe("error");
    } finally {
      await pool.destroy();
    }
  });
});

describe.sequential("tool errors are never stored", () => {
  it("the culprit is not in the store; a rerun takes the others from the store and scores the culprit again", async () => {
    const root = join(tmp, "store-corpus");
    corpus(root, 6, { 3: "throw" });
    const file = join(tmp, "results.sqlite");
    const store = new ResultStore(file);
    /** Has the stamp table a row for this folder (read beside the store's own connection)? */
    const stamped = (dir: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare("SELECT 1 FROM stamps WHERE folder = ?").get(dir) !== undefined;
      } finally {
        db.close();
      }
    };
    try {
      const seen: { path: string; cached: boolean; validity: string }[] = [];
      const progress = {
        done: (e: BundleEntry, _bytes: number, cached: boolean) =>
          void seen.push({ path: e.path, cached, validity: e.validity }),
      };
      const opts: ScoreRunOptions = { ...BASE, jobs: 1, batchSize: 4, workerFile: FAULTY, store, progress };

      const first = await scoreRoots([root], opts);
      const culpritPath = `${root}/exp/t03/a1`;
      expect(first.bundles.find((b) => b.path === culpritPath)!.validity).toBe("error");
      expect(store.rows()).toBe(5);
      for (const f of discover([root])) {
        const entry = first.bundles.find((b) => b.path === f.path)!;
        // The culprit's folder was never recorded; every other folder's entry is, under its digest.
        expect(stamped(f.dir), f.path).toBe(f.path !== culpritPath);
        if (f.path !== culpritPath)
          expect(store.lookupDigest(entry.digest, null)).toEqual((({ path: _p, ...rest }) => rest)(entry));
      }

      seen.length = 0;
      const second = await scoreRoots([root], opts);
      expect(
        seen
          .filter((s) => s.cached)
          .map((s) => s.path)
          .sort(),
      ).toEqual(first.bundles.map((b) => b.path).filter((p) => p !== culpritPath));
      expect(seen.filter((s) => !s.cached)).toEqual([{ path: culpritPath, cached: false, validity: "error" }]);
      expect(store.rows()).toBe(5);
      expect(withoutRun(second)).toBe(withoutRun(first));

      // Once the fault is gone, the rerun scores it (it was never cached) and now stores it.
      rmSync(join(root, "exp", "t03", "a1", "FAULT"));
      seen.length = 0;
      const third = await scoreRoots([root], opts);
      expect(seen.filter((s) => !s.cached)).toEqual([
        { path: culpritPath, cached: false, validity: third.bundles.find((b) => b.path === culpritPath)!.validity },
      ]);
      expect(third.bundles.every((b) => b.validity !== "error")).toBe(true);
      expect(third.experiments[0]!.unscored).toEqual([]);
      expect(store.rows()).toBe(6);
    } finally {
      store.close();
    }
  });
});

describe.sequential("the CLI exits 3 for a tool error (spawned dist/cli.js)", () => {
  let root: string;
  let schedule: string;
  beforeAll(() => {
    root = join(tmp, "cli");
    const big = bigGame("big", 6000, seedOf(1));
    expect(Buffer.byteLength(big["journal.jsonl"]!)).toBeGreaterThan(3 * 1024 * 1024);
    write(join(root, "exp", "big", "a1"), big);
    write(
      join(root, "exp", "small", "a1"),
      bundle(game({ trial: "small", seed: seedOf(2), states: [live(), escaped()] })),
    );
    // A trial the schedule does not list: UNSCHEDULED (invalid) whatever the workers manage, since the
    // batch rules run in the main thread on the line-1 attribution.
    write(
      join(root, "exp", "stray", "a1"),
      bundle(game({ trial: "stray", seed: seedOf(3), states: [live(), killed()] })),
    );
    schedule = join(tmp, "cli-schedule.json");
    writeFileSync(
      schedule,
      JSON.stringify({
        format: "assay.schedule/1",
        experiment: "exp",
        trials: [
          { trial: "big", seed: seedOf(1) },
          { trial: "small", seed: seedOf(2) },
        ],
      }),
    );
  });

  it("a large bundle that cannot finish in 1 ms: exit 3, TIMEOUT in the JSON document; the tasks queued behind it go on at once", () => {
    const t0 = Date.now();
    const r = spawnCli(["score", root, "--bundle-timeout", "0.001", "--jobs", "1", "--quiet", "--format", "json"]);
    // The big bundle's task runs alone (the first tasks are small), the others queue behind it: its
    // terminated worker must be replaced for them, not left until the 30 s start grace runs out.
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(3);
    const doc = resultsSchema.parse(JSON.parse(r.stdout));
    const big = doc.bundles.find((b) => b.path === `${root}/exp/big/a1`)!;
    expect(big.validity).toBe("error");
    expect(big.errors.map((e) => e.code)).toEqual(["TIMEOUT"]);
    expect(big).toMatchObject({ experiment: "exp", trial: "big", attempt: 1 });
    expect(doc.experiments[0]!.unscored).toContain("big");
  });

  it("without the tight limit the same corpus scores cleanly: exit 0 (the big bundle is valid)", () => {
    const r = spawnCli(["score", root, "--jobs", "1", "--quiet", "--format", "json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Results;
    expect(doc.bundles.every((b) => b.validity === "valid")).toBe(true);
  });

  it("--fail-on invalid with an invalid trial and a tool error exits 3 (3 wins over 1)", () => {
    const control = spawnCli([
      "score",
      root,
      "--schedule",
      schedule,
      "--fail-on",
      "invalid",
      "--jobs",
      "1",
      "--quiet",
      "--format",
      "json",
    ]);
    expect(control.code).toBe(1); // the invalid trial alone
    expect((JSON.parse(control.stdout) as Results).experiments[0]!.invalid).toEqual([
      { trial: "stray", codes: ["UNSCHEDULED"] },
    ]);

    const r = spawnCli([
      "score",
      root,
      "--schedule",
      schedule,
      "--fail-on",
      "invalid",
      "--bundle-timeout",
      "0.001",
      "--jobs",
      "1",
      "--quiet",
      "--format",
      "json",
    ]);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as Results;
    expect(doc.bundles.some((b) => b.validity === "error" && b.errors[0]!.code === "TIMEOUT")).toBe(true);
    expect(doc.experiments[0]!.invalid.map((x) => x.trial)).toContain("stray");
  });
});

describe.sequential("workers start only when there is work for them", () => {
  const COUNT_WORKERS = fileURLToPath(new URL("./fixtures/count-workers.mjs", import.meta.url));
  /** `assay score` as a whole process: its exit code and how many worker threads it started. */
  const score = (args: string[]) => {
    const file = join(tmp, "workers-started");
    rmSync(file, { force: true });
    const r = spawnCli(["score", ...args, "--quiet", "--format", "json"], {
      node: ["--import", COUNT_WORKERS],
      env: { WORKERS_FILE: file },
    });
    return { code: r.code, stderr: r.stderr, workers: Number(readFileSync(file, "utf8")) };
  };

  it("an empty root starts none, with --allow-empty (exit 0) or without (exit 2)", () => {
    const empty = join(tmp, "no-work");
    mkdirSync(empty, { recursive: true });
    expect(score([empty, "--allow-empty"])).toMatchObject({ code: 0, workers: 0 });
    expect(score([empty])).toMatchObject({ code: 2, workers: 0 });
  });

  it("a rerun whose every bundle the store holds starts none; the first run scored them in one", () => {
    // --bundle-timeout: a run this small is otherwise scored in the main thread (test/in-thread.test.ts).
    const root = join(tmp, "all-stored");
    corpus(root, 3);
    // Written a minute ago: stamps this fresh are recorded as racy, and a rerun would rehash them in a worker.
    const then = new Date(Date.now() - 60_000);
    for (const t of readdirSync(join(root, "exp")))
      for (const f of readdirSync(join(root, "exp", t, "a1"))) utimesSync(join(root, "exp", t, "a1", f), then, then);
    const store = join(tmp, "all-stored.sqlite");
    expect(score([root, "--store", store, "--bundle-timeout", "60"])).toMatchObject({ code: 0, workers: 1 });
    expect(score([root, "--store", store, "--bundle-timeout", "60"])).toMatchObject({
      code: 0,
      stderr: "",
      workers: 0,
    });
  });
});
