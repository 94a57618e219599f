// Harbor jobs read in place (issue 5, item 6): one job built from contract §11's field list holds
// each case the issue names, with the real trajectories from Harbor's own agents as the agent part;
// it is scored through the real pool, and every trial's verdict and the job's metrics are checked
// against values worked out by hand below.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { scoreRoots } from "../src/pipeline/score.js";
import { HARBOR_EXPECT } from "../src/synth/harbor.js";
import {
  float,
  FIXTURES,
  pyJson,
  REAL_TRAJECTORIES,
  realTrajectory,
  trialResult,
  withAgentCommand,
  writeJob,
  type TrialSpec,
} from "./helpers/harbor.js";
import { HAVE_SHARED, REQUIRE_SHARED, SCRATCH, scratch, scratchInTest, SHARED_DIR } from "./helpers/shared.js";

const TIMEOUT = { type: "AgentTimeoutError", message: "Agent execution timed out after 360.0 seconds" };
const CRASH = { type: "DaytonaError", message: "sandbox creation failed: quota exceeded" };

const truncated = (spec: TrialSpec) => {
  const full = pyJson(trialResult(spec));
  return full.slice(0, Math.floor(full.length * 0.6));
};

/** The cases, by folder name. `expect`: what the trial's entry must say. */
const CASES: {
  spec: TrialSpec;
  state: BundleEntry["state"];
  codes: string[];
  warnings?: string[];
  flags?: string[];
  reward: number | null;
}[] = [
  // reward.json and reward.txt both present: Harbor reads reward.json first, and it agrees; the
  // other file, which Harbor ignored, says otherwise (REWARD_FILES_DISAGREE, a review flag).
  {
    spec: { name: "both-files", rewardFiles: { "reward.json": '{"reward": 1.0}', "reward.txt": "0\n" } },
    state: "scored",
    codes: [],
    flags: ["REWARD_FILES_DISAGREE"],
    reward: 1,
  },
  // `nan` in reward.txt; pydantic wrote the NaN reward as null in result.json.
  {
    spec: { name: "nan-txt", rewards: { reward: null }, rewardFiles: { "reward.txt": "nan\n" } },
    state: "scored",
    codes: ["NOT_FINITE", "NOT_FINITE"],
    reward: null,
  },
  // A timeout that still earned a reward: the verifier ran after the agent timed out.
  { spec: { name: "timeout-reward", exception: TIMEOUT }, state: "scored-with-exception", codes: [], reward: 1 },
  // An exception with no reward: an infrastructure error, not a 0.
  {
    spec: { name: "exception-no-reward", rewards: null, exception: CRASH },
    state: "infrastructure-error",
    codes: [],
    reward: null,
  },
  // A multi-step trial whose first step failed under a clean top level. Revision 2 (§11): the top
  // level holds Harbor's aggregation of the steps (here their mean), never nothing.
  {
    spec: {
      name: "step-failed",
      rewards: { reward: float(1) },
      rewardFiles: null,
      steps: [
        { name: "build", exception: { type: "RuntimeError", message: "make: *** [all] Error 2" } },
        { name: "test", rewards: { reward: float(1) } },
      ],
    },
    state: "scored-with-exception",
    codes: [],
    flags: ["STEP_EXCEPTION"],
    reward: 1,
  },
  { spec: { name: "missing-result", result: null, rewardFiles: null }, state: "incomplete", codes: [], reward: null },
  // Killed before its verifier ran (no reward file): incomplete. With one, it would count 0 (REWARD_WITHOUT_RESULT).
  {
    spec: { name: "truncated-result", result: truncated({ name: "truncated-result" }), rewardFiles: null },
    state: "incomplete",
    codes: [],
    warnings: ["RESULT_TRUNCATED"],
    reward: null,
  },
  // A newer Harbor's result.json: extra fields, top level and nested.
  {
    spec: {
      name: "newer-result",
      extra: {
        schema_version: "2.1",
        agent_info: {
          name: "terminus-2",
          version: "2.1.0",
          model_info: { name: "gpt-4o", provider: "openai", context_window: 128000 },
          new_thing: [1, 2],
        },
      },
    },
    state: "scored",
    codes: [],
    reward: 1,
  },
  // result.json says 1.0; the verifier wrote 0.
  {
    spec: { name: "rewards-differ", rewardFiles: { "reward.txt": "0\n" } },
    state: "scored",
    codes: ["REWARD_MISMATCH"],
    reward: 1,
  },
  // The agent ran before its setup had started.
  {
    spec: {
      name: "phases-out-of-order",
      timing: {
        agent_execution: { started_at: "2025-11-03T10:00:30.000000", finished_at: "2025-11-03T10:04:00.000000" },
      },
    },
    state: "scored",
    codes: ["TIMING"],
    reward: 1,
  },
  // The real trajectories as the agent part: the timeout run earned 0, the others 1; unmodified, none is flagged.
  {
    spec: {
      name: "real-timeout",
      exception: TIMEOUT,
      rewards: { reward: float(0) },
      trajectory: realTrajectory("timeout"),
    },
    state: "scored-with-exception",
    codes: [],
    reward: 0,
  },
  {
    spec: { name: "real-summarization", trajectory: realTrajectory("summarization") },
    state: "scored",
    codes: [],
    reward: 1,
  },
  { spec: { name: "real-openhands", trajectory: realTrajectory("openhands") }, state: "scored", codes: [], reward: 1 },
  // The same real run, with one more step that writes the reward file itself: flagged, still counted.
  {
    spec: {
      name: "real-writes-reward",
      trajectory: withAgentCommand(realTrajectory("summarization"), "echo 1 > /logs/verifier/reward.txt\n"),
    },
    state: "scored",
    codes: [],
    flags: ["WRITES_REWARD_PATH"],
    reward: 1,
  },
];

const { dir: root } = scratch("assay-harbor-", SCRATCH);
let results: Results;
let job: Experiment;
const entry = (name: string) => results.bundles.find((b) => b.path.endsWith(`/${name}`))!;

beforeAll(async () => {
  const dir = writeJob(
    root,
    "job-2025-11-03",
    CASES.map((c) => c.spec),
  );
  // The Harbor version says which reward file it read (both-files): without one, agreeing with one of two would be REWARD_MISMATCH.
  writeFileSync(
    join(dir, "lock.json"),
    JSON.stringify({ schema_version: 3, harbor: { version: "0.22.0" }, trials: [] }),
  );
  results = await scoreRoots([root], {
    schedules: [],
    invalid: "count",
    resourceBound: "default",
    errors: "exclude",
    jobs: 2,
    batchSize: 3,
  });
  job = results.experiments.find((e) => e.experiment === "job-2025-11-03")!;
}, 60_000);

describe("each case of a Harbor job, read in place and scored in the pool", () => {
  it("finds every trial of the job (and nothing else) as a harbor trial of that job", () => {
    expect(results.bundles.map((b) => b.path.split("/").pop()).sort()).toEqual(CASES.map((c) => c.spec.name).sort());
    for (const b of results.bundles) {
      expect(b.profile).toBe("harbor");
      expect(b.experiment).toBe("job-2025-11-03");
      expect(b.attempt).toBeNull();
      expect(b.seed).toBeNull();
    }
  });

  for (const c of CASES)
    it(`${c.spec.name}: ${c.state}, ${c.codes.length === 0 ? "valid" : `invalid (${[...new Set(c.codes)].join(", ")})`}`, () => {
      const e = entry(c.spec.name);
      expect(e.state).toBe(c.state);
      expect(e.errors.map((f) => f.code)).toEqual(c.codes);
      expect(e.validity).toBe(c.codes.length === 0 ? "valid" : "invalid");
      expect(e.warnings.map((f) => f.code)).toEqual(c.warnings ?? []);
      expect(e.flags.map((f) => f.code)).toEqual(c.flags ?? []);
      expect(e.rewards?.["reward"] ?? null).toBe(c.reward);
      expect(e.trial).toBe(c.spec.name); // trial_name, or the folder's name when result.json cannot say
    });

  it("names the file and the field of each hard finding", () => {
    expect(entry("nan-txt").errors).toEqual([
      expect.objectContaining({
        code: "NOT_FINITE",
        file: "result.json",
        message: expect.stringContaining("verifier_result.rewards.reward"),
      }),
      expect.objectContaining({ code: "NOT_FINITE", file: "verifier/reward.txt" }),
    ]);
    expect(entry("rewards-differ").errors[0]).toMatchObject({
      file: "result.json",
      message: expect.stringMatching(/verifier_result\.rewards\.reward = 1 but verifier\/reward\.txt says 0/),
    });
    expect(entry("phases-out-of-order").errors[0]!.message).toMatch(/agent_execution starts at .* before agent_setup/);
  });

  it("keeps the evidence of each flag: the step's failure, the trajectory step and its text", () => {
    expect(entry("step-failed").flags[0]!.evidence).toMatch(/step_results\[0\] \(step build\): RuntimeError: make/);
    expect(entry("step-failed").reward_source).toBe("steps:mean");
    expect(entry("real-writes-reward").flags[0]!.evidence).toMatch(
      /^agent\/trajectory\.json step \d+: .*echo 1 > \/logs\/verifier\/reward\.txt/,
    );
  });
});

describe("the job's metrics", () => {
  // By hand: 14 trials. Scored states: 8 scored + 3 scored-with-exception; of those, 3 are invalid
  // (nan-txt, rewards-differ, phases-out-of-order) and count 0. Rewards of the valid ones: 1 each
  // except real-timeout's 0, so 7 ones over 11 counted trials. Excluded: the infrastructure error
  // and the two incomplete trials. One task (hello-world, one checksum): n = 11, c = 7.
  it("counts every state, side by side", () => {
    expect(job.states).toEqual({
      scored: 8,
      "scored-with-exception": 3,
      "infrastructure-error": 1,
      cancelled: 0,
      incomplete: 2,
      unverified: 0,
    });
    expect(job.scheduled).toBe(14);
  });

  it("takes the mean over both scored states, invalid trials as 0, with its coverage", () => {
    const r = job.rewards!["reward"]!;
    expect(r.mean).toBeCloseTo(7 / 11, 12);
    expect(r.coverage).toBeCloseTo(11 / 14, 12);
    expect([r.covered, r.trials]).toEqual([11, 14]);
    expect(r.pass_rate).toBeCloseTo(7 / 11, 12);
  });

  it("gives unbiased pass@k for k = 1..11 over the one task", () => {
    const p = job.rewards!["reward"]!.pass_at_k!;
    expect(Object.keys(p)).toHaveLength(11);
    expect(p["1"]).toBeCloseTo(7 / 11, 12);
    expect(p["2"]).toBeCloseTo(1 - 6 / 55, 12); // 1 − C(4,2)/C(11,2)
    expect(p["5"]).toBe(1); // fewer than 5 failures: any 5 include a pass
  });

  it("lists the invalid and the excluded trials with why", () => {
    expect(job.invalid).toEqual([
      { trial: "nan-txt", codes: ["NOT_FINITE"] },
      { trial: "phases-out-of-order", codes: ["TIMING"] },
      { trial: "rewards-differ", codes: ["REWARD_MISMATCH"] },
    ]);
    expect(job.excluded.map((x) => [x.trial, x.reason.split(":")[0]])).toEqual([
      ["exception-no-reward", "infrastructure-error"],
      ["missing-result", "incomplete"],
      ["truncated-result", "incomplete"],
    ]);
  });

  it("carries the review flags without letting them count", () => {
    expect(job.flags).toEqual([
      {
        code: "REWARD_FILES_DISAGREE",
        trial: "both-files",
        attempt: null,
        evidence: "Harbor 0.22.0 read verifier/reward.json and ignored the other",
      },
      { code: "WRITES_REWARD_PATH", trial: "real-writes-reward", attempt: null, evidence: null },
      { code: "STEP_EXCEPTION", trial: "step-failed", attempt: null, evidence: null },
    ]);
  });
});

describe("the real trajectories", () => {
  it("are the originals from ../shared/real-world/harbor", (ctx) => {
    if (!HAVE_SHARED) {
      if (REQUIRE_SHARED) throw new Error(`CI=true but ${SHARED_DIR} is missing`);
      return ctx.skip();
    }
    for (const f of Object.values(REAL_TRAJECTORIES))
      expect(readFileSync(join(FIXTURES, f)).equals(readFileSync(join(SHARED_DIR, "real-world/harbor", f))), f).toBe(
        true,
      );
  });
});

describe("assay synth --profile harbor (the demo's Harbor job)", () => {
  it("writes a job whose every trial gets the verdict, state and code its manifest labels", async () => {
    const { dir } = scratchInTest("assay-harbor-synth-", SCRATCH);
    writeCorpus(dir, { n: 16, seed: "t", faults: false, profile: "harbor" });
    const manifest = JSON.parse(readFileSync(join(dir, "synth-manifest.json"), "utf8")) as {
      bundles: { dir: string; outcome: keyof typeof HARBOR_EXPECT }[];
    };
    const r = await scoreRoots([dir], {
      schedules: [],
      invalid: "count",
      resourceBound: "default",
      errors: "exclude",
      jobs: 1,
    });
    expect(r.bundles).toHaveLength(16);
    const seen = new Set<string>();
    for (const m of manifest.bundles) {
      const e = r.bundles.find((b) => b.path === `${dir}/${m.dir}`)!;
      const want = HARBOR_EXPECT[m.outcome];
      seen.add(m.outcome);
      expect([e.validity, e.state], m.outcome).toEqual([want.validity, want.state]);
      const codes = new Set([...e.errors, ...e.warnings, ...e.flags].map((f) => f.code));
      expect(codes, m.outcome).toEqual(new Set(want.code === null ? [] : [want.code]));
    }
    expect(seen.size).toBe(Object.keys(HARBOR_EXPECT).length); // 16 trials reach every case
    expect(r.experiments.map((x) => [x.experiment, x.profile])).toEqual([["synth-harbor-job", "harbor"]]);
  });
});
