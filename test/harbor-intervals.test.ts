// The intervals and pass^k of Harbor reward keys and world experiments (contract §13.1–§13.3,
// §13.6), from real scoring: Harbor job folders scored by the pipeline, a synthesised world corpus
// scored bundle by bundle and batched. Every expected number is derived by hand in the comments.
//
// Cluster-t (§13.2), units x_1..x_n in C clusters, x̄ their mean:
//   SE = √( C/(C−1) · Σ_c (Σ_{i∈c} (x_i − x̄))² ) / n, interval x̄ ± t(0.975, C−1)·SE clipped to
//   [0, 1], design_effect = (SE / (s/√n))², s the sample standard deviation (n − 1).
// t(0.975, df) from a published table of Student's t (e.g. NIST/SEMATECH e-Handbook §1.3.6.7.2):
//   df 2 4.303, 3 3.182, 4 2.776, 10 2.228. Three decimals: lo and hi are compared to 3 places
//   (the table's rounding moves them by less than 2·10⁻⁴ here); se and design_effect need no t.
// Every cluster-t example has design_effect > 1 and is wider than the Wilson interval of the same
// units, and its units lie in [0, 1]: a wider floor or clipping only for [0, 1] units changes none.
// Korn–Graubard (§13.7), for 0/1 units in clusters: SE_c the cluster-t SE above, SE_i² = x̄(1 − x̄)/n,
//   d = max(1, SE_c²/SE_i²) (design_effect), se = max(SE_c, SE_i), n*_df = (n/d)·(t(0.975, n − 1)/
//   t(0.975, C − 1))², then Clopper–Pearson for x̄·n*_df of n*_df: lo = qbeta(0.025, k, n*_df − k + 1),
//   hi = qbeta(0.975, k + 1, n*_df − k), k = x̄·n*_df (t and qbeta from R's qt, qbeta; bounds to 6 places).
//
// Workers run compiled code (dist/): build first.
import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BATCH } from "../src/core/batch/experiments.js";
import { computeExperiments } from "../src/kinds/batch.js";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { scoreRoots, type ScoreRunOptions } from "../src/pipeline/score.js";
import { plannedBundles } from "../src/synth/corpus.js";
import { synthWorld } from "../src/synth/world.js";
import { score as scoreBundle } from "./helpers/bundle.js";
import { CLI } from "./helpers/cli.js";
import { float, writeJob, type TrialSpec } from "./helpers/harbor.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const AGENT_TIMEOUT = { type: "AgentTimeoutError", message: "Agent execution timed out after 900.0 seconds" };
const DOCKER = { type: "RuntimeError", message: "Docker compose command failed: network not found" };
/** Binary `reward` trials of one task (and checksum), named `<prefix><i>`, each with its own Harbor id. */
const trials = (prefix: string, task: string, rewards: number[], checksum = "c0ffee"): TrialSpec[] =>
  rewards.map((r, i) => ({
    name: `${prefix}${i + 1}`,
    task,
    checksum,
    rewards: { reward: float(r) },
    extra: { id: `${prefix}-${task}-${checksum}-${i + 1}` },
  }));

/** The Wilson 95% interval of k ones in n, by its closed form (z = Φ⁻¹(0.975)). */
function wilson(k: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [(p + (z * z) / (2 * n)) / d - half, (p + (z * z) / (2 * n)) / d + half];
}
/** A cluster-t interval as derived by hand: lo/hi to the t table's 3 places, se and design effect (no t in them) to 6. */
const clusterT = (lo: number, hi: number, units: number, clusters: number, se: number, designEffect: number) => ({
  method: "cluster-t",
  lo: expect.closeTo(lo, 3),
  hi: expect.closeTo(hi, 3),
  units,
  clusters,
  se: expect.closeTo(se, 6),
  design_effect: expect.closeTo(designEffect, 6),
});
/** A Korn–Graubard interval as derived by hand: lo/hi to 6 places (R's qbeta), se and design effect to 6. */
const kornGraubard = (lo: number, hi: number, units: number, clusters: number, se: number, designEffect: number) => ({
  method: "korn-graubard",
  lo: expect.closeTo(lo, 6),
  hi: expect.closeTo(hi, 6),
  units,
  clusters,
  se: expect.closeTo(se, 6),
  design_effect: expect.closeTo(designEffect, 6),
});
/** The example is one whose cluster-t interval (before clipping, where the figure is clipped: the hand one) holds the Wilson interval of its units (k ones of n). */
function widerThanWilson(i: { lo: number; hi: number } | null, k: number, n: number) {
  const [lo, hi] = wilson(k, n);
  expect(i!.lo).toBeLessThan(lo);
  expect(i!.hi).toBeGreaterThan(hi);
}

const { dir: root } = scratch("assay-harbor-intervals-", SCRATCH);
let doc: Results;
const harborRun = (options: Partial<ScoreRunOptions>) =>
  scoreRoots([root], { schedules: [], ...DEFAULT_BATCH, jobs: 2, ...options });
const reward = (d: Results, job: string, key = "reward") => {
  const x = d.experiments.find((e) => e.experiment === job && e.profile === "harbor");
  expect(x, job).toBeDefined();
  return x!.rewards![key]!;
};

beforeAll(async () => {
  if (!existsSync(CLI) || !existsSync(new URL("../dist/pool/worker.js", import.meta.url)))
    throw new Error("these tests run compiled workers: build first");
  // Five tasks of four trials: 4, 3, 2, 1 and 0 passes.
  writeJob(root, "job-clustered", [
    ...trials("a", "t1", [1, 1, 1, 1]),
    ...trials("b", "t2", [1, 1, 1, 0]),
    ...trials("c", "t3", [1, 1, 0, 0]),
    ...trials("d", "t4", [1, 0, 0, 0]),
    ...trials("e", "t5", [0, 0, 0, 0]),
  ]);
  writeJob(root, "job-states", [
    ...trials("a", "alpha", [1, 1]),
    {
      name: "a3",
      task: "alpha",
      checksum: "c0ffee",
      rewards: { reward: float(1) },
      exception: AGENT_TIMEOUT,
      extra: { id: "a3" },
    }, // scored-with-exception
    { name: "a4", task: "alpha", checksum: "c0ffee", rewards: null, exception: DOCKER, extra: { id: "a4" } }, // infrastructure-error
    ...trials("x", "alpha", [0, 0], "other"), // task alpha under another checksum: another cluster
    ...trials("b", "beta", [0, 1]),
    {
      name: "b3",
      task: "beta",
      rewards: { reward: float(1) },
      rewardFiles: { "reward.txt": "0\n" },
      extra: { id: "b3" },
    }, // REWARD_MISMATCH: invalid
    ...trials("g", "gamma", [1]),
    { name: "g2", task: "gamma", rewards: null, extra: { id: "g2" } }, // incomplete: no reward, no exception
    { name: "n1", result: "not json\n", rewardFiles: null }, // JSON_SYNTAX: invalid, names no task
  ]);
  writeJob(root, "job-once", [
    ...trials("o", "o1", [1]),
    ...trials("p", "o2", [1]),
    ...trials("q", "o3", [1]),
    ...trials("r", "o4", [0]),
    ...trials("s", "o5", [0]),
  ]);
  writeJob(root, "job-single", trials("s", "solo", [1, 0, 1]));
  writeJob(root, "job-fractional", [
    ...["f1", "f2", "f3"].flatMap((task, t) =>
      [0, 1].map((i): TrialSpec => ({
        name: `${task}-${i}`,
        task,
        rewards: { score: float([1, 0.5, 0][t]!) },
        extra: { id: `${task}-${i}` },
      })),
    ),
  ]);
  doc = await harborRun({});
});

describe.sequential("Harbor rewards.<key>.interval, clustered by task and checksum", () => {
  it("repeats of a task are one cluster: korn-graubard with its se and design effect; pass^k per task", () => {
    // x̄ = 10/20 = 0.5. Per task Σ(x − x̄) = passes − 4·0.5: 2, 1, 0, −1, −2 → Σ² = 10.
    // SE_c = √(5/4 · 10)/20 = √12.5/20 = 0.1767767 (SE_c² = 0.03125); SE_i² = 0.25/20 = 0.0125; d = 2.5.
    // n* = 8; t(0.975, 19) = 2.093024, t(0.975, 4) = 2.776445 → ratio² = 0.753850² = 0.568290; n*_df = 4.546323;
    // k = 2.273161: lo = qbeta(0.025, 2.273161, 3.273161) = 0.0825919, hi = 1 − lo = 0.9174081 (symmetric at ½).
    // (cluster-t before §13.7: [0.0093, 0.9907].)
    const r = reward(doc, "job-clustered");
    expect(r.mean).toBe(0.5);
    expect(r.interval).toEqual(kornGraubard(0.0825919, 0.9174081, 20, 5, 0.1767767, 2.5));
    expect(r.interval_reason).toBeNull();
    widerThanWilson(r.interval, 10, 20);
    // pass^k = mean over tasks of C(c, k)/C(4, k), c = 4, 3, 2, 1, 0:
    // k=1 (1 + 3/4 + 2/4 + 1/4 + 0)/5 = 0.5; k=2 (6/6 + 3/6 + 1/6)/5 = 1/3; k=3 (4/4 + 1/4)/5 = 0.25; k=4 (1/1)/5 = 0.2.
    expect(r.pass_hat_k).toEqual({
      "1": expect.closeTo(0.5, 12),
      "2": expect.closeTo(1 / 3, 12),
      "3": expect.closeTo(0.25, 12),
      "4": expect.closeTo(0.2, 12),
    });
  });

  it("another checksum is another cluster, a trial naming no task its own, an invalid trial 0, errors out", () => {
    // Units: alpha/c0ffee 1, 1, 1 (a3 with its exception); alpha/other 0, 0; beta 0, 1, 0 (b3
    // invalid); gamma 1; n1 0 (invalid, its own cluster). a4 and g2 excluded. n = 10, C = 5, x̄ = 0.5.
    // Σ(x − x̄) per cluster: 1.5, −1, −0.5, 0.5, −0.5 → Σ² = 2.25 + 1 + 0.25 + 0.25 + 0.25 = 4.
    // SE_c = √(5/4 · 4)/10 = √5/10 = 0.2236068 (SE_c² = 0.05); SE_i² = 0.25/10 = 0.025; d = 2; n* = 5.
    // t(0.975, 9) = 2.262157, t(0.975, 4) = 2.776445 → ratio² = 0.814767² = 0.663846; n*_df = 3.319230;
    // k = 1.659615: lo = qbeta(0.025, 1.659615, 2.659615) = 0.0480071, hi = 0.9519929. By task name alone C would be 4.
    const r = reward(doc, "job-states");
    expect(r.mean).toBe(0.5);
    // n1's cluster is its own, never counted as a task (its config.json's task path is no other trial's): unplaced 1.
    expect(r.interval).toEqual({ ...kornGraubard(0.0480071, 0.9519929, 10, 5, Math.sqrt(5) / 10, 2), unplaced: 1 });
    widerThanWilson(r.interval, 5, 10);
    // n1 names no task: pass^k (as pass@k) cannot place it.
    expect(r.pass_hat_k).toBeNull();
  });

  it("--errors zero counts the infrastructure error and the incomplete trial as 0 in their tasks", async () => {
    // alpha/c0ffee 1, 1, 1, 0; alpha/other 0, 0; beta 0, 1, 0; gamma 1, 0; n1 0: n = 12, x̄ = 5/12.
    // Σ(x − x̄) per cluster: 3 − 20/12 = 4/3, −10/12, 1 − 15/12 = −1/4, 1 − 10/12 = 1/6, −5/12
    //   → Σ² = (256 + 100 + 9 + 4 + 25)/144 = 394/144.
    // SE_c = √(5/4 · 394/144)/12 = 0.1541135 (SE_c² = 1970/82944); SE_i² = (5/12)(7/12)/12 = 35/1728;
    // d = (1970/82944)/(35/1728) = 1970/1680 = 1.172619; n* = 10.233503; t(0.975, 11) = 2.200985,
    // t(0.975, 4) = 2.776445 → ratio² = 0.792735² = 0.628429; n*_df = 6.431027; k = 5/12 · n*_df = 2.679595:
    // lo = qbeta(0.025, 2.679595, 4.751433) = 0.0839273, hi = qbeta(0.975, 3.679595, 3.751433) = 0.8218102.
    const r = reward(await harborRun({ errors: "zero" }), "job-states");
    expect(r.mean).toBeCloseTo(5 / 12, 12);
    expect(r.interval).toEqual({
      ...kornGraubard(0.0839273, 0.8218102, 12, 5, Math.sqrt(1970 / 576) / 12, 1970 / 1680),
      unplaced: 1,
    });
    widerThanWilson(r.interval, 5, 12);
  });

  it("--invalid exclude leaves b3 and n1 out (and pass^k can place every trial again)", async () => {
    // alpha/c0ffee 1, 1, 1; alpha/other 0, 0; beta 0, 1; gamma 1: n = 8, C = 4, x̄ = 0.625.
    // Σ(x − x̄): 1.125, −1.25, −0.25, 0.375 → Σ² = 1.265625 + 1.5625 + 0.0625 + 0.140625 = 3.03125.
    // SE_c = √(4/3 · 3.03125)/8 = 0.2512987 (SE_c² = 0.0631510); SE_i² = 0.625 · 0.375/8 = 0.0292969;
    // d = 2.155556; n* = 3.711340; t(0.975, 7) = 2.364624, t(0.975, 3) = 3.182446 → ratio² = 0.743021² = 0.552080;
    // n*_df = 2.048957; k = 1.280598: lo = qbeta(0.025, 1.280598, 1.768359) = 0.0334742,
    // hi = qbeta(0.975, 2.280598, 0.768359) = 0.9965801.
    const r = reward(await harborRun({ invalid: "exclude" }), "job-states");
    expect(r.mean).toBe(0.625);
    expect(r.interval).toEqual(
      kornGraubard(
        0.0334742,
        0.9965801,
        8,
        4,
        Math.sqrt((4 / 3) * 3.03125) / 8,
        ((4 / 3) * 3.03125) / 64 / ((0.625 * 0.375) / 8),
      ),
    );
    widerThanWilson(r.interval, 5, 8);
    // Tasks [c, n]: alpha/c0ffee [3, 3], alpha/other [0, 2], beta [1, 2], gamma [1, 1]; k ≤ 1: (1 + 0 + 1/2 + 1)/4.
    expect(r.pass_hat_k).toEqual({ "1": expect.closeTo(0.625, 12) });
  });

  it("every task run once: Wilson over the trials, no se, no design effect", () => {
    // 3 ones in 5: Wilson (z = 1.959964) [0.2307, 0.8824], as published tables of the Wilson interval give it.
    const r = reward(doc, "job-once");
    expect(r.interval).toEqual({
      method: "wilson",
      lo: expect.closeTo(0.2307243, 6),
      hi: expect.closeTo(0.8823792, 6),
      units: 5,
      clusters: 5,
      se: null,
      design_effect: null,
    });
    // One trial per task: pass^1 only, (1 + 1 + 1 + 0 + 0)/5.
    expect(r.pass_hat_k).toEqual({ "1": expect.closeTo(0.6, 12) });
  });

  it("one task: no interval, and the reason; pass^k still per task", () => {
    const r = reward(doc, "job-single");
    expect(r.interval).toBeNull();
    expect(r.interval_reason).toBe("all 3 trials are in one task: no interval from a single task");
    // c = 2 of n = 3: C(2,1)/C(3,1) = 2/3, C(2,2)/C(3,2) = 1/3, C(2,3) = 0.
    expect(r.pass_hat_k).toEqual({ "1": expect.closeTo(2 / 3, 12), "2": expect.closeTo(1 / 3, 12), "3": 0 });
  });

  it("a fractional key: cluster-t over its values, pass^k null", () => {
    // f1 1, 1; f2 0.5, 0.5; f3 0, 0: x̄ = 0.5; Σ(x − x̄) per task 1, 0, −1 → Σ² = 2.
    // SE = √(3/2 · 2)/6 = √3/6 = 0.2886751; t(0.975, 2) = 4.303 → ±1.242 → clipped to [0, 1].
    // s² = (4·0.25)/5 = 0.2, (s/√n)² = 0.2/6; SE² = 1/12 → design effect 2.5.
    const r = reward(doc, "job-fractional", "score");
    expect(r.mean).toBe(0.5);
    expect(r.interval).toEqual(clusterT(0, 1, 6, 3, Math.sqrt(3) / 6, 2.5));
    expect(r.wilson95).toBeNull();
    expect(r.pass_hat_k).toBeNull();
    expect(r.pass_at_k_reason).toMatch(/not binary/);
  });
});

describe("world pass and dimensions intervals, clustered by meta.task", () => {
  // The synthesised corpus cycles through the 11 canonical scenarios, each scenario a task: 22
  // trials are every scenario twice (two identical units per cluster).
  let x: Experiment;
  beforeAll(() => {
    const entries: BundleEntry[] = [];
    for (const b of plannedBundles({ profile: "world", n: 22, seed: "intervals", faults: false })) {
      if (b.profile !== "world") throw new Error("a world corpus plans world bundles");
      entries.push({ path: b.dir, ...scoreBundle(Object.fromEntries(synthWorld(b))) });
    }
    expect(entries.every((e) => e.validity === "valid")).toBe(true);
    const xs = computeExperiments(entries, [], DEFAULT_BATCH);
    expect(xs).toHaveLength(1);
    x = xs[0]!;
  });

  // For k of the 11 scenarios passing, p = k/11: per cluster Σ(x − x̄) is 2(1 − p) or −2p, so
  // Σ² = 4·11·p(1 − p) and SE_c = √(11/10 · 44 p(1 − p))/22 = √(p(1 − p)/10); SE_i² = p(1 − p)/22,
  // so d = 22/10 = 2.2 whatever k, se = SE_c, n* = 10; t(0.975, 21) = 2.079614, t(0.975, 10) = 2.228139
  // → ratio² = 0.933341² = 0.871126, n*_df = 8.711258; Clopper–Pearson for p · 8.711258 of 8.711258 (R's qbeta):
  //   6/11: k = 4.751595, lo = qbeta(0.025, 4.751595, 4.959663) = 0.1998524, hi = qbeta(0.975, 5.751595, 3.959663) = 0.8606573;
  //   10/11: k = 7.919326, [0.5334090, 0.9990152]; 9/11: k = 7.127393, [0.4332089, 0.9849933];
  //   8/11: k = 6.335461, [0.3459527, 0.9548490].
  const BOUNDS: Record<number, [number, number]> = {
    6: [0.1998524, 0.8606573],
    8: [0.3459527, 0.954849],
    9: [0.4332089, 0.9849933],
    10: [0.533409, 0.9990152],
  };
  const expected = (k: number) => kornGraubard(...BOUNDS[k]!, 22, 11, Math.sqrt(((k / 11) * (1 - k / 11)) / 10), 2.2);

  it("pass: clean, query-finds, budget-overrun, report-omits, report-misstates, fault-before-commit pass (6 of 11)", () => {
    // p = 6/11: SE_c = √(30/1210) = 0.1574592.
    expect(x.pass).toMatchObject({ passed: 12, total: 22, interval: expected(6), interval_reason: null });
    expect(x.pass!.interval).toEqual(kornGraubard(0.1998524, 0.8606573, 22, 11, 0.1574592, 2.2));
    widerThanWilson(x.pass!.interval, 12, 22);
    // Both repeats of a scenario agree: pass^1 = pass^2 = 6/11.
    expect(x.pass_hat_k).toEqual({ "1": expect.closeTo(6 / 11, 12), "2": expect.closeTo(6 / 11, 12) });
  });

  it("each dimension: its passing scenarios, its interval", () => {
    // Failing scenarios (§5.4): world_integrity blind-retry; prohibited_effects prohibited;
    // preservation unrelated-destroyed; recovery blind-retry; budget budget-overrun (10 of 11 each);
    // policy_compliance blind-retry, approval-other-args; task_completion blind-retry, safe-pause
    // (9 of 11); account_accuracy blind-retry, report-omits, report-misstates (8 of 11).
    // p = 10/11: SE_c = 1/11; 9/11: SE_c = 0.1219673; 8/11: SE_c = 0.1408358 (bounds above).
    const passing = {
      world_integrity: 10,
      prohibited_effects: 10,
      preservation: 10,
      recovery: 10,
      budget: 10,
      policy_compliance: 9,
      task_completion: 9,
      account_accuracy: 8,
    };
    expect(Object.keys(x.dimensions!).sort()).toEqual(Object.keys(passing).sort());
    for (const [d, k] of Object.entries(passing)) {
      expect(x.dimensions![d], d).toMatchObject({
        passed: 2 * k,
        total: 22,
        interval: expected(k),
        interval_reason: null,
      });
      widerThanWilson(x.dimensions![d]!.interval, 2 * k, 22);
    }
    expect(x.dimensions!["world_integrity"]!.interval).toEqual(kornGraubard(0.533409, 0.9990152, 22, 11, 1 / 11, 2.2));
    expect(x.dimensions!["task_completion"]!.interval).toEqual(
      kornGraubard(0.4332089, 0.9849933, 22, 11, 0.1219673, 2.2),
    );
    expect(x.dimensions!["account_accuracy"]!.interval).toEqual(
      kornGraubard(0.3459527, 0.954849, 22, 11, 0.1408358, 2.2),
    );
  });
});
