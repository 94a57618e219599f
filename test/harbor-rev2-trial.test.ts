// Contract §11, revision 2, for one trial: each new rule and code on both sides of its line, on
// trial folders written to a temp dir and scored from disk. Harbor's own behaviour (its verifier,
// its lax reward model, its step aggregation, its cancelled count) is what each case holds assay to.

import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scoreTrial } from "../src/kinds/harbor/trial.js";
import type { ScoredBundle } from "../src/core/results.js";
import { diskBundle } from "../src/io/bundle-source.js";
import { float, pyJson, trialResult, writeTrial, type StepSpec, type TrialSpec } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { dir: ROOT } = scratch("assay-harbor-rev2-trial-", SCRATCH);
let n = 0;
function trial(spec: Partial<TrialSpec> = {}, after?: (dir: string) => void): ScoredBundle {
  const dir = writeTrial(join(ROOT, `t${++n}`), { name: "trial-1", ...spec });
  after?.(dir);
  return scoreTrial(diskBundle(dir));
}
const codes = (fs: { code: string }[]) => fs.map((f) => f.code);
const config = (verifier: Record<string, unknown>) => ({
  config: { trial_name: "trial-1", job_id: "7f3c0a2e-0000-4000-8000-000000000001", verifier },
});

describe("REWARD_FILE_MISSING (an error, apart from REWARD_MISMATCH)", () => {
  it("rewards in result.json with no reward file where Harbor would have read one", () => {
    const e = trial({ rewardFiles: null });
    expect([e.validity, codes(e.errors), e.state]).toEqual(["invalid", ["REWARD_FILE_MISSING"], "scored"]);
    expect(e.errors[0]!.message).toBe(
      "verifier_result.rewards holds rewards but verifier/reward.json and verifier/reward.txt are absent",
    );
  });
  it("the other side: the reward file is there (and agrees), or result.json claims no rewards", () => {
    expect(trial({}).errors).toEqual([]);
    expect(trial({ rewards: null, rewardFiles: null }).errors).toEqual([]);
  });
  it("a step's rewards without steps/<name>/verifier/ (a multi-step trial has no root reward file)", () => {
    const e = trial({
      rewards: { reward: float(1) },
      rewardFiles: null,
      steps: [{ name: "solve", rewards: { reward: float(1) }, rewardFiles: null }],
    });
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "REWARD_FILE_MISSING",
        message: expect.stringContaining("steps/solve/verifier/reward.json"),
      }),
    ]);
    expect(
      trial({
        rewards: { reward: float(1) },
        rewardFiles: null,
        steps: [{ name: "solve", rewards: { reward: float(1) } }],
      }).errors,
    ).toEqual([]);
  });
});

describe("REWARD_COERCED: reward.json values Harbor's lax model reads as numbers", () => {
  it.each([
    ['{"reward": "1.0"}', 1],
    ['{"reward": " 1 "}', 1],
    ['{"reward": true}', 1],
    ['{"reward": false}', 0],
  ] as const)("%s is read as %d, with a warning naming the key; the trial stays valid", (json, value) => {
    const e = trial({ rewards: { reward: float(value) }, rewardFiles: { "reward.json": json } });
    expect([e.validity, e.errors]).toEqual(["valid", []]);
    expect(e.warnings).toEqual([
      expect.objectContaining({
        code: "REWARD_COERCED",
        file: "verifier/reward.json",
        message: expect.stringMatching(/^reward: /),
      }),
    ]);
  });
  it("the other side: a number is read without a word; a non-numeric string is Harbor's verifier failing (SCHEMA)", () => {
    expect(trial({ rewardFiles: { "reward.json": '{"reward": 1.0}' } }).warnings).toEqual([]);
    const e = trial({ rewardFiles: { "reward.json": '{"reward": "yes"}' } });
    expect([codes(e.errors), codes(e.warnings)]).toEqual([["SCHEMA"], []]);
  });
  it('a coerced "1.0" still disagrees with a result.json that says 0', () => {
    const e = trial({ rewards: { reward: float(0) }, rewardFiles: { "reward.json": '{"reward": "1.0"}' } });
    expect([codes(e.errors), codes(e.warnings)]).toEqual([["REWARD_MISMATCH"], ["REWARD_COERCED"]]);
  });
});

describe("REWARD_UNVERIFIED: a custom or disabled verifier writes no reward file", () => {
  it("a custom verifier (verifier.import_path): rewards kept, never compared with a reward file (even a disagreeing one), said by a warning", () => {
    for (const rewardFiles of [null, { "reward.txt": "0\n" }]) {
      const e = trial({ extra: config({ import_path: "my_pkg.verifiers:Judge", disable: false }), rewardFiles });
      expect([e.validity, e.errors, e.state, e.rewards, e.reward_source]).toEqual([
        "valid",
        [],
        "scored",
        { reward: 1 },
        "result.json (unverified)",
      ]);
      expect(codes(e.warnings)).toEqual(["REWARD_UNVERIFIED"]);
    }
  });
  it("a disabled verifier (verifier.disable): the trial is unverified whatever result.json claims", () => {
    const claims = trial({ extra: config({ disable: true }), rewardFiles: null });
    expect([claims.validity, claims.state, codes(claims.warnings)]).toEqual([
      "valid",
      "unverified",
      ["REWARD_UNVERIFIED"],
    ]);
    const none = trial({ extra: config({ disable: true }), rewards: null, rewardFiles: null });
    expect([none.validity, none.state, none.warnings]).toEqual(["valid", "unverified", []]);
  });
  it("the other side: Harbor's own verifier (import_path null, disable false) is held to its reward file", () => {
    const e = trial({ extra: config({ import_path: null, disable: false }), rewardFiles: null });
    expect([codes(e.errors), e.warnings, e.state]).toEqual([["REWARD_FILE_MISSING"], [], "scored"]);
    expect(trial({ extra: config({ import_path: null, disable: false }) }).reward_source).toBe("verifier/reward.txt");
  });
});

describe("the cancelled state", () => {
  const CANCELLED = { type: "CancelledError", message: "" };
  it("a CancelledError without rewards is cancelled (Harbor counts these apart), not an infrastructure error", () => {
    const e = trial({ rewards: null, rewardFiles: null, exception: CANCELLED });
    expect([e.validity, e.state, e.exception]).toEqual([
      "valid",
      "cancelled",
      { type: "CancelledError", message: "", step: null },
    ]);
  });
  it("the other side: another exception without rewards is an infrastructure error; a CancelledError with rewards is scored-with-exception", () => {
    expect(
      trial({ rewards: null, rewardFiles: null, exception: { type: "RuntimeError", message: "boom" } }).state,
    ).toBe("infrastructure-error");
    expect(trial({ exception: CANCELLED }).state).toBe("scored-with-exception");
  });
});

describe("the exception, in every entry", () => {
  it("the trial's own: type, the message's first line, step null", () => {
    const e = trial({
      exception: {
        type: "AgentTimeoutError",
        message: "Agent execution timed out after 600.0 seconds\nTraceback line",
      },
    });
    expect(e.exception).toEqual({
      type: "AgentTimeoutError",
      message: "Agent execution timed out after 600.0 seconds",
      step: null,
    });
  });
  it("a step's, when the trial's own is null: the first such step names it", () => {
    const e = trial({
      rewards: { reward: float(1) },
      rewardFiles: null,
      steps: [
        { name: "setup", exception: { type: "RuntimeError", message: "first" } },
        { name: "solve", rewards: { reward: float(1) }, exception: { type: "ValueError", message: "second" } },
      ],
    });
    expect(e.exception).toEqual({ type: "RuntimeError", message: "first", step: "setup" });
  });
  it("the message is redacted and cut to 200 characters", () => {
    const key = `sk-ant-api03-${"A".repeat(40)}`;
    const e = trial({
      rewards: null,
      rewardFiles: null,
      exception: { type: "AuthError", message: `bad key ${key} ${"x".repeat(400)}` },
    });
    expect(e.exception!.message).not.toContain(key);
    expect(e.exception!.message).toContain("[redacted anthropic key]");
    expect([...e.exception!.message].length).toBeLessThanOrEqual(200);
  });
  it("the other side: a trial without an exception has none", () => {
    expect(trial({}).exception).toBeNull();
    expect(trial({ result: null }).exception).toBeNull();
  });
});

describe("reward files, as Harbor reads them", () => {
  it("reward.txt is read as Python's float(): underscores, a sign, spaces and \\r around it", () => {
    for (const [txt, v] of [
      ["1_000\n", 1000],
      ["+0.5", 0.5],
      ["\t1e0\r\n", 1],
    ] as const) {
      const e = trial({ rewards: { reward: v }, rewardFiles: { "reward.txt": txt } });
      expect([txt, e.errors]).toEqual([txt, []]);
    }
  });
  it("reward.txt and reward.json both present and disagreeing: either may be the one Harbor read, and reward_source names it", () => {
    const txt = trial({ rewardFiles: { "reward.json": '{"reward": 0.0}', "reward.txt": "1\n" } });
    expect([txt.errors, txt.reward_source]).toEqual([[], "verifier/reward.txt (not verifier/reward.json)"]);
    const json = trial({ rewardFiles: { "reward.json": '{"reward": 1.0}', "reward.txt": "0\n" } });
    expect([json.errors, json.reward_source]).toEqual([[], "verifier/reward.json (not verifier/reward.txt)"]);
    const both = trial({ rewardFiles: { "reward.json": '{"reward": 1.0}', "reward.txt": "1\n" } });
    expect([both.errors, both.reward_source]).toEqual([[], "verifier/reward.json"]);
  });
});

describe("multi-step rewards (steps/<name>/verifier/, Harbor's mean or final aggregation)", () => {
  const steps: StepSpec[] = [
    { name: "build", rewards: { reward: float(1), lint: float(1) } },
    { name: "test", rewards: { reward: float(0) } },
  ];
  it("the top level equal to the per-key mean of the steps (a key a step lacks counts 0) is steps:mean", () => {
    const e = trial({ rewards: { reward: float(0.5), lint: float(0.5) }, rewardFiles: null, steps });
    expect([e.validity, e.state, e.reward_source, e.rewards]).toEqual([
      "valid",
      "scored",
      "steps:mean",
      { reward: 0.5, lint: 0.5 },
    ]);
  });
  it("equal to the last step's rewards, verbatim, is steps:final", () => {
    const e = trial({ rewards: { reward: float(0) }, rewardFiles: null, steps });
    expect([e.validity, e.reward_source]).toEqual(["valid", "steps:final"]);
  });
  it("the other side: anything else (here the first step's) is REWARD_MISMATCH naming both aggregations", () => {
    const e = trial({ rewards: { reward: float(1), lint: float(1) }, rewardFiles: null, steps });
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "REWARD_MISMATCH",
        message: expect.stringContaining(
          'steps give {"reward":0.5,"lint":0.5} (steps:mean) and {"reward":0} (steps:final)',
        ),
      }),
    ]);
  });
  it("each step is held to its own reward file, named", () => {
    const e = trial({
      rewards: { reward: float(0) },
      rewardFiles: null,
      steps: [steps[0]!, { name: "test", rewards: { reward: float(0) }, rewardFiles: { "reward.txt": "1\n" } }],
    });
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "REWARD_MISMATCH",
        message: "step_results[1].verifier_result.rewards.reward = 0 but steps/test/verifier/reward.txt says 1",
      }),
    ]);
  });
  it("the mean is summed in step order, then divided, and compared exactly", () => {
    const thirds = [0.1, 0.2, 0.3].map((v, i) => ({ name: `s${i}`, rewards: { reward: float(v) } }));
    const exact = (0.1 + 0.2 + 0.3) / 3;
    expect(trial({ rewards: { reward: exact }, rewardFiles: null, steps: thirds }).reward_source).toBe("steps:mean");
    expect(codes(trial({ rewards: { reward: 0.2 }, rewardFiles: null, steps: thirds }).errors)).toEqual(
      exact === 0.2 ? [] : ["REWARD_MISMATCH"],
    );
  });
});

describe("TRIAL_SYMLINK (revision 2's name for a link in a trial)", () => {
  it("a link inside a trial is a warning, never followed", () => {
    const e = trial({}, (dir) => symlinkSync("/etc/hostname", join(dir, "notes.txt")));
    expect([e.validity, e.warnings.map((w) => [w.code, w.file])]).toEqual(["valid", [["TRIAL_SYMLINK", "notes.txt"]]]);
  });
  it("the other side: a regular file there is no warning", () => {
    expect(trial({}, (dir) => writeFileSync(join(dir, "notes.txt"), "x")).warnings).toEqual([]);
  });
});

describe("identity carried by the entry (for the job-level rules)", () => {
  it("the Harbor trial id and the config's job_id; null without a readable result.json", () => {
    const e = trial({ extra: { id: "c6a9ed87-a1d1-4d61-b608-574c75c905d6", ...config({ disable: false }) } });
    expect([e.harbor_id, e.job_id]).toEqual([
      "c6a9ed87-a1d1-4d61-b608-574c75c905d6",
      "7f3c0a2e-0000-4000-8000-000000000001",
    ]);
    const none = trial({ result: null }, (dir) => mkdirSync(join(dir, "agent"), { recursive: true }));
    expect([none.harbor_id, none.job_id, none.job, none.claimed]).toEqual([null, null, null, null]);
  });
  it("a rewards map with a value of the wrong type is SCHEMA and no rewards (never compared in part)", () => {
    const r = trialResult({ name: "trial-1" });
    r["verifier_result"] = { rewards: { reward: 1, style: "good" } };
    const e = trial({ result: pyJson(r) });
    expect([codes(e.errors), e.rewards, e.state]).toEqual([["SCHEMA"], null, "incomplete"]);
  });
});
