// Which units a paired analysis counts, and as what: as the experiment's own metric counts them.
import { describe, expect, it } from "vitest";
import { copyReason } from "../src/core/batch/copy-reason.js";
import { TrialOutcomes, type Units } from "../src/core/compare/trials.js";
import { blankEntry, blankExperiment, type BundleEntry, type Experiment } from "../src/core/results.js";

const native = (trial: string, attempt: number, f: Partial<BundleEntry>): BundleEntry => ({
  path: `r/${trial}/a${attempt}`,
  ...blankEntry({
    validity: "valid",
    errors: [],
    profile: "native-game",
    experiment: "x",
    trial,
    attempt,
    status: "completed",
    ending: true,
    victory: false,
    ...f,
  }),
});
const harbor = (trial: string, f: Partial<BundleEntry>): BundleEntry => ({
  path: `job/${trial}`,
  ...blankEntry({
    validity: "valid",
    errors: [],
    profile: "harbor",
    experiment: "job",
    trial,
    task: trial,
    state: "scored",
    rewards: { reward: 1 },
    ...f,
  }),
});
/** Units as { id: value }. */
const values = (u: Units | undefined) => Object.fromEntries(u!.ids.map((id, i) => [id, u!.values[i]]));
const take = (entries: BundleEntry[], x: Experiment, invalid: "count" | "exclude" = "count") => {
  const t = new TrialOutcomes();
  for (const e of entries) t.add(e);
  return t.take(x, { invalid, errors: "exclude" });
};

describe("native trials", () => {
  const x = blankExperiment("x", "native-game", 6);
  x.invalid = [
    { trial: "bad", codes: ["JSON_SYNTAX"] },
    { trial: "stray", codes: ["UNSCHEDULED"] },
  ];
  x.excluded = [{ trial: "killed", reason: "no adjudicated attempt" }];
  x.unscored = ["crashed"];
  const entries = [
    native("won", 1, { victory: true }),
    // the adjudicated attempt is the lowest with an outcome: a later win is a retry, never counted
    native("retried", 1, { victory: false }),
    native("retried", 2, { victory: true }),
    // an abnormal first attempt is superseded: the second decides
    native("superseded", 1, { status: "abnormal", ending: false }),
    native("superseded", 2, { victory: true }),
    native("bad", 1, { validity: "invalid", victory: null }),
    native("stray", 1, { victory: true }),
    native("killed", 1, { status: "abnormal", ending: false }),
    native("crashed", 1, { validity: "error" }),
    native("huge", 2 ** 40, { victory: true }),
    native("huge", 2 ** 33, { victory: false }),
  ];
  it("counts the adjudicated attempt's victory; an invalid trial as a loss; nothing else outside the metric", () => {
    expect(values(take(entries, x).get("accuracy"))).toEqual({ won: 1, retried: 0, superseded: 1, bad: 0, huge: 0 });
  });
  it("--invalid exclude leaves the invalid trial out, never counting it a pass", () => {
    expect(take(entries, x, "exclude").get("accuracy")!.ids).not.toContain("bad");
  });
});

describe("native trials' clusters (§13.7): the task of the attempt that decides, as the batch picks it", () => {
  const x = blankExperiment("x", "native-game", 5);
  x.invalid = [{ trial: "bad", codes: ["JSON_SYNTAX"] }];
  const entries = [
    native("one", 1, { victory: true, task: "T" }),
    native("two", 1, { victory: false, task: "T" }),
    // an abnormal first attempt names another task: the second, which decides, places the trial
    native("moved", 1, { status: "abnormal", ending: false, task: "elsewhere" }),
    native("moved", 2, { victory: true, task: "U" }),
    // an invalid trial counted 0 under --invalid count sits in its lowest attempt's task, outcome or not
    native("bad", 2, { validity: "invalid", victory: null, task: "late" }),
    native("bad", 1, { validity: "invalid", status: "abnormal", ending: false, victory: null, task: "V" }),
    native("alone", 1, { victory: true }),
  ];
  const clusters = (u: Units | undefined) => Object.fromEntries(u!.ids.map((id, i) => [id, u!.clusters?.[i] ?? null]));
  it("each trial's cluster; a trial without meta.task is its own (null)", () => {
    expect(clusters(take(entries, x).get("accuracy"))).toEqual({
      bad: "V",
      one: "T",
      two: "T",
      moved: "U",
      alone: null,
    });
  });
  it("interned: trials of one task hold the same string; no task anywhere, no clusters at all", () => {
    const u = take(entries, x).get("accuracy")!;
    expect(u.clusters![u.ids.indexOf("one")]).toBe(u.clusters![u.ids.indexOf("two")]);
    expect(
      take([native("p", 1, { victory: true }), native("q", 1, {})], blankExperiment("x", "native-game", 2)).get(
        "accuracy",
      )!.clusters,
    ).toBeNull();
  });
});

describe("Harbor trials", () => {
  const x = blankExperiment("job", "harbor", 5);
  x.rewards = {
    reward: {
      mean: 0.5,
      wilson95: null,
      coverage: 1,
      covered: 2,
      trials: 2,
      pass_rate: 0.5,
      pass_at_k: null,
      pass_at_k_reason: null,
      pass_hat_k: null,
      interval: null,
      interval_reason: null,
    },
  };
  x.invalid = [{ trial: "forged", codes: ["REWARD_MISMATCH"] }];
  // As kinds/harbor/batch.ts records a byte-identical copy: excluded under its original's name, which is counted.
  x.excluded = [
    { trial: "infra", reason: "infrastructure-error" },
    { trial: "copy", reason: copyReason("job/copy") },
  ];
  it("a scored trial's reward; invalid 0; excluded names out; each folder of a conflicting name 0 (--invalid count); a copy once; an unexcluded trial without a reward 0 (--errors zero)", () => {
    const entries = [
      harbor("pass", {}),
      harbor("fail", { rewards: { reward: 0 } }),
      harbor("forged", {}),
      harbor("infra", { state: "infrastructure-error", rewards: null }),
      harbor("zeroed", { state: "cancelled", rewards: null }),
      harbor("copy", { digest: "d" }),
      { ...harbor("copy", { digest: "d" }), path: "job/copy-2" },
      harbor("clash", { digest: "a" }),
      { ...harbor("clash", { digest: "b" }), path: "job/clash-2" },
      harbor("other-key", { rewards: { accuracy: 1 } }),
    ];
    expect(values(take(entries, x).get("reward/reward/mean"))).toEqual({
      pass: 1,
      fail: 0,
      forged: 0,
      zeroed: 0,
      copy: 1,
      clash: 0,
    });
  });
});

describe("a native experiment and a Harbor job of one id", () => {
  it("each take reads its own kind's trials: the native one leaves the Harbor job's", () => {
    const t = new TrialOutcomes();
    t.add(native("won", 1, { victory: true }));
    t.add(harbor("pass", { experiment: "x" }));
    const job = blankExperiment("x", "harbor", 1);
    job.rewards = {
      reward: {
        mean: 1,
        wilson95: null,
        coverage: 1,
        covered: 1,
        trials: 1,
        pass_rate: 1,
        pass_at_k: null,
        pass_at_k_reason: null,
        pass_hat_k: null,
        interval: null,
        interval_reason: null,
      },
    };
    expect(
      values(t.take(blankExperiment("x", "native-game", 1), { invalid: "count", errors: "exclude" }).get("accuracy")),
    ).toEqual({ won: 1 });
    expect(values(t.take(job, { invalid: "count", errors: "exclude" }).get("reward/reward/mean"))).toEqual({ pass: 1 });
  });
});
