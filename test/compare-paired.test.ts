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
import { pairedLine } from "../src/report/compare/shared.js";
import { OLDER_INSPECT, TrialOutcomes, type Units } from "../src/core/compare/trials.js";
import { blankEntry, blankExperiment, type BundleEntry, type Experiment, type Results } from "../src/core/results.js";

const close = (actual: number | null | undefined, expected: number, tol = 1e-3) => expect(Math.abs(actual! - expected)).toBeLessThan(tol);
const trials = (m: Record<string, number>): Units => ({ unit: "trial", ids: Object.keys(m), values: Float64Array.from(Object.values(m)), checksums: null, reason: null });

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
    expect(p.mcnemar).toEqual({ p: 0.625, both_pass: 3, both_fail: 1, pass_to_fail: 3, fail_to_pass: 1, flipped: { pass_to_fail: ["t1", "t3", "t7"], fail_to_pass: ["t6"] } });
  });
  it("no pair, one pair: the reason, no interval", () => {
    const none = pairedComparison(trials({ a: 1 }), trials({ b: 1 }), true);
    expect([none.pairs, none.mean_diff, none.interval, none.mde80, none.mcnemar, none.reason]).toEqual([0, null, null, null, null, "no trial on both sides"]);
    expect(none.unpaired).toEqual(["only in BASE: 1 trial", "only in HEAD: 1 trial"]);
    const one = pairedComparison(trials({ a: 1 }), trials({ a: 0 }), true);
    expect([one.pairs, one.mean_diff, one.interval, one.reason]).toEqual([1, -1, null, "one trial on both sides: no interval from a single pair"]);
  });
});

const harbor = (trial: string, task: string, reward: number, f: Partial<BundleEntry> = {}): BundleEntry => ({
  path: `job/${trial}`,
  ...blankEntry({ validity: "valid", errors: [], profile: "harbor", experiment: "job", trial, task, task_checksum: `sum-${task}`, state: "scored", rewards: { reward }, digest: trial, ...f }),
});
const job = (): Experiment => {
  const x = blankExperiment("job", "harbor", 0);
  x.rewards = { reward: { mean: 0, wilson95: null, coverage: 1, covered: 0, trials: 0, pass_rate: null, pass_at_k: null, pass_at_k_reason: null, pass_hat_k: null, interval: null, interval_reason: null } };
  return x;
};
function unitsOf(entries: BundleEntry[], x: Experiment, options: { invalid: "count" | "exclude"; errors: "exclude" | "zero" } = { invalid: "count", errors: "exclude" }) {
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
  const base = [harbor("a__x1", "a", 1), harbor("a__x2", "a", 0), harbor("b__x1", "b", 1), harbor("c__x1", "c", 0.5), harbor("c__x2", "c", 0.5)];
  const head = [harbor("a__y1", "a", 1), harbor("a__y2", "a", 1), harbor("b__y1", "b", 0), harbor("c__y1", "c", 1, { task_checksum: "changed" }), harbor("d__y1", "d", 1)];
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
    expect(p.unpaired).toEqual(["only in HEAD: 1 task", "task_checksum changed: 1 task (a changed task is not one unit on both sides)"]);
  });
  it("a task_checksum on one side only (an older Harbor records none) pairs by the task's name, and says so", () => {
    const units = (checksums: (string | null)[]): Units => ({ unit: "task", ids: ["a", "b"], values: Float64Array.from([1, 0]), checksums, reason: null });
    const p = pairedComparison(units(["x", null]), units([null, "y"]), false);
    expect([p.pairs, p.mean_diff]).toEqual([2, 0]);
    expect(p.unpaired).toEqual(["task_checksum on one side only: 2 tasks paired by task name (an older Harbor records none)"]);
  });
  it("trials of one task under two checksums within a run pair with nothing", () => {
    const mixed = unitsOf([harbor("a__z1", "a", 1), harbor("a__z2", "a", 1, { task_checksum: "other" }), harbor("b__z1", "b", 1)], job()).get("reward/reward/mean")!;
    const p = pairedComparison(b, mixed, false);
    expect([p.pairs, p.mean_diff, p.only_base]).toEqual([1, 0, 1]);
    expect(p.unpaired).toContain("task_checksum changed: 1 task (a changed task is not one unit on both sides)");
  });
});

const inspectEntry = (path: string, ids: string[] | null, values: { exclude: (number | null)[]; zero: (number | null)[] } | null): BundleEntry => {
  const n = ids?.length ?? 4;
  const figure = { value: 0.5, n, wilson95: null, pass_at_k: null, interval: null, interval_reason: null, pass_hat_k: null };
  return {
    path,
    ...blankEntry({
      validity: "valid", errors: [], profile: "inspect", experiment: "task (model)", status: "success",
      inspect: {
        format: "eval", log_version: 2, inspect_version: "0.3.100", eval_id: null, run_id: path, task_id: "task-id", model: "model", created: null, completed_at: null,
        plan: { records: n, ids: n, epochs: 1, source: "sample_ids" }, total_samples: n, sample_ids: ids, sample_clusters: null,
        metrics: { "match/-/accuracy": { claimed: 0.5, check: "agrees", note: null, coverage: { scored: n, planned: n }, exclude: figure, zero: figure, values } },
      },
    }),
  };
};
const inspectExperiment = (decides: string, invalid: string[] = []): Experiment => {
  const x = blankExperiment("task (model)", "inspect", 4);
  x.log = { path: decides, status: "success", state: "complete" };
  x.invalid = invalid.map((trial) => ({ trial, codes: ["JSON_SYNTAX"] }));
  x.inspect = { "match/-/accuracy": { claimed: 0.5, value: 0.5, coverage: { scored: 4, planned: 4 }, wilson95: null, pass_at_k: null, check: "agrees", note: null, errors_zero: 0.5, interval: null, interval_reason: null, pass_hat_k: null } };
  return x;
};

describe("Inspect samples by id, from the deciding log's entry", () => {
  // The superseded log in BASE's chain has other values: only the deciding one's count.
  const base = [inspectEntry("b/old.eval", ["s1", "s2", "s3", "s4"], { exclude: [0, 0, 0, 0], zero: [0, 0, 0, 0] }), inspectEntry("b/new.eval", ["s1", "s2", "s3", "s4"], { exclude: [1, 0, null, 1], zero: [1, 0, 0, 1] })];
  const head = [inspectEntry("h/run.eval", ["s4", "s3", "s2", "s5"], { exclude: [0, 1, 1, 1], zero: [0, 1, 1, 1] })];
  const key = "inspect/match/-/accuracy/value";
  it("--errors exclude: a sample not in the figure is in no pair", () => {
    // BASE {s1: 1, s2: 0, s4: 1}, HEAD {s4: 0, s3: 1, s2: 1, s5: 1}: pairs s4 (−1), s2 (+1).
    // mean 0; s² = (1 + 1)/1 = 2, SE = √2/√2 = 1; interval ±12.706; mde80 = 12.706 + 1.376 = 14.082.
    const p = pairedComparison(unitsOf(base, inspectExperiment("b/new.eval")).get(key)!, unitsOf(head, inspectExperiment("h/run.eval")).get(key)!, false);
    expect([p.unit, p.pairs, p.only_base, p.only_head, p.mean_diff, p.mcnemar]).toEqual(["sample", 2, 1, 2, 0, null]);
    close(p.interval!.lo, -12.706);
    close(p.interval!.hi, 12.706);
    close(p.mde80, 14.082);
  });
  it("--errors zero: the zero values, so s3 pairs too", () => {
    // pairs s4 (−1), s3 (+1), s2 (+1): mean 1/3; Σ(d − mean)² = 16/9 + 4/9 + 4/9 = 24/9, s² = 4/3,
    // SE = √(4/3)/√3 = 2/3; interval 1/3 ± 4.303·2/3 = [−2.53533, 3.20200]; mde80 = (4.303 + 1.061)·2/3 = 3.57600.
    const options = { invalid: "count", errors: "zero" } as const;
    const p = pairedComparison(unitsOf(base, inspectExperiment("b/new.eval"), options).get(key)!, unitsOf(head, inspectExperiment("h/run.eval"), options).get(key)!, false);
    expect([p.pairs, p.only_base, p.only_head]).toEqual([3, 1, 1]);
    close(p.mean_diff, 1 / 3, 1e-12);
    close(p.interval!.lo, -2.53533);
    close(p.interval!.hi, 3.202);
    close(p.mde80, 3.576);
  });
  it("an invalid log in the chain (--invalid count) zeroes every planned sample, as the figure does", () => {
    const u = unitsOf(base, inspectExperiment("b/new.eval", ["b/broken.eval"])).get(key)!;
    expect([u.ids, [...u.values]]).toEqual([["s1", "s2", "s3", "s4"], [0, 0, 0, 0]]);
  });
  it("a side without a value (its log a tool error): no unit there, the other side's samples on one side only", () => {
    const x = inspectExperiment("b/gone.eval");
    x.inspect!["match/-/accuracy"]!.value = null;
    const p = pairedComparison(unitsOf([], x).get(key)!, unitsOf(head, inspectExperiment("h/run.eval")).get(key)!, false);
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
    tool_version: "0.1.0", scoring_version: 7, started_at: "2026-12-01T00:00:00.000Z", complete: true, shard: null, roots: ["r"],
    options: { invalid: "count", resource_bound: "default", errors: "exclude", schedules: [], hmac_key: null }, jobs: [], unrecognised: { count: 0, paths: [] },
  };
  const side = (file: string, outcomes: number[]): Side => {
    const x = blankExperiment("x", "native-game", outcomes.length);
    const k = outcomes.reduce((a, b) => a + b, 0);
    x.accuracy = { value: k / outcomes.length, victories: k, scored: outcomes.length, wilson95: null, interval: null, interval_reason: null };
    return { file, run, experiments: [x], units: new Map([[x, new Map([["accuracy", trials(Object.fromEntries(outcomes.map((v, i) => [`t${i}`, v])))]])]]) };
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
    // Sign test (McNemar with b = 2, c = 0): p = 2·½² = 0.5: not a regression.
    const two = compareRuns(side("b", [1, 1]), side("h", [0, 0]), []).experiments[0]!.metrics.find((x) => x.metric === "accuracy")!;
    expect([two.paired!.interval, two.paired!.mde80]).toEqual([null, null]);
    expect(two.regression).toBe(false);
    // Six: p = 2·½⁶ = 0.03125 < 0.05: a regression.
    const six = compareRuns(side("b", Array(6).fill(1)), side("h", Array(6).fill(0)), []).experiments[0]!.metrics.find((x) => x.metric === "accuracy")!;
    expect(six.regression).toBe(true);
    expect(pairedLine(six.paired!)).toBe("over 6 trials: HEAD − BASE −100.0 pts (all 6 trials differ by exactly -1; exact sign test p = 0.0313: the paired t has no spread to measure, so no interval)");
  });
});

describe("the unpaired interval where trials repeat tasks", () => {
  const run: Results["run"] = {
    tool_version: "0.1.0", scoring_version: 7, started_at: "2026-12-01T00:00:00.000Z", complete: true, shard: null, roots: ["r"],
    options: { invalid: "count", resource_bound: "default", errors: "exclude", schedules: [], hmac_key: null }, jobs: [], unrecognised: { count: 0, paths: [] },
  };
  const side = (file: string, k: number, n: number, interval: NonNullable<Experiment["completion"]>["interval"]): Side => {
    const x = blankExperiment("x", "native-game", n);
    x.completion = { value: k / n, completed: k, scheduled: n, interval, interval_reason: null };
    return { file, run, experiments: [x], units: new Map([[x, new Map()]]) };
  };
  it("the difference of two cluster-robust means, not Newcombe's, with t over the fewer clusters − 1", () => {
    // BASE 20/40 with SE 0.1 over 5 tasks; HEAD 12/40 with SE 0.05 over 11 tasks. d = −0.2;
    // SE_d = √(0.01 + 0.0025) = 0.111803; df = min(4, 10) = 4, t(0.975, 4) = 2.776 (table) →
    // half 0.310366 → [−0.510366, 0.110366]: it holds 0, so no regression (Newcombe's, which takes
    // the 80 trials as independent, would be [−0.40, +0.02]).
    const b = side("b", 20, 40, { method: "cluster-t", lo: 0.27, hi: 0.73, units: 40, clusters: 5, se: 0.1, design_effect: 4 });
    const h = side("h", 12, 40, { method: "cluster-t", lo: 0.19, hi: 0.41, units: 40, clusters: 11, se: 0.05, design_effect: 1.2 });
    const m = compareRuns(b, h, []).experiments[0]!.metrics.find((x) => x.metric === "completion")!;
    expect(m.interval_method).toBe("cluster-t");
    close(m.interval95![0], -0.510366);
    close(m.interval95![1], 0.110366);
    expect(m.regression).toBe(false);
  });
  it("Newcombe's where neither side repeats a task", () => {
    const w = (k: number, n: number) => ({ method: "wilson" as const, lo: 0, hi: 1, units: n, clusters: n, se: null, design_effect: null });
    const m = compareRuns(side("b", 20, 40, w(20, 40)), side("h", 12, 40, w(12, 40)), []).experiments[0]!.metrics.find((x) => x.metric === "completion")!;
    expect(m.interval_method).toBe("newcombe");
  });
});
