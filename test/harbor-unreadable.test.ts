// Issue 35 §2 for Harbor: what a file assay could not read may switch off. A trial's result.json
// absent or cut beside a reward file, a job's or trial's lock.json that cannot be read, and a job's
// result.json that cannot be read never leave a figure better than with the file present. Each
// rule on both sides of its line (the attack comes out as the honest figure, the honest neighbour
// is unchanged), through the real pipeline (scoreRoots, the CLI in-process and spawned).

import { readFileSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { run, spawnCli } from "./helpers/cli.js";
import { float, pyJson, trialResult, writeTree, writeTrial, type TrialSpec } from "./helpers/harbor.js";
import { freshFolders } from "./helpers/shared.js";

const BASE: ScoreRunOptions = { schedules: [], ...DEFAULT_BATCH, jobs: 2 };
const score = (roots: string[], over: Partial<ScoreRunOptions> = {}) => scoreRoots(roots, { ...BASE, ...over });
const exp = (doc: Results, name: string): Experiment => doc.experiments.find((x) => x.experiment === name)!;
const entry = (doc: Results, trial: string): BundleEntry => doc.bundles.find((b) => b.path.endsWith(`/${trial}`))!;
const reward = (e: Experiment) => e.rewards!["reward"]!;
const figure = (e: Experiment) => [reward(e).mean, reward(e).covered, reward(e).trials];
const codes = (fs: readonly { code: string }[]) => fs.map((f) => f.code);

const fresh = freshFolders("assay-harbor-unreadable-");

interface JobSpec {
  /** n_total_trials (default: the trials given). */
  plan?: number;
  /** lock.json's Harbor version (default: no lock.json). */
  version?: string;
  /** result.json's bytes instead (null: none). */
  result?: string | null;
}

/** A finished job whose summary agrees with its trials (reward_stats and the mean of `reward`). */
function writeJob(root: string, name: string, trials: TrialSpec[], o: JobSpec = {}): string {
  const dir = join(root, name);
  const value = (t: TrialSpec) =>
    t.rewards === null
      ? 0
      : t.rewards === undefined
        ? 1
        : Number((t.rewards["reward"] as { value?: number })?.value ?? t.rewards["reward"]);
  const byValue: Record<string, string[]> = {};
  for (const t of trials) if (t.rewards !== null) (byValue[value(t).toFixed(1)] ??= []).push(t.name);
  const result = {
    id: "0000aaaa-aaaa-4bbb-8ccc-dddddddddddd",
    finished_at: "2026-06-23T01:20:00.000000",
    n_total_trials: o.plan ?? trials.length,
    stats: {
      n_completed_trials: trials.length,
      evals: {
        a__m__adhoc: {
          metrics: [{ mean: trials.reduce((s, t) => s + value(t), 0) / trials.length }],
          pass_at_k: {},
          reward_stats: { reward: byValue },
        },
      },
    },
  };
  const files: Record<string, string> = { "config.json": JSON.stringify({ job_name: name }), "job.log": "" };
  if (o.result !== null) files["result.json"] = o.result ?? JSON.stringify(result, null, 4);
  if (o.version !== undefined)
    files["lock.json"] = JSON.stringify({ schema_version: 3, harbor: { version: o.version }, trials: [] }, null, 4);
  writeTree(dir, files);
  for (const t of trials) writeTrial(join(dir, t.name), t);
  return dir;
}

/** The synth job's shape: four trials, rewards 1, 0, 1, 1 (honest mean 0.750). */
const FOUR = (): TrialSpec[] => [
  { name: "t1" },
  { name: "t2", rewards: { reward: float(0) } },
  { name: "t3" },
  { name: "t4" },
];
/** A file's first half: a killed writer's prefix. */
const halve = (file: string) =>
  writeFileSync(file, readFileSync(file).subarray(0, Math.floor(readFileSync(file).length / 2)));

describe("a trial's result.json absent or cut while a reward file shows its verifier ran", () => {
  const attacks = {
    cut: (dir: string) => halve(join(dir, "t2", "result.json")),
    deleted: (dir: string) => unlinkSync(join(dir, "t2", "result.json")),
  };

  for (const [how, attack] of Object.entries(attacks)) {
    it(`${how}: the failing trial counts 0 under every --errors and --invalid, never leaves the mean (1.000 → 0.750), REWARD_WITHOUT_RESULT`, async () => {
      const root = fresh(`result-${how}`);
      const dir = writeJob(root, "job", FOUR());
      attack(dir);
      for (const over of [{}, { errors: "zero" as const }, { invalid: "exclude" as const }]) {
        const doc = await score([root], over);
        const e = exp(doc, "job");
        // 0.750 as with the file present; coverage 3/4: nothing scored the trial, it is counted 0.
        expect(figure(e), JSON.stringify(over)).toEqual([0.75, 3, 4]);
        expect(e.excluded).toEqual([]);
        expect(e.flags.filter((f) => f.code === "REWARD_WITHOUT_RESULT")).toEqual([
          {
            code: "REWARD_WITHOUT_RESULT",
            trial: "t2",
            attempt: null,
            evidence: expect.stringContaining("counted 0 under every --errors"),
          },
        ]);
        const t2 = entry(doc, "t2");
        expect([t2.validity, t2.state, t2.rewards]).toEqual(["valid", "incomplete", null]);
        expect(t2.warnings.find((w) => w.code === "REWARD_WITHOUT_RESULT")).toMatchObject({
          file: "verifier/reward.txt",
          message: expect.stringContaining("but the verifier ran (it left verifier/reward.txt)"),
        });
      }
    });
  }

  it("a library caller's entries (no compact record, so no record part) reach the same figure and flag", async () => {
    const root = fresh("result-entries");
    unlinkSync(join(writeJob(root, "job", FOUR()), "t2", "result.json"));
    const doc = await score([root]);
    const [e] = computeExperiments(doc.bundles, [], DEFAULT_BATCH, doc.run.jobs);
    expect([figure(e!), codes(e!.flags)]).toEqual([
      [0.75, 3, 4],
      ["REWARD_WITHOUT_RESULT", "JOB_CLAIM_MISMATCH"],
    ]);
  });

  it("a multi-step trial: a step's reward file shows the verifier ran just as well", async () => {
    const root = fresh("result-steps");
    const steps = [
      { name: "s1", rewards: { reward: float(0) } },
      { name: "s2", rewards: { reward: float(0) } },
    ];
    const dir = writeJob(root, "job", [
      { name: "t1" },
      { name: "t2", rewards: { reward: float(0) }, rewardFiles: null, steps },
    ]);
    unlinkSync(join(dir, "t2", "result.json"));
    const e = exp(await score([root]), "job");
    expect(figure(e)).toEqual([0.5, 1, 2]);
    expect(codes(e.flags)).toContain("REWARD_WITHOUT_RESULT");
  });

  it("the other side: an honest trial killed before its verifier (no reward file) stays incomplete, out of the mean by default and 0 under --errors zero", async () => {
    const root = fresh("result-killed");
    const dir = writeJob(root, "job", [...FOUR(), { name: "t5", rewardFiles: null }]);
    halve(join(dir, "t5", "result.json"));
    const doc = await score([root]);
    expect(figure(exp(doc, "job"))).toEqual([0.75, 4, 5]);
    expect(exp(doc, "job").excluded).toEqual([{ trial: "t5", reason: "incomplete" }]);
    expect(codes(entry(doc, "t5").warnings)).toEqual(["RESULT_TRUNCATED"]);
    expect(codes(exp(doc, "job").flags)).not.toContain("REWARD_WITHOUT_RESULT");
    expect(figure(exp(await score([root], { errors: "zero" }), "job"))).toEqual([0.6, 4, 5]);
  });

  it("the other side: a whole result.json is read as ever, and one that is corrupt (not a prefix) stays an error, not this warning", async () => {
    const root = fresh("result-whole");
    const dir = writeJob(root, "job", FOUR());
    const doc = await score([root]);
    expect(figure(exp(doc, "job"))).toEqual([0.75, 4, 4]);
    expect(exp(doc, "job").flags).toEqual([]);
    writeFileSync(
      join(dir, "t2", "result.json"),
      `${pyJson(trialResult({ name: "t2", rewards: { reward: float(0) } }))}}`,
    );
    const bad = await score([root]);
    expect([entry(bad, "t2").validity, codes(entry(bad, "t2").errors), codes(entry(bad, "t2").warnings)]).toEqual([
      "invalid",
      ["JSON_SYNTAX"],
      [],
    ]);
    expect(figure(exp(bad, "job"))).toEqual([0.75, 4, 4]);
  });

  it("the job's claim is explained, and the CLI says why: the table's flag, verify's warning", async () => {
    const root = fresh("result-cli");
    const dir = writeJob(root, "job", [{ name: "t1" }, { name: "t2" }]);
    unlinkSync(join(dir, "t2", "result.json"));
    const e = exp(await score([root]), "job");
    // Harbor's summary says 1.0; assay 0.5: the trial whose reward nothing can check counts 0.
    expect(e.claimed!.compared).toEqual([
      expect.objectContaining({
        claimed: 1,
        assay: 0.5,
        reason: expect.stringContaining("which assay counts (its verifier ran) as 0"),
      }),
    ]);
    const r = await run(["score", "--details", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/REWARD_WITHOUT_RESULT/);
    const v = spawnCli(["verify", join(dir, "t2")]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/warning {2}REWARD_WITHOUT_RESULT/);
  });
});

describe("lock.json: the Harbor version that says which reward file Harbor read", () => {
  /** t1 claims 1; Harbor ≥ 0.7 read reward.json (0) and ignored reward.txt (1). */
  const attacked = (): TrialSpec[] => [
    { name: "t1", rewardFiles: { "reward.json": '{"reward": 0.0}', "reward.txt": "1\n" } },
    { name: "t2" },
    { name: "t3" },
    { name: "t4" },
  ];

  it("with lock.json read (0.22.0): REWARD_MISMATCH, the honest 0.750", async () => {
    const root = fresh("lock-read");
    writeJob(root, "job", attacked(), { version: "0.22.0" });
    const e = exp(await score([root]), "job");
    expect([e.invalid, figure(e), codes(e.warnings)]).toEqual([
      [{ trial: "t1", codes: ["REWARD_MISMATCH"] }],
      [0.75, 4, 4],
      [],
    ]);
  });

  const unreadable: Record<string, [(file: string) => void, RegExp]> = {
    "cut in half": [halve, /does not parse/],
    "over 16 MiB": [(file) => truncateSync(file, 17 * 1024 * 1024), /bytes, more than assay reads/],
    "not an object": [(file) => writeFileSync(file, "[]"), /not an object/],
  };
  for (const [how, [spoil, why]] of Object.entries(unreadable)) {
    it(`${how}: LOCK_UNREADABLE names lock.json, and result.json agreeing with only one reward file is still REWARD_MISMATCH (1.000 → 0.750)`, async () => {
      const root = fresh("lock-unreadable");
      const dir = writeJob(root, "job", attacked(), { version: "0.22.0" });
      spoil(join(dir, "lock.json"));
      const e = exp(await score([root]), "job");
      expect(e.warnings).toEqual([
        expect.objectContaining({ code: "LOCK_UNREADABLE", file: "lock.json", message: expect.stringMatching(why) }),
      ]);
      expect([e.invalid, figure(e)]).toEqual([[{ trial: "t1", codes: ["REWARD_MISMATCH"] }], [0.75, 4, 4]]);
      expect(e.flags.find((f) => f.code === "REWARD_FILES_DISAGREE")!.evidence).toMatch(
        /agreeing with only one is REWARD_MISMATCH/,
      );
    });
  }

  it("absent: the version is unknown just the same, so agreeing with one of two disagreeing files is REWARD_MISMATCH; a cut reward.json too", async () => {
    const root = fresh("lock-absent");
    writeJob(root, "job", attacked());
    writeJob(root, "job-cut", [
      { name: "t1", rewardFiles: { "reward.json": '{"reward": 0.', "reward.txt": "1\n" } },
      { name: "t2" },
    ]);
    const doc = await score([root]);
    expect([exp(doc, "job").invalid, figure(exp(doc, "job")), exp(doc, "job").warnings]).toEqual([
      [{ trial: "t1", codes: ["REWARD_MISMATCH"] }],
      [0.75, 4, 4],
      [],
    ]);
    expect(entry(doc, "job/t1").reward_source).toBe("verifier/reward.txt (not verifier/reward.json)");
    expect(exp(doc, "job-cut").invalid).toEqual([{ trial: "t1", codes: ["REWARD_MISMATCH"] }]);
  });

  it("the other side: without lock.json, reward files that agree (or only one) leave the trial valid; a readable lock.json says nothing", async () => {
    const root = fresh("lock-honest");
    const trials: TrialSpec[] = [
      { name: "t1", rewardFiles: { "reward.json": '{"reward": 1.0}', "reward.txt": "1\n" } },
      { name: "t2", rewards: { reward: float(0) } },
      { name: "t3", rewardFiles: { "reward.json": '{"reward": 1}' } },
    ];
    writeJob(root, "job", trials);
    writeJob(root, "job-locked", trials, { version: "0.22.0" });
    const doc = await score([root]);
    for (const job of ["job", "job-locked"])
      expect([exp(doc, job).invalid, figure(exp(doc, job)), exp(doc, job).warnings], job).toEqual([
        [],
        [2 / 3, 3, 3],
        [],
      ]);
  });
});

describe("a job's result.json that cannot be read: its plan and claims unknown", () => {
  it("cut: JOB_PLAN_UNKNOWN is an experiment flag beside the warning (flags 0 → 1), and coverage is unknown (0.667 → null, was 1.000), never a silent folders/folders", async () => {
    const root = fresh("job-cut");
    const dir = writeJob(root, "job", FOUR(), { plan: 6 });
    const honest = exp(await score([root]), "job");
    expect([figure(honest), honest.missing, honest.flags]).toEqual([
      [0.75, 4, 6],
      [{ count: 2, reason: "planned by the job, absent from its folder" }],
      [],
    ]);
    expect([reward(honest).coverage, reward(honest).coverage_reason]).toEqual([4 / 6, undefined]);
    halve(join(dir, "result.json"));
    const e = exp(await score([root]), "job");
    expect(codes(e.warnings)).toEqual(["JOB_RESULT_UNREADABLE"]);
    expect(e.flags).toEqual([
      {
        code: "JOB_PLAN_UNKNOWN",
        trial: "(job summary)",
        attempt: null,
        evidence: expect.stringMatching(
          /plan \(n_total_trials\) is unknown, so coverage is unknown.*claims \(stats\.evals\) cannot be checked/,
        ),
      },
    ]);
    expect(e.claimed).toBeNull();
    // 4 of 4 folders was coverage 1.000: a figure the lost file made better. Unknown now, with why; the mean is the trials'.
    expect([reward(e).coverage, reward(e).coverage_reason, figure(e)]).toEqual([
      null,
      expect.stringMatching(/^plan unknown: the job's result\.json is absent or unreadable/),
      [0.75, 4, 4],
    ]);
  });

  it("absent: the same (Harbor writes it when a job starts); with a trial's result.json cut too, both flags and the honest 0.750", async () => {
    const root = fresh("job-absent");
    const dir = writeJob(root, "job", FOUR(), { result: null });
    unlinkSync(join(dir, "t2", "result.json"));
    const e = exp(await score([root]), "job");
    expect(e.warnings).toEqual([
      expect.objectContaining({ code: "JOB_RESULT_UNREADABLE", message: expect.stringContaining("absent") }),
    ]);
    expect(codes(e.flags)).toEqual(["JOB_PLAN_UNKNOWN", "REWARD_WITHOUT_RESULT"]);
    expect([reward(e).mean, reward(e).coverage, reward(e).coverage_reason]).toEqual([
      0.75,
      null,
      expect.stringContaining("plan unknown"),
    ]);
  });

  it("the other side: a readable result.json raises neither, and a trial given alone (its job not walked) says nothing of the job's plan", async () => {
    const root = fresh("job-honest");
    const dir = writeJob(root, "job", FOUR());
    const doc = await score([root]);
    expect([exp(doc, "job").warnings, exp(doc, "job").flags]).toEqual([[], []]);
    // A readable, complete plan: coverage 1.000 as before, no reason.
    expect([reward(exp(doc, "job")).coverage, reward(exp(doc, "job")).coverage_reason]).toEqual([1, undefined]);
    const lone = await score([join(dir, "t1")]);
    expect(lone.experiments.flatMap((x) => codes(x.flags))).toEqual([]);
  });
});

describe("reports of a coverage whose plan is unknown", () => {
  /** One job planned 6 with 4 folders; its twin the same (trials of other names and ids), its result.json cut. */
  const jobs = () => {
    const root = fresh("job-report");
    writeJob(root, "planned", FOUR(), { plan: 6 });
    halve(
      join(
        writeJob(
          root,
          "cut",
          FOUR().map((t) => ({ ...t, name: t.name.replace("t", "c") })),
          { plan: 6 },
        ),
        "result.json",
      ),
    );
    return root;
  };
  const row = (out: string, name: string) => out.split("\n").find((l) => l.includes(name)) ?? "";

  it("the overview, --details, Markdown, HTML and JUnit say 4/? (plan unknown) for the cut job and 4/6 for its readable twin, never 4/4 or 100%", async () => {
    const root = jobs();
    const table = await run(["score", "-q", "--width", "250", root]);
    expect(table.code, table.stderr).toBe(0);
    expect(row(table.stdout, "cut")).toContain("4/? (plan unknown)");
    expect(row(table.stdout, "planned")).toMatch(/ 4\/6 /);
    const details = await run(["score", "-q", "--details", "--width", "250", root]);
    expect(details.stdout).toMatch(/coverage {3}4\/\? \(plan unknown\) {3}trials scored/);
    expect(details.stdout).toMatch(/^ {15}plan unknown: the job's result\.json is absent or unreadable/m);
    expect(details.stdout).toMatch(/coverage {3}4\/6 = 66\.7%/);
    expect(details.stdout).not.toMatch(/4\/4 = 100\.0%/);
    for (const [format, shown] of [
      ["md", /coverage 4\/\? \(plan unknown\): trials scored/],
      ["html", /4\/\? \(plan unknown\) trials scored/],
      ["junit", /name="reward\.reward\.coverage" value="4\/\? \(plan unknown\)"/],
    ] as const) {
      const r = await run(["score", "-q", "--details", "-f", format, root]);
      expect(r.code, `${format}: ${r.stderr}`).toBe(0);
      expect(r.stdout, format).toMatch(shown);
    }
  });

  it("compare takes an unknown coverage as unknown (no value, no difference), never as complete: BASE readable 4/6 → HEAD cut is no gain", async () => {
    const root = fresh("job-compare");
    const dir = writeJob(root, "job", FOUR(), { plan: 6 });
    const out = fresh("job-compare-docs");
    const docs = [join(out, "base.json"), join(out, "head.json")];
    expect((await run(["score", "-q", "-f", "json", "-o", docs[0]!, root])).code).toBe(0);
    halve(join(dir, "result.json"));
    expect((await run(["score", "-q", "-f", "json", "-o", docs[1]!, root])).code).toBe(0);
    const r = await run(["compare", docs[0]!, docs[1]!, "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const metrics = JSON.parse(r.stdout).experiments[0].metrics as { metric: string }[];
    expect(metrics.find((m) => m.metric === "reward/reward/coverage")).toMatchObject({
      base: { value: 4 / 6, k: 4, n: 6 },
      head: { value: null },
      difference: null,
      regression: false,
    });
    // The readable side's own figure, unchanged.
    expect(metrics.find((m) => m.metric === "reward/reward/mean")).toMatchObject({
      base: { value: 0.75 },
      head: { value: 0.75 },
    });
  });
});

describe("a trial's own lock.json that cannot be read: its task unknown to pass@k", () => {
  const DIGEST = (c: string) => `sha256:${c.repeat(64)}`;
  const lock = (digest: string) => ({
    "lock.json": JSON.stringify({ schema_version: 2, task: { name: "a", type: "local", digest } }),
  });
  /** Task "a" (digest 1) passes 3 of 3; another task named "a" (digest 2) fails 1; task "b" fails 1: pass@1 (1 + 0 + 0) / 3. */
  const trials = (): TrialSpec[] => [
    ...[1, 2, 3].map((n) => ({ name: `a__${n}`, task: "a", files: lock(DIGEST("1")) })),
    { name: "a__4", task: "a", rewards: { reward: float(0) }, files: lock(DIGEST("2")) },
    {
      name: "b__1",
      task: "b",
      rewards: { reward: float(0) },
      files: {
        "lock.json": JSON.stringify({ schema_version: 2, task: { name: "b", type: "local", digest: DIGEST("3") } }),
      },
    },
  ];

  it("cut: LOCK_UNREADABLE on the trial, and pass@k is null with the reason, never regrouped by name (pass@1 0.333 → 0.375 before)", async () => {
    const root = fresh("trial-lock");
    const dir = writeJob(root, "job", trials());
    const honest = reward(exp(await score([root]), "job"));
    expect(honest.pass_at_k!["1"]).toBeCloseTo(1 / 3, 12);
    halve(join(dir, "a__4", "lock.json"));
    const doc = await score([root]);
    expect(entry(doc, "a__4").warnings).toEqual([
      expect.objectContaining({
        code: "LOCK_UNREADABLE",
        file: "lock.json",
        message: expect.stringContaining("pass@k cannot place this trial"),
      }),
    ]);
    const r = reward(exp(doc, "job"));
    expect([r.pass_at_k, r.pass_hat_k, r.pass_at_k_reason]).toEqual([
      null,
      null,
      "1 trial in the mean has an unreadable lock.json (LOCK_UNREADABLE), so pass@k cannot tell its task",
    ]);
    expect(r.mean).toBe(0.6); // the mean is the trials', whatever their task
  });

  it("the other side: a lock.json that names no digest (an older Harbor's shape) is no finding", async () => {
    const root = fresh("trial-lock-honest");
    writeJob(root, "job", [
      { name: "a__1", task: "a", files: { "lock.json": JSON.stringify({ schema_version: 1, task: { name: "a" } }) } },
    ]);
    const doc = await score([root]);
    expect(entry(doc, "a__1").warnings).toEqual([]);
    expect(reward(exp(doc, "job")).pass_at_k).toEqual({ "1": 1 });
  });
});
