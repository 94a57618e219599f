// §13.4's paired analysis of two runs, against hand-derived numbers: native trials by id (with
// McNemar), Harbor tasks (trial names differ between runs, each task's value the mean of its
// trials; a changed task_checksum is no pair), Inspect samples by id from hand-built entries (the
// deciding log only; --errors picks the values), and every reason a pair is missing.
// t quantiles from a published table (e.g. NIST/SEMATECH e-Handbook, table 1.4.2.7, "upper
// critical values of Student's t"): t(0.975; 1, 2, 7, 19) = 12.706, 4.303, 2.365, 2.093 and
// t(0.80; 1, 2, 7, 19) = 1.376, 1.061, 0.896, 0.861. They have three decimals, so each interval
// bound is checked to within 1e-3 of the figure derived from them.

import { describe, expect, it } from "vitest";
import { compareRuns, type Side } from "../src/core/compare/compare.js";
import { pairedComparison } from "../src/core/compare/paired.js";
import { headlineLine, pairedLine } from "../src/report/compare/shared.js";
import { OLDER_INSPECT, TrialOutcomes, type Units } from "../src/core/compare/trials.js";
import { blankEntry, blankExperiment, type BundleEntry, type Experiment, type Results } from "../src/core/results.js";

const close = (actual: number | null | undefined, expected: number, tol = 1e-3) =>
  expect(Math.abs(actual! - expected)).toBeLessThan(tol);
const trials = (m: Record<string, number>): Units => ({
  unit: "trial",
  ids: Object.keys(m),
  values: Float64Array.from(Object.values(m)),
  checksums: null,
  reason: null,
});

describe("native trials by id", () => {
  // d = head − base over t1..t8: −1, 0, −1, 0, 0, +1, −1, 0 → P = 8, mean = −2/8 = −0.25;
  // Σ(d − mean)² = 3·0.75² + 4·0.25² + 1.25² = 1.6875 + 0.25 + 1.5625 = 3.5, s² = 3.5/7 = 0.5,
  // SE = √0.5/√8 = 0.25. Interval −0.25 ± 2.365·0.25 = [−0.84125, 0.34125]; mde80 = (2.365 +
  // 0.896)·0.25 = 0.81525. McNemar: b = 3 (t1, t3, t7 pass → fail), c = 1 (t6): p = 2·(1 + 4)/16 = 0.625.
  const base = trials({ t1: 1, t2: 1, t3: 1, t4: 1, t5: 0, t6: 0, t7: 1, t8: 1, t9: 1 });
  const head = trials({ t8: 1, t7: 0, t6: 1, t5: 0, t4: 1, t3: 0, t2: 1, t1: 0, t10: 0, t11: 1 });
  const p = pairedComparison(base, head, true);
  it("mean_diff, paired t interval and mde80", () => {
    expect([p.unit, p.pairs, p.only_base, p.only_head]).toEqual(["trial", 8, 1, 2]);
    expect(p.mean_diff).toBe(-0.25);
    expect(p.interval!.method).toBe("paired-t");
    close(p.interval!.lo, -0.84125);
    close(p.interval!.hi, 0.34125);
    close(p.mde80, 0.81525);
    expect(p.reason).toBeNull();
    expect(p.unpaired).toEqual(["only in BASE: 1 trial", "only in HEAD: 2 trials"]);
  });
  it("McNemar's exact test and the flipped trials beside it", () => {
    expect(p.mcnemar).toEqual({
      p: 0.625,
      both_pass: 3,
      both_fail: 1,
      pass_to_fail: 3,
      fail_to_pass: 1,
      flipped: { pass_to_fail: ["t1", "t3", "t7"], fail_to_pass: ["t6"] },
    });
  });
  it("no pair, one pair: the reason, no interval", () => {
    const none = pairedComparison(trials({ a: 1 }), trials({ b: 1 }), true);
    expect([none.pairs, none.mean_diff, none.interval, none.mde80, none.mcnemar, none.reason]).toEqual([
      0,
      null,
      null,
      null,
      null,
      "no trial on both sides",
    ]);
    expect(none.unpaired).toEqual(["only in BASE: 1 trial", "only in HEAD: 1 trial"]);
    const one = pairedComparison(trials({ a: 1 }), trials({ a: 0 }), true);
    expect([one.pairs, one.mean_diff, one.interval, one.reason]).toEqual([
      1,
      -1,
      null,
      "one trial on both sides: no interval or test from a single pair",
    ]);
    // §13.7: one pair is no information: p = 1, never a regression (before: the unpaired interval decided).
    expect([one.test, one.p, one.regression]).toEqual(["none", 1, false]);
  });
});

const harbor = (trial: string, task: string, reward: number, f: Partial<BundleEntry> = {}): BundleEntry => ({
  path: `job/${trial}`,
  ...blankEntry({
    validity: "valid",
    errors: [],
    profile: "harbor",
    experiment: "job",
    trial,
    task,
    task_checksum: `sum-${task}`,
    state: "scored",
    rewards: { reward },
    digest: trial,
    ...f,
  }),
});
const job = (): Experiment => {
  const x = blankExperiment("job", "harbor", 0);
  x.rewards = {
    reward: {
      mean: 0,
      wilson95: null,
      coverage: 1,
      covered: 0,
      trials: 0,
      pass_rate: null,
      pass_at_k: null,
      pass_at_k_reason: null,
      pass_hat_k: null,
      interval: null,
      interval_reason: null,
    },
  };
  return x;
};
function unitsOf(
  entries: BundleEntry[],
  x: Experiment,
  options: { invalid: "count" | "exclude"; errors: "exclude" | "zero" } = { invalid: "count", errors: "exclude" },
) {
  const t = new TrialOutcomes();
  for (const e of entries) t.add(e);
  return t.take(x, options);
}

describe("Harbor tasks: two runs whose trial names differ", () => {
  // BASE: task a = mean(1, 0) = 0.5, b = 1, c = mean(0.5, 0.5) = 0.5. HEAD: a = mean(1, 1) = 1,
  // b = 0, c = 1 under another checksum (a changed task: no pair), d only in HEAD.
  // d = (a: +0.5, b: −1) → mean −0.25; Σ(d − mean)² = 0.75² + 0.75² = 1.125 = s² (P − 1 = 1),
  // SE = √1.125/√2 = 0.75; interval −0.25 ± 12.706·0.75 = [−9.7795, 9.2795] (never clipped: a
  // difference); mde80 = (12.706 + 1.376)·0.75 = 10.5615.
  const base = [
    harbor("a__x1", "a", 1),
    harbor("a__x2", "a", 0),
    harbor("b__x1", "b", 1),
    harbor("c__x1", "c", 0.5),
    harbor("c__x2", "c", 0.5),
  ];
  const head = [
    harbor("a__y1", "a", 1),
    harbor("a__y2", "a", 1),
    harbor("b__y1", "b", 0),
    harbor("c__y1", "c", 1, { task_checksum: "changed" }),
    harbor("d__y1", "d", 1),
  ];
  const b = unitsOf(base, job()).get("reward/reward/mean")!;
  const h = unitsOf(head, job()).get("reward/reward/mean")!;
  it("each task's value is the mean of its counted trials", () => {
    expect(Object.fromEntries(b.ids.map((id, i) => [id, b.values[i]]))).toEqual({ a: 0.5, b: 1, c: 0.5 });
  });
  it("pairs by task, a changed checksum is said and not paired, McNemar null", () => {
    const p = pairedComparison(b, h, false);
    expect([p.unit, p.pairs, p.only_base, p.only_head, p.mean_diff, p.mcnemar]).toEqual(["task", 2, 0, 1, -0.25, null]);
    close(p.interval!.lo, -9.7795);
    close(p.interval!.hi, 9.2795);
    close(p.mde80, 10.5615);
    expect(p.unpaired).toEqual([
      "only in HEAD: 1 task",
      "task_checksum changed: 1 task (a changed task is not one unit on both sides)",
    ]);
  });
  it("a task_checksum on one side only (an older Harbor records none) pairs by the task's name, and says so", () => {
    const units = (checksums: (string | null)[]): Units => ({
      unit: "task",
      ids: ["a", "b"],
      values: Float64Array.from([1, 0]),
      checksums,
      reason: null,
    });
    const p = pairedComparison(units(["x", null]), units([null, "y"]), false);
    expect([p.pairs, p.mean_diff]).toEqual([2, 0]);
    expect(p.unpaired).toEqual([
      "task_checksum on one side only: 2 tasks paired by task name (an older Harbor records none)",
    ]);
  });
  it("trials of one task under two checksums within a run pair with nothing", () => {
    const mixed = unitsOf(
      [harbor("a__z1", "a", 1), harbor("a__z2", "a", 1, { task_checksum: "other" }), harbor("b__z1", "b", 1)],
      job(),
    ).get("reward/reward/mean")!;
    const p = pairedComparison(b, mixed, false);
    expect([p.pairs, p.mean_diff, p.only_base]).toEqual([1, 0, 1]);
    expect(p.unpaired).toContain("task_checksum changed: 1 task (a changed task is not one unit on both sides)");
  });
});

const inspectEntry = (
  path: string,
  ids: string[] | null,
  values: { exclude: (number | null)[]; zero: (number | null)[] } | null,
): BundleEntry => {
  const n = ids?.length ?? 4;
  const figure = {
    value: 0.5,
    n,
    wilson95: null,
    pass_at_k: null,
    interval: null,
    interval_reason: null,
    pass_hat_k: null,
  };
  return {
    path,
    ...blankEntry({
      validity: "valid",
      errors: [],
      profile: "inspect",
      experiment: "task (model)",
      status: "success",
      inspect: {
        format: "eval",
        log_version: 2,
        inspect_version: "0.3.100",
        eval_id: null,
        run_id: path,
        task_id: "task-id",
        model: "model",
        created: null,
        completed_at: null,
        plan: { records: n, ids: n, epochs: 1, source: "sample_ids" },
        total_samples: n,
        sample_ids: ids,
        sample_clusters: null,
        metrics: {
          "match/-/accuracy": {
            claimed: 0.5,
            check: "agrees",
            note: null,
            coverage: { scored: n, planned: n },
            exclude: figure,
            zero: figure,
            values,
          },
        },
      },
    }),
  };
};
const inspectExperiment = (decides: string, invalid: string[] = []): Experiment => {
  const x = blankExperiment("task (model)", "inspect", 4);
  x.log = { path: decides, status: "success", state: "complete" };
  x.invalid = invalid.map((trial) => ({ trial, codes: ["JSON_SYNTAX"] }));
  x.inspect = {
    "match/-/accuracy": {
      claimed: 0.5,
      value: 0.5,
      coverage: { scored: 4, planned: 4 },
      wilson95: null,
      pass_at_k: null,
      check: "agrees",
      note: null,
      errors_zero: 0.5,
      interval: null,
      interval_reason: null,
      pass_hat_k: null,
    },
  };
  return x;
};

describe("Inspect samples by id, from the deciding log's entry", () => {
  // The superseded log in BASE's chain has other values: only the deciding one's count.
  const base = [
    inspectEntry("b/old.eval", ["s1", "s2", "s3", "s4"], { exclude: [0, 0, 0, 0], zero: [0, 0, 0, 0] }),
    inspectEntry("b/new.eval", ["s1", "s2", "s3", "s4"], { exclude: [1, 0, null, 1], zero: [1, 0, 0, 1] }),
  ];
  const head = [inspectEntry("h/run.eval", ["s4", "s3", "s2", "s5"], { exclude: [0, 1, 1, 1], zero: [0, 1, 1, 1] })];
  const key = "inspect/match/-/accuracy/value";
  it("--errors exclude: a sample not in the figure is in no pair", () => {
    // BASE {s1: 1, s2: 0, s4: 1}, HEAD {s4: 0, s3: 1, s2: 1, s5: 1}: pairs s4 (−1), s2 (+1).
    // mean 0; s² = (1 + 1)/1 = 2, SE = √2/√2 = 1; interval ±12.706; mde80 = 12.706 + 1.376 = 14.082.
    // Binary and unclustered: exact McNemar decides (§13.7 reading 11), b = 1 (s4), c = 1 (s2):
    // p = min(1, 2·P(X ≤ 1 | n = 2)) = min(1, 2·¾) = 1; its object is given where it decides.
    const p = pairedComparison(
      unitsOf(base, inspectExperiment("b/new.eval")).get(key)!,
      unitsOf(head, inspectExperiment("h/run.eval")).get(key)!,
      false,
    );
    expect([p.unit, p.pairs, p.only_base, p.only_head, p.mean_diff, p.test, p.p]).toEqual([
      "sample",
      2,
      1,
      2,
      0,
      "mcnemar",
      1,
    ]);
    expect(p.mcnemar).toEqual({
      p: 1,
      both_pass: 0,
      both_fail: 0,
      pass_to_fail: 1,
      fail_to_pass: 1,
      flipped: { pass_to_fail: ["s4"], fail_to_pass: ["s2"] },
    });
    close(p.interval!.lo, -12.706);
    close(p.interval!.hi, 12.706);
    close(p.mde80, 14.082);
  });
  it("--errors zero: the zero values, so s3 pairs too", () => {
    // pairs s4 (−1), s3 (+1), s2 (+1): mean 1/3; Σ(d − mean)² = 16/9 + 4/9 + 4/9 = 24/9, s² = 4/3,
    // SE = √(4/3)/√3 = 2/3; interval 1/3 ± 4.303·2/3 = [−2.53533, 3.20200]; mde80 = (4.303 + 1.061)·2/3 = 3.57600.
    const options = { invalid: "count", errors: "zero" } as const;
    const p = pairedComparison(
      unitsOf(base, inspectExperiment("b/new.eval"), options).get(key)!,
      unitsOf(head, inspectExperiment("h/run.eval"), options).get(key)!,
      false,
    );
    expect([p.pairs, p.only_base, p.only_head]).toEqual([3, 1, 1]);
    close(p.mean_diff, 1 / 3, 1e-12);
    close(p.interval!.lo, -2.53533);
    close(p.interval!.hi, 3.202);
    close(p.mde80, 3.576);
  });
  it("an invalid log in the chain (--invalid count) zeroes every planned sample, as the figure does", () => {
    const u = unitsOf(base, inspectExperiment("b/new.eval", ["b/broken.eval"])).get(key)!;
    expect([u.ids, [...u.values]]).toEqual([
      ["s1", "s2", "s3", "s4"],
      [0, 0, 0, 0],
    ]);
  });
  it("a side without a value (its log a tool error): no unit there, the other side's samples on one side only", () => {
    const x = inspectExperiment("b/gone.eval");
    x.inspect!["match/-/accuracy"]!.value = null;
    const p = pairedComparison(
      unitsOf([], x).get(key)!,
      unitsOf(head, inspectExperiment("h/run.eval")).get(key)!,
      false,
    );
    expect([p.pairs, p.reason, p.unpaired]).toEqual([0, "no sample on both sides", ["only in HEAD: 4 samples"]]);
  });
  it("a log without per-sample values (an older document): no pair, and why", () => {
    const older = unitsOf([inspectEntry("h/old.eval", null, null)], inspectExperiment("h/old.eval")).get(key)!;
    const p = pairedComparison(unitsOf(base, inspectExperiment("b/new.eval")).get(key)!, older, false);
    expect([p.pairs, p.mean_diff, p.interval, p.reason]).toEqual([0, null, null, OLDER_INSPECT]);
  });
});

describe("what a regression is", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0",
    scoring_version: 7,
    started_at: "2026-12-01T00:00:00.000Z",
    complete: true,
    shard: null,
    roots: ["r"],
    options: {
      invalid: "count",
      resource_bound: "default",
      errors: "exclude",
      schedules: [],
      hmac_key: null,
      filters: null,
    },
    jobs: [],
    unrecognised: { count: 0, paths: [] },
  };
  const side = (file: string, outcomes: number[]): Side => {
    const x = blankExperiment("x", "native-game", outcomes.length);
    const k = outcomes.reduce((a, b) => a + b, 0);
    x.accuracy = {
      value: k / outcomes.length,
      victories: k,
      scored: outcomes.length,
      wilson95: null,
      interval: null,
      interval_reason: null,
    };
    return {
      file,
      run,
      experiments: [x],
      units: new Map([[x, new Map([["accuracy", trials(Object.fromEntries(outcomes.map((v, i) => [`t${i}`, v])))]])]]),
    };
  };
  it("units pair: the paired interval below 0", () => {
    // 20 trials all passing in BASE, 6 failing in HEAD: d = six −1, fourteen 0; mean −0.3;
    // Σ(d − mean)² = 6·0.49 + 14·0.09 = 4.2, s² = 4.2/19, SE = √(4.2/19/20) = 0.105131;
    // hi = −0.3 + 2.093·0.105131 = −0.079961 < 0: a regression.
    const doc = compareRuns(side("b", Array(20).fill(1)), side("h", [...Array(14).fill(1), ...Array(6).fill(0)]), []);
    const m = doc.experiments[0]!.metrics.find((x) => x.metric === "accuracy")!;
    close(m.paired!.interval!.hi, -0.079961);
    expect(m.regression).toBe(true);
    expect(doc.regressions).toEqual([{ base: "x", head: "x", metric: "accuracy" }]);
  });
  it("drops that go both ways: the paired interval holds 0, no regression", () => {
    // 8 pass→fail and 2 fail→pass of 20: mean −0.3; Σ(d − mean)² = 8·0.49 + 2·1.69 + 10·0.09 = 8.2,
    // SE = √(8.2/19/20) = 0.146898; hi = −0.3 + 2.093·0.146898 = 0.007458 > 0.
    const b = [...Array(8).fill(1), ...Array(2).fill(0), ...Array(7).fill(1), ...Array(3).fill(0)];
    const h = [...Array(8).fill(0), ...Array(2).fill(1), ...Array(7).fill(1), ...Array(3).fill(0)];
    const m = compareRuns(side("b", b), side("h", h), []).experiments[0]!.metrics.find((x) => x.metric === "accuracy")!;
    close(m.paired!.interval!.hi, 0.007458);
    expect(m.regression).toBe(false);
  });
  it("every pair fell by the same amount (SE = 0): no interval, and the sign test decides", () => {
    // Two trials, both pass → fail: d = −1, −1; SE = 0: no interval (a point would claim certainty).
    // McNemar with b = 2, c = 0 (the sign test of binary pairs): p = 2·½² = 0.5: not a regression.
    const two = compareRuns(side("b", [1, 1]), side("h", [0, 0]), []).experiments[0]!.metrics.find(
      (x) => x.metric === "accuracy",
    )!;
    expect([two.paired!.interval, two.paired!.mde80]).toEqual([null, null]);
    expect(two.regression).toBe(false);
    // Six: p = 2·½⁶ = 0.03125; one-sided ½⁶ = 0.015625 < 0.025: a regression.
    const six = compareRuns(side("b", Array(6).fill(1)), side("h", Array(6).fill(0)), []).experiments[0]!.metrics.find(
      (x) => x.metric === "accuracy",
    )!;
    expect(six.regression).toBe(true);
    expect(pairedLine(six.paired!)).toBe(
      "mean over 6 paired trials: HEAD − BASE −100.0 pts (all 6 trials differ by exactly -1: no spread, so no interval); exact McNemar p = 0.0313 decides",
    );
  });
});

describe("an unpaired difference where a side is at 0% or 100%", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0",
    scoring_version: 10,
    started_at: "2026-12-01T00:00:00.000Z",
    complete: true,
    shard: null,
    roots: ["r"],
    options: {
      invalid: "count",
      resource_bound: "default",
      errors: "exclude",
      schedules: [],
      hmac_key: null,
      filters: null,
    },
    jobs: [],
    unrecognised: { count: 0, paths: [] },
  };
  /** A native experiment's completion only, k of 80 in 10 tasks, with its Korn–Graubard interval as written. */
  const side = (file: string, k: number, interval: { lo: number; hi: number; se: number }): Side => {
    const x = blankExperiment("x", "native-game", 80);
    x.completion = {
      value: k / 80,
      completed: k,
      scheduled: 80,
      interval: { method: "korn-graubard", units: 80, clusters: 10, design_effect: 1, ...interval },
      interval_reason: null,
    };
    return { file, run, experiments: [x], units: new Map([[x, new Map()]]) };
  };
  const completion = (b: Side, h: Side) =>
    compareRuns(b, h, []).experiments[0]!.metrics.find((m) => m.metric === "completion")!;
  it("the side at 100% takes the SE its interval implies, not 0 (it is not exact); a side with an SE keeps it", () => {
    // BASE 80/80, KG [0.942, 1], se 0 → (1 − 0.942)/(2·t(0.975, 9)) = 0.058/4.524318 = 0.0128196.
    // HEAD 60/80, se 0.05. SE = √(0.0128196² + 0.05²) = 0.0516172; half = 2.262157·0.0516172 = 0.1167662; d = −0.25.
    const m = completion(side("b", 80, { lo: 0.942, hi: 1, se: 0 }), side("h", 60, { lo: 0.6, hi: 0.87, se: 0.05 }));
    close(m.interval95![0], -0.25 - 0.1167662, 1e-6);
    close(m.interval95![1], -0.25 + 0.1167662, 1e-6);
    expect(m.interval_method).toBe("cluster-t");
    // Neighbour: BASE with an SE of its own (0.02) keeps it: √(0.02² + 0.05²) = 0.0538516, half 0.1218207.
    const n = completion(side("b", 79, { lo: 0.9, hi: 1, se: 0.02 }), side("h", 60, { lo: 0.6, hi: 0.87, se: 0.05 }));
    close(n.interval95![1] - n.difference!, 0.1218207, 1e-6);
  });
});

describe("§13.7: the paired test decides a regression", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0",
    scoring_version: 7,
    started_at: "2026-12-01T00:00:00.000Z",
    complete: true,
    shard: null,
    roots: ["r"],
    options: {
      invalid: "count",
      resource_bound: "default",
      errors: "exclude",
      schedules: [],
      hmac_key: null,
      filters: null,
    },
    jobs: [],
    unrecognised: { count: 0, paths: [] },
  };
  /** A native side: trial t<i> with outcome outcomes[i], in task tasks[i] (none: no task), its own accuracy interval given. */
  const side = (
    file: string,
    outcomes: number[],
    tasks: (string | null)[] | null = null,
    interval: Experiment["completion"] extends infer C ? (C extends { interval: infer I } ? I : never) : never = null,
  ): Side => {
    const x = blankExperiment("x", "native-game", outcomes.length);
    const k = outcomes.reduce((a, b) => a + b, 0);
    x.accuracy = {
      value: k / outcomes.length,
      victories: k,
      scored: outcomes.length,
      wilson95: null,
      interval,
      interval_reason: null,
    };
    const units: Units = { ...trials(Object.fromEntries(outcomes.map((v, i) => [`t${i}`, v]))), clusters: tasks };
    return { file, run, experiments: [x], units: new Map([[x, new Map([["accuracy", units]])]]) };
  };
  const accuracy = (b: Side, h: Side) =>
    compareRuns(b, h, []).experiments[0]!.metrics.find((x) => x.metric === "accuracy")!;

  it("4 pass→fail among 40 trials is judged as 4 among 4: McNemar, not the paired t (before: p = 0.044, a regression)", () => {
    // Paired t over 40: d̄ = −0.1, s² = (4·0.81 + 36·0.01)/39 = 0.0923, SE = 0.0480, t = −2.08, p = 0.044.
    // McNemar counts only the flips: b = 4, c = 0: p = 2·½⁴ = 0.125, one-sided ½⁴ = 0.0625 ≥ 0.025.
    for (const agree of [36, 0]) {
      const m = accuracy(
        side("b", Array(4 + agree).fill(1)),
        side("h", [...Array(4).fill(0), ...Array(agree).fill(1)]),
      );
      expect([m.paired!.test, m.paired!.p, m.regression]).toEqual(["mcnemar", 0.125, false]);
    }
    // The honest neighbour: 7 flips one way of 40 (½⁷ = 0.0078 < 0.025) is a regression, p = 2·½⁷ = 0.015625.
    const seven = accuracy(side("b", Array(40).fill(1)), side("h", [...Array(7).fill(0), ...Array(33).fill(1)]));
    expect([seven.paired!.test, seven.regression]).toEqual(["mcnemar", true]);
    expect(seven.paired!.p).toBeCloseTo(0.015625, 12);
  });

  it("one pair is never a regression, whatever the unpaired interval says (no fallback to interval95)", () => {
    // BASE 40/40 (trials t0..t39), HEAD 0/1 with only t0 in common: the unpaired cluster-t
    // difference −1 ± t(0.975, 4)·√(0.05² + 0.05²) = −1 ± 0.196 lies below 0; before, with one pair,
    // it decided (a regression). One pair carries no information: p = 1, no regression.
    const ct = (n: number) => ({
      method: "cluster-t" as const,
      lo: 0,
      hi: 1,
      units: n,
      clusters: 5,
      se: 0.05,
      design_effect: 2,
    });
    const b = side("b", Array(40).fill(1), null, ct(40));
    const h = side("h", [0], null, ct(1));
    const m = accuracy(b, h);
    expect(m.interval95![1]).toBeLessThan(0);
    expect([m.paired!.pairs, m.paired!.test, m.paired!.p, m.regression]).toEqual([1, "none", 1, false]);
  });

  it("trials that repeat tasks: the cluster-paired t over tasks, not the trials' paired t", () => {
    // Tasks A..C × 4 trials; in task A all four flip 1 → 0, in B and C none: 12 pairs, d̄ = −4/12 = −1/3.
    // Cluster sums of d − d̄: A −4 + 4/3 = −8/3, B and C +4/3 each; squares 64/9 + 16/9 + 16/9 = 96/9.
    // SE_c = √(3/2 · 96/9)/12 = √16/12 = 1/3; s_d² = (4 − 12/9)/11 = (24/9)/11 = 0.242424,
    // s_d/√12 = 0.142134 < SE_c. t = −1, df 2, where the two-sided p is 1 − |t|/√(2 + t²)
    // = 1 − 1/√3 = 0.422650. Not a regression; the trials' McNemar (b = 4, c = 0) is shown, not deciding.
    const tasks = ["A", "A", "A", "A", "B", "B", "B", "B", "C", "C", "C", "C"];
    const m = accuracy(side("b", Array(12).fill(1), tasks), side("h", [0, 0, 0, 0, ...Array(8).fill(1)], tasks));
    expect([m.paired!.test, m.paired!.clusters, m.regression]).toEqual(["cluster-paired-t", 3, false]);
    expect(m.paired!.p).toBeCloseTo(1 - 1 / Math.sqrt(3), 10);
    expect(m.paired!.interval!.method).toBe("cluster-paired-t");
    expect(m.paired!.mcnemar).toMatchObject({ pass_to_fail: 4, fail_to_pass: 0 });
    expect(pairedLine(m.paired!)).toContain("(cluster-paired t over 3 tasks); cluster-paired t p = 0.4226 decides");
    // The honest neighbour: the same trials each in a task of their own are McNemar's (b = 4, c = 0: p = 0.125).
    const apart = accuracy(
      side(
        "b",
        Array(12).fill(1),
        tasks.map((_, i) => `T${i}`),
      ),
      side(
        "h",
        [0, 0, 0, 0, ...Array(8).fill(1)],
        tasks.map((_, i) => `T${i}`),
      ),
    );
    expect([apart.paired!.test, apart.paired!.clusters, apart.paired!.p]).toEqual(["mcnemar", null, 0.125]);
  });

  it("a clustered drop that is not chance is a regression: 8 tasks, each fell in 2 of its 3 trials", () => {
    // Per task d = −1, −1, 0 (BASE all pass; HEAD fails the first two): d̄ = −2/3 in every task, so
    // every cluster sum of d − d̄ is 0: SE_c = 0, floored by s_d/√P: s_d² = (16·1/9 + 8·4/9)/23 =
    // (48/9)/23 = 0.231884, s_d/√24 = 0.098295; t = −(2/3)/0.098295 = −6.782, df 7: p < 0.001.
    const tasks = Array.from({ length: 24 }, (_, i) => `task${Math.floor(i / 3)}`);
    const head = Array.from({ length: 24 }, (_, i) => (i % 3 === 2 ? 1 : 0));
    const m = accuracy(side("b", Array(24).fill(1), tasks), side("h", head, tasks));
    expect([m.paired!.test, m.paired!.clusters, m.regression]).toEqual(["cluster-paired-t", 8, true]);
    expect(m.paired!.p).toBeLessThan(0.001);
  });
});

describe("§13.7 reading 5: a trial whose task differs between the runs", () => {
  it("takes BASE's task, and the comparison says how many differ", () => {
    const units = (clusters: (string | null)[]): Units => ({ ...trials({ t1: 1, t2: 0, t3: 1 }), clusters });
    const p = pairedComparison(units(["A", "A", null]), units(["A", "B", "C"]), true);
    expect(p.unpaired).toEqual(["cluster differs between the sides: 1 trial paired, each in BASE's cluster"]);
    // t1, t2 in A (BASE's), t3 in HEAD's C: A holds two paired trials, so cluster-paired over 2 clusters.
    expect(p.clusters).toBe(2);
    const same = pairedComparison(units(["A", "B", null]), units(["A", "B", "C"]), true);
    expect(same.unpaired).toEqual([]);
  });
});

describe("Harbor task means: one estimand", () => {
  const tasks = (m: Record<string, number>, n: Record<string, number> = {}): Units => ({
    unit: "task",
    ids: Object.keys(m),
    values: Float64Array.from(Object.values(m)),
    checksums: null,
    reason: null,
    trials: Float64Array.from(Object.keys(m), (k) => n[k] ?? 1),
  });
  it("tasks whose means are all 0 or 1 and unclustered: McNemar decides, its object given (reading 11)", () => {
    const p = pairedComparison(tasks({ a: 1, b: 1, c: 0 }), tasks({ a: 0, b: 1, c: 0 }), false);
    expect([p.test, p.p, p.mcnemar?.pass_to_fail, p.mcnemar?.flipped.pass_to_fail]).toEqual(["mcnemar", 1, 1, ["a"]]);
    // A fractional task mean: the paired t, no McNemar object outside native and world.
    const f = pairedComparison(tasks({ a: 0.5, b: 1, c: 0 }), tasks({ a: 0, b: 1, c: 0.25 }), false);
    expect([f.test, f.mcnemar]).toEqual(["paired-t", null]);
  });
  it("task means equal but for rounding are equal: the sign test, never a p of ~0 from the last bits", () => {
    // HEAD − BASE per task: 1/3 − 0 = 0.3333333333333333 and 2/3 − 1/3 = 0.33333333333333337 (one
    // ulp apart): without the rounding guard s_d ≈ 3e-17 and t ≈ 1e16, p ≈ 0. They are one
    // difference: sign test over 2 tasks, p = 2·½² = 0.5.
    const p = pairedComparison(tasks({ a: 0, b: 1 / 3 }), tasks({ a: 1 / 3, b: 2 / 3 }), false);
    expect([p.test, p.p, p.interval]).toEqual(["sign", 0.5, null]);
  });
  it("the headline (trial-weighted) and the paired figure (each task once) are named, and said when they point different ways", () => {
    // BASE: task a 1 trial at 1, task b 5 trials at 0: headline (trial-weighted) 1/6 = 0.1667.
    // HEAD: task a 5 trials at 0.5, task b 1 trial at 0.2: headline (2.5 + 0.2)/6 = 0.45, +0.2833.
    // Paired over task means: a 0.5 − 1 = −0.5, b 0.2 − 0 = +0.2 → mean −0.15: the headline rose,
    // the paired figure fell (the issue saw −0.500 beside +0.100).
    const run: Results["run"] = {
      tool_version: "0.1.0",
      scoring_version: 7,
      started_at: "2026-12-01T00:00:00.000Z",
      complete: true,
      shard: null,
      roots: ["r"],
      options: {
        invalid: "count",
        resource_bound: "default",
        errors: "exclude",
        schedules: [],
        hmac_key: null,
        filters: null,
      },
      jobs: [],
      unrecognised: { count: 0, paths: [] },
    };
    const hside = (file: string, mean: number, u: Units): Side => {
      const x = job();
      x.rewards!.reward!.mean = mean;
      return { file, run, experiments: [x], units: new Map([[x, new Map([["reward/reward/mean", u]])]]) };
    };
    const doc = compareRuns(
      hside("b", 1 / 6, tasks({ a: 1, b: 0 }, { a: 1, b: 5 })),
      hside("h", 0.45, tasks({ a: 0.5, b: 0.2 }, { a: 5, b: 1 })),
      [],
    );
    const m = doc.experiments[0]!.metrics.find((x) => x.metric === "reward/reward/mean")!;
    close(m.difference, 0.45 - 1 / 6, 1e-12);
    close(m.paired!.mean_diff, -0.15, 1e-12);
    expect(pairedLine(m.paired!)).toMatch(/^mean over 2 paired tasks: HEAD − BASE −15\.0 pts/);
    expect(headlineLine(m)).toBe(
      "headline (each run's own figure, as in the table): BASE 0.1667, HEAD 0.45, HEAD − BASE +0.2833; the headline weighs each task by its trials, the paired figure weighs every task once — here they point different ways: the paired figure is the one tested",
    );
    // The honest neighbour: HEAD a 1 trial at 0.5, b 5 trials at 0: headline 0.5/6 = 0.0833 (−0.0833),
    // paired a −0.5, b 0 → −0.25: both fell, so the weighting is said without the warning.
    const same = compareRuns(
      hside("b", 1 / 6, tasks({ a: 1, b: 0 }, { a: 1, b: 5 })),
      hside("h", 0.5 / 6, tasks({ a: 0.5, b: 0 }, { a: 1, b: 5 })),
      [],
    );
    expect(headlineLine(same.experiments[0]!.metrics.find((x) => x.metric === "reward/reward/mean")!)).toMatch(
      /weighs every task once$/,
    );
    // Equal weights (one trial per task): the figures agree, so there is no weighting to explain.
    const even = compareRuns(hside("b", 0.5, tasks({ a: 1, b: 0 })), hside("h", 0.25, tasks({ a: 0.5, b: 0 })), []);
    expect(headlineLine(even.experiments[0]!.metrics.find((x) => x.metric === "reward/reward/mean")!)).toBe(
      "headline (each run's own figure, as in the table): BASE 0.5, HEAD 0.25, HEAD − BASE −0.2500",
    );
  });
});

describe("the unpaired interval where trials repeat tasks", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0",
    scoring_version: 7,
    started_at: "2026-12-01T00:00:00.000Z",
    complete: true,
    shard: null,
    roots: ["r"],
    options: {
      invalid: "count",
      resource_bound: "default",
      errors: "exclude",
      schedules: [],
      hmac_key: null,
      filters: null,
    },
    jobs: [],
    unrecognised: { count: 0, paths: [] },
  };
  const side = (
    file: string,
    k: number,
    n: number,
    interval: NonNullable<Experiment["completion"]>["interval"],
  ): Side => {
    const x = blankExperiment("x", "native-game", n);
    x.completion = { value: k / n, completed: k, scheduled: n, interval, interval_reason: null };
    return { file, run, experiments: [x], units: new Map([[x, new Map()]]) };
  };
  it("the difference of two cluster-robust means, not Newcombe's, with t over the fewer clusters − 1", () => {
    // BASE 20/40 with SE 0.1 over 5 tasks; HEAD 12/40 with SE 0.05 over 11 tasks. d = −0.2;
    // SE_d = √(0.01 + 0.0025) = 0.111803; df = min(4, 10) = 4, t(0.975, 4) = 2.776 (table) →
    // half 0.310366 → [−0.510366, 0.110366]: it holds 0, so no regression (Newcombe's, which takes
    // the 80 trials as independent, would be [−0.40, +0.02]).
    const b = side("b", 20, 40, {
      method: "cluster-t",
      lo: 0.27,
      hi: 0.73,
      units: 40,
      clusters: 5,
      se: 0.1,
      design_effect: 4,
    });
    const h = side("h", 12, 40, {
      method: "cluster-t",
      lo: 0.19,
      hi: 0.41,
      units: 40,
      clusters: 11,
      se: 0.05,
      design_effect: 1.2,
    });
    const m = compareRuns(b, h, []).experiments[0]!.metrics.find((x) => x.metric === "completion")!;
    expect(m.interval_method).toBe("cluster-t");
    close(m.interval95![0], -0.510366);
    close(m.interval95![1], 0.110366);
    expect(m.regression).toBe(false);
  });
  it("Newcombe's where neither side repeats a task", () => {
    const w = (k: number, n: number) => ({
      method: "wilson" as const,
      lo: 0,
      hi: 1,
      units: n,
      clusters: n,
      se: null,
      design_effect: null,
    });
    const m = compareRuns(side("b", 20, 40, w(20, 40)), side("h", 12, 40, w(12, 40)), []).experiments[0]!.metrics.find(
      (x) => x.metric === "completion",
    )!;
    expect(m.interval_method).toBe("newcombe");
  });
});
