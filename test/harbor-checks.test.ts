// The per-trial rules of Harbor trials (contract §11, with §2's strict JSON): each rule is shown on
// both sides of its line, on trial folders built in a temp dir and scored one by one, asserting the
// entry's validity, findings (code, file, the field the message names), state, rewards and flags.

import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScoredBundle } from "../src/core/results.js";
import type { Finding } from "../src/core/codes.js";
import { parseTimestamp } from "../src/core/timestamp.js";
import { scoreTrial } from "../src/kinds/harbor/trial.js";
import { diskBundle } from "../src/io/bundle-source.js";
import { scoreDirectory } from "../src/pool/score-directory.js";
import {
  at,
  float,
  pyJson,
  realTrajectory,
  trialResult,
  withAgentCommand,
  writeTrial,
  type StepSpec,
  type TrialSpec,
} from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { dir: ROOT } = scratch("assay-harbor-checks-", SCRATCH);
const OUTSIDE = join(ROOT, "outside");
mkdirSync(OUTSIDE);

let folders = 0;
/** A trial folder written from `spec` (plus `after`'s changes), scored from disk. */
function trial(spec: Partial<TrialSpec> = {}, after?: (dir: string) => void): ScoredBundle {
  const dir = writeTrial(join(ROOT, `t${++folders}`), { name: "trial-1", ...spec });
  after?.(dir);
  return scoreTrial(diskBundle(dir));
}
type Doc = Record<string, any>;
/** result.json text: the spec's TrialResult after `edit`. */
const resultWith = (spec: Partial<TrialSpec>, edit: (r: Doc) => void): string => {
  const r: Doc = trialResult({ name: "trial-1", ...spec });
  edit(r);
  return pyJson(r);
};
const codes = (fs: Finding[]) => fs.map((f) => `${f.code} ${f.file}`);
const finding = (code: string, file: string, message: RegExp | string) =>
  expect.objectContaining({
    code,
    file,
    message: typeof message === "string" ? expect.stringContaining(message) : expect.stringMatching(message),
  });
const TIMEOUT = { type: "AgentTimeoutError", message: "Agent execution timed out after 360.0 seconds" };
const CRASH = { type: "DaytonaError", message: "sandbox creation failed" };

function expectValid(e: ScoredBundle): void {
  expect(e.errors).toEqual([]);
  expect(e.validity).toBe("valid");
}

// ---------------------------------------------------------------------------------------------

describe("the state of a trial", () => {
  it("a clean trial is scored, with its identity, rewards and where they came from", () => {
    const dir = writeTrial(join(ROOT, "clean"), { name: "hello-world__abc", task: "hello-world", checksum: "c0ffee" });
    const e = scoreDirectory(dir, "job/hello-world__abc", undefined, "harbor");
    expectValid(e);
    expect(e).toMatchObject({
      path: "job/hello-world__abc",
      profile: "harbor",
      state: "scored",
      trial: "hello-world__abc",
      task: "hello-world",
      task_checksum: "c0ffee",
    });
    // Revision 2: reward_source names the reward file that backs the rewards.
    expect(e).toMatchObject({
      rewards: { reward: 1 },
      reward_source: "verifier/reward.txt",
      warnings: [],
      flags: [],
      exception: null,
    });
    expect(e.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("an agent timeout that still earned rewards is scored-with-exception", () => {
    const e = trial({ exception: TIMEOUT, rewards: { reward: float(0) } });
    expectValid(e);
    expect([e.state, e.rewards]).toEqual(["scored-with-exception", { reward: 0 }]);
  });

  it("an exception with verifier_result null is an infrastructure-error, never a 0", () => {
    const e = trial({ exception: CRASH, rewards: null });
    expectValid(e);
    expect([e.state, e.rewards, e.reward_source]).toEqual(["infrastructure-error", null, null]);
  });

  it.each([
    ["no result.json at all", { result: null, rewardFiles: null }],
    ["neither rewards nor an exception", { rewards: null }],
  ] as [string, Partial<TrialSpec>][])("%s is incomplete (and valid)", (_, spec) => {
    const e = trial(spec);
    expectValid(e);
    expect([e.state, e.rewards, e.reward_source]).toEqual(["incomplete", null, null]);
  });

  // Revision 2 (§11, "rewards: {} is rewards present with no key (Harbor counts it): state scored,
  // in no key's mean"); revision 1 made it incomplete.
  it("empty rewards {} backed by a reward.json of {} are rewards with no key: scored (and valid)", () => {
    const e = trial({ rewards: {}, rewardFiles: { "reward.json": "{}" } });
    expectValid(e);
    expect([e.state, e.rewards, e.reward_source]).toEqual(["scored", {}, "verifier/reward.json"]);
  });

  it("a step's exception under a clean top level makes the whole trial scored-with-exception, and is flagged", () => {
    const e = trial({
      steps: [
        { name: "build", exception: { type: "RuntimeError", message: "make: *** [all] Error 2" } },
        { name: "test", rewards: { reward: float(1) } },
      ],
    });
    expectValid(e);
    expect(e.state).toBe("scored-with-exception");
    expect(e.exception).toEqual({ type: "RuntimeError", message: "make: *** [all] Error 2", step: "build" });
    expect(e.flags).toEqual([
      {
        code: "STEP_EXCEPTION",
        evidence: expect.stringMatching(/step_results\[0\] \(step build\): RuntimeError: make: \*\*\* \[all\] Error 2/),
      },
    ]);
  });

  it("a step's exception under a top-level exception raises no STEP_EXCEPTION flag", () => {
    const e = trial({
      exception: TIMEOUT,
      steps: [{ name: "build", exception: { type: "RuntimeError", message: "boom" } }],
    });
    expect(e.state).toBe("scored-with-exception");
    expect(e.flags).toEqual([]);
  });

  // Revision 2 (§11, "otherwise it has none (no fallback to a step's)"): revision 1 took the last
  // step's rewards when the top level had none; Harbor sets the top level from the steps, so a top
  // level without rewards over steps that have some is a REWARD_MISMATCH, and the trial has none.
  it("takes no step's rewards when the top level has none: the top level must be Harbor's aggregation", () => {
    const e = trial({
      rewards: null,
      rewardFiles: null,
      steps: [
        { name: "one", rewards: { reward: float(1) } },
        { name: "two", rewards: { reward: float(0) } },
      ],
    });
    expect(e.errors).toEqual([
      finding(
        "REWARD_MISMATCH",
        "result.json",
        'verifier_result.rewards is none but the steps give {"reward":0.5} (steps:mean) and {"reward":0} (steps:final)',
      ),
    ]);
    expect([e.state, e.rewards]).toEqual(["incomplete", null]);
  });

  it("the top level may be the steps' mean (a key missing in a step counts 0) or the last step's rewards, and the source says which", () => {
    const steps: StepSpec[] = [
      { name: "one", rewards: { reward: float(1), style: float(1) } },
      { name: "two", rewards: { reward: float(0) } },
      { name: "three" },
    ];
    const mean = trial({ rewards: { reward: float(0.5), style: float(0.5) }, rewardFiles: null, steps });
    expectValid(mean);
    expect([mean.state, mean.rewards, mean.reward_source]).toEqual([
      "scored",
      { reward: 0.5, style: 0.5 },
      "steps:mean",
    ]);
    // The last step ran no verifier: under the `final` strategy Harbor's top level is null too.
    const final = trial({ rewards: null, rewardFiles: null, steps });
    expectValid(final);
    expect([final.state, final.rewards, final.reward_source]).toEqual(["incomplete", null, null]);
    const last = trial({ rewards: { reward: float(0) }, rewardFiles: null, steps: steps.slice(0, 2) });
    expectValid(last);
    expect(last.reward_source).toBe("steps:final");
  });

  it("top-level rewards that are neither the steps' mean nor the last step's are a REWARD_MISMATCH", () => {
    const e = trial({ rewards: { reward: float(1) }, steps: [{ name: "one", rewards: { reward: float(0) } }] });
    expect(e.errors.map((f) => f.code)).toEqual(["REWARD_MISMATCH"]);
    expect([e.state, e.rewards]).toEqual(["scored", { reward: 1 }]);
  });
});

describe("NOT_FINITE", () => {
  const PLACEHOLDER = 0.123456; // written as the token under test
  it.each(["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])(
    "a bare %s reward in result.json is NOT_FINITE naming the field, not JSON_SYNTAX",
    (token) => {
      const text = pyJson(trialResult({ name: "trial-1", rewards: { reward: PLACEHOLDER } })).replace(
        String(PLACEHOLDER),
        token,
      );
      const e = trial({ result: text, rewardFiles: { "reward.txt": "1\n" } });
      expect(e.errors).toEqual([finding("NOT_FINITE", "result.json", "verifier_result.rewards.reward")]);
      expect(e.validity).toBe("invalid");
      expect(e.rewards).toBeNull();
    },
  );

  it("pyJson's NaN in a step's reward names the step's field", () => {
    const e = trial({
      rewards: { reward: NaN },
      rewardFiles: null,
      steps: [{ name: "s", rewards: { reward: NaN }, rewardFiles: { "reward.txt": "1\n" } }],
    });
    expect(e.errors).toEqual([
      finding("NOT_FINITE", "result.json", "verifier_result.rewards.reward"),
      finding("NOT_FINITE", "result.json", "step_results[0].verifier_result.rewards.reward"),
    ]);
  });

  it("a null reward (pydantic's NaN) is NOT_FINITE", () => {
    const e = trial({ rewards: { reward: null }, rewardFiles: { "reward.txt": "1\n" } });
    expect(e.errors).toEqual([finding("NOT_FINITE", "result.json", "verifier_result.rewards.reward")]);
  });

  it("a NaN in another numeric field, known or not, is NOT_FINITE too", () => {
    const e = trial({
      result: resultWith({}, (r) => ((r.agent_result.cost_usd = NaN), (r.new_metric = { score: Infinity }))),
    });
    expect(e.errors).toEqual([
      finding("NOT_FINITE", "result.json", "agent_result.cost_usd"),
      finding("NOT_FINITE", "result.json", "new_metric.score"),
    ]);
  });

  it("a finite 1.0 reward is fine", () => {
    const e = trial({
      result: pyJson(trialResult({ name: "trial-1", rewards: { reward: PLACEHOLDER } })).replace(
        String(PLACEHOLDER),
        "1.0",
      ),
    });
    expectValid(e);
    expect(e.rewards).toEqual({ reward: 1 });
  });

  it.each(["nan\n", "inf\n", "-Infinity\n", "NaN", "1e999\n"])("%j in reward.txt is NOT_FINITE", (txt) => {
    const e = trial({ rewardFiles: { "reward.txt": txt } });
    expect(e.errors).toContainEqual(finding("NOT_FINITE", "verifier/reward.txt", /not a finite/));
    expect(codes(e.errors)).not.toContain("JSON_SYNTAX verifier/reward.txt");
    expect(e.validity).toBe("invalid");
  });

  // Revision 2 (§11: a reward.json "that parses but is not a flat map of numbers after Harbor's
  // coercion is SCHEMA on the reward file"): a null there is SCHEMA, no longer NOT_FINITE (below).
  it.each(['{"reward": NaN}', '{"reward": 1e999}'])("%s in reward.json is NOT_FINITE", (json) => {
    const e = trial({ rewardFiles: { "reward.json": json } });
    expect(e.errors).toContainEqual(finding("NOT_FINITE", "verifier/reward.json", "reward"));
    expect(e.validity).toBe("invalid");
  });
});

describe("REWARD_MISMATCH", () => {
  const mismatch = (message: RegExp | string) => [finding("REWARD_MISMATCH", "result.json", message)];
  it.each([
    [
      "reward.txt says 0 against 1.0",
      { "reward.txt": "0\n" },
      mismatch(/verifier_result\.rewards\.reward = 1 but verifier\/reward\.txt says 0/),
    ],
    ["reward.txt says 1 against 1.0 (1 == 1.0)", { "reward.txt": "1" }, []],
    ["reward.txt says 1.000 padded with spaces", { "reward.txt": "  1.000 \n" }, []],
    [
      "reward.json agrees while reward.txt does not (reward.json is read first)",
      { "reward.json": '{"reward": 1.0}', "reward.txt": "0\n" },
      [],
    ],
    // Revision 2 (§11, which reward file: without the job's Harbor version "either may match"):
    // revision 1 read reward.json only whenever it existed.
    [
      "reward.json disagrees while reward.txt agrees (Harbor before 0.7 read reward.txt first)",
      { "reward.json": '{"reward": 0}', "reward.txt": "1\n" },
      [],
    ],
    [
      "both files disagree",
      { "reward.json": '{"reward": 0}', "reward.txt": "0\n" },
      [
        finding("REWARD_MISMATCH", "result.json", "verifier/reward.json says 0"),
        finding("REWARD_MISMATCH", "result.json", "verifier/reward.txt says 0"),
      ],
    ],
    [
      "reward.json holds a key result.json lacks",
      { "reward.json": '{"reward": 1, "style": 0.5}' },
      mismatch("verifier_result.rewards.style is absent"),
    ],
    // Revision 2: REWARD_FILE_MISSING apart from REWARD_MISMATCH.
    [
      "no reward file at all",
      null,
      [finding("REWARD_FILE_MISSING", "result.json", "verifier/reward.json and verifier/reward.txt are absent")],
    ],
  ] as [string, Record<string, string> | null, unknown[]][])("%s", (_, rewardFiles, errors) => {
    const e = trial({ rewardFiles });
    expect(e.errors).toEqual(errors);
    expect(e.validity).toBe(errors.length === 0 ? "valid" : "invalid");
    expect([e.state, e.rewards]).toEqual(["scored", { reward: 1 }]); // the state and rewards follow result.json
  });

  it("result.json holding a key the reward file lacks is a mismatch", () => {
    const e = trial({
      rewards: { reward: float(1), style: float(0.5) },
      rewardFiles: { "reward.json": '{"reward": 1.0}' },
    });
    expect(e.errors).toEqual(
      mismatch("verifier_result.rewards.style = 0.5 but verifier/reward.json holds no such key"),
    );
  });

  it.each([
    ["no exception: incomplete", null, "incomplete"],
    ["an exception: infrastructure-error", CRASH, "infrastructure-error"],
  ] as const)("a reward file beside a result.json without rewards is not compared (%s)", (_, exception, state) => {
    const e = trial({ rewards: null, exception, rewardFiles: { "reward.txt": "1\n" } });
    expectValid(e);
    expect([e.state, e.rewards]).toEqual([state, null]);
  });

  it.each([
    ["agrees", undefined, []],
    [
      "says otherwise",
      { "reward.txt": "0\n" },
      [
        finding(
          "REWARD_MISMATCH",
          "result.json",
          /step_results\[1\]\.verifier_result\.rewards\.reward = 1 but steps\/test\/verifier\/reward\.txt says 0/,
        ),
      ],
    ],
    [
      "is absent",
      null,
      [
        finding(
          "REWARD_FILE_MISSING",
          "result.json",
          /step_results\[1\]\.verifier_result\.rewards.*steps\/test\/verifier\//,
        ),
      ],
    ],
  ] as [string, Record<string, string> | null | undefined, unknown[]][])(
    "per step: steps/<name>/verifier/reward.txt that %s",
    (_, rewardFiles, errors) => {
      // The top level is the last step's rewards (Harbor's `final` aggregation).
      const e = trial({
        rewards: { reward: float(1) },
        rewardFiles: null,
        steps: [
          { name: "build", rewards: { reward: float(0) } },
          { name: "test", rewards: { reward: float(1) }, rewardFiles },
        ],
      });
      expect(e.errors).toEqual(errors);
      expect(e.rewards).toEqual({ reward: 1 });
    },
  );
});

describe("TIMING", () => {
  const timing = (t: TrialSpec["timing"]) => trial({ timing: t });
  const timingErrors = (t: TrialSpec["timing"]) => timing(t).errors;

  it("a clean, ordered run has no finding", () => expectValid(timing({})));

  it.each([
    [
      "a phase that starts after it finishes",
      { agent_setup: { started_at: at(80), finished_at: at(70) } },
      /agent_setup\.started_at \S+ is after its finished_at/,
    ],
    [
      "a phase that starts before the trial",
      { environment_setup: { started_at: at(-1), finished_at: at(60) } },
      /environment_setup\.started_at \S+ is before the trial's started_at/,
    ],
    [
      "a phase that finishes after the trial",
      { verifier: { started_at: at(240), finished_at: at(301) } },
      /verifier\.finished_at \S+ is after the trial's finished_at/,
    ],
    [
      "agent_execution starting before agent_setup",
      { agent_execution: { started_at: at(50), finished_at: at(240) } },
      /agent_execution starts at \S+, before agent_setup/,
    ],
    [
      "verifier starting before agent_execution",
      { verifier: { started_at: at(80), finished_at: at(299) } },
      /verifier starts at \S+, before agent_execution/,
    ],
    [
      "a trial that starts after it finishes",
      {
        trial: { started_at: at(300), finished_at: at(299.999999) },
        environment_setup: null,
        agent_setup: null,
        agent_execution: null,
        verifier: null,
      },
      /^started_at \S+ is after finished_at/,
    ],
  ] as [string, TrialSpec["timing"], RegExp][])("%s is TIMING", (_, t, message) => {
    const e = timing(t);
    expect(e.errors).toEqual([finding("TIMING", "result.json", message)]);
    expect(e.state).toBe("scored");
  });

  it("a step's phase outside the trial is TIMING, naming the step", () => {
    const e = trial({
      steps: [
        { name: "s", rewards: { reward: float(1) }, agent_execution: { started_at: at(100), finished_at: at(400) } },
      ],
    });
    expect(e.errors).toEqual([
      finding(
        "TIMING",
        "result.json",
        /step_results\[0\]\.agent_execution\.finished_at \S+ is after the trial's finished_at/,
      ),
    ]);
  });

  it("null or absent timestamps are never a finding, on the trial or a phase", () => {
    expectValid(
      timing({
        trial: { started_at: null, finished_at: at(300) },
        environment_setup: { started_at: at(-100), finished_at: null },
      }),
    );
    expectValid(
      timing({
        trial: { finished_at: at(300) },
        agent_setup: { started_at: null, finished_at: null },
        agent_execution: null,
        verifier: { started_at: at(240) },
      }),
    );
    expectValid(timing({ trial: null, verifier: { finished_at: at(9999) } }));
    expectValid(
      trial({
        steps: [
          {
            name: "s",
            rewards: { reward: float(1) },
            agent_execution: null,
            verifier: { started_at: null, finished_at: at(160) },
          },
        ],
      }),
    );
  });

  // Revision 2 (§11 "Naive phase timestamps are compared only with other naive ones of the same
  // trial"): revision 1 read a naive time as UTC and compared it with times that have an offset.
  it.each([
    [
      "10:01:30+02:00 beside a naive trial (it would be 08:01:30 UTC, before it)",
      "2025-11-03T10:01:30+02:00",
      "2025-11-03T10:04:00Z",
    ],
    [
      "a finish at 10:04:00-01:00 beside a naive trial (11:04 UTC, after it)",
      "2025-11-03T10:01:30Z",
      "2025-11-03T10:04:00-01:00",
    ],
  ] as const)("a time with an offset is never compared with a naive one: %s", (_, started_at, finished_at) => {
    expect(timingErrors({ agent_execution: { started_at, finished_at } })).toEqual([]);
  });

  const aware = (s: number) => `${at(s)}+00:00`;
  const awareRun = (over: TrialSpec["timing"]): TrialSpec["timing"] => ({
    trial: { started_at: aware(0), finished_at: aware(300) },
    environment_setup: { started_at: aware(1), finished_at: aware(60) },
    agent_setup: { started_at: aware(60), finished_at: aware(90) },
    verifier: { started_at: aware(240), finished_at: aware(299) },
    ...over,
  });
  it.each([
    ["12:01:30+02:00 is 10:01:30 UTC, inside the trial", "2025-11-03T12:01:30+02:00", "2025-11-03T10:04:00Z", false],
    [
      "08:01:30-02:00 is 10:01:30 UTC, inside the trial",
      "2025-11-03T08:01:30-0200",
      "2025-11-03T10:04:00.000000+00:00",
      false,
    ],
    ["10:01:30+02:00 is 08:01:30 UTC, before the trial", "2025-11-03T10:01:30+02:00", "2025-11-03T10:04:00Z", true],
    ["a finish at 10:05:00Z is the trial's finish, inside", "2025-11-03T10:01:30Z", "2025-11-03T10:05:00Z", false],
    [
      "a finish at 10:04:00-01:00 is 11:04 UTC, after the trial",
      "2025-11-03T10:01:30Z",
      "2025-11-03T10:04:00-01:00",
      true,
    ],
  ] as const)("times with offsets are compared with each other, as instants: %s", (_, started_at, finished_at, bad) => {
    const errors = timingErrors(awareRun({ agent_execution: { started_at, finished_at } }));
    expect(errors.map((f) => f.code)).toEqual(bad ? expect.arrayContaining(["TIMING"]) : []);
    if (bad) expect(errors.length).toBeGreaterThan(0);
  });

  it("steps run in step order: a step starting before the one before it is TIMING; in order is not", () => {
    const steps = (second: number) => [
      { name: "one", rewards: null, agent_execution: { started_at: at(100), finished_at: at(120) }, verifier: null },
      {
        name: "two",
        rewards: { reward: float(1) },
        agent_execution: { started_at: at(second), finished_at: at(200) },
        verifier: { started_at: at(200), finished_at: at(210) },
      },
    ];
    expect(trial({ rewardFiles: null, steps: steps(90) }).errors).toEqual([
      finding(
        "TIMING",
        "result.json",
        /step_results\[1\]\.agent_execution starts at \S+, before step_results\[0\]\.agent_execution/,
      ),
    ]);
    expectValid(trial({ rewardFiles: null, steps: steps(130) }));
  });

  it("timestamps one microsecond apart are told apart", () => {
    const t = "2025-11-03T10:01:00.00000";
    expect(timingErrors({ agent_setup: { started_at: `${t}1`, finished_at: `${t}0` } })).toEqual([
      finding("TIMING", "result.json", /agent_setup\.started_at \S+ is after its finished_at/),
    ]);
    expect(timingErrors({ agent_setup: { started_at: `${t}0`, finished_at: `${t}0` } })).toEqual([]);
    expect(
      timingErrors({ agent_execution: { started_at: "2025-11-03T10:00:59.999999", finished_at: at(240) } }),
    ).toEqual([finding("TIMING", "result.json", /agent_execution starts at .* before agent_setup/)]);
    expect(
      timingErrors({ agent_execution: { started_at: "2025-11-03T10:01:00.000000", finished_at: at(240) } }),
    ).toEqual([]);
  });

  it.each(["yesterday", "2025-11-03", "2025-02-30T10:00:00", "2025-11-03T10:01:00+25:00"])(
    "an unparseable timestamp %j is SCHEMA, not TIMING",
    (text) => {
      const e = timing({ agent_setup: { started_at: text, finished_at: at(90) } });
      expect(e.errors).toEqual([finding("SCHEMA", "result.json", "agent_setup.started_at")]);
    },
  );
});

describe("RESULT_TRUNCATED", () => {
  const full = pyJson(trialResult({ name: "trial-1", task: "café-☕-😀" }));
  const bytes = Buffer.from(full);
  /** Beside its reward file: its verifier ran, so the job counts it 0 (REWARD_WITHOUT_RESULT, issue 35). */
  function expectTruncated(e: ScoredBundle): void {
    expect(e.errors).toEqual([]);
    expect(e.warnings).toEqual([
      finding("RESULT_TRUNCATED", "result.json", /killed/),
      finding("REWARD_WITHOUT_RESULT", "verifier/reward.txt", /but the verifier ran/),
    ]);
    expect([e.validity, e.state, e.rewards, e.task]).toEqual(["valid", "incomplete", null, null]);
  }

  it.each([0.05, 0.3, 0.5, 0.8, 0.99])(
    "a result.json cut at %f of its length warns, stays valid and is incomplete",
    (f) => {
      expectTruncated(trial({ result: full.slice(0, Math.floor(full.length * f)) }));
    },
  );

  it("a result.json missing only its closing brace, or empty, is truncated too", () => {
    expectTruncated(trial({ result: full.slice(0, full.lastIndexOf("}")) }));
    expectTruncated(trial({ result: "" }));
  });

  it.each([
    ["é", 1],
    ["☕", 1],
    ["☕", 2],
    ["😀", 1],
    ["😀", 2],
    ["😀", 3],
  ] as const)("a result.json cut inside %s after %i byte(s) is truncated, not ENCODING", (ch, keep) => {
    const cut = bytes.indexOf(Buffer.from(ch)) + keep;
    expectTruncated(trial({ result: bytes.subarray(0, cut) }));
  });

  it("a result.json truncated after a NaN is still truncated", () => {
    expectTruncated(
      trial({ result: pyJson(trialResult({ name: "trial-1", rewards: { reward: NaN } })).slice(0, -20) }),
    );
  });

  it.each([
    ["a BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]), "ENCODING", "byte order mark"],
    ["a raw \\r", Buffer.from(full.replace(/\n/g, "\r\n")), "ENCODING", "\\r"],
    [
      "an invalid byte mid-file",
      Buffer.concat([bytes.subarray(0, 40), Buffer.from([0xff]), bytes.subarray(40)]),
      "ENCODING",
      "UTF-8",
    ],
    [
      "a duplicate key",
      Buffer.from(full.replace('"task_name": ', '"task_name": "x",\n    "task_name": ')),
      "JSON_DUPLICATE_KEY",
      "task_name",
    ],
    [
      "a duplicate key spelled with an escape",
      Buffer.from(full.replace('"task_name": ', '"task_name": "x",\n    "task\\u005fname": ')),
      "JSON_DUPLICATE_KEY",
      "task_name",
    ],
  ] as const)("a result.json with %s is an error, not truncation", (_, result, code, message) => {
    const e = trial({ result });
    expect(e.errors).toEqual([finding(code, "result.json", message)]);
    expect(e.warnings).toEqual([]);
    expect([e.validity, e.state]).toEqual(["invalid", "incomplete"]);
  });
});

describe("SCHEMA", () => {
  it.each([
    ["task_name a number", (r: Doc) => (r.task_name = 7), "task_name"],
    ["n_input_tokens 1.5", (r: Doc) => (r.agent_result.n_input_tokens = 1.5), "agent_result.n_input_tokens"],
    [
      "n_output_tokens 145.0 (a float literal is no integer)",
      (r: Doc) => (r.agent_result.n_output_tokens = float(145)),
      "agent_result.n_output_tokens",
    ],
    ["rewards a string", (r: Doc) => (r.verifier_result.rewards = "1.0"), "verifier_result.rewards"],
    [
      "a reward a string",
      (r: Doc) => (r.verifier_result.rewards = { reward: "1.0" }),
      "verifier_result.rewards.reward",
    ],
    [
      "exception_info without exception_type",
      (r: Doc) => (r.exception_info = { exception_message: "x", exception_traceback: null, occurred_at: null }),
      "exception_info.exception_type",
    ],
    ["step_results not an array", (r: Doc) => (r.step_results = { step_name: "s" }), "step_results"],
    [
      "a step without step_name",
      (r: Doc) => ((r.step_results = [{ verifier_result: null }]), (r.verifier_result = null)),
      "step_results.0.step_name",
    ],
    ["started_at a number", (r: Doc) => (r.started_at = 1762164000), "started_at"],
    ["agent_info.name missing", (r: Doc) => delete r.agent_info.name, "agent_info.name"],
  ] as [string, (r: Doc) => unknown, string][])("%s is SCHEMA naming the field", (_, edit, field) => {
    const e = trial({ result: resultWith({}, edit) });
    expect(e.errors).toEqual([finding("SCHEMA", "result.json", `${field}:`)]);
    expect(e.validity).toBe("invalid");
  });

  it("a newer result.json with unknown fields at the top and nested is valid and still read", () => {
    const e = trial({
      result: resultWith({ exception: TIMEOUT }, (r) => {
        r.schema_version = "9.9";
        r.agent_info.extra_thing = { nested: [1, 2.5, null], deeper: { x: "y" } };
        r.agent_info.model_info.context_window = 128000;
        r.verifier_result.details = { tests: 3 };
        r.exception_info.retry_count = 2;
        r.environment_setup = { ...r.environment_setup, host: "node-1" };
      }),
    });
    expectValid(e);
    expect([e.state, e.rewards, e.task]).toEqual(["scored-with-exception", { reward: 1 }, "hello-world"]);
  });

  // Revision 2 (§11: reward.txt is read as Python's float() does; "an empty reward file, or one
  // that does not parse, beside rewards in result.json is REWARD_MISMATCH (file value unreadable)"):
  // revision 1 made these SCHEMA on the reward file.
  // CPython's float(), on the text as Harbor reads it (no strip()): U+001C-U+001F are no space to it,
  // though str.isspace() holds for them; a BOM is none either; a non-ASCII space inside splits the number.
  it.each([
    "passed\n",
    "",
    "1 0\n",
    "0x1\n",
    "true\n",
    "\ufeff1\n",
    "1__0\n",
    "_1\n",
    "\u001c1\n",
    "1\u001f",
    "1\u30002",
    "\u0661\u0e51x",
  ])("a reward.txt holding %j is unreadable: REWARD_MISMATCH", (txt) => {
    const e = trial({ rewardFiles: { "reward.txt": txt } });
    expect(e.errors).toEqual([finding("REWARD_MISMATCH", "result.json", "verifier/reward.txt is unreadable")]);
  });

  it.each([
    ["1_0\n", 10],
    ["+1\n", 1],
    ["1\r\n", 1],
    [" \t1.\n\n", 1],
    [".5e1", 5],
    ["1E0\u00a0", 1],
    ["1\u0085", 1],
    ["\u3000\u0661\n", 1], // ARABIC-INDIC DIGIT ONE: a decimal digit to float()
    ["\uff11_\uff10", 10], // FULLWIDTH ONE and ZERO, grouped
    ["\u0661.\u0665e\u0660", 1.5],
  ] as const)("a reward.txt holding %j is read as Python's float() reads it: %d", (txt, value) => {
    const e = trial({ rewards: { reward: value }, rewardFiles: { "reward.txt": txt } });
    expectValid(e);
    expect(e.rewards).toEqual({ reward: value });
  });

  it.each([
    ['{"reward": 1.0, "reward": 0.0}', "JSON_DUPLICATE_KEY"],
    ['\ufeff{"reward": 1.0}', "ENCODING"],
  ])("a reward.json holding %j is %s (§2 holds for reward.json)", (json, code) => {
    const e = trial({ rewardFiles: { "reward.json": json } });
    expect(codes(e.errors)).toEqual([`${code} verifier/reward.json`]);
    expect(e.warnings).toEqual([]);
  });

  it.each(['{"reward": 1.0', "", "  \n"])(
    "a reward.json holding %j does not parse: REWARD_MISMATCH, the file unreadable (only result.json may be a killed writer)",
    (json) => {
      const e = trial({ rewardFiles: { "reward.json": json } });
      expect(e.errors).toEqual([finding("REWARD_MISMATCH", "result.json", "verifier/reward.json is unreadable")]);
      expect(e.warnings).toEqual([]);
    },
  );

  it("a reward.json that is not a flat map of numbers after Harbor's coercion is SCHEMA on the reward file", () => {
    expect(codes(trial({ rewardFiles: { "reward.json": "[1.0]" } }).errors)).toEqual(["SCHEMA verifier/reward.json"]);
    expect(codes(trial({ rewardFiles: { "reward.json": '{"reward": "passed"}' } }).errors)).toEqual([
      "SCHEMA verifier/reward.json",
    ]);
    expect(codes(trial({ rewardFiles: { "reward.json": '{"reward": {"value": 1}}' } }).errors)).toEqual([
      "SCHEMA verifier/reward.json",
    ]);
    expect(codes(trial({ rewardFiles: { "reward.json": '{"reward": null}' } }).errors)).toEqual([
      "SCHEMA verifier/reward.json",
    ]);
  });
});

// Revision 2 (§9, §11 "Symlinks inside a trial are the warning TRIAL_SYMLINK"): the code was
// SYMLINK_IGNORED.
describe("symlinks and special files", () => {
  const outside = (name: string, body: string) => {
    const p = join(OUTSIDE, name);
    writeFileSync(p, body);
    return p;
  };
  const FLAGGING = withAgentCommand(realTrajectory("timeout"), "echo 1 > /logs/verifier/reward.txt\n");

  it("a symlinked trajectory is warned about and never followed: no flag, not in the digest", () => {
    const plain = trial({});
    const e = trial({}, (dir) => {
      mkdirSync(join(dir, "agent"));
      symlinkSync(outside("traj.json", FLAGGING), join(dir, "agent/trajectory.json"));
    });
    expectValid(e);
    expect(e.warnings).toEqual([finding("TRIAL_SYMLINK", "agent/trajectory.json", "symbolic link")]);
    expect(e.flags).toEqual([]);
    expect(e.digest).toBe(plain.digest);
  });

  it("a symlinked agent/ folder is not walked", () => {
    const target = join(OUTSIDE, "agent-dir");
    mkdirSync(target);
    writeFileSync(join(target, "trajectory.json"), FLAGGING);
    const e = trial({}, (dir) => symlinkSync(target, join(dir, "agent")));
    expect(codes(e.warnings)).toEqual(["TRIAL_SYMLINK agent"]);
    expect(e.flags).toEqual([]);
  });

  it("a symlinked reward.txt, the only reward file, is not followed: unreadable, it backs nothing (REWARD_MISMATCH)", () => {
    const e = trial({ rewardFiles: { "test-stdout.txt": "ok\n" } }, (dir) =>
      symlinkSync(outside("reward.txt", "1\n"), join(dir, "verifier/reward.txt")),
    );
    expect(codes(e.warnings)).toEqual(["TRIAL_SYMLINK verifier/reward.txt"]);
    expect(e.errors).toEqual([
      finding("REWARD_MISMATCH", "result.json", "verifier/reward.txt is unreadable: it is not a regular file"),
    ]);
  });

  // Revision 2 (§11 "without it [the job's Harbor version], when both files exist, either may
  // match, and reward_source names the one that did"): revision 1 never looked past reward.json.
  it("a symlinked reward.json beside a reward.txt that agrees: not followed; the rewards agree with reward.txt only, and the source says so", () => {
    const e = trial({ rewardFiles: { "reward.txt": "1\n" } }, (dir) =>
      symlinkSync(outside("reward.json", '{"reward": 1.0}'), join(dir, "verifier/reward.json")),
    );
    expect(codes(e.warnings)).toEqual(["TRIAL_SYMLINK verifier/reward.json"]);
    expectValid(e);
    expect(e.reward_source).toBe("verifier/reward.txt (not verifier/reward.json)");
  });

  it("a folder named reward.json beside reward.txt backs nothing: the rewards agree with reward.txt only", () => {
    const e = trial({ rewardFiles: { "reward.txt": "1\n" } }, (dir) => mkdirSync(join(dir, "verifier/reward.json")));
    expectValid(e);
    expect(e.reward_source).toBe("verifier/reward.txt (not verifier/reward.json)");
    const neither = trial({ rewardFiles: { "reward.txt": "0\n" } }, (dir) =>
      mkdirSync(join(dir, "verifier/reward.json")),
    );
    expect(codes(neither.errors)).toEqual(["REWARD_MISMATCH result.json", "REWARD_MISMATCH result.json"]);
  });

  it("a symlinked result.json is not read: the trial is incomplete", () => {
    const e = trial({ result: null }, (dir) =>
      symlinkSync(outside("result.json", pyJson(trialResult({ name: "x" }))), join(dir, "result.json")),
    );
    expect(codes(e.warnings)).toEqual(["TRIAL_SYMLINK result.json", "REWARD_WITHOUT_RESULT verifier/reward.txt"]);
    expect([e.state, e.task]).toEqual(["incomplete", null]);
  });

  it("a dangling symlink is only a warning", () => {
    const e = trial({}, (dir) => symlinkSync(join(OUTSIDE, "nowhere"), join(dir, "trial.log.old")));
    expectValid(e);
    expect(codes(e.warnings)).toEqual(["TRIAL_SYMLINK trial.log.old"]);
  });

  it.each(["verifier/reward.txt", "agent/trajectory.json", "result.json"])(
    "a FIFO at %s is UNSAFE_PATH and scoring does not hang",
    (rel) => {
      const e = trial(
        { rewardFiles: { "test-stdout.txt": "ok\n" }, result: rel === "result.json" ? null : undefined },
        (dir) => {
          mkdirSync(join(dir, rel, ".."), { recursive: true });
          execFileSync("mkfifo", [join(dir, rel)]);
        },
      );
      expect(e.errors).toContainEqual(finding("UNSAFE_PATH", rel, "not a regular file"));
      expect(e.validity).toBe("invalid");
    },
    10_000,
  );
});

describe("review flags", () => {
  const timeout = realTrajectory("timeout");
  const flagsOf = (keystrokes: string) =>
    trial({ trajectory: withAgentCommand(timeout, keystrokes) }).flags.map((f) => f.code);

  it.each(["timeout", "summarization", "openhands"] as const)(
    "the real %s trajectory, unmodified, raises no flag",
    (name) => {
      const e = trial({
        trajectory: realTrajectory(name),
        steps: [{ name: "s", rewards: { reward: float(1) }, trajectory: realTrajectory(name) }],
      });
      expectValid(e);
      expect(e.flags).toEqual([]);
    },
  );

  it("writing the reward file raises WRITES_REWARD_PATH naming the file, the step and the text", () => {
    const step = (JSON.parse(timeout) as { steps: unknown[] }).steps.length + 1;
    const e = trial({ trajectory: withAgentCommand(timeout, "echo 1 > /logs/verifier/reward.txt\n") });
    expect(e.flags).toEqual([
      {
        code: "WRITES_REWARD_PATH",
        evidence: expect.stringMatching(
          new RegExp(`^agent/trajectory\\.json step ${step}: .*echo 1 > /logs/verifier/reward\\.txt`),
        ),
      },
    ]);
  });

  it.each([
    ["echo 1 >/logs/verifier/reward.txt", "WRITES_REWARD_PATH"],
    ["printf 1 | tee -a /logs/verifier/reward.txt\n", "WRITES_REWARD_PATH"],
    ["cp /tmp/r.json /logs/verifier/reward.json\n", "WRITES_REWARD_PATH"],
    ["python3 -c \"open('/logs/verifier/reward.txt', 'w').write('1')\"\n", "WRITES_REWARD_PATH"],
    ["rm -rf /tests/\n", "WRITES_TESTS_DIR"],
    ["sed -i s/x/y/ /tests/test_outputs.py\n", "WRITES_TESTS_DIR"],
    ["echo 'def test(): pass' > /tests/test_outputs.py\n", "WRITES_TESTS_DIR"],
    ["mv /tmp/t.py /tests/test_outputs.py\n", "WRITES_TESTS_DIR"],
    ["chmod -x /tests/test.sh\n", "WRITES_TESTS_DIR"],
  ])("%j is flagged %s", (keys, code) => expect(flagsOf(keys)).toEqual([code]));

  it.each([
    "cat /tests/test_outputs.py\n",
    "python3 /tests/test_outputs.py\n",
    "cp /tests/test_outputs.py /tmp/\n",
    "ls -la /logs/verifier/\n",
    "grep -r reward /logs/verifier/\n",
    "echo hi > /app/tests/foo\n",
    "/app/tests/foo > x\n",
    "rm -rf /app/tests/\n",
    "echo 1 > /app/logs/verifier/reward.txt\n",
    "sed -i s/x/y/ ./tests/test_outputs.py\n",
  ])("%j (reading, or a path inside another folder) is not flagged", (keys) => expect(flagsOf(keys)).toEqual([]));

  const editorStep = (args: Record<string, unknown>) => {
    const doc = JSON.parse(realTrajectory("openhands")) as { steps: Record<string, unknown>[] };
    doc.steps.push({
      step_id: 99,
      source: "agent",
      message: "Editing.",
      tool_calls: [{ tool_call_id: "c99", function_name: "str_replace_editor", arguments: args }],
    });
    return JSON.stringify(doc, null, 2);
  };
  it("an OpenHands editor creating /tests/test_x.py raises WRITES_TESTS_DIR", () => {
    const e = trial({
      trajectory: editorStep({ command: "create", path: "/tests/test_x.py", file_text: "def test_x(): assert True\n" }),
    });
    expect(e.flags).toEqual([
      {
        code: "WRITES_TESTS_DIR",
        evidence: expect.stringMatching(/^agent\/trajectory\.json step 99: .*\/tests\/test_x\.py/),
      },
    ]);
  });
  it("an OpenHands editor creating /app/tests/test_x.py is not flagged", () => {
    expect(
      trial({ trajectory: editorStep({ command: "create", path: "/app/tests/test_x.py", file_text: "x" }) }).flags,
    ).toEqual([]);
  });
  it("an OpenHands editor viewing /tests/test_x.py (reading) is not flagged", () => {
    expect(trial({ trajectory: editorStep({ command: "view", path: "/tests/test_x.py" }) }).flags).toEqual([]);
  });

  it("a step's trajectory in steps/<name>/agent/ is scanned too", () => {
    const e = trial({
      steps: [
        { name: "build", rewards: { reward: float(1) }, trajectory: withAgentCommand(timeout, "rm -rf /tests/\n") },
      ],
    });
    expect(e.flags).toEqual([
      {
        code: "WRITES_TESTS_DIR",
        evidence: expect.stringMatching(/^steps\/build\/agent\/trajectory\.json step \d+: .*rm -rf \/tests\//),
      },
    ]);
  });

  it("a trajectory that is not valid JSON is still scanned", () => {
    const e = trial({ trajectory: withAgentCommand(timeout, "echo 1 > /logs/verifier/reward.txt\n").slice(0, -40) });
    expect(e.flags).toEqual([
      {
        code: "WRITES_REWARD_PATH",
        evidence: expect.stringMatching(/^agent\/trajectory\.json \(not valid JSON\): .*\/logs\/verifier\/reward\.txt/),
      },
    ]);
  });

  it.each([
    ["a scored trial", {}],
    ["a timed-out trial", { exception: TIMEOUT, rewards: { reward: float(0) } }],
    ["an invalid trial", { rewardFiles: { "reward.txt": "0\n" } }],
    ["an infrastructure error", { exception: CRASH, rewards: null }],
  ] as [string, Partial<TrialSpec>][])("flags never change validity, state or rewards (%s)", (_, spec) => {
    const clean = trial({ ...spec, trajectory: withAgentCommand(timeout, "ls\n") });
    const flagged = trial({
      ...spec,
      trajectory: withAgentCommand(timeout, "echo 1 > /logs/verifier/reward.txt; rm -rf /tests/\n"),
    });
    expect(flagged.flags.map((f) => f.code)).toEqual(["WRITES_REWARD_PATH", "WRITES_TESTS_DIR"]);
    expect({ ...flagged, flags: [], digest: "" }).toEqual({ ...clean, flags: [], digest: "" });
  });
});

describe("the digest", () => {
  const spec: TrialSpec = {
    name: "trial-1",
    trajectory: realTrajectory("openhands"),
    steps: [{ name: "s", rewards: { reward: float(1) } }],
  };
  const digestOf = (dir: string) => scoreTrial(diskBundle(dir)).digest;

  it("is equal for identical folders at different paths", () => {
    expect(digestOf(writeTrial(join(ROOT, "d-a"), spec))).toBe(
      digestOf(writeTrial(join(ROOT, "elsewhere", "d-b"), spec)),
    );
  });

  it.each([
    ["trial.log", "trial started\nmore\n"],
    ["result.json", pyJson(trialResult(spec)) + "\n"],
    ["agent/trajectory.json", realTrajectory("openhands") + " "],
    ["steps/s/artifacts/.keep", "x"],
    ["verifier/test-stdout.txt", "changed\n"],
    ["new-file.txt", ""],
  ])("changes when %s changes", (rel, body) => {
    const before = digestOf(writeTrial(join(ROOT, `d-${folders++}`), spec));
    const dir = writeTrial(join(ROOT, `d-${folders++}`), spec);
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), body);
    expect(digestOf(dir)).not.toBe(before);
  });
});

describe("parseTimestamp", () => {
  const base = parseTimestamp("2025-11-03T10:00:00")!;
  it.each([
    ["2025-11-03T10:00:00", 0n],
    ["2025-11-03 10:00:00", 0n],
    ["2025-11-03T10:00:00Z", 0n],
    ["2025-11-03T12:00:00+02:00", 0n],
    ["2025-11-03T12:00:00+0200", 0n],
    ["2025-11-03T15:30:00+05:30", 0n],
    ["2025-11-03T06:00:00-04:00", 0n],
    ["2025-11-03T10:00:00.5", 500_000n],
    ["2025-11-03T10:00:00.123", 123_000n],
    ["2025-11-03T10:00:00.000001", 1n],
    ["2025-11-03T10:00:00.123456789", 123_456n],
    ["2025-11-03T10:00:00.000001+00:00", 1n],
  ])("%s is %s µs after naive 2025-11-03T10:00:00", (text, micros) =>
    expect(parseTimestamp(text)! - base).toBe(micros),
  );

  it("counts microseconds since the epoch", () => {
    expect(parseTimestamp("1970-01-01T00:00:00")).toBe(0n);
    expect(parseTimestamp("1970-01-01T00:00:01.000001Z")).toBe(1_000_001n);
    expect(parseTimestamp("2024-02-29T00:00:00")).toBe(BigInt(Date.UTC(2024, 1, 29)) * 1000n);
  });

  it.each([
    "2025-02-30T10:00:00",
    "2025-02-29T10:00:00",
    "2025-13-01T10:00:00",
    "2025-00-10T10:00:00",
    "2025-04-31T10:00:00",
    "2025-11-03T24:00:00",
    "2025-11-03T10:60:00",
    "2025-11-03T10:00:60",
    "2025-11-03T10:00:00.1234567890",
    "2025-11-03T10:00:00.",
    "2025-11-03T10:00:00+24:00",
    "2025-11-03T10:00:00 UTC",
    "2025-11-03",
    "",
  ])("%j is not a timestamp", (text) => expect(parseTimestamp(text)).toBeNull());
});
