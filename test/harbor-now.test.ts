// Contract §11 for Harbor as it is written now (issue 25, item 4; docs/research/issue-25-formats.md
// §D): a job result.json written while the job runs, what `harbor analyze` writes into trial
// folders, Rewardkit's reward-details.json, reward.json and reward.txt disagreeing, and what tells
// one task from another for pass@k. Each rule on both sides of its line, through the real pipeline
// (scoreRoots, the CLI in-process with a real SQLite store, and spawned for `verify`).

import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { resultsSchema, type BundleEntry, type Experiment, type Results } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { run, spawnCli } from "./helpers/cli.js";
import { float, writeTree, writeTrial, type TrialSpec } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const BASE: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
const score = (roots: string[]) => scoreRoots(roots, BASE);
const exp = (doc: Results, name: string): Experiment => doc.experiments.find((x) => x.experiment === name)!;
const entry = (doc: Results, trial: string): BundleEntry => doc.bundles.find((b) => b.trial === trial)!;

const { dir: tmp, fresh } = scratch("assay-harbor-now-", SCRATCH);
let serial = 0;

const DIGEST = (c: string) => `sha256:${c.repeat(64)}`;

interface JobSpec {
  finished?: boolean;
  stats?: Record<string, unknown>;
  evals?: Record<string, unknown>;
  /** lock.json: the Harbor version and its trials' tasks ({name, digest}). */
  lock?: { version?: string; tasks?: { name: string; path?: string; digest: string }[] };
}

/** reward_stats as Harbor keys it: by the value's text, the trials with it. */
function byValue(trials: TrialSpec[], value: (t: TrialSpec) => number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of trials) if (t.rewards !== null) (out[value(t).toFixed(1)] ??= []).push(t.name);
  return out;
}

/** A job folder as Harbor writes it, its summary agreeing with the trials (mean of `reward`, a missing reward as 0). */
function writeJob(root: string, name: string, trials: TrialSpec[], o: JobSpec = {}): string {
  const dir = join(root, name);
  const value = (t: TrialSpec) =>
    t.rewards === null
      ? 0
      : t.rewards === undefined
        ? 1
        : Number((t.rewards["reward"] as { value?: number })?.value ?? t.rewards["reward"]);
  const mean = trials.reduce((s, t) => s + value(t), 0) / Math.max(1, trials.length);
  const result = {
    id: `0000${++serial}`.slice(-4) + "0000-aaaa-4bbb-8ccc-dddddddddddd",
    started_at: "2026-06-23T01:09:42.000000",
    updated_at: "2026-06-23T01:19:42.000000",
    finished_at: o.finished === false ? null : "2026-06-23T01:20:00.000000",
    n_total_trials: trials.length,
    stats: {
      n_completed_trials: trials.length,
      n_errored_trials: 0,
      n_running_trials: 0,
      n_pending_trials: 0,
      evals: o.evals ?? {
        a__m__adhoc: {
          n_trials: trials.length,
          metrics: [{ mean }],
          pass_at_k: {},
          reward_stats: { reward: byValue(trials, value) },
        },
      },
      ...o.stats,
    },
  };
  const files: Record<string, string> = {
    "config.json": JSON.stringify({ job_name: name }),
    "job.log": "",
    "result.json": JSON.stringify(result, null, 4),
  };
  if (o.lock)
    files["lock.json"] = JSON.stringify({
      schema_version: 3,
      harbor: o.lock.version ? { version: o.lock.version } : {},
      trials: (o.lock.tasks ?? []).map((t) => ({
        task: { name: t.name, type: "local", digest: t.digest, path: t.path ?? null },
      })),
    });
  writeTree(dir, files);
  for (const t of trials) writeTrial(join(dir, t.name), t);
  return dir;
}

describe("a job result.json written while the job runs (no finished_at)", () => {
  it("is in progress, or stopped: JOB_IN_PROGRESS with how far its live figures reach, and its figures are shown, never compared", async () => {
    const root = fresh("running");
    const trials = [{ name: "t1" }, { name: "t2", rewards: { reward: float(0) } }];
    writeJob(root, "job-running", trials, {
      finished: false,
      stats: { n_completed_trials: 1, n_running_trials: 1, n_pending_trials: 0 },
      evals: { a__m__adhoc: { metrics: [{ mean: 0.25 }], pass_at_k: {} } },
    });
    const e = exp(await score([root]), "job-running");
    expect(e.warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "JOB_IN_PROGRESS",
        "no finished_at: the job is in progress, or was stopped before its last write; its figures are live ones over 1 of 2 trials (1 running), not compared as final",
      ],
    ]);
    expect(e.claimed).toMatchObject({
      source: "job result.json stats.evals, live (no finished_at; never compared as final)",
      metrics: { "a__m__adhoc/0/mean": 0.25 },
      compared: [],
    });
    expect(e.rewards!["reward"]!.mean).toBe(0.5); // its trials are evidence as ever
  });

  it("the other side: a finished job's figures are compared as final, and nothing is said of progress", async () => {
    const root = fresh("finished");
    writeJob(root, "job-done", [{ name: "t1" }, { name: "t2", rewards: { reward: float(0) } }], {
      evals: { a__m__adhoc: { metrics: [{ mean: 0.25 }], pass_at_k: {} } },
    });
    const e = exp(await score([root]), "job-done");
    expect(e.warnings).toEqual([]);
    expect(e.claimed!.source).toBe("job result.json stats.evals");
    expect(e.claimed!.compared).toEqual([
      expect.objectContaining({
        metric: "a__m__adhoc/0/mean",
        claimed: 0.25,
        assay: 0.5,
        reason: expect.stringMatching(/does not follow from them/),
      }),
    ]);
  });

  it("the table shows the live figures as not compared, and its overview claims nothing of them; verify names the job in progress", async () => {
    const root = fresh("running-table");
    const dir = writeJob(root, "job-live", [{ name: "t1" }], {
      finished: false,
      evals: { a__m__adhoc: { metrics: [{ mean: 0 }] } },
    });
    const r = await run(["score", "--details", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /Harbor says {2}\(job result\.json stats\.evals, live \(no finished_at; never compared as final\)/,
    );
    expect(r.stdout).toMatch(/a__m__adhoc\/0\/mean = 0\.000 {3}not compared/);
    const row = r.stdout.split("\n").find((l) => l.startsWith("job-live "))!;
    expect(row).toMatch(/1\/1 +0 +0 /); // coverage, then an empty claim column: neither agrees nor differs
    expect(row).not.toMatch(/agrees|differs/);
    const v = spawnCli(["verify", dir]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/warning {2}JOB_IN_PROGRESS {5}result\.json {2}no finished_at/);
  });
});

const ANALYSIS = (outcome: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    trial_name: "t1",
    summary: "The agent wrote the summary file.\nIt then ran the tests.",
    checks: {
      reward_hacking: { explanation: "The agent echoed 1 into /logs/verifier/reward.txt.\nSee step 12.", outcome },
      task_specification: { explanation: "The instructions were complete.", outcome: "pass" },
      ...extra,
    },
    estimated_cost_usd: 0.02,
  });

describe("what `harbor analyze` (and the older summarize) writes into a trial folder", () => {
  it("a trial folder that cannot be searched is a tool error (exit 3), its sibling scored: looking for analysis files never ends the run", () => {
    const root = fresh("shut");
    const job = writeJob(root, "job", [{ name: "t1" }, { name: "t2" }]);
    chmodSync(tmp, 0o755);
    chmodSync(root, 0o755);
    chmodSync(join(job, "t1"), 0o000);
    // Root reads every folder: the run is made as nobody (uid 65534), in a child.
    const r = spawnCli(["score", "-q", "--format", "json", job], { unprivileged: true });
    chmodSync(join(job, "t1"), 0o755);
    expect(r.code, r.stderr).toBe(3);
    const doc = resultsSchema.parse(JSON.parse(r.stdout));
    const byFolder = new Map(doc.bundles.map((b) => [b.path.slice(b.path.lastIndexOf("/") + 1), b]));
    expect(byFolder.get("t1")).toMatchObject({
      validity: "error",
      errors: [expect.objectContaining({ code: "IO_ERROR" })],
    });
    expect(byFolder.get("t2")).toMatchObject({ validity: "valid", state: "scored" });
  });

  it("is shown beside the flags and kept out of the digest: analysing a trial changes neither its digest nor its verdict", async () => {
    const root = fresh("analyze");
    const dir = writeJob(root, "job-a", [{ name: "t1" }]);
    const before = entry(await score([root]), "t1");
    expect(before.harbor_analysis).toBeNull();
    writeFileSync(join(dir, "t1", "analysis.json"), ANALYSIS("pass"));
    writeFileSync(join(dir, "t1", "analysis.md"), "# t1\nThe agent wrote the summary file.\n");
    writeFileSync(join(dir, "t1", "summary.md"), "An older summary.\n");
    writeFileSync(join(dir, "analysis.json"), JSON.stringify({ job_summary: "fine", trials: [] })); // the job's own, beside its trials
    const doc = await score([root]);
    const after = entry(doc, "t1");
    expect(after.digest).toBe(before.digest);
    expect({ ...after, harbor_analysis: null }).toEqual(before);
    expect(after.harbor_analysis).toEqual({
      file: "analysis.json",
      summary: "The agent wrote the summary file.",
      checks: [
        { name: "reward_hacking", outcome: "pass", explanation: "The agent echoed 1 into /logs/verifier/reward.txt." },
        { name: "task_specification", outcome: "pass", explanation: "The instructions were complete." },
      ],
      more: 0,
      unreadable: null,
    });
    expect(doc.run.unrecognised.count).toBe(0);
  });

  it("the other side: any other new file in the trial is evidence and changes its digest", async () => {
    const root = fresh("not-analysis");
    const dir = writeJob(root, "job-b", [{ name: "t1" }]);
    const before = entry(await score([root]), "t1");
    writeFileSync(join(dir, "t1", "notes.md"), "a note\n");
    writeFileSync(join(dir, "t1", "verifier", "analysis.json"), ANALYSIS("pass")); // only the trial root's is Harbor analyze's
    expect(entry(await score([root]), "t1").digest).not.toBe(before.digest);
  });

  it("reward_hacking: fail is a review flag (ANALYZE_REWARD_HACKING) that changes no state, validity or figure; unknown criteria are read", async () => {
    const root = fresh("hacking");
    const dir = writeJob(root, "job-h", [{ name: "t1" }, { name: "t2" }]);
    writeFileSync(
      join(dir, "t1", "analysis.json"),
      ANALYSIS("fail", { my_criterion: { explanation: "custom", outcome: "not_applicable" } }),
    );
    writeFileSync(join(dir, "t2", "analysis.json"), ANALYSIS("pass"));
    const doc = await score([root]);
    const t1 = entry(doc, "t1");
    expect(t1.flags).toEqual([
      {
        code: "ANALYZE_REWARD_HACKING",
        evidence:
          "Harbor analyze says reward_hacking: fail (analysis.json): The agent echoed 1 into /logs/verifier/reward.txt.",
      },
    ]);
    expect(t1.harbor_analysis!.checks.map((c) => [c.name, c.outcome])).toEqual([
      ["reward_hacking", "fail"],
      ["task_specification", "pass"],
      ["my_criterion", "not_applicable"],
    ]);
    expect([t1.state, t1.validity, entry(doc, "t2").flags]).toEqual(["scored", "valid", []]);
    const e = exp(doc, "job-h");
    expect(e.flags).toEqual([{ code: "ANALYZE_REWARD_HACKING", trial: "t1", attempt: null, evidence: null }]);
    expect([e.rewards!["reward"]!.mean, e.invalid]).toEqual([1, []]);
  });

  it("the older summary.md (no analysis.json) shows its first line; a malformed analysis.json is said in the entry, never a finding", async () => {
    const root = fresh("summary");
    const dir = writeJob(root, "job-s", [{ name: "t1" }, { name: "t2" }]);
    writeFileSync(
      join(dir, "t1", "summary.md"),
      "# Trial summary\n\nThe agent solved it on the second try.\nMore text.\n",
    );
    writeFileSync(join(dir, "t2", "analysis.json"), '{"checks": {"reward_hacking": ');
    const doc = await score([root]);
    expect(entry(doc, "t1").harbor_analysis).toEqual({
      file: "summary.md",
      summary: "The agent solved it on the second try.",
      checks: [],
      more: 0,
      unreadable: null,
    });
    const t2 = entry(doc, "t2");
    expect(t2.harbor_analysis).toMatchObject({
      file: "analysis.json",
      checks: [],
      unreadable: expect.stringMatching(/^JSON_SYNTAX/),
    });
    expect([t2.validity, t2.errors, t2.warnings, t2.flags]).toEqual(["valid", [], [], []]);
  });

  it("a store run after analysing serves the stored verdict (no rescore) with the analysis beside it; the stored row holds no analysis", async () => {
    const root = fresh("analyze-store");
    const dir = writeJob(root, "job-st", [{ name: "t1" }, { name: "t2" }]);
    const store = join(fresh("analyze-db"), "results.sqlite");
    const once = async () => {
      const r = await run(["score", dir, "--store", store, "--format", "json"]);
      expect(r.code, r.stderr).toBe(0);
      return { doc: resultsSchema.parse(JSON.parse(r.stdout)), stderr: r.stderr };
    };
    const first = await once();
    expect(first.stderr).toContain("(0 from store)");
    writeFileSync(join(dir, "t1", "analysis.json"), ANALYSIS("fail"));
    const second = await once();
    expect(second.stderr).toContain("2/2 trials (2 from store)");
    expect(entry(second.doc, "t1").digest).toBe(entry(first.doc, "t1").digest);
    expect(entry(second.doc, "t1").harbor_analysis?.checks[0]).toMatchObject({
      name: "reward_hacking",
      outcome: "fail",
    });
    expect(entry(second.doc, "t1").flags.map((f) => f.code)).toEqual(["ANALYZE_REWARD_HACKING"]);
    const third = await once(); // the flag is placed again, never stored: it is not doubled
    expect(entry(third.doc, "t1").flags.map((f) => f.code)).toEqual(["ANALYZE_REWARD_HACKING"]);
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(store, { readonly: true });
    try {
      for (const { entry: row } of db.prepare("SELECT entry FROM results").all() as { entry: string }[]) {
        expect(row).not.toContain("reward_hacking");
        expect(row).not.toContain("ANALYZE_REWARD_HACKING");
      }
    } finally {
      db.close();
    }
  });

  it("the other side: a store run after a change to the evidence rescores the trial", async () => {
    const root = fresh("evidence-store");
    const dir = writeJob(root, "job-ev", [{ name: "t1" }]);
    const store = join(fresh("evidence-db"), "results.sqlite");
    expect((await run(["score", dir, "--store", store, "--quiet"])).code).toBe(0);
    writeFileSync(join(dir, "t1", "trial.log"), "trial started\nand went on\n");
    const r = await run(["score", dir, "--store", store]);
    expect(r.stderr).toContain("1/1 trials (0 from store)");
  });
});

/** Rewardkit's reward-details.json for one reward. */
const DETAIL = (
  score: number,
  criteria: Record<string, unknown>[] = [{ name: "c1", value: 1, raw: true, weight: 1 }],
  extra: Record<string, unknown> = {},
) => ({ score, criteria, kind: "programmatic", ...extra });
const withDetails = (name: string, details: unknown, reward = 1): TrialSpec => ({
  name,
  rewards: { reward: float(reward) },
  rewardFiles: {
    "reward.json": `{"reward": ${reward}}`,
    "reward-details.json": typeof details === "string" ? details : JSON.stringify(details),
  },
});

describe("Rewardkit's reward-details.json", () => {
  it("is shown beside the reward; a single detail whose score is the reward raises nothing; a different score is REWARD_DETAILS_MISMATCH with both", async () => {
    const root = fresh("details");
    writeJob(root, "job-d", [
      withDetails("agrees", { reward: DETAIL(0.75) }, 0.75),
      withDetails("rounded", { reward: DETAIL(0.66666667) }, 0.6667),
      withDetails("differs", { reward: DETAIL(0.5) }, 1),
    ]);
    const doc = await score([root]);
    expect(entry(doc, "agrees").reward_details).toEqual({
      rewards: [
        {
          file: "verifier/reward-details.json",
          name: "reward",
          score: 0.75,
          kind: "programmatic",
          criteria: 1,
          errors: 0,
          warnings: 0,
        },
      ],
      more: 0,
    });
    expect([entry(doc, "agrees").flags, entry(doc, "rounded").flags]).toEqual([[], []]);
    const d = entry(doc, "differs");
    expect(d.flags).toEqual([
      {
        code: "REWARD_DETAILS_MISMATCH",
        evidence: "verifier/reward-details.json: reward scores 0.5, but the reward Harbor recorded is 1",
      },
    ]);
    expect([d.validity, d.rewards, d.state]).toEqual(["valid", { reward: 1 }, "scored"]); // never replaces the reward
  });

  it("a list of details under one name (several reward folders) is shown, its scores not held to the reward", async () => {
    const root = fresh("details-list");
    writeJob(root, "job-l", [withDetails("listed", { reward: [DETAIL(0.2), DETAIL(0.9)] }, 1)]);
    const t = entry(await score([root]), "listed");
    expect(t.flags).toEqual([]);
    expect(t.reward_details!.rewards.map((r) => r.score)).toEqual([0.2, 0.9]);
  });

  it("a criterion that recorded an error is GRADER_ERROR (the grader failed, not the agent); the other side: criteria without one raise nothing", async () => {
    const root = fresh("grader");
    const criteria = [
      { name: "judge", value: 0, raw: null, weight: 1, error: "anthropic.APIStatusError: 529 overloaded\ntraceback…" },
      { name: "tests", value: 1, raw: true, weight: 1 },
    ];
    writeJob(root, "job-g", [
      withDetails("judge-failed", { reward: DETAIL(0.5, criteria, { kind: "llm", warnings: ["judge retried"] }) }, 0.5),
      withDetails("clean", { reward: DETAIL(1) }, 1),
    ]);
    const doc = await score([root]);
    const t = entry(doc, "judge-failed");
    expect(t.flags).toEqual([
      {
        code: "GRADER_ERROR",
        evidence:
          'verifier/reward-details.json: 1 criterion recorded an error (the grader failed, not the agent): reward/judge: "anthropic.APIStatusError: 529 overloaded"',
      },
    ]);
    expect(t.reward_details!.rewards[0]).toMatchObject({ kind: "llm", criteria: 2, errors: 1, warnings: 1 });
    expect([t.state, t.validity]).toEqual(["scored", "valid"]);
    expect(entry(doc, "clean").flags).toEqual([]);
  });

  it("a malformed one is the warning REWARD_DETAILS_UNREADABLE, never an error; it is verifier output, so it is in the digest", async () => {
    const root = fresh("details-bad");
    const dir = writeJob(root, "job-x", [withDetails("bad", "{not json"), withDetails("shape", '{"reward": 3}')]);
    const doc = await score([root]);
    for (const t of ["bad", "shape"]) {
      const e = entry(doc, t);
      expect([e.validity, e.warnings.map((w) => w.code), e.reward_details]).toEqual([
        "valid",
        ["REWARD_DETAILS_UNREADABLE"],
        null,
      ]);
    }
    const before = entry(doc, "bad").digest;
    writeFileSync(join(dir, "bad", "verifier", "reward-details.json"), JSON.stringify({ reward: DETAIL(1) }));
    expect(entry(await score([root]), "bad").digest).not.toBe(before);
  });

  it("verify shows the details and the analysis beside the flags", async () => {
    const root = fresh("verify-shown");
    const dir = writeJob(root, "job-v", [withDetails("t1", { reward: DETAIL(0.5) }, 1)]);
    writeFileSync(join(dir, "t1", "analysis.json"), ANALYSIS("fail"));
    const v = spawnCli(["verify", join(dir, "t1")]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain(
      "  details  reward: score 0.5 (programmatic), 1 criteria, 0 errors, 0 warnings   (verifier/reward-details.json, Rewardkit's; never the reward)",
    );
    expect(v.stdout).toMatch(/flag {5}REWARD_DETAILS_MISMATCH/);
    expect(v.stdout).toMatch(/flag {5}ANALYZE_REWARD_HACKING Harbor analyze says reward_hacking: fail/);
    expect(v.stdout).toContain(
      "  Harbor analyze says (analysis.json; not evidence, not in the digest)\n    The agent wrote the summary file.\n    reward_hacking: fail   The agent echoed 1 into /logs/verifier/reward.txt.\n",
    );
  });
});

describe("reward.json and reward.txt both present", () => {
  const both = (name: string, json: string, txt: string, reward = 1): TrialSpec => ({
    name,
    rewards: { reward: float(reward) },
    rewardFiles: { "reward.json": json, "reward.txt": txt },
  });

  it("disagreeing: REWARD_FILES_DISAGREE with both values; the job names the file its Harbor read by lock.json, and REWARD_MISMATCH stays against that file", async () => {
    const root = fresh("disagree");
    const trials = [both("t1", '{"reward": 1.0}', "0\n"), both("t2", '{"reward": 1}', "1.0\n")];
    writeJob(root, "job-new", trials, { lock: { version: "0.21.0" } });
    writeJob(root, "job-old", trials, { lock: { version: "0.6.3" } });
    writeJob(root, "job-unknown", trials);
    const doc = await score([root]);
    const t1 = doc.bundles.find((b) => b.path.endsWith("job-new/t1"))!;
    expect(t1.flags).toEqual([
      {
        code: "REWARD_FILES_DISAGREE",
        evidence: 'verifier/reward.json says {"reward":1}, verifier/reward.txt says {"reward":0}',
      },
    ]);
    expect(doc.bundles.find((b) => b.path.endsWith("job-new/t2"))!.flags).toEqual([]); // the other side: they agree as numbers
    const evidence = (job: string) =>
      exp(doc, job)
        .flags.filter((f) => f.code === "REWARD_FILES_DISAGREE")
        .map((f) => [f.trial, f.evidence]);
    expect(evidence("job-new")).toEqual([["t1", "Harbor 0.21.0 read verifier/reward.json and ignored the other"]]);
    expect(evidence("job-old")).toEqual([["t1", "Harbor 0.6.3 read verifier/reward.txt and ignored the other"]]);
    expect(evidence("job-unknown")[0]![1]).toMatch(
      /^the job's lock\.json names no Harbor version: either reward file may be the one Harbor read/,
    );
    // result.json agrees with reward.json only: valid where Harbor read it, REWARD_MISMATCH where it read reward.txt.
    expect([exp(doc, "job-new").invalid, exp(doc, "job-old").invalid]).toEqual([
      [],
      [{ trial: "t1", codes: ["REWARD_MISMATCH"] }],
    ]);
  });
});

describe("which trials are repeats of one task (pass@k, pass^k, clusters)", () => {
  /** Two trials of task "t" whose checksums differ (Harbor ≥ 0.20 hashes differently from its lock digest), one passing. */
  const pair = (a: Partial<TrialSpec> = {}, b: Partial<TrialSpec> = {}): TrialSpec[] => [
    { name: "t__1", task: "t", checksum: "aaaa", ...a },
    { name: "t__2", task: "t", checksum: "bbbb", rewards: { reward: float(0) }, ...b },
  ];
  const trialLock = (digest: string, task = "t") => ({
    files: { "lock.json": JSON.stringify({ schema_version: 2, task: { name: task, type: "local", digest } }) },
  });
  const reward = (e: Experiment) => e.rewards!["reward"]!;

  it("by the trials' own lock.json task.digest before the deprecated checksum: one task here, k up to 2", async () => {
    const root = fresh("trial-lock");
    writeJob(root, "job-l", pair(trialLock(DIGEST("2")), trialLock(DIGEST("2"))));
    const doc = await score([root]);
    const r = reward(exp(doc, "job-l"));
    expect([r.pass_at_k, r.task_identity]).toEqual([{ "1": 0.5, "2": 1 }, "task_name and lock.json task.digest"]);
    expect(entry(doc, "t__1").task_checksum).toBe(DIGEST("2"));
  });

  it("the other side: without a lock, the checksums differ and they are two tasks (as before)", async () => {
    const root = fresh("checksum");
    writeJob(root, "job-c", pair());
    const r = reward(exp(await score([root]), "job-c"));
    expect([r.pass_at_k, r.task_identity]).toEqual([{ "1": 0.5 }, "task_name and checksum"]);
  });

  it("by the job's lock.json digest for the trial's task path (Harbor 0.13 names the task by its folder there); a path with several digests falls back", async () => {
    const root = fresh("job-lock");
    // result.json: task_name "t", task_id.path "tasks/t"; the lock names the task "t-folder" by that path.
    const lockOf = (a: string, b: string) => ({
      version: "0.13.2",
      tasks: [
        { name: "t-folder", path: "tasks/t", digest: DIGEST(a) },
        { name: "t-folder", path: "tasks/t", digest: DIGEST(b) },
      ],
    });
    writeJob(root, "job-one", pair(), { lock: lockOf("3", "3") });
    writeJob(root, "job-two", pair(), { lock: lockOf("3", "4") });
    writeJob(root, "job-other", pair(), { lock: { tasks: [{ name: "t", path: "elsewhere/t", digest: DIGEST("3") }] } }); // another task's path: no match
    const doc = await score([root]);
    const r = (job: string) => [reward(exp(doc, job)).pass_at_k, reward(exp(doc, job)).task_identity];
    expect(r("job-one")).toEqual([{ "1": 0.5, "2": 1 }, "task_name and lock.json task.digest"]);
    expect(r("job-two")).toEqual([{ "1": 0.5 }, "task_name and checksum"]);
    expect(r("job-other")).toEqual([{ "1": 0.5 }, "task_name and checksum"]);
    expect(doc.bundles.filter((b) => b.path.includes("job-one")).map((b) => [b.task_checksum, b.task_path])).toEqual([
      [DIGEST("3"), "tasks/t"],
      [DIGEST("3"), "tasks/t"],
    ]);
  });

  it("by the job's lock.json task name where the trial records no task path", async () => {
    const root = fresh("job-lock-name");
    const noPath = { extra: { task_id: { git_url: "https://example.com/tasks.git" } } };
    writeJob(root, "job-name", pair(noPath, noPath), { lock: { tasks: [{ name: "t", digest: DIGEST("6") }] } });
    const r = reward(exp(await score([root]), "job-name"));
    expect([r.pass_at_k, r.task_identity]).toEqual([{ "1": 0.5, "2": 1 }, "task_name and lock.json task.digest"]);
  });

  it("never mixes kinds: a digest beside a checksum groups by name alone and says so; no identity at all is said too", async () => {
    const root = fresh("mixed");
    writeJob(root, "job-m", pair(trialLock(DIGEST("5")), {}));
    writeJob(root, "job-n", pair({ extra: { task_checksum: null } }, { extra: { task_checksum: null } }));
    const doc = await score([root]);
    expect([reward(exp(doc, "job-m")).pass_at_k, reward(exp(doc, "job-m")).task_identity]).toEqual([
      { "1": 0.5, "2": 1 },
      "task_name alone for 1 task whose trials mix a lock digest, a checksum or none",
    ]);
    expect([reward(exp(doc, "job-n")).pass_at_k, reward(exp(doc, "job-n")).task_identity]).toEqual([
      { "1": 0.5, "2": 1 },
      "task_name alone (no trial records a digest or checksum)",
    ]);
  });

  it("the clusters of the interval follow the same tasks", async () => {
    const root = fresh("clusters");
    const four = (lock: boolean): TrialSpec[] =>
      ["a", "b"].flatMap((task, i) =>
        [1, 2].map((n) => ({
          name: `${task}__${n}`,
          task,
          checksum: `${task}${n}`,
          rewards: { reward: float(n === 1 ? 1 : i) },
          ...(lock ? trialLock(DIGEST(String(i)), task) : {}),
        })),
      );
    writeJob(root, "job-locked", four(true));
    writeJob(root, "job-hashed", four(false));
    const doc = await score([root]);
    expect(reward(exp(doc, "job-locked")).interval).toMatchObject({ method: "korn-graubard", units: 4, clusters: 2 });
    expect(reward(exp(doc, "job-hashed")).interval).toMatchObject({ units: 4, clusters: 4 });
  });
});
