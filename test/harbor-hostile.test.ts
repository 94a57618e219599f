// Harbor evidence written to get a failing trial out of the metrics, or to make assay lie or
// stall: each case from the fresh-eyes review of the Harbor change, on real folders.

import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Results } from "../src/core/results.js";
import { scoreTrial } from "../src/kinds/harbor/trial.js";
import { diskBundle } from "../src/io/bundle-source.js";
import { scoreRoots } from "../src/pipeline/score.js";
import { BundlePool } from "../src/pool/pool.js";
import {
  float,
  pyJson,
  realTrajectory,
  jobIdOf,
  trialResult,
  writeJob,
  writeTrial,
  type TrialSpec,
} from "./helpers/harbor.js";
import { run } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { dir: ROOT } = scratch("assay-harbor-hostile-", SCRATCH);
let n = 0;
const fresh = () => join(ROOT, `c${++n}`);
const score = (spec: TrialSpec, after?: (dir: string) => void) => {
  const dir = writeTrial(fresh(), spec);
  after?.(dir);
  return scoreTrial(diskBundle(dir));
};
const OPTS = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude", jobs: 1 } as const;
const jobOf = (r: Results, name: string) => r.experiments.find((e) => e.experiment === name)!;

describe("the trajectory scan stays linear whatever the agent wrote", () => {
  // Before: a backtracking pattern took ~11 s on 240 KB of "cp ", enough to push a trial past the
  // per-bundle time limit, out of every metric, as a tool error.
  it.each([
    ["cp", "cp ".repeat(300_000) + "/tests_"],
    ["rm", "rm ".repeat(300_000) + "/tests /tests ".repeat(30_000)],
    ["redirections", "> ".repeat(200_000) + "/logs/verifierX"],
    ["mentions", "/tests ".repeat(1_000_000)],
  ])("%s: a trajectory built to stall the scan is judged in well under a second per MB", (_, text) => {
    const traj = JSON.stringify({ steps: [{ step_id: 1, source: "agent", message: text }] });
    const t = process.hrtime.bigint();
    score({ name: "slow", rewards: { reward: float(0) }, trajectory: traj });
    const seconds = Number(process.hrtime.bigint() - t) / 1e9;
    expect(seconds).toBeLessThan(5 * Math.max(1, traj.length / 1e6)); // a hang guard, not a benchmark
  });

  it("an array of 200,000 strings in a tool call is scanned as the step it is, not as invalid JSON", () => {
    const traj = JSON.parse(realTrajectory("timeout")) as { steps: Record<string, unknown>[] };
    traj.steps.push({
      step_id: 99,
      source: "agent",
      message: "x",
      tool_calls: [
        {
          function_name: "bash_command",
          arguments: { keystrokes: "echo 1 > /logs/verifier/reward.txt", pad: Array(200_000).fill("a") },
        },
      ],
    });
    const e = score({ name: "wide", trajectory: JSON.stringify(traj) });
    expect(e.flags).toEqual([
      { code: "WRITES_REWARD_PATH", evidence: expect.stringMatching(/^agent\/trajectory\.json step 99: /) },
    ]);
  });

  it("a trajectory too large to scan is said so (TRAJECTORY_NOT_SCANNED), not passed as clean", () => {
    const e = score({ name: "huge" }, (dir) => {
      mkdirSync(join(dir, "agent"), { recursive: true });
      writeFileSync(join(dir, "agent/trajectory.json"), Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    });
    expect(e.warnings.map((w) => [w.code, w.file])).toEqual([["TRAJECTORY_NOT_SCANNED", "agent/trajectory.json"]]);
    expect(e.validity).toBe("valid");
  });
});

describe("result.json: only a killed writer's prefix is truncation", () => {
  const full = pyJson(trialResult({ name: "p", task: "tâche-é" }));

  it("every proper prefix of a valid result.json is RESULT_TRUNCATED: a warning, incomplete, never an error", () => {
    const dir = writeTrial(fresh(), { name: "p", rewardFiles: null }); // killed before its verifier (else REWARD_WITHOUT_RESULT too)
    const bytes = Buffer.from(full);
    for (let k = 0; k < bytes.length; k += 7) {
      writeFileSync(join(dir, "result.json"), bytes.subarray(0, k));
      const e = scoreTrial(diskBundle(dir));
      expect([k, e.validity, e.state, e.warnings.map((w) => w.code)]).toEqual([
        k,
        "valid",
        "incomplete",
        ["RESULT_TRUNCATED"],
      ]);
    }
  });

  it.each([
    ["trailing garbage", `${full} junk`],
    ["a doubled comma", full.replace(",", ",,")],
    ["a NUL byte inside", full.replace('"task_name"', '"task\u0000name"')],
    ["a misspelt literal", full.replace("null", "nul")],
  ])("%s is corrupt evidence: JSON_SYNTAX, invalid (counts 0), not a way out of the mean", (_, text) => {
    const e = score({ name: "p", result: text });
    expect(e.errors.map((f) => f.code)).toEqual(["JSON_SYNTAX"]);
    expect(e.validity).toBe("invalid");
    expect(e.warnings).toEqual([]);
  });
});

describe("states and rewards that cannot be taken at face value", () => {
  it("an exception_info of the wrong type is still an exception (and a SCHEMA error)", () => {
    const r = trialResult({ name: "x" });
    r["exception_info"] = "AgentTimeoutError";
    const e = score({ name: "x", result: pyJson(r) });
    expect([e.state, e.errors.map((f) => f.code)]).toEqual(["scored-with-exception", ["SCHEMA"]]);
  });

  it("a step whose name cannot be a folder cannot have its rewards backed by a file (REWARD_FILE_MISSING)", () => {
    const e = score({
      name: "x",
      rewards: { reward: float(1) },
      rewardFiles: null,
      steps: [{ name: "../escape", rewards: { reward: float(1) } }],
    });
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "REWARD_FILE_MISSING",
        message: expect.stringContaining("cannot name a folder under steps/"),
      }),
    ]);
  });

  it("seal.json is an ordinary file in a Harbor trial: it enters the digest", () => {
    const a = score({ name: "s" }, (dir) => writeFileSync(join(dir, "seal.json"), "{}"));
    const b = score({ name: "s" }, (dir) => writeFileSync(join(dir, "seal.json"), "[]"));
    expect(a.digest).not.toBe(b.digest);
  });
});

describe("job metrics that cannot be emptied", () => {
  it("a job whose every scored trial is invalid shows a mean of 0 over them, not 'no rewards'", async () => {
    const root = fresh();
    writeJob(root, "all-invalid", [
      { name: "a", rewardFiles: { "reward.txt": "0\n" } }, // claims 1, the verifier wrote 0
      { name: "b", rewards: { reward: null }, rewardFiles: { "reward.txt": "nan\n" } },
    ]);
    const r = jobOf(await scoreRoots([root], OPTS), "all-invalid");
    expect(r.rewards).toEqual({ reward: expect.objectContaining({ mean: 0, covered: 2, trials: 2, pass_rate: 0 }) });
  });

  // Revision 2 (§11 "One job folder is one experiment, never merged with another … #2, #3 when name
  // and id both repeat. A trial id found in several job folders is TRIAL_DUPLICATE_ID in each"):
  // revision 1 merged the two folders into one experiment and counted the copies once.
  it("the same job archived under two roots is two experiments (name, name#2), each trial flagged TRIAL_DUPLICATE_ID in both", async () => {
    const a = fresh();
    const b = fresh();
    writeJob(a, "job-x", [{ name: "t1" }, { name: "t2", rewards: { reward: float(0) } }]);
    cpSync(join(a, "job-x"), join(b, "job-x"), { recursive: true });
    const r = await scoreRoots([a, b], OPTS);
    const name = `job-x@${jobIdOf("job-x").slice(0, 8)}`;
    const [first, second] = [jobOf(r, name), jobOf(r, `${name}#2`)];
    for (const [e, other] of [
      [first, `${b}/job-x`],
      [second, `${a}/job-x`],
    ] as const) {
      expect(e.rewards!["reward"]).toMatchObject({ mean: 0.5, covered: 2, trials: 2 });
      expect(e.flags.map((f) => [f.code, f.trial])).toEqual([
        ["TRIAL_DUPLICATE_ID", "t1"],
        ["TRIAL_DUPLICATE_ID", "t2"],
      ]);
      expect(e.flags[0]!.evidence).toContain(`${other}/t1`);
      expect(e.invalid).toEqual([]);
    }
    expect(r.bundles.map((x) => x.experiment)).toEqual([name, name, `${name}#2`, `${name}#2`]);
  });

  it("within one job folder, two folders claiming one trial_name: a byte-identical copy counts once; different contents make both invalid", async () => {
    const root = fresh();
    const job = writeJob(root, "job-y", [{ name: "t1" }, { name: "t2", rewards: { reward: float(0) } }]);
    cpSync(join(job, "t1"), join(job, "t1-copy"), { recursive: true });
    const once = jobOf(await scoreRoots([root], OPTS), "job-y");
    expect(once.rewards!["reward"]).toMatchObject({ mean: 0.5, covered: 2, trials: 2 });
    expect(once.excluded.map((x) => x.reason)).toEqual([expect.stringMatching(/byte-identical copy/)]);
    writeFileSync(join(job, "t1-copy/trial.log"), "edited\n");
    const differ = jobOf(await scoreRoots([root], OPTS), "job-y");
    expect(differ.invalid).toEqual([
      { trial: "t1", codes: ["TRIAL_DUPLICATE"] },
      { trial: "t1", codes: ["TRIAL_DUPLICATE"] },
    ]);
  });
});

describe("discovery and verify at the edges of a job", () => {
  it("a trial folder holding only config.json, given as a root inside a job, is that job's incomplete trial", async () => {
    const root = fresh();
    const job = writeJob(root, "job-y", [{ name: "ok" }]);
    mkdirSync(join(job, "bare"));
    writeFileSync(join(job, "bare/config.json"), "{}");
    const r = await scoreRoots([join(job, "bare")], OPTS);
    expect(r.bundles.map((x) => [x.experiment, x.trial, x.state])).toEqual([["job-y", "bare", "incomplete"]]);
    expect((await run(["verify", join(job, "bare")])).code).toBe(0);
  });

  it("verify --json prints an array for a job, even of one trial, and one entry for a trial", async () => {
    const root = fresh();
    const job = writeJob(root, "job-z", [{ name: "only" }]);
    expect(Array.isArray(JSON.parse((await run(["verify", job, "--json"])).stdout))).toBe(true);
    expect(JSON.parse((await run(["verify", join(job, "only"), "--json"])).stdout)).toMatchObject({ trial: "only" });
  });
});

describe("the pool's worker module", () => {
  it("a worker module with no default export fails every bundle as WORKER_FAILED, saying why, without hanging", async () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, "no-default.mjs"), "export const x = 1;\n");
    const trialDir = writeTrial(join(dir, "t"), { name: "t" });
    const pool = new BundlePool({ jobs: 1, workerFile: join(dir, "no-default.mjs") }); // a path, resolved from here
    try {
      const [e] = await pool.score([{ dir: trialDir, path: "t", kind: "harbor" }]);
      expect(e).toMatchObject({
        validity: "error",
        profile: "harbor",
        errors: [
          expect.objectContaining({ code: "WORKER_FAILED", message: expect.stringContaining("no default export") }),
        ],
      });
    } finally {
      await pool.destroy();
    }
  });
});

describe("a job that lost its job.log", () => {
  // Revision 2 (§11 "A directory is a job when it holds job.log, or a result.json whose top level
  // has n_total_trials and stats"): revision 1 read such a folder as one lone trial (LOOKS_LIKE_JOB).
  it("is a job by its result.json: its trials are scored, none is a phantom", async () => {
    const root = fresh();
    const job = writeJob(root, "job-nolog", [{ name: "t1" }, { name: "t2" }]);
    rmSync(join(job, "job.log"));
    const r = await scoreRoots([root], OPTS);
    expect(r.bundles.map((b) => [b.path.split("/").pop(), b.experiment, b.warnings.map((w) => w.code)])).toEqual([
      ["t1", "job-nolog", []],
      ["t2", "job-nolog", []],
    ]);
  });

  it("a lone trial whose subfolders hold trials still warns LOOKS_LIKE_JOB (its result.json is a trial's, not a job's)", async () => {
    const root = fresh();
    const lone = writeTrial(join(root, "lone"), { name: "lone" });
    writeTrial(join(lone, "inner"), { name: "inner" });
    const r = await scoreRoots([root], OPTS);
    expect(r.bundles.map((b) => [b.path.split("/").pop(), b.warnings.map((w) => w.code)])).toEqual([
      ["lone", ["LOOKS_LIKE_JOB"]],
    ]);
    expect(r.bundles[0]!.warnings[0]!.message).toMatch(/^1 subfolder holds config\.json/);
  });

  it("an ordinary multi-step trial (steps/<name>/…) does not warn", () => {
    const e = score({ name: "m", rewards: null, steps: [{ name: "s1", rewards: { reward: float(1) } }] }, (dir) =>
      writeFileSync(join(dir, "steps/s1/config.json"), "{}"),
    );
    expect(e.warnings).toEqual([]);
  });
});
