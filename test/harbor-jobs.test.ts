// Harbor jobs (contract §11, §10, §7): discovery of job and trial folders, job metrics (states,
// mean over both scored states, coverage, pass rate, unbiased pass@k per task), --errors and
// --invalid, review flags that change nothing, reading in place, the store and the pool, shards
// and merge, the table and `assay verify`. Every expected number is computed by hand below from
// the spec, never recorded from the program's output.
//
// Workers run compiled code (dist/); all pool work here runs sequentially.
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { resultsSchema, type Experiment, type Results } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { inShard } from "../src/pipeline/shard.js";
import { bundle, escaped, game, live, writeFiles } from "./helpers/bundle.js";
import { CLI, run, spawnCli } from "./helpers/cli.js";
import { at, float, realTrajectory, withAgentCommand, writeJob, writeTrial, type TrialSpec } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const FAULTY = new URL("./fixtures/faulty-worker.mjs", import.meta.url).href;
const BASE: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
const score = (roots: string[], over: Partial<ScoreRunOptions> = {}) => scoreRoots(roots, { ...BASE, ...over });
const job = (doc: Results, name: string | null): Experiment => {
  const e = doc.experiments.find((x) => x.experiment === name && x.profile === "harbor");
  expect(e, `no harbor experiment ${name}`).toBeDefined();
  return e!;
};
/** The document with `run` blanked: what "the same document apart from run" compares. */
const withoutRun = (doc: Results) => JSON.stringify({ ...doc, run: null });
const parse = (text: string): Results => resultsSchema.parse(JSON.parse(text));

/** C(n, k) by the multiplicative formula (0 when k > n). */
const C = (n: number, k: number): number => {
  if (k > n || k < 0) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
};
/** The Wilson 95% interval by hand, in counts (k ones of n binary rewards), each end to 12 places. */
function wilson(k: number, n: number) {
  const z = 1.959963984540054;
  const half = z * Math.sqrt((k * (n - k)) / n + (z * z) / 4);
  return [
    expect.closeTo(Math.max(0, (k + (z * z) / 2 - half) / (n + z * z)), 12),
    expect.closeTo(Math.min(1, (k + (z * z) / 2 + half) / (n + z * z)), 12),
  ];
}
/** Unbiased pass@k by hand: mean over tasks of 1 − C(n−c,k)/C(n,k), k = 1..smallest n; groups are [c, n]. */
function passAt(groups: [c: number, n: number][]) {
  const kMax = Math.min(...groups.map(([, n]) => n));
  const out: Record<string, unknown> = {};
  for (let k = 1; k <= kMax; k++)
    out[String(k)] = expect.closeTo(groups.reduce((s, [c, n]) => s + 1 - C(n - c, k) / C(n, k), 0) / groups.length, 12);
  return out;
}

const AGENT_TIMEOUT = { type: "AgentTimeoutError", message: "Agent execution timed out after 900.0 seconds" };
const DOCKER = { type: "RuntimeError", message: "Docker compose command failed: network not found" };

/**
 * Ten trials over three task groups: alpha/c1 (a1..a4), beta/c1 (b1..b4), alpha/c2 (x1, x2) —
 * same name as a1..a4 but another checksum, so another group.
 *   a1 1 scored · a2 0 scored · a3 1 scored-with-exception · a4 infrastructure-error
 *   b1 0 scored · b2 0 scored · b3 incomplete (verifier_result null, no exception)
 *   b4 incomplete (no result.json, no reward file: killed before its verifier) · x1 1 scored · x2 0 scored
 */
const MIXED: TrialSpec[] = [
  { name: "a1", task: "alpha", checksum: "c1", rewards: { reward: float(1) } },
  { name: "a2", task: "alpha", checksum: "c1", rewards: { reward: float(0) } },
  { name: "a3", task: "alpha", checksum: "c1", rewards: { reward: float(1) }, exception: AGENT_TIMEOUT },
  { name: "a4", task: "alpha", checksum: "c1", rewards: null, exception: DOCKER },
  { name: "b1", task: "beta", checksum: "c1", rewards: { reward: float(0) } },
  { name: "b2", task: "beta", checksum: "c1", rewards: { reward: 0 } },
  { name: "b3", task: "beta", checksum: "c1", rewards: null },
  { name: "b4", task: "beta", checksum: "c1", result: null, rewardFiles: null },
  { name: "x1", task: "alpha", checksum: "c2", rewards: { reward: 1 } },
  { name: "x2", task: "alpha", checksum: "c2", rewards: { reward: float(0) } },
];

/**
 * Invalid trials: m1 claims 1 but its reward.txt says 0 (REWARD_MISMATCH, state scored); m2 has an
 * exception and no rewards, with a phase that ends before it starts (TIMING, state
 * infrastructure-error); d1 and d2 are two folders claiming one trial_name "dup" (both passing).
 */
const INVALID: TrialSpec[] = [
  { name: "d1", trial_name: "dup", rewards: { reward: float(1) } },
  { name: "d2", trial_name: "dup", rewards: { reward: float(1) } },
  { name: "m1", rewards: { reward: float(1) }, rewardFiles: { "reward.txt": "0\n" } },
  {
    name: "m2",
    rewards: null,
    exception: DOCKER,
    timing: { agent_setup: { started_at: at(100), finished_at: at(50) } },
  },
  { name: "p1", rewards: { reward: float(1) } },
  { name: "p2", rewards: { reward: float(0) } },
];

const { dir: tmp, fresh } = scratch("assay-harbor-jobs-", SCRATCH);
beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(new URL("../dist/pool/worker.js", import.meta.url)))
    throw new Error("these tests run compiled workers: build first");
});
let serial = 0;

describe.sequential("job metrics are computed per reward key, states first", () => {
  let mixed: string;
  let invalid: string;
  beforeAll(() => {
    mixed = writeJob(fresh("metrics"), "job-mixed", MIXED);
    invalid = writeJob(fresh("invalid"), "job-invalid", INVALID);
  });

  it("counts every state, means over both scored states, and groups pass@k by task name and checksum", async () => {
    const doc = await score([mixed]);
    expect(doc.bundles.map((b) => [b.trial, b.validity, b.state])).toEqual([
      ["a1", "valid", "scored"],
      ["a2", "valid", "scored"],
      ["a3", "valid", "scored-with-exception"],
      ["a4", "valid", "infrastructure-error"],
      ["b1", "valid", "scored"],
      ["b2", "valid", "scored"],
      ["b3", "valid", "incomplete"],
      ["b4", "valid", "incomplete"],
      ["x1", "valid", "scored"],
      ["x2", "valid", "scored"],
    ]);
    const e = job(doc, "job-mixed");
    expect(e.states).toEqual({
      scored: 6,
      "scored-with-exception": 1,
      "infrastructure-error": 1,
      cancelled: 0,
      incomplete: 2,
      unverified: 0,
    });
    // In the mean: a1 1, a2 0, a3 1, b1 0, b2 0, x1 1, x2 0 → 3/7; covered 7 of 10 trials.
    // pass@k groups [c, n]: alpha/c1 [2, 3], beta/c1 [0, 2], alpha/c2 [1, 2]; k ≤ 2.
    // pass@1 = (2/3 + 0 + 1/2) / 3 = 7/18; pass@2 = (1 + 0 + 1) / 3 = 2/3. By name alone it would be 0.3.
    expect(e.rewards).toMatchObject({
      reward: {
        mean: 3 / 7,
        wilson95: wilson(3, 7),
        coverage: 7 / 10,
        covered: 7,
        trials: 10,
        pass_rate: 3 / 7,
        pass_at_k: passAt([
          [2, 3],
          [0, 2],
          [1, 2],
        ]),
        pass_at_k_reason: null,
      },
    });
    expect(e.rewards!["reward"]!.pass_at_k).toEqual({
      "1": expect.closeTo(7 / 18, 12),
      "2": expect.closeTo(2 / 3, 12),
    });
    expect(e.excluded.map((x) => x.trial)).toEqual(["a4", "b3", "b4"]);
    expect(e.excluded.map((x) => x.reason)).toEqual([
      expect.stringContaining("infrastructure-error"),
      expect.stringContaining("incomplete"),
      expect.stringContaining("incomplete"),
    ]);
    expect(e).toMatchObject({
      profile: "harbor",
      invalid: [],
      unscored: [],
      flags: [],
      accuracy: null,
      raw_record: null,
      pass_hat_k: null,
    });
    expect(doc.run.options.errors).toBe("exclude");
  });

  it("--errors zero counts errors and incomplete trials as 0 in mean and pass rate; coverage stays the scored share", async () => {
    const doc = await score([mixed], { errors: "zero" });
    const e = job(doc, "job-mixed");
    expect(doc.run.options.errors).toBe("zero");
    expect(e.states).toEqual({
      scored: 6,
      "scored-with-exception": 1,
      "infrastructure-error": 1,
      cancelled: 0,
      incomplete: 2,
      unverified: 0,
    });
    // Mean over all 10: 3/10. b4 has no result.json, so it names no task, but its config.json's
    // task path is the one b1..b3 record (issue 35): it is placed in beta/c1, counting 0 there.
    // pass@k groups [c, n]: alpha/c1 [2, 4], beta/c1 [0, 4], alpha/c2 [1, 2].
    expect(e.rewards).toMatchObject({
      reward: {
        mean: 3 / 10,
        wilson95: wilson(3, 10),
        coverage: 7 / 10,
        covered: 7,
        trials: 10,
        pass_rate: 3 / 10,
        pass_at_k: passAt([
          [2, 4],
          [0, 4],
          [1, 2],
        ]),
        pass_at_k_reason: null,
      },
    });
  });

  it("invalid trials count as 0 whatever their state; --invalid exclude leaves them out of mean, pass rate and coverage's numerator", async () => {
    const counted = job(await score([invalid]), "job-invalid");
    expect(counted.invalid).toEqual([
      { trial: "dup", codes: ["TRIAL_DUPLICATE"] },
      { trial: "dup", codes: ["TRIAL_DUPLICATE"] },
      { trial: "m1", codes: ["REWARD_MISMATCH"] },
      { trial: "m2", codes: ["TIMING"] },
    ]);
    expect(counted.states).toEqual({
      scored: 5,
      "scored-with-exception": 0,
      "infrastructure-error": 1,
      cancelled: 0,
      incomplete: 0,
      unverified: 0,
    });
    expect(counted.excluded).toEqual([]); // m2 is invalid, not an excluded error: it counts as 0
    // p1 1, p2 0, and four invalid trials as 0 (two passing duplicates, a claimed 1, an error): 1/6, one task [1, 6].
    expect(counted.rewards).toMatchObject({
      reward: {
        mean: 1 / 6,
        wilson95: wilson(1, 6),
        coverage: 1,
        covered: 6,
        trials: 6,
        pass_rate: 1 / 6,
        pass_at_k: passAt([[1, 6]]),
        pass_at_k_reason: null,
      },
    });

    const doc = await score([invalid], { invalid: "exclude" });
    const excluded = job(doc, "job-invalid");
    expect(excluded.invalid).toEqual(counted.invalid); // listed either way
    expect(excluded.rewards).toMatchObject({
      reward: {
        mean: 1 / 2,
        wilson95: wilson(1, 2),
        coverage: 2 / 6,
        covered: 2,
        trials: 6,
        pass_rate: 1 / 2,
        pass_at_k: passAt([[1, 2]]),
        pass_at_k_reason: null,
      },
    });
    expect(doc.run.options.invalid).toBe("exclude");
  });

  it("non-binary rewards give pass@k null with a reason naming the trial; each key of reward.json has its own metrics", async () => {
    const dir = writeJob(fresh("keys"), "job-keys", [
      { name: "k1", rewards: { accuracy: float(0.5), passed: float(1) } },
      { name: "k2", rewards: { accuracy: float(1), passed: float(1) } },
      { name: "k3", rewards: { accuracy: float(0), passed: float(0) } },
    ]);
    expect(readFileSync(join(dir, "k1/verifier/reward.json"), "utf8")).toContain('"accuracy"');
    const e = job(await score([dir]), "job-keys");
    expect(Object.keys(e.rewards!)).toEqual(["accuracy", "passed"]);
    // accuracy: (0.5 + 1 + 0) / 3; only k2 has exactly 1.
    // Not every value is 0 or 1: no Wilson interval (nor pass@k).
    expect(e.rewards!["accuracy"]).toMatchObject({
      mean: 0.5,
      wilson95: null,
      coverage: 1,
      covered: 3,
      trials: 3,
      pass_rate: 1 / 3,
      pass_at_k: null,
      pass_at_k_reason: expect.stringContaining("k1"),
    });
    expect(e.rewards!["accuracy"]!.pass_at_k_reason).toContain("0.5");
    // passed: 1, 1, 0 on one task: [2, 3] → pass@1 2/3, pass@2 1, pass@3 1.
    expect(e.rewards!["passed"]).toMatchObject({
      mean: 2 / 3,
      wilson95: wilson(2, 3),
      coverage: 1,
      covered: 3,
      trials: 3,
      pass_rate: 2 / 3,
      pass_at_k: passAt([[2, 3]]),
      pass_at_k_reason: null,
    });
  });

  it("a review flag changes no state and no metric: the same job with and without a trajectory writing the reward file", async () => {
    const clean = realTrajectory("timeout");
    // Each job's trials have ids of their own: the same ids would be one job copied (TRIAL_DUPLICATE_ID).
    const trials = (trajectory: string, idPrefix: string): TrialSpec[] => [
      { name: "f1", rewards: { reward: float(1) }, trajectory, extra: { id: `${idPrefix}-1` } },
      {
        name: "f2",
        rewards: { reward: float(0) },
        exception: AGENT_TIMEOUT,
        trajectory: clean,
        extra: { id: `${idPrefix}-2` },
      },
      { name: "f3", rewards: null, exception: DOCKER, extra: { id: `${idPrefix}-3` } },
    ];
    const root = fresh("flags");
    writeJob(root, "job-clean", trials(clean, "clean"));
    writeJob(root, "job-flagged", trials(withAgentCommand(clean, "echo 1 > /logs/verifier/reward.txt"), "flagged"));
    const doc = await score([root]);
    const a = job(doc, "job-clean");
    const b = job(doc, "job-flagged");
    expect(a.flags).toEqual([]);
    expect(b.flags).toEqual([{ code: "WRITES_REWARD_PATH", trial: "f1", attempt: null, evidence: null }]);
    expect(b.rewards).toEqual(a.rewards);
    expect(b.states).toEqual(a.states);
    expect(b.excluded).toEqual(a.excluded);
    expect(b.invalid).toEqual([]);
    const f1 = doc.bundles.find((x) => x.path === `${root}/job-flagged/f1`)!;
    expect(f1).toMatchObject({ validity: "valid", state: "scored", rewards: { reward: 1 } });
    expect(f1.flags[0]!.evidence).toContain("/logs/verifier/reward.txt");
  });
});

describe.sequential("discovery finds jobs, their trials and lone trials", () => {
  let root: string;
  let doc: Results;
  beforeAll(async () => {
    root = fresh("disc");
    const jobA = writeJob(join(root, "jobs"), "job-a", [{ name: "t1" }, { name: "t2", rewards: { reward: float(0) } }]);
    // A subfolder without config.json is a trial too (one that never started: only trial.log);
    // a symlink to a trial folder outside the roots is not.
    writeFiles(join(jobA, "notes"), { "trial.log": "x\n" });
    symlinkSync(writeTrial(join(fresh("outside"), "t9"), { name: "t9" }), join(jobA, "t9"));
    writeJob(join(root, "tree/x/y"), "job-b", [{ name: "t1" }]);
    writeJob(join(root, "tree/z"), "job-c", [{ name: "t1", rewards: { reward: float(0) } }]);
    // Lone trials: config.json with trial.log and result.json, with result.json only, with trial.log only.
    writeTrial(join(root, "aaa-lone"), { name: "aaa-lone" });
    rmSync(
      join(writeTrial(join(root, "lone-no-log"), { name: "lone-no-log", rewards: { reward: float(0) } }), "trial.log"),
    );
    writeTrial(join(root, "lone-no-result"), { name: "lone-no-result", result: null, rewardFiles: null });
    writeFiles(join(root, "config-only"), { "config.json": "{}\n" });
    // A native assay bundle beside them (experiment "mid": sorts between job-c and the lone trials).
    writeFiles(
      join(root, "native/mid/t1/a1"),
      bundle(game({ experiment: "mid", trial: "t1", states: [live(), escaped()] })),
    );
    doc = await score([root]);
  });

  // Revision 2 (§11 "Every subdirectory of a job is one of its trials, whatever it holds (a trial
  // that never started has only trial.log, or nothing: it is incomplete)"): revision 1 took only
  // subfolders holding config.json.
  it("every subfolder of a job is one of its trials (one with only trial.log is incomplete); a symlink is not", () => {
    const under = doc.bundles.filter((b) => b.path.startsWith(`${root}/jobs/`)).map((b) => [b.path, b.state]);
    expect(under).toEqual([
      [`${root}/jobs/job-a/notes`, "incomplete"],
      [`${root}/jobs/job-a/t1`, "scored"],
      [`${root}/jobs/job-a/t2`, "scored"],
    ]);
    expect(doc.bundles.some((b) => b.path.endsWith("/config-only"))).toBe(false);
    expect(job(doc, "job-a").scheduled).toBe(3);
  });

  it("nested jobs in a tree of folders are all found, each its own experiment named after its folder", () => {
    expect(
      doc.bundles
        .filter((b) => b.profile === "harbor" && b.experiment !== null)
        .map((b) => `${b.experiment}/${b.trial}`),
    ).toEqual(["job-a/notes", "job-a/t1", "job-a/t2", "job-b/t1", "job-c/t1"]);
    expect(job(doc, "job-b").rewards!["reward"]!.mean).toBe(1);
    expect(job(doc, "job-c").rewards!["reward"]!.mean).toBe(0);
  });

  it("lone trials (config.json with trial.log or result.json) are grouped under experiment null, reported after every named experiment", () => {
    expect(doc.experiments.map((e) => [e.experiment, e.profile])).toEqual([
      ["job-a", "harbor"],
      ["job-b", "harbor"],
      ["job-c", "harbor"],
      ["mid", "native-game"],
      [null, "harbor"],
    ]);
    const lone = job(doc, null);
    expect(doc.bundles.filter((b) => b.experiment === null).map((b) => [b.trial, b.state])).toEqual([
      ["aaa-lone", "scored"],
      ["lone-no-log", "scored"],
      ["lone-no-result", "incomplete"],
    ]);
    expect(lone.states).toEqual({
      scored: 2,
      "scored-with-exception": 0,
      "infrastructure-error": 0,
      cancelled: 0,
      incomplete: 1,
      unverified: 0,
    });
    expect(lone.rewards!["reward"]).toMatchObject({ mean: 1 / 2, covered: 2, trials: 3 });
  });

  it("harbor trials and native bundles in the same roots are both scored, each experiment with its own metrics", () => {
    const mid = doc.experiments.find((e) => e.experiment === "mid")!;
    expect(mid.accuracy).toMatchObject({ value: 1, victories: 1, scored: 1 });
    expect(mid.rewards).toBeNull();
    expect(mid.states).toBeNull();
    const a = job(doc, "job-a");
    expect(a.rewards!["reward"]).toMatchObject({ mean: 1 / 2, pass_rate: 1 / 2 });
    expect(a.accuracy).toBeNull();
    expect(doc.bundles.find((b) => b.path === `${root}/native/mid/t1/a1`)).toMatchObject({
      profile: "native-game",
      validity: "valid",
      victory: true,
    });
  });

  it("a trial folder given as the root keeps its job's name as experiment", async () => {
    const trialRoot = `${root}/jobs/job-a/t2`;
    const one = await score([trialRoot]);
    expect(one.bundles.map((b) => [b.path, b.experiment, b.trial])).toEqual([[trialRoot, "job-a", "t2"]]);
    expect(one.experiments.map((e) => e.experiment)).toEqual(["job-a"]);
  });
});

/** Every entry below `dir` (and `dir` itself): path, kind, mode, size, mtime in ns, content digest. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    const st = lstatSync(p, { bigint: true });
    const kind = st.isSymbolicLink() ? `link:${readlinkSync(p)}` : st.isDirectory() ? "dir" : "file";
    const digest = st.isFile() ? createHash("sha256").update(readFileSync(p)).digest("hex") : "";
    out.push([relative(dir, p) || ".", kind, st.mode, st.size, st.mtimeNs, digest].join("\t"));
    if (st.isDirectory()) for (const name of readdirSync(p).sort()) visit(join(p, name));
  };
  visit(dir);
  return out;
}

describe.sequential("a job is read in place and never modified", () => {
  it("every file's bytes and mtime, and the list of entries, are the same after assay score --store and assay verify", async () => {
    const dir = writeJob(fresh("inplace"), "job-ro", [
      ...MIXED.slice(0, 4),
      {
        name: "s1",
        rewards: { reward: float(1) },
        rewardFiles: null,
        steps: [{ name: "build", rewards: { reward: float(1) } }],
        trajectory: realTrajectory("openhands"),
      },
    ]);
    symlinkSync("/etc/hostname", join(dir, "a1", "link")); // a symlink in a trial: a warning, never followed
    const before = snapshot(dir);
    const store = join(fresh("inplace-store"), "results.sqlite");
    const r = await run(["score", dir, "--store", store, "--format", "json", "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r.stdout).bundles).toHaveLength(5);
    expect(spawnCli(["verify", dir]).code).toBe(0);
    expect(snapshot(dir)).toEqual(before);
  });
});

describe.sequential("the store and the pool", () => {
  let root: string;
  let dir: string;
  let storeFile: string;
  beforeAll(() => {
    root = fresh("store");
    dir = writeJob(root, "store-job-orig", [...MIXED, ...INVALID]);
    storeFile = join(fresh("store-db"), "results.sqlite");
  });
  const scoreWith = async (target: string, ...extra: string[]) => {
    const r = await run(["score", target, "--store", storeFile, "--format", "json", ...extra]);
    expect(r.code, r.stderr).toBe(0);
    return { doc: parse(r.stdout), stderr: r.stderr };
  };

  it("a rerun takes every trial from the store and gives the same document; the stored entries hold no job name", async () => {
    const first = await scoreWith(dir);
    expect(first.stderr).toContain("(0 from store)");
    const second = await scoreWith(dir);
    expect(second.stderr).toContain("16/16 trials (16 from store)");
    expect(withoutRun(second.doc)).toBe(withoutRun(first.doc));
    expect(job(second.doc, "store-job-orig").rewards).not.toBeNull();
    const db = new Database(storeFile, { readonly: true });
    try {
      const rows = db.prepare("SELECT entry FROM results").all() as { entry: string }[];
      expect(rows).toHaveLength(16);
      for (const { entry } of rows) {
        expect(entry).not.toContain("store-job-orig");
        const stored = JSON.parse(entry) as Record<string, unknown>;
        expect(stored["experiment"]).toBeNull();
        expect(stored).not.toHaveProperty("path");
      }
    } finally {
      db.close();
    }
  });

  it("a copy of the job under a new name takes its entries from the store but is reported under the new name", async () => {
    const original = (await scoreWith(dir)).doc;
    const copy = join(root, "store-job-copy");
    cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
    // --verify-digests: the copy's folders are new to the store, so it looks them up by digest.
    const moved = await scoreWith(copy, "--verify-digests");
    expect(moved.stderr).toContain("16/16 trials (16 from store)");
    expect(moved.doc.bundles.every((b) => b.experiment === "store-job-copy")).toBe(true);
    expect(moved.doc.experiments.map((e) => e.experiment)).toEqual(["store-job-copy"]);
    const rename = (d: Results) => withoutRun(d).split("store-job-orig").join("store-job-copy");
    expect(withoutRun(moved.doc)).toBe(rename(original));
    // Plain reruns of each: from the store, each under its own name.
    const again = await scoreWith(copy);
    expect(again.stderr).toContain("(16 from store)");
    expect(withoutRun(again.doc)).toBe(withoutRun(moved.doc));
    const back = await scoreWith(dir);
    expect(back.stderr).toContain("(16 from store)");
    expect(withoutRun(back.doc)).toBe(withoutRun(original));
  });

  it("--jobs 1 and --jobs 2 give the same document", async () => {
    const a = await run(["score", root, "--format", "json", "--jobs", "1", "--quiet"]);
    const b = await run(["score", root, "--format", "json", "--jobs", "2", "--quiet"]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(parse(a.stdout).experiments.map((e) => e.experiment)).toContain("store-job-orig");
    expect(withoutRun(parse(a.stdout))).toBe(withoutRun(parse(b.stdout)));
  });

  it("a tool error on a harbor trial is listed under unscored and stays outside every metric", async () => {
    const faulty = writeJob(fresh("fault"), "job-fault", [
      { name: "t1" },
      { name: "t2" },
      { name: "t3", rewards: { reward: float(0) } },
    ]);
    writeFileSync(join(faulty, "t2", "FAULT"), "throw");
    const doc = await score([faulty], { jobs: 1, workerFile: FAULTY });
    const t2 = doc.bundles.find((b) => b.path === `${faulty}/t2`)!;
    expect(t2).toMatchObject({
      validity: "error",
      profile: "harbor",
      experiment: "job-fault",
      trial: "t2",
      state: null,
    });
    expect(t2.errors.map((f) => f.code)).toEqual(["WORKER_FAILED"]);
    const e = job(doc, "job-fault");
    expect(e.unscored).toEqual(["t2"]);
    expect(e.invalid).toEqual([]);
    expect(e.excluded).toEqual([]);
    expect(e.states).toEqual({
      scored: 2,
      "scored-with-exception": 0,
      "infrastructure-error": 0,
      cancelled: 0,
      incomplete: 0,
      unverified: 0,
    });
    expect(e.rewards).toMatchObject({
      reward: {
        mean: 1 / 2,
        wilson95: wilson(1, 2),
        coverage: 1,
        covered: 2,
        trials: 2,
        pass_rate: 1 / 2,
        pass_at_k: passAt([[1, 2]]),
        pass_at_k_reason: null,
      },
    });
  });
});

describe.sequential("shards of a harbor and native corpus merge into the single run's document", () => {
  let root: string;
  const shardFile = async (i: number, ...extra: string[]) => {
    const r = await run(["score", root, "--shard", `${i}/2`, "--quiet", ...extra]);
    expect(r.code, r.stderr).toBe(0);
    const file = join(tmp, `harbor-shard-${i}-${++serial}.json`);
    writeFileSync(file, r.stdout);
    return file;
  };
  beforeAll(() => {
    // Shards split by a hash of the path, and the path starts with a temp folder's random name:
    // pick a root under which each job's trials fall in both shards, so the precondition below
    // holds by construction rather than by chance (6 trials all land in one shard 1 time in 32).
    const split = (r: string, job: string, specs: TrialSpec[]) =>
      new Set(specs.map((t) => inShard(`${r}/${job}/${t.name}`, { index: 0, count: 2 }))).size === 2;
    do root = join(tmp, `shards-${++serial}`);
    while (!split(root, "job-mixed", MIXED) || !split(root, "job-invalid", INVALID));
    mkdirSync(root, { recursive: true });
    writeJob(root, "job-mixed", MIXED);
    writeJob(root, "job-invalid", INVALID);
    writeTrial(join(root, "lone"), { name: "lone" });
    for (let i = 1; i <= 4; i++)
      writeFiles(
        join(root, `native/exp/t${i}/a1`),
        bundle(game({ trial: `t${i}`, seed: String(i).padStart(32, "0"), states: [live(), escaped()] })),
      );
  });

  for (const extra of [[], ["--errors", "zero"]]) {
    it(`--shard 0/2 and 1/2 then assay merge give one run's document${extra.length ? " (--errors zero)" : ""}, harbor rewards and states included`, async () => {
      const single = await run(["score", root, "--format", "json", "--quiet", ...extra]);
      expect(single.code).toBe(0);
      const whole = parse(single.stdout);
      // Precondition: each job's trials fall in both shards.
      for (const name of ["job-mixed", "job-invalid"]) {
        const paths = whole.bundles.filter((b) => b.experiment === name).map((b) => b.path);
        expect(new Set(paths.map((p) => inShard(p, { index: 0, count: 2 }))).size, name).toBe(2);
      }
      const files = [await shardFile(0, ...extra), await shardFile(1, ...extra)];
      const merged = await run(["merge", ...files, "--format", "json"]);
      expect(merged.code, merged.stderr).toBe(0);
      expect(withoutRun(parse(merged.stdout))).toBe(withoutRun(whole));
      expect(job(whole, "job-mixed").rewards!["reward"]!.mean).toBe(extra.length ? 3 / 10 : 3 / 7);
      expect(job(whole, "job-invalid").states).toEqual({
        scored: 5,
        "scored-with-exception": 0,
        "infrastructure-error": 1,
        cancelled: 0,
        incomplete: 0,
        unverified: 0,
      });
      expect(whole.experiments.find((e) => e.experiment === "exp")!.accuracy!.value).toBe(1);
    });
  }

  it("merge refuses shards scored with different --errors (exit 2)", async () => {
    const files = [await shardFile(0, "--errors", "zero"), await shardFile(1)];
    expect((await run(["merge", ...files, "--format", "json"])).code).toBe(2);
  });
});

describe.sequential("the table and assay verify", () => {
  let mixed: string;
  let invalid: string;
  beforeAll(() => {
    mixed = writeJob(fresh("cli"), "job-mixed", MIXED);
    invalid = writeJob(fresh("cli"), "job-invalid", INVALID);
  });

  it("the table shows each job's states before any coverage or mean, and says how --errors treats errors", async () => {
    for (const [extra, says] of [
      [[], "--errors zero counts them as 0"],
      [["--errors", "zero"], "count as reward 0 (--errors zero)"],
    ] as const) {
      const r = await run(["score", mixed, "--quiet", "--details", ...extra]);
      expect(r.code).toBe(0);
      const lines = r.stdout.split("\n");
      const head = lines.findIndex((l) => l.startsWith("job job-mixed"));
      const states = lines.findIndex((l, i) => i > head && /^\s+states\s/.test(l));
      const metric = lines.findIndex((l, i) => i > head && /^\s+(coverage|mean)\s/.test(l));
      expect(head).toBeGreaterThanOrEqual(0);
      expect(states).toBeGreaterThan(head);
      expect(metric).toBeGreaterThan(states);
      expect(lines[states]).toMatch(/scored 6.*scored-with-exception 1.*infrastructure-error 1.*incomplete 2/);
      expect(r.stdout).toContain(says);
    }
  });

  it("verify exits 0 for a job whose trials are all valid, 1 when one is invalid, and works on a single trial", () => {
    const ok = spawnCli(["verify", mixed]);
    expect(ok.code, ok.stderr).toBe(0);
    const bad = spawnCli(["verify", invalid]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("REWARD_MISMATCH");
    const trial = spawnCli(["verify", join(mixed, "a3"), "--json"]);
    expect(trial.code, trial.stderr).toBe(0);
    expect(JSON.parse(trial.stdout)).toMatchObject({
      experiment: "job-mixed",
      trial: "a3",
      state: "scored-with-exception",
      validity: "valid",
    });
    expect(spawnCli(["verify", join(invalid, "m1")]).code).toBe(1);
  });

  it("verify exits 2 on a folder that is neither a bundle, a trial nor a job", () => {
    const dir = fresh("neither");
    writeFiles(dir, { "README.md": "nothing here\n", "config.json": "{}\n" });
    const r = spawnCli(["verify", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not a bundle");
  });
});
