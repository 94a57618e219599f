// Keys that name what every object inherits (issue 11 item 7). `{"reward": 1, "__proto__": 0}` in
// a reward.json was read as `{reward: 1}` and the mismatch missed: every map read from evidence
// now refuses `__proto__`, `constructor` and `prototype` (SCHEMA, naming the key), and every
// lookup of an evidence key is of the map's own keys, so an ordinary key such as `toString` is
// compared and aggregated like any other — never mistaken for what objects inherit.
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import { scoreTrial } from "../src/kinds/harbor/trial.js";
import type { BundleEntry } from "../src/core/results.js";
import { bundle, codes, game, killed, live, memSource, score } from "./helpers/bundle.js";
import { float, pyJson, trialFiles, trialResult, type TrialSpec } from "./helpers/harbor.js";
import { attempt, budget, build, claim, end, policy, report, request, scenario } from "./helpers/world.js";

const RESERVED = ["__proto__", "constructor", "prototype"] as const;

/** A trial scored from its files; `result` edits result.json's rewards as raw JSON text. */
const trial = (spec: Partial<TrialSpec>) => scoreTrial(memSource(trialFiles({ name: "trial-1", ...spec })));
/** result.json whose top-level rewards are exactly this JSON object text. */
const resultRewards = (rewardsJson: string) =>
  pyJson(trialResult({ name: "trial-1" })).replace(/"rewards": \{[^}]*\}/, `"rewards": ${rewardsJson}`);

describe("Harbor reward.json", () => {
  it.each(RESERVED)("a key named %s: SCHEMA on the reward file, naming it (the trial is invalid)", (key) => {
    const e = trial({ rewardFiles: { "reward.json": `{"reward": 1.0, "${key}": 0}` } });
    expect(e.validity).toBe("invalid");
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "SCHEMA",
        file: "verifier/reward.json",
        message: `${key}: a key named ${key} cannot be read`,
      }),
    ]);
  });

  it("the other side of the line: a key like them but not one of them is an ordinary key (compared, here absent from result.json)", () => {
    const e = trial({ rewardFiles: { "reward.json": `{"reward": 1.0, "constructors": 0}` } });
    expect(e.errors.map((f) => f.code)).toEqual(["REWARD_MISMATCH"]);
  });

  it("an inherited name (toString) is compared as a key of its own: absent from result.json, the file holds it", () => {
    const e = trial({ rewardFiles: { "reward.json": `{"reward": 1.0, "toString": 1.0}` } });
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "REWARD_MISMATCH",
        message: "verifier_result.rewards.toString is absent but verifier/reward.json holds 1",
      }),
    ]);
  });

  it("toString on both sides, equal: valid, and the trial's rewards hold it", () => {
    const e = trial({ rewards: { reward: float(1), toString: float(0.5) } });
    expect(e).toMatchObject({ validity: "valid", errors: [], rewards: { reward: 1, toString: 0.5 } });
  });
});

describe("Harbor result.json rewards", () => {
  it.each(RESERVED)("a key named %s: SCHEMA on result.json, naming it; the key is in no reported reward", (key) => {
    const e = trial({ result: resultRewards(`{"reward": 1.0, "${key}": 1.0}`) });
    expect(e.validity).toBe("invalid");
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "SCHEMA",
        file: "result.json",
        message: expect.stringContaining(`a key named ${key} cannot be read`),
      }),
    ]);
    expect(Object.keys(e.rewards!)).toEqual(["reward"]);
  });

  it("an inherited name claimed beside reward.txt: compared as a key of its own (reward.txt holds no such key)", () => {
    const e = trial({ result: resultRewards(`{"reward": 1.0, "valueOf": 1.0}`), rewardFiles: { "reward.txt": "1\n" } });
    expect(e.errors).toEqual([
      expect.objectContaining({
        code: "REWARD_MISMATCH",
        message: "verifier_result.rewards.valueOf = 1 but verifier/reward.txt holds no such key",
      }),
    ]);
  });
});

describe("job metrics keyed by reward key", () => {
  it("a key only one trial holds, named like an inherited property: in its mean alone, never a function read from another", () => {
    const one: BundleEntry = {
      path: "job/a",
      ...trial({ name: "a", rewards: { reward: float(1), toString: float(1) } }),
      experiment: "job",
    };
    const two: BundleEntry = {
      path: "job/b",
      ...trial({ name: "b", rewards: { reward: float(0) } }),
      experiment: "job",
    };
    expect([one.validity, two.validity]).toEqual(["valid", "valid"]);
    const [job] = computeExperiments([one, two], [], DEFAULT_BATCH);
    expect(job!.rewards!["toString"]).toMatchObject({
      mean: 1,
      covered: 1,
      trials: 2,
      pass_rate: 1,
      pass_at_k_reason: null,
    });
    expect(job!.rewards!["reward"]).toMatchObject({ mean: 0.5, covered: 2 });
  });
});

describe("the journal header's meta", () => {
  const withMeta = (meta: Record<string, unknown>) => score(bundle(game({ meta, states: [live(), killed()] })));

  it.each(["constructor", "prototype"])("a key named %s: SCHEMA on line 1, naming it", (key) => {
    const e = withMeta({ model: "m-1", [key]: "x" });
    expect(e.errors.map((f) => [f.code, f.file, f.line])).toEqual([["SCHEMA", "journal.jsonl", 1]]);
    expect(e.errors[0]!.message).toContain(`meta.${key}: a key named ${key} cannot be read`);
  });

  it("the other side of the line: meta.constructors and meta.prototypes are ordinary keys (valid)", () => {
    expect(codes(withMeta({ model: "m-1", constructors: "x", prototypes: "y" }))).toEqual([]);
  });
});

describe("a world scenario's tools and a request's tool", () => {
  const clean = (tool = "create_request") => [
    budget(),
    request("rq-1", "i-review", tool),
    policy("rq-1", "at-1"),
    attempt("at-1", "rq-1", "ok", "R-41"),
    budget(),
    report([claim("R-41")]),
    end(),
  ];

  it.each(RESERVED)("scenario tools holding %s: SCENARIO_INVALID, naming it", (key) => {
    const e = score(
      build({ scenario: JSON.stringify(scenario()).replace('"shell":"read"', `"shell":"read","${key}":"read"`) }),
    );
    expect(e.errors.map((f) => [f.code, f.message])).toEqual([
      ["SCENARIO_INVALID", expect.stringContaining(`a key named ${key} cannot be read`)],
    ]);
  });

  it("the other side of the line: a tool named toString in the scenario is a tool like any other (valid)", () => {
    const e = score(
      build({
        scenario: scenario({ tools: { ...(scenario()["tools"] as object), toString: "mutation" } }),
        journal: clean("toString"),
      }),
    );
    expect(codes(e)).toEqual([]);
  });

  it("a request naming the tool constructor: SCHEMA on that record (no scenario can hold it)", () => {
    const e = score(build({ journal: clean("constructor") }));
    expect(e.errors.map((f) => [f.code, f.line])).toEqual([["SCHEMA", 3]]);
  });
});
