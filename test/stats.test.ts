// The statistics of contract §13, each against something other than itself: published t tables,
// closed forms of the t distribution for 1, 2 and 3 degrees of freedom, worked examples computed by
// hand (the arithmetic in the comments), and Holm's procedure on a worked example.

import { describe, expect, it } from "vitest";
import { intervalOf, UnitSet } from "../src/core/stats/interval.js";
import { mcnemarExact, signTest } from "../src/core/stats/binomial.js";
import { pValue } from "../src/report/compare/shared.js";
import { holm, pairedDifference, tieGroups } from "../src/core/stats/paired.js";

/** Differences as pairs over a BASE of 0. */
const diffs = (ds: number[]) => ({ base: ds.map(() => 0), head: ds });
import { tCdf, tQuantile, tTwoSided } from "../src/core/stats/student-t.js";

describe("Student's t", () => {
  // A standard table (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2), three decimals.
  const TABLE_975: [number, number][] = [
    [1, 12.706],
    [2, 4.303],
    [3, 3.182],
    [4, 2.776],
    [5, 2.571],
    [10, 2.228],
    [11, 2.201],
    [20, 2.086],
    [30, 2.042],
    [60, 2.0],
    [100, 1.984],
  ];
  const TABLE_80: [number, number][] = [
    [1, 1.376],
    [2, 1.061],
    [3, 0.978],
    [4, 0.941],
    [5, 0.92],
    [10, 0.879],
    [20, 0.86],
    [30, 0.854],
    [60, 0.848],
    [100, 0.845],
  ];

  it("quantiles agree with the published table to its three decimals", () => {
    for (const [df, t] of TABLE_975) expect(tQuantile(0.975, df)).toBeCloseTo(t, 3);
    for (const [df, t] of TABLE_80) expect(tQuantile(0.8, df)).toBeCloseTo(t, 3);
    // Far out the t is the normal: z(0.975) = 1.959964.
    expect(tQuantile(0.975, 1e7)).toBeCloseTo(1.959964, 5);
  });

  it("quantiles agree with the closed forms for 1 and 2 degrees of freedom to 1e-9", () => {
    // df 1 (Cauchy): Q(p) = tan(π(p − ½)); df 2: Q(p) = (2p − 1)·√(2 / (4p(1 − p))).
    for (const p of [0.6, 0.8, 0.9, 0.975, 0.995, 0.025]) {
      expect(tQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (p - 0.5)), 9);
      expect(tQuantile(p, 2)).toBeCloseTo((2 * p - 1) * Math.sqrt(2 / (4 * p * (1 - p))), 9);
    }
  });

  it("the CDF agrees with the closed forms for 1, 2 and 3 degrees of freedom", () => {
    const df3 = (t: number) =>
      0.5 + (1 / Math.PI) * (t / Math.sqrt(3) / (1 + (t * t) / 3) + Math.atan(t / Math.sqrt(3)));
    for (const t of [-5, -1.2, -0.3, 0, 0.4, 1.7, 3, 12]) {
      expect(tCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 12);
      expect(tCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 12);
      expect(tCdf(t, 3)).toBeCloseTo(df3(t), 12);
      expect(tTwoSided(t, 3)).toBeCloseTo(2 * (1 - df3(Math.abs(t))), 12);
    }
    expect(tTwoSided(Infinity, 4)).toBe(0);
    expect(tCdf(-Infinity, 4)).toBe(0);
  });
});

describe("the interval of a metric (§13.2)", () => {
  const one = (xs: number[]) => xs.map((x, i) => ({ x, cluster: `c${i}` }));

  it("binary units, one per cluster: Wilson's interval, se and design_effect null", () => {
    // Wilson for 3 of 10 (z = 1.959964, z² = 3.841459): centre (0.3 + z²/20)/(1 + z²/10) = 0.492073/1.384146
    // = 0.355506; half z·√(0.021 + z²/400)/(1 + z²/10) = 1.959964·√0.0306037/1.384146 = 0.247715
    // → [0.1078, 0.6032] (the published Wilson interval for 3/10).
    const got = intervalOf(one([1, 1, 1, 0, 0, 0, 0, 0, 0, 0]));
    expect(got.interval).toMatchObject({ method: "wilson", units: 10, clusters: 10, se: null, design_effect: null });
    expect(got.interval!.lo).toBeCloseTo(0.1078, 4);
    expect(got.interval!.hi).toBeCloseTo(0.6032, 4);
  });

  it("non-binary units, one per cluster: x̄ ± t(0.975, n−1)·s/√n, clipped to [0, 1]", () => {
    // 0.2, 0.5, 0.9, 0.6: x̄ = 0.55; deviations −0.35, −0.05, 0.35, 0.05; Σd² = 0.25; s² = 0.25/3;
    // se = √(0.25/3)/2 = 0.144338; t(0.975, 3) = 3.182446 (table 3.182) → half 0.459347 → [0.090653, 1.009347 → 1].
    const got = intervalOf(one([0.2, 0.5, 0.9, 0.6]));
    expect(got.interval).toMatchObject({ method: "t", units: 4, clusters: 4, design_effect: null });
    expect(got.interval!.se).toBeCloseTo(0.144338, 6);
    expect(got.interval!.lo).toBeCloseTo(0.090653, 5);
    expect(got.interval!.hi).toBe(1);
  });

  it("fractional repeats in a cluster: the cluster-robust t over clusters, with its design effect", () => {
    // Tasks a: 1, 0.5, 0   b: 0, 0   c: 1, 0, 1, 1. n = 9, x̄ = 4.5/9 = 0.5 (binary ones: korn-graubard,
    // test/stats-korn-graubard.test.ts). Deviation sums: a 1.5 − 1.5 = 0; b 0 − 1 = −1; c 3 − 2 = 1.
    // Σ squares = 2. SE = √(3/2 · 2)/9 = √3/9 = 0.192450. t(0.975, 2) = 4.302653 → half 0.828049
    // → [−0.328 → 0, 1.328 → 1]. s² = 8 · 0.25/8 = 0.25 (every unit but 0.5 is ±0.5 off); naive se² = 0.25/9.
    // design_effect = (3/81)/(0.25/9) = 108/81 = 1.333333.
    const got = intervalOf([
      ...[1, 0.5, 0].map((x) => ({ x, cluster: "a" })),
      ...[0, 0].map((x) => ({ x, cluster: "b" })),
      ...[1, 0, 1, 1].map((x) => ({ x, cluster: "c" })),
    ]);
    expect(got.interval).toMatchObject({ method: "cluster-t", units: 9, clusters: 3, lo: 0, hi: 1 });
    expect(got.interval!.se).toBeCloseTo(Math.sqrt(3) / 9, 12);
    expect(got.interval!.design_effect).toBeCloseTo(108 / 81, 9);
  });

  it("a weighted unit is the same as its copies written out", () => {
    const w = new UnitSet();
    w.add(0, "a", 3);
    w.add(1, "a");
    w.add(1, "b", 2);
    w.add(0.5, "c");
    const flat = intervalOf(
      [0, 0, 0, 1]
        .map((x) => ({ x, cluster: "a" }))
        .concat(
          [1, 1].map((x) => ({ x, cluster: "b" })),
          [{ x: 0.5, cluster: "c" }],
        ),
    );
    expect(w.interval()).toEqual(flat);
    expect(w.size).toBe(7);
  });

  it("a unit without a cluster is a cluster of its own, as if it had a name no other unit shares", () => {
    const xs = [0.3, 1, 0, 0.8, 0.8, 1, 0, 0.25];
    const named = intervalOf(xs.map((x, i) => ({ x, cluster: i < 3 ? "t" : `own${i}` })));
    const lone = intervalOf(xs.map((x, i) => ({ x, cluster: i < 3 ? "t" : null })));
    expect(lone.interval).toMatchObject({ method: "cluster-t", units: 8, clusters: 6 });
    expect(lone.interval!.se).toBeCloseTo(named.interval!.se!, 14);
    expect(lone.interval!.lo).toBeCloseTo(named.interval!.lo, 14);
    // A weighted lone unit is one cluster of n equal units.
    const w = new UnitSet();
    w.add(0, null, 3);
    w.add(1, "b", 2);
    w.add(1, null);
    const flat = intervalOf([
      { x: 0, cluster: "a" },
      { x: 0, cluster: "a" },
      { x: 0, cluster: "a" },
      { x: 1, cluster: "b" },
      { x: 1, cluster: "b" },
      { x: 1, cluster: "c" },
    ]);
    expect(w.interval().interval!.se).toBeCloseTo(flat.interval!.se!, 14);
  });

  it("no interval below two units or two clusters, with the reason", () => {
    expect(intervalOf([])).toEqual({ interval: null, reason: "no unit counted" });
    // n = 1 wins over Wilson (§13.6).
    expect(intervalOf([{ x: 1, cluster: "a" }], { unit: "trial", cluster: "task" })).toEqual({
      interval: null,
      reason: "one trial: no interval from a single value",
    });
    const oneTask = intervalOf(
      [1, 0, 1, 1, 0, 1].map((x) => ({ x, cluster: "t" })),
      { unit: "trial", cluster: "task" },
    );
    expect(oneTask).toEqual({ interval: null, reason: "all 6 trials are in one task: no interval from a single task" });
  });

  it("never narrower than the interval that treats every unit as independent (a cluster SE of 0 is chance agreement, not certainty)", () => {
    // Three tasks each 0.8, 0.8, 0.2, 0.2: every cluster's mean is the grand mean 0.5, so the cluster
    // SE is 0 while the units vary (design effect 0). The floor is t over n − 1: s² = 12 · 0.09/11 =
    // 0.0981818, s/√12 = 0.0904534, t(0.975, 11) = 2.200985 → half 0.199086 → [0.300914, 0.699086].
    // (Binary units that agree so: korn-graubard's design effect is floored at 1 instead.)
    const agree = intervalOf([0.8, 0.8, 0.2, 0.2].flatMap((x) => ["a", "b", "c"].map((cluster) => ({ x, cluster }))));
    expect(agree.interval).toMatchObject({
      method: "cluster-t",
      se: expect.closeTo(0, 12),
      design_effect: expect.closeTo(0, 12),
    });
    expect(agree.interval!.lo).toBeCloseTo(0.300914, 5);
    expect(agree.interval!.hi).toBeCloseTo(0.699086, 5);
  });

  it("clipped to [0, 1] only when every unit lies there: a reward of 3, 5 or 7 keeps its own interval", () => {
    // 3, 5, 7 (one per task): x̄ = 5, s = 2, se = 2/√3 = 1.154701; t(0.975, 2) = 4.302653 → ±4.968275.
    const got = intervalOf([3, 5, 7].map((x, i) => ({ x, cluster: `t${i}` })));
    expect(got.interval).toMatchObject({ method: "t" });
    expect(got.interval!.lo).toBeCloseTo(5 - 4.968275, 5);
    expect(got.interval!.hi).toBeCloseTo(5 + 4.968275, 5);
    expect(got.interval!.lo).toBeLessThan(5);
    // −1, −1 (one task), −0.5, −0.2: the interval holds the mean, −0.675, unclipped.
    const neg = intervalOf([-1, -1, -0.5, -0.2].map((x, i) => ({ x, cluster: i < 2 ? "a" : `t${i}` })));
    expect(neg.interval!.lo).toBeLessThan(-0.675);
    expect(neg.interval!.hi).toBeGreaterThan(-0.675);
  });
});

describe("paired differences (§13.4)", () => {
  it("mean_diff, the paired t interval, mde80 and p by hand", () => {
    // d = 0.1, 0.3, −0.2, 0.4: mean 0.15; deviations −0.05, 0.15, −0.35, 0.25; Σ = 0.21; s² = 0.07;
    // SE = √0.07/2 = 0.1322876. t(0.975, 3) = 3.182446, t(0.80, 3) = 0.978472 (table 0.978).
    // interval 0.15 ± 3.182446 × 0.1322876 = 0.15 ± 0.4209978 = [−0.2709978, 0.5709978];
    // mde80 = 4.160918 × 0.1322876 = 0.5504379.
    // t = 0.15/0.1322876 = 1.133893; p = 2(1 − F₃(1.133893)) with the df-3 closed form.
    const got = pairedDifference(diffs([0.1, 0.3, -0.2, 0.4]));
    expect(got.pairs).toBe(4);
    expect(got.mean_diff).toBeCloseTo(0.15, 12);
    expect(got.se).toBeCloseTo(0.1322876, 7);
    expect(got.interval!.lo).toBeCloseTo(-0.2709978, 6);
    expect(got.interval!.hi).toBeCloseTo(0.5709978, 6);
    expect(got.mde80).toBeCloseTo(0.5504378, 5);
    const t = 0.15 / Math.sqrt(0.07 / 4);
    const F3 = 0.5 + (1 / Math.PI) * (t / Math.sqrt(3) / (1 + (t * t) / 3) + Math.atan(t / Math.sqrt(3)));
    expect(got.p).toBeCloseTo(2 * (1 - F3), 12);
  });

  it("an interval below 0 is not clipped; one pair is no information (p = 1, never 0); SE 0 gives p 1 or the sign test", () => {
    expect(pairedDifference(diffs([-1, -0.9, -1])).interval!.lo).toBeLessThan(-1);
    expect(pairedDifference(diffs([0.5]))).toMatchObject({
      pairs: 1,
      mean_diff: 0.5,
      interval: null,
      mde80: null,
      p: 1,
      test: "none",
      regression: false,
    });
    expect(pairedDifference(diffs([-0.5]))).toMatchObject({ p: 1, regression: false });
    expect(pairedDifference(diffs([]))).toMatchObject({ pairs: 0, mean_diff: null, p: 1 });
    expect(pairedDifference(diffs([0, 0, 0])).p).toBe(1);
    // Every difference 0.2: no spread, so no interval and no mde80; the exact sign test 2·½³ = 0.25 decides.
    expect(pairedDifference(diffs([0.2, 0.2, 0.2]), "task")).toMatchObject({
      p: 0.25,
      test: "sign",
      se: 0,
      mde80: null,
      interval: null,
      reason: "all 3 tasks differ by exactly 0.2: no spread, so no interval; exact sign test over 3 tasks p = 0.250",
    });
    // Six equal drops: 2·½⁶ = 0.03125 < 0.05, a regression; five (0.0625) are not.
    expect(pairedDifference(diffs(Array(6).fill(-0.2)))).toMatchObject({ p: 0.03125, regression: true });
    expect(pairedDifference(diffs(Array(5).fill(-0.2)))).toMatchObject({ p: 0.0625, regression: false });
  });

  it("binary unclustered pairs: exact McNemar decides p and regression (§13.7)", () => {
    // 4 pass→fail among 40 agreeing pairs, and 4 among 4: the same b = 4, c = 0, so the same test:
    // p = 2·½⁴ = 0.125, one-sided ½⁴ = 0.0625 ≥ 0.025: no regression either way.
    const pairs = (b: number, agree: number) => ({
      base: [...Array(b).fill(1), ...Array(agree).fill(1)],
      head: [...Array(b).fill(0), ...Array(agree).fill(1)],
    });
    for (const agree of [0, 36])
      expect(pairedDifference(pairs(4, agree))).toMatchObject({
        test: "mcnemar",
        p: 0.125,
        regression: false,
        discordant: { b: 4, c: 0 },
      });
    // Six flips one way: ½⁶ = 0.0156 < 0.025: a regression; p = 0.03125.
    const six = pairedDifference(pairs(6, 10));
    expect(six).toMatchObject({ test: "mcnemar", regression: true });
    expect(six.p).toBeCloseTo(0.03125, 12);
    // Three one-trial runs, one flipped: one discordant pair, p = 1.
    expect(pairedDifference({ base: [1], head: [0] })).toMatchObject({ p: 1, regression: false });
    expect(pairedDifference({ base: [1, 1, 0], head: [0, 1, 0] })).toMatchObject({
      test: "mcnemar",
      p: 1,
      regression: false,
    });
  });

  it("pairs that share a cluster: the cluster-robust SE over the differences, floored, df C − 1 (§13.7)", () => {
    // Tasks A (d = 1, 1, 1, 0), B (0, 0), C (−1, 0): P = 8, d̄ = 2/8 = 0.25.
    // Cluster sums of d − d̄: A 3 − 1 = 2, B 0 − 0.5 = −0.5, C −1 − 0.5 = −1.5; squares 4 + 0.25 + 2.25 = 6.5.
    // SE_c = √(3/2 · 6.5)/8 = √9.75/8 = 0.3903124. s_d² = (Σd² − P·d̄²)/(P−1) = (4 − 0.5)/7 = 0.5,
    // s_d/√P = √(0.5/8) = 0.25 < SE_c. t(0.975, 2) = 4.302653: 0.25 ± 1.679378.
    const clusters = ["A", "A", "A", "A", "B", "B", "C", "C"];
    const got = pairedDifference({ base: [0, 0, 0, 0, 0, 0, 1, 0], head: [1, 1, 1, 0, 0, 0, 0, 0], clusters }, "trial");
    expect(got).toMatchObject({ test: "cluster-paired-t", clusters: 3, df: 2, pairs: 8 });
    expect(got.se).toBeCloseTo(Math.sqrt(9.75) / 8, 12);
    expect(got.interval!.method).toBe("cluster-paired-t");
    expect(got.interval!.lo).toBeCloseTo(0.25 - 4.302653 * 0.3903124, 5);
    // Binary, but clustered: McNemar's counts are kept, the cluster-paired t decides.
    expect(got.discordant).toEqual({ b: 1, c: 3 });
    // The floor: cluster sums that cancel (A: 1, −1; B: 1, −1) give SE_c = 0 < s_d/√P = √(4/3)/2.
    const floored = pairedDifference({ base: [0, 1, 0, 1], head: [1, 0, 1, 0], clusters: ["A", "A", "B", "B"] });
    expect(floored.se).toBeCloseTo(Math.sqrt(4 / 3) / 2, 12);
    // Every unit in one cluster: no interval, p = 1, no regression.
    expect(pairedDifference({ base: [1, 1, 1], head: [0, 0, 0], clusters: ["A", "A", "A"] })).toMatchObject({
      clusters: 1,
      p: 1,
      regression: false,
      interval: null,
    });
    // Equal drops in clusters: the sign test counts clusters (2·½² = 0.5), not the 12 trials (0.0005).
    const equal = pairedDifference({
      base: Array(12).fill(1),
      head: Array(12).fill(0),
      clusters: [...Array(6).fill("A"), ...Array(6).fill("B")],
    });
    expect(equal).toMatchObject({ test: "sign", p: 0.5, regression: false });
    // Equal drops in six clusters of two: 2·½⁶ = 0.03125 < 0.05, a regression over clusters.
    const six = pairedDifference({
      base: Array(12).fill(1),
      head: Array(12).fill(0),
      clusters: Array.from({ length: 12 }, (_, i) => `T${i >> 1}`),
    });
    expect(six).toMatchObject({ test: "sign", clusters: 6, p: 0.03125, regression: true });
    // Each unit its own cluster: plain paired t (reading 6).
    expect(
      pairedDifference({ base: [0.1, 0.2, 0.3], head: [0.3, 0.1, 0.6], clusters: ["A", "B", null] }),
    ).toMatchObject({ test: "paired-t", clusters: null });
  });
});

describe("differences equal but for rounding (§13.7: never p ≈ 0 from no information)", () => {
  it("are one difference: the sign test, or p = 1 where they are all ~0", () => {
    // 0.1 + 0.2 − 0.3 = 5.55e-17 and 0.3 − 0.3 = 0: every difference 0 to 1e-12: no test, p = 1
    // (not the sign test's 2·½² = 0.5 for a "drop" of 5e-17, nor a t of ~1e16).
    expect(pairedDifference({ base: [0.3, 0.3], head: [0.1 + 0.2, 0.3] })).toMatchObject({
      test: "none",
      p: 1,
      regression: false,
      interval: null,
    });
    // 1/3 − 0 and 2/3 − 1/3 differ in the last bit: one difference of 1/3 over 2 pairs, p = 2·½² = 0.5.
    expect(pairedDifference({ base: [0, 1 / 3], head: [1 / 3, 2 / 3] })).toMatchObject({ test: "sign", p: 0.5 });
    // The honest neighbour: differences 0.3 and 0.3 + 1e-9 are spread, however small: the paired t.
    expect(pairedDifference({ base: [0, 0], head: [0.3, 0.3 + 1e-9] }).test).toBe("paired-t");
  });

  it("rounding scales with the values: rewards of a million, each +0.1, are one difference (the sign test), not a t of 1e16", () => {
    // 1e6 + 0.1 − 1e6 = 0.100000000035, 2e6 + 0.1 − 2e6 = 0.09999999986: equal to 1e-12 of the values' size.
    expect(pairedDifference({ base: [1e6, 2e6, 3e6], head: [1e6 + 0.1, 2e6 + 0.1, 3e6 + 0.1] })).toMatchObject({
      test: "sign",
      p: 0.25,
    });
    // Neighbour: at that size, differences 0.1 and 0.2 are spread.
    expect(pairedDifference({ base: [1e6, 2e6, 3e6], head: [1e6 + 0.1, 2e6 + 0.2, 3e6 + 0.1] }).test).toBe("paired-t");
  });

  it("a p-value never underflows to 0: 1,100 equal drops or flips give the smallest positive double, not certainty", () => {
    // 2·½^1100 underflows (the smallest double is ~4.9e-324 = 2^-1074).
    expect(signTest(1100)).toBe(Number.MIN_VALUE);
    expect(mcnemarExact(1100, 0)).toBe(Number.MIN_VALUE);
    expect(signTest(10)).toBe(2 / 1024);
    expect(pairedDifference({ base: Array(1100).fill(1), head: Array(1100).fill(0) }).p).toBeGreaterThan(0);
    // Printed as what it is, a floor, not as a figure of 4.9e-324.
    expect(pValue(Number.MIN_VALUE)).toBe("< 1e-300");
    expect(pValue(2e-300)).toBe("= 2.0e-300");
  });
});

describe("Holm (1979) and tie groups", () => {
  it("a worked example", () => {
    // Sorted: 0.005 (×4 = 0.02), 0.01 (×3 = 0.03), 0.03 (×2 = 0.06), 0.04 (×1 = 0.04, raised to 0.06 to stay monotone).
    expect(holm([0.01, 0.04, 0.03, 0.005])).toEqual([0.03, 0.06, 0.06, 0.02].map((x) => expect.closeTo(x, 12)));
    expect(holm([0.5, 0.9])).toEqual([1, 1].map((x) => expect.closeTo(x, 12)));
    expect(holm([])).toEqual([]);
  });

  it("the best ungrouped run opens a group; runs not significantly worse than it join", () => {
    // Ranked 0 > 1 > 2 > 3. 1 ties with 0; 2 differs from 0 but ties with... only its leader counts: 2 opens group 2,
    // and 3 ties with 2 → group 2 even though 3 also differs from 0.
    const p = new Map([
      ["0,1", 0.3],
      ["0,2", 0.01],
      ["0,3", 0.001],
      ["1,2", 0.2],
      ["1,3", 0.02],
      ["2,3", 0.5],
    ]);
    const adj = (a: number, b: number) => p.get(`${Math.min(a, b)},${Math.max(a, b)}`)!;
    expect([...tieGroups([0, 1, 2, 3], adj)]).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
      [3, 2],
    ]);
  });
});
