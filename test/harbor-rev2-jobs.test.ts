// Contract §11, revision 2, for jobs: what a job folder is, its plan and its claims beside the
// trials, the names of its experiment, trials copied between jobs, the reward file its Harbor
// version read, and a root under which nothing is recognised. Each rule on both sides of its line,
// through the real pipeline (scoreRoots, the CLI in-process and spawned, shards and merge).

import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { resultsSchema, type Experiment, type Results } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { inShard } from "../src/pipeline/shard.js";
import { run, spawnCli } from "./helpers/cli.js";
import { float, writeTree, writeTrial, type TrialSpec } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const BASE: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
const score = (roots: string[], over: Partial<ScoreRunOptions> = {}) => scoreRoots(roots, { ...BASE, ...over });
const exp = (doc: Results, name: string | null): Experiment => {
  const e = doc.experiments.find((x) => x.experiment === name);
  expect(e, `no experiment ${name} among ${doc.experiments.map((x) => x.experiment).join(", ")}`).toBeDefined();
  return e!;
};

const { dir: tmp, fresh } = scratch("assay-harbor-rev2-jobs-", SCRATCH);
let serial = 0;

interface JobSpec {
  id?: string;
  /** n_total_trials (default: the trials given). */
  plan?: number;
  finished?: boolean;
  /** stats.evals; default: one eval whose claims agree with the trials. */
  evals?: Record<string, unknown> | null;
  jobLog?: boolean;
  /** result.json's bytes instead (null: none). */
  result?: string | null;
  harborVersion?: string;
}
const ID = (n: number) => `${n.toString(16).padStart(8, "0")}-aaaa-4bbb-8ccc-${"d".repeat(12)}`;

/** What Harbor's own job summary says of these trials (a trial without reward counted 0 in the mean). */
function agreeingEvals(trials: TrialSpec[]): Record<string, unknown> {
  const reported = trials.filter((t) => t.result !== null);
  const value = (t: TrialSpec) =>
    t.rewards === null
      ? null
      : t.rewards === undefined
        ? 1
        : Number((t.rewards["reward"] as { value?: number })?.value ?? t.rewards["reward"]);
  const byValue: Record<string, string[]> = {};
  for (const t of reported) {
    const v = value(t);
    if (v !== null) (byValue[v.toFixed(1)] ??= []).push(t.trial_name ?? t.name);
  }
  const exceptions: Record<string, string[]> = {};
  for (const t of reported) if (t.exception) (exceptions[t.exception.type] ??= []).push(t.trial_name ?? t.name);
  const mean = reported.reduce((s, t) => s + (value(t) ?? 0), 0) / Math.max(1, reported.length);
  return {
    "terminus-2__gpt-4o__adhoc": {
      n_trials: reported.length,
      metrics: [{ mean }],
      reward_stats: { reward: byValue },
      exception_stats: exceptions,
    },
  };
}

function writeHarborJob(root: string, name: string, trials: TrialSpec[], o: JobSpec = {}): string {
  const dir = join(root, name);
  const id = o.id ?? ID(++serial);
  const result = {
    id,
    started_at: "2026-03-04T16:55:26.583412",
    finished_at: o.finished === false ? null : "2026-03-04T17:55:26.583412",
    n_total_trials: o.plan ?? trials.length,
    stats: { n_trials: trials.length, n_errors: 0, evals: o.evals === undefined ? agreeingEvals(trials) : o.evals },
  };
  const files: Record<string, string> = { "config.json": JSON.stringify({ job_name: name }, null, 4) };
  if (o.jobLog !== false) files["job.log"] = "";
  if (o.result !== null) files["result.json"] = o.result ?? JSON.stringify(result, null, 4);
  if (o.harborVersion !== undefined)
    files["lock.json"] = JSON.stringify({ schema_version: 1, harbor: { version: o.harborVersion } });
  writeTree(dir, files);
  for (const t of trials)
    writeTrial(join(dir, t.name), {
      ...t,
      extra: { id: `${id}-${t.name}`, config: { trial_name: t.name, job_id: id }, ...t.extra },
    });
  return dir;
}

describe("what a job folder is", () => {
  it("a folder with a job-shaped result.json (n_total_trials and stats) and no job.log is a job: its trials are scored, none is a phantom", async () => {
    const root = fresh("nolog");
    writeHarborJob(root, "job-a", [{ name: "t1" }, { name: "t2", rewards: { reward: float(0) } }], { jobLog: false });
    const doc = await score([root]);
    expect(doc.bundles.map((b) => [b.path.slice(root.length), b.experiment, b.state])).toEqual([
      ["/job-a/t1", "job-a", "scored"],
      ["/job-a/t2", "job-a", "scored"],
    ]);
    expect(exp(doc, "job-a").scheduled).toBe(2);
  });

  it("the other side: a folder with config.json and a trial's result.json is a lone trial", async () => {
    const root = fresh("lone");
    writeTrial(join(root, "solo"), { name: "solo" });
    const doc = await score([root]);
    expect(doc.bundles.map((b) => [b.path.slice(root.length), b.experiment])).toEqual([["/solo", null]]);
  });

  it("a folder whose subfolders are trials is a job even when its own result.json is unreadable (JOB_RESULT_UNREADABLE)", async () => {
    const root = fresh("unreadable");
    writeHarborJob(root, "job-b", [{ name: "t1" }], { jobLog: false, result: '{"id": "x", "started_at": "2026-' });
    const doc = await score([root]);
    expect(doc.bundles.map((b) => [b.path.slice(root.length), b.experiment])).toEqual([["/job-b/t1", "job-b"]]);
    const e = exp(doc, "job-b");
    expect(e.warnings).toEqual([expect.objectContaining({ code: "JOB_RESULT_UNREADABLE", file: "result.json" })]);
    expect(e.invalid).toEqual([]); // never a trial finding
  });

  it("a trial that never started (only trial.log, or nothing) is one of its job's trials: incomplete, counted", async () => {
    const root = fresh("pending");
    const dir = writeHarborJob(root, "job-p", [], { plan: 2, finished: false, evals: {} });
    writeTree(join(dir, "pending__abc"), { "trial.log": "" });
    mkdirSync(join(dir, "empty__def"));
    const doc = await score([root]);
    expect(doc.bundles.map((b) => [b.trial, b.state, b.validity])).toEqual([
      ["empty__def", "incomplete", "valid"],
      ["pending__abc", "incomplete", "valid"],
    ]);
    const e = exp(doc, "job-p");
    expect([e.scheduled, e.states!["incomplete"], e.excluded.map((x) => x.reason)]).toEqual([
      2,
      2,
      ["incomplete", "incomplete"],
    ]);
    expect(e.rewards!["reward"]).toMatchObject({ covered: 0, trials: 2, mean: null });
  });

  it("a job with no trial folder is still an experiment, its planned trials missing", async () => {
    const root = fresh("empty-job");
    writeHarborJob(root, "job-e", [], { plan: 3 });
    const doc = await score([root]);
    expect(doc.bundles).toEqual([]);
    const e = exp(doc, "job-e");
    expect([e.scheduled, e.missing]).toEqual([3, [{ count: 3, reason: "planned by the job, absent from its folder" }]]);
    expect(e.rewards!["reward"]).toMatchObject({ covered: 0, trials: 3, coverage: 0 });
  });

  it("assay verify on a job whose only trial never started: the job and its incomplete trial, exit 0", () => {
    const root = fresh("verify-pending");
    const dir = writeHarborJob(root, "job-v", [], { plan: 1, finished: false, evals: {} });
    writeTree(join(dir, "pending__abc"), { "trial.log": "" });
    const r = spawnCli(["verify", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Harbor job .*1 trial folder, 1 planned/);
    expect(r.stdout).toMatch(/pending__abc: valid/);
    expect(r.stdout).toMatch(/state {4}incomplete/);
  });
});

describe("the job's plan", () => {
  it("planned trials absent from the folder are one missing entry and enter coverage's denominator (only there)", async () => {
    const root = fresh("plan");
    writeHarborJob(root, "job-plan", [{ name: "t1" }, { name: "t2", rewards: { reward: float(0) } }], { plan: 5 });
    const e = exp(await score([root]), "job-plan");
    expect([e.scheduled, e.missing, e.warnings]).toEqual([
      5,
      [{ count: 3, reason: "planned by the job, absent from its folder" }],
      [],
    ]);
    expect(e.rewards!["reward"]).toMatchObject({ mean: 0.5, pass_rate: 0.5, covered: 2, trials: 5, coverage: 2 / 5 });
    const zero = exp(await score([root], { errors: "zero" }), "job-plan");
    expect(zero.rewards!["reward"]).toMatchObject({ mean: 0.5, covered: 2, trials: 5 }); // --errors zero: absent trials stay out of the mean
  });

  it("JOB_PLAN_EXCEEDED: a folder holding more trials than planned; the other side: as many as planned", async () => {
    const root = fresh("exceeded");
    writeHarborJob(root, "job-x", [{ name: "t1" }, { name: "t2" }, { name: "t3" }], { plan: 2 });
    writeHarborJob(root, "job-y", [{ name: "t1" }, { name: "t2" }], { plan: 2 });
    const doc = await score([root]);
    expect(exp(doc, "job-x").warnings).toEqual([
      expect.objectContaining({ code: "JOB_PLAN_EXCEEDED", message: expect.stringContaining("planned 2 trials") }),
    ]);
    expect([exp(doc, "job-x").scheduled, exp(doc, "job-x").missing]).toEqual([3, []]);
    expect(exp(doc, "job-y").warnings).toEqual([]);
  });

  it("JOB_RESULT_UNREADABLE: a malformed job result.json is a warning, the plan unknown; the other side: a well-formed one is read", async () => {
    const root = fresh("malformed");
    writeHarborJob(root, "job-bad", [{ name: "t1" }], {
      result: JSON.stringify({ id: "j", n_total_trials: "three", stats: {} }),
    });
    writeHarborJob(root, "job-good", [{ name: "t1" }], { plan: 2 });
    const doc = await score([root]);
    const bad = exp(doc, "job-bad");
    expect(bad.warnings).toEqual([
      expect.objectContaining({ code: "JOB_RESULT_UNREADABLE", message: expect.stringContaining("n_total_trials") }),
    ]);
    expect([bad.scheduled, bad.missing, bad.claimed, bad.invalid]).toEqual([1, [], null, []]);
    expect([exp(doc, "job-good").warnings, exp(doc, "job-good").scheduled]).toEqual([[], 2]);
  });
});

describe("statistics", () => {
  it("a Wilson 95% interval when every value in the mean is 0 or 1 (n = that many); none when one is not", async () => {
    const root = fresh("wilson");
    writeHarborJob(root, "job-bin", [
      { name: "t1" },
      { name: "t2", rewards: { reward: float(0) } },
      { name: "t3" },
      { name: "t4", rewards: null, rewardFiles: null, exception: { type: "RuntimeError", message: "x" } },
    ]);
    writeHarborJob(root, "job-frac", [{ name: "t1" }, { name: "t2", rewards: { reward: float(0.5) } }]);
    const doc = await score([root]);
    // 2 ones of n = 3 (the error is excluded): by hand, (k + z²/2 ± z·sqrt(k(n−k)/n + z²/4)) / (n + z²).
    const z = 1.959963984540054;
    const half = z * Math.sqrt((2 * 1) / 3 + (z * z) / 4);
    expect(exp(doc, "job-bin").rewards!["reward"]!.wilson95).toEqual([
      expect.closeTo((2 + (z * z) / 2 - half) / (3 + z * z), 12),
      expect.closeTo((2 + (z * z) / 2 + half) / (3 + z * z), 12),
    ]);
    expect(exp(doc, "job-frac").rewards!["reward"]!.wilson95).toBeNull();
  });
});

describe("the job's claims, beside assay's figures", () => {
  const TRIALS: TrialSpec[] = [
    { name: "t1" },
    { name: "t2", rewards: { reward: float(0) } },
    { name: "t3", rewards: null, exception: { type: "RuntimeError", message: "docker failed" } },
  ];

  it("claimed metrics are copied in; a claimed mean is compared, with the reason for the difference (Harbor counts a trial without reward as 0)", async () => {
    const root = fresh("claims");
    writeHarborJob(root, "job-c", TRIALS, {
      evals: {
        ...agreeingEvals(TRIALS),
        "terminus-2__gpt-4o__adhoc": {
          ...(agreeingEvals(TRIALS)["terminus-2__gpt-4o__adhoc"] as object),
          pass_at_k: { "2": 0.5 },
        },
      },
    });
    const e = exp(await score([root]), "job-c");
    expect(e.claimed!.metrics).toEqual({
      "terminus-2__gpt-4o__adhoc/0/mean": 1 / 3,
      "terminus-2__gpt-4o__adhoc/pass_at_k/2": 0.5,
    });
    expect(e.claimed!.source).toBe("job result.json stats.evals");
    expect(e.claimed!.compared).toEqual([
      {
        metric: "terminus-2__gpt-4o__adhoc/0/mean",
        claimed: 1 / 3,
        assay: 0.5,
        reason: expect.stringMatching(
          /^Harbor counts the 1 trial with a result\.json but no reward as 0; assay leaves it out \(--errors zero counts it as 0, as Harbor does\)$/,
        ),
      },
    ]);
    expect(e.flags).toEqual([]); // the summary agrees with every trial
    const zero = exp(await score([root], { errors: "zero" }), "job-c");
    expect(zero.claimed!.compared).toEqual([
      { metric: "terminus-2__gpt-4o__adhoc/0/mean", claimed: 1 / 3, assay: 1 / 3, reason: null },
    ]);
  });

  it("a claim named after a reward key is compared with that key's mean; one that does not follow from the trials says so", async () => {
    const root = fresh("claims-key");
    writeHarborJob(root, "job-k", [{ name: "t1", rewards: { reward: float(1), style: float(0.5) } }], {
      evals: {
        a__m__d: {
          metrics: [{ reward: 1.0, style: 0.25, other: 3 }],
          reward_stats: { reward: { "1.0": ["t1"] }, style: { "0.5": ["t1"] } },
          exception_stats: {},
        },
      },
    });
    const e = exp(await score([root]), "job-k");
    expect(e.claimed!.compared).toEqual([
      { metric: "a__m__d/0/reward", claimed: 1, assay: 1, reason: null },
      {
        metric: "a__m__d/0/style",
        claimed: 0.25,
        assay: 0.5,
        reason: expect.stringContaining("counted Harbor's way the trials in this folder give 0.500"),
      },
    ]);
  });

  it("JOB_CLAIM_MISMATCH: a trial named with another reward, another exception, or without a folder; the summary agreeing raises none", async () => {
    const root = fresh("mismatch");
    writeHarborJob(root, "job-m", TRIALS, {
      evals: {
        e: {
          metrics: [{ mean: 0.5 }],
          reward_stats: { reward: { "1": ["t1", "t2"], "0.0": ["gone"] } },
          exception_stats: { CancelledError: ["t3"] },
        },
      },
    });
    const e = exp(await score([root]), "job-m");
    expect(e.flags.map((f) => [f.code, f.trial, f.evidence])).toEqual([
      ["JOB_CLAIM_MISMATCH", "t2", "reward: the job says 1, its result.json 0"],
      ["JOB_CLAIM_MISMATCH", "t3", "exception: the job says CancelledError, its result.json RuntimeError"],
      [
        "JOB_CLAIM_MISMATCH",
        "gone",
        "the job's result.json names it with reward=0, but no trial folder of the job holds it (none)",
      ],
    ]);
    // Flags, never a verdict: the trials' own evidence decides.
    expect([e.invalid, e.states!["scored"], e.rewards!["reward"]!.mean]).toEqual([[], 2, 0.5]);
  });

  it("JOB_CLAIM_MISMATCH: a trial with rewards no eval names, unless the job never finished; a named trial without a readable result.json", async () => {
    const root = fresh("unnamed");
    const evals = { e: { metrics: [], reward_stats: { reward: { "1.0": ["t1", "t2"] } }, exception_stats: {} } };
    writeHarborJob(root, "job-done", [{ name: "t1" }, { name: "t2", result: null }, { name: "t3" }], { evals });
    writeHarborJob(root, "job-running", [{ name: "t1" }, { name: "t3" }], {
      evals: { e: { metrics: [], reward_stats: { reward: { "1.0": ["t1"] } } } },
      finished: false,
    });
    const doc = await score([root]);
    expect(
      exp(doc, "job-done")
        .flags.filter((f) => f.code === "JOB_CLAIM_MISMATCH")
        .map((f) => [f.trial, f.evidence]),
    ).toEqual([
      ["t2", "the job's result.json names it with reward=1, but it has no readable result.json (none)"],
      ["t3", "no eval of the job's result.json names it, but its result.json has reward=1"],
    ]);
    expect(exp(doc, "job-running").flags).toEqual([]);
  });

  it("a renamed trial folder is matched by its result.json trial_name", async () => {
    const root = fresh("renamed");
    const dir = writeHarborJob(root, "job-r", [{ name: "t1" }]);
    cpSync(join(dir, "t1"), join(dir, "t1-renamed"), { recursive: true });
    rmSync(join(dir, "t1"), { recursive: true });
    const doc = await score([root]);
    expect(doc.bundles.map((b) => [b.trial, b.claimed])).toEqual([["t1", { rewards: { reward: 1 }, exception: null }]]);
    expect(exp(doc, "job-r").flags).toEqual([]);
  });
});

describe("experiments and names (one job folder, one experiment)", () => {
  it("two different jobs of one name are two experiments, name@id8 each; their means are their own", async () => {
    const a = fresh("same-name-a");
    const b = fresh("same-name-b");
    writeHarborJob(a, "test-oracle", [{ name: "t1" }], { id: "ebc017d1-6745-4e20-9c57-32bfd31930d5" });
    writeHarborJob(b, "test-oracle", [{ name: "t1", rewards: { reward: float(0) } }], {
      id: "76d6b071-5762-49af-a169-42225b9fcf99",
    });
    const doc = await score([a, b]);
    expect(exp(doc, "test-oracle@ebc017d1").rewards!["reward"]!.mean).toBe(1);
    expect(exp(doc, "test-oracle@76d6b071").rewards!["reward"]!.mean).toBe(0);
    expect(doc.bundles.map((x) => x.experiment)).toEqual(["test-oracle@ebc017d1", "test-oracle@76d6b071"]);
    expect(exp(doc, "test-oracle@ebc017d1").job_id).toBe("ebc017d1-6745-4e20-9c57-32bfd31930d5");
  });

  it("the other side: one job of a name keeps its folder's name", async () => {
    const a = fresh("one-name");
    writeHarborJob(a, "test-oracle", [{ name: "t1" }]);
    expect((await score([a])).experiments.map((e) => e.experiment)).toEqual(["test-oracle"]);
  });

  it("lone trials with a config.job_id are grouped by it (job@id8); without one, under null", async () => {
    const root = fresh("lone-groups");
    writeTrial(join(root, "x"), { name: "x", extra: { config: { job_id: "54bd2fa8-0000-4000-8000-000000000000" } } });
    writeTrial(join(root, "y"), { name: "y" });
    const doc = await score([root]);
    expect(doc.experiments.map((e) => e.experiment)).toEqual(["job@54bd2fa8", null]);
    expect(doc.bundles.map((b) => [b.trial, b.experiment])).toEqual([
      ["x", "job@54bd2fa8"],
      ["y", null],
    ]);
  });
});

describe("TRIAL_DUPLICATE_ID: one Harbor trial id under two job folders", () => {
  it("trials copied into a second job are flagged in both, each with the other's path; the metrics are each job's own", async () => {
    const root = fresh("copied");
    const src = writeHarborJob(root, "persona-chat", [{ name: "t1" }, { name: "t2" }]);
    mkdirSync(join(root, "appSim-chat"));
    writeHarborJob(root, "appSim-chat", []);
    cpSync(join(src, "t1"), join(root, "appSim-chat", "t1"), { recursive: true });
    const doc = await score([root]);
    const copy = exp(doc, "appSim-chat");
    const orig = exp(doc, "persona-chat");
    expect(copy.flags.filter((f) => f.code === "TRIAL_DUPLICATE_ID").map((f) => [f.trial, f.evidence])).toEqual([
      ["t1", expect.stringContaining(`${root}/persona-chat/t1`)],
    ]);
    expect(orig.flags.filter((f) => f.code === "TRIAL_DUPLICATE_ID").map((f) => [f.trial, f.evidence])).toEqual([
      ["t1", expect.stringContaining(`${root}/appSim-chat/t1`)],
    ]);
    expect([copy.invalid, orig.invalid, orig.rewards!["reward"]!.covered]).toEqual([[], [], 2]);
  });

  it("the other side: distinct ids under two jobs, or the same trial_name with distinct ids, are no duplicate", async () => {
    const root = fresh("distinct");
    writeHarborJob(root, "j1", [{ name: "t1" }]);
    writeHarborJob(root, "j2", [{ name: "t1" }]);
    const doc = await score([root]);
    expect(doc.experiments.flatMap((e) => e.flags)).toEqual([]);
  });
});

describe("which reward file Harbor read: the job's lock.json decides", () => {
  // reward.txt agrees, reward.json (which Harbor 0.7+ reads first) does not.
  const disagreeing: TrialSpec = { name: "t1", rewardFiles: { "reward.json": '{"reward": 0.0}', "reward.txt": "1\n" } };
  it("Harbor 0.22 read reward.json: a trial agreeing only with reward.txt is invalid (REWARD_MISMATCH) in its job", async () => {
    const root = fresh("lock-new");
    writeHarborJob(root, "job-new", [disagreeing], { harborVersion: "0.22.0" });
    const doc = await score([root]);
    expect(doc.bundles[0]!.validity).toBe("valid"); // the trial alone cannot know which Harbor wrote it
    expect(exp(doc, "job-new").invalid).toEqual([{ trial: "t1", codes: ["REWARD_MISMATCH"] }]);
    expect(exp(doc, "job-new").rewards!["reward"]!.mean).toBe(0);
  });
  it("the other side: Harbor 0.6 read reward.txt first; without a lock.json either file may have been read, so agreeing with one is REWARD_MISMATCH (issue 35)", async () => {
    const root = fresh("lock-old");
    writeHarborJob(root, "job-old", [disagreeing], { harborVersion: "0.6.3" });
    writeHarborJob(root, "job-unknown", [disagreeing]);
    const doc = await score([root]);
    expect([exp(doc, "job-old").invalid, exp(doc, "job-unknown").invalid]).toEqual([
      [],
      [{ trial: "t1", codes: ["REWARD_MISMATCH"] }],
    ]);
    expect(exp(doc, "job-old").rewards!["reward"]!.mean).toBe(1);
  });
});

describe("nothing found is said", () => {
  it("a root under which nothing is recognised exits 2 with one line naming it; --allow-empty accepts it", async () => {
    const root = fresh("nothing");
    writeTree(root, { "notes/README.md": "x", "orphan/result.json": '{"a": 1}', "stray/verifier/reward.txt": "1\n" });
    const r = spawnCli(["score", root]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^assay score: nothing under ${root} is a bundle .*; 2 folders look like evidence but are not \\(--allow-empty`,
      ),
    );
    const ok = await run(["score", root, "--allow-empty", "--format", "json", "--quiet"]);
    expect(ok.code).toBe(0);
    expect(resultsSchema.parse(JSON.parse(ok.stdout)).run.unrecognised).toEqual({
      count: 2,
      paths: [`${root}/orphan`, `${root}/stray/verifier`],
    });
  });

  it("the other side: a root holding a job, beside unrecognised folders, is scored; the table names what was not recognised", async () => {
    const root = fresh("some");
    writeHarborJob(root, "job-a", [{ name: "t1" }]);
    writeTree(root, { "orphan/result.json": '{"a": 1}' });
    const r = await run(["score", root, "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 folder looks like evidence .* but is nothing assay reads: not scored\n {2}.*\/orphan/);
  });

  it("an empty root given beside a full one is still an error naming the empty one", () => {
    const full = fresh("full");
    writeHarborJob(full, "job-a", [{ name: "t1" }]);
    const empty = fresh("empty");
    const r = spawnCli(["score", full, empty, "--format", "json"]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(`nothing under ${empty} is`)]);
  });
});

describe("exceptions shown", () => {
  it("the table names each trial's exception and groups them by type in the job's summary; verify names it", async () => {
    const root = fresh("exceptions");
    const dir = writeHarborJob(root, "job-x", [
      {
        name: "t1",
        rewards: { reward: float(0) },
        exception: { type: "AgentTimeoutError", message: "Agent execution timed out after 600.0 seconds" },
      },
      {
        name: "t2",
        rewards: null,
        rewardFiles: null,
        exception: { type: "RunloopError", message: "devbox failed\nmore" },
      },
      { name: "t3", rewards: null, rewardFiles: null, exception: { type: "RunloopError", message: "again" } },
    ]);
    const r = await run(["score", root, "--quiet", "--details"]);
    expect(r.stdout).toMatch(/exceptions {3}RunloopError 2 · AgentTimeoutError 1/);
    expect(r.stdout).toContain(`${dir}/t2: infrastructure-error RunloopError: devbox failed\n`);
    expect(r.stdout).toContain(
      `${dir}/t1: scored-with-exception AgentTimeoutError: Agent execution timed out after 600.0 seconds`,
    );
    const v = spawnCli(["verify", join(dir, "t2")]);
    expect(v.stdout).toContain("exception RunloopError: devbox failed");
    expect(JSON.parse(spawnCli(["verify", join(dir, "t2"), "--json"]).stdout).exception).toEqual({
      type: "RunloopError",
      message: "devbox failed",
      step: null,
    });
  });
});

describe("shards: the job-level data travels in the documents", () => {
  it("--shard 0/2 and 1/2 of jobs with plans, claims and copied trials merge into the single run's document", async () => {
    let root: string;
    const names = ["t1", "t2", "t3", "t4"];
    // Pick a root under which each job's trials fall in both shards (shards split by path hash).
    do root = join(tmp, `shards-${++serial}`);
    while (new Set(names.map((t) => inShard(`${root}/job-a/${t}`, { index: 0, count: 2 }))).size < 2);
    const a = writeHarborJob(
      root,
      "job-a",
      names.map((name, i) => ({ name, rewards: { reward: float(i % 2) } })),
      { plan: 6 },
    );
    writeHarborJob(root, "job-b", [], { plan: 1 });
    cpSync(join(a, "t1"), join(root, "job-b", "t1"), { recursive: true });
    writeHarborJob(root, "job-b2", [{ name: "t9" }], {
      evals: { e: { metrics: [{ mean: 0.25 }], reward_stats: { reward: { "0.0": ["t9", "lost"] } } } },
    });
    const single = await run(["score", root, "--format", "json", "--quiet"]);
    expect(single.code, single.stderr).toBe(0);
    const files = [];
    for (const i of [0, 1]) {
      const s = await run(["score", root, "--shard", `${i}/2`, "--format", i === 0 ? "json" : "jsonl", "--quiet"]);
      expect(s.code, s.stderr).toBe(0);
      const f = join(tmp, `shard-${serial}-${i}`);
      writeFileSync(f, s.stdout);
      files.push(f);
    }
    const merged = await run(["merge", ...files, "--format", "json"]);
    expect(merged.code, merged.stderr).toBe(0);
    const withoutRun = (t: string) => JSON.stringify({ ...JSON.parse(t), run: null });
    expect(withoutRun(merged.stdout)).toBe(withoutRun(single.stdout));
    const doc = resultsSchema.parse(JSON.parse(single.stdout));
    expect(exp(doc, "job-a").missing).toEqual([{ count: 2, reason: "planned by the job, absent from its folder" }]);
    // The copied trial: its id is job-a's too, and job-b's summary names no such trial.
    expect(exp(doc, "job-b").flags.map((f) => f.code)).toEqual(["TRIAL_DUPLICATE_ID", "JOB_CLAIM_MISMATCH"]);
    expect(exp(doc, "job-b2").flags.map((f) => [f.code, f.trial])).toEqual([
      ["JOB_CLAIM_MISMATCH", "t9"],
      ["JOB_CLAIM_MISMATCH", "lost"],
    ]);
  });

  it("merge refuses shards that found other jobs", async () => {
    const root = fresh("shards-changed");
    writeHarborJob(root, "job-a", [{ name: "t1" }, { name: "t2" }]);
    const first = await run(["score", root, "--shard", "0/2", "--quiet"]);
    writeHarborJob(root, "job-z", [{ name: "t1" }]);
    const second = await run(["score", root, "--shard", "1/2", "--quiet"]);
    const files = [first.stdout, second.stdout].map((t, i) => {
      const f = join(root, `..`, `changed-${serial}-${i}.json`);
      writeFileSync(f, t);
      return f;
    });
    const merged = await run(["merge", ...files]);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toMatch(/found other Harbor jobs/);
  });
});
