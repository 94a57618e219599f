// Contract §13.7: binary units in clusters get the Korn–Graubard interval (Korn & Graubard 1998),
// Clopper–Pearson (1934) at the effective, degrees-of-freedom adjusted number of trials. Each
// expected figure is worked by hand in the comments: t quantiles from published tables (more
// digits: R's qt), beta quantiles from closed forms or R's qbeta / binom.test — never from the
// code under test.

import { describe, expect, it } from "vitest";
import { betaQuantile, clopperPearson95 } from "../src/core/stats/beta.js";
import { intervalOf } from "../src/core/stats/interval.js";

/** t(0.975, df), R's qt(0.975, df) (tables: 12.706, 4.303, 3.182, 2.306, 2.201, 2.069). */
const T975: Record<number, number> = {
  1: 12.70620473617471,
  2: 4.302652729749464,
  3: 3.182446305284263,
  8: 2.306004135204166,
  9: 2.262157162798205,
  11: 2.200985160091639,
  23: 2.068657610419049,
};

/** Units of `values` per cluster, cluster i named "c<i>". */
const clustered = (...cs: number[][]) =>
  intervalOf(
    cs.flatMap((xs, i) => xs.map((x) => ({ x, cluster: `c${i}` }))),
    { unit: "trial", cluster: "task" },
  );

describe("beta quantiles and Clopper–Pearson", () => {
  it("Clopper–Pearson for 0, 1, 3, 5 and 10 of 10: R's binom.test(k, 10)$conf.int", () => {
    // R 4.x: binom.test(0, 10) → [0, 0.3084971] (closed form 1 − 0.025^(1/10)); binom.test(1, 10) →
    // [0.002528579, 0.4450161]; (3, 10) → [0.06673951, 0.6524529]; (5, 10) → [0.1870860, 0.8129140];
    // (10, 10) → [0.6915029, 1] (0.025^(1/10)).
    const table: [number, number, number][] = [
      [0, 0, 0.3084971],
      [1, 0.002528579, 0.4450161],
      [3, 0.06673951, 0.6524529],
      [5, 0.187086, 0.812914],
      [10, 0.6915029, 1],
    ];
    for (const [k, lo, hi] of table) {
      const [l, h] = clopperPearson95(k, 10);
      expect(l).toBeCloseTo(lo, 7);
      expect(h).toBeCloseTo(hi, 7);
    }
    expect(clopperPearson95(0, 10)[1]).toBeCloseTo(1 - 0.025 ** (1 / 10), 12);
  });

  it("beta quantiles at non-integer shapes agree with closed forms to 1e-10", () => {
    // Beta(a, 1): F(x) = x^a, so Q(p) = p^(1/a). Beta(1, b): F(x) = 1 − (1 − x)^b, Q(p) = 1 − (1 − p)^(1/b).
    // Beta(½, ½) (arcsine): F(x) = (2/π)·asin(√x), Q(p) = sin²(πp/2).
    for (const p of [0.001, 0.025, 0.3, 0.5, 0.975, 0.999]) {
      expect(betaQuantile(p, 0.047, 1)).toBeCloseTo(p ** (1 / 0.047), 10);
      expect(betaQuantile(p, 2.7, 1)).toBeCloseTo(p ** (1 / 2.7), 10);
      expect(betaQuantile(p, 1, 0.19)).toBeCloseTo(1 - (1 - p) ** (1 / 0.19), 10);
      expect(betaQuantile(p, 0.5, 0.5)).toBeCloseTo(Math.sin((Math.PI * p) / 2) ** 2, 10);
    }
    expect(betaQuantile(0, 2, 3)).toBe(0);
    expect(betaQuantile(1, 2, 3)).toBe(1);
    expect(() => betaQuantile(0.5, 0, 3)).toThrow(RangeError);
  });
});

describe("the Korn–Graubard interval (§13.7)", () => {
  it("every repeated trial failed, 3 tasks × 8: upper bound 0.486, not Wilson's 0.138", () => {
    // n = 24, C = 3, x̄ = 0: d = 1 (x̄ is 0), n* = 24, se = max(0, 0) = 0.
    // n*_df = 24 · (t(0.975, 23)/t(0.975, 2))² = 24 · (2.068658/4.302653)² = 24 · 0.480788² = 24 · 0.231156 = 5.547737.
    // Clopper–Pearson for 0 of 5.547737: lo = 0, hi = 1 − 0.025^(1/5.547737) = 1 − e^(−3.688879/5.547737)
    // = 1 − e^(−0.664935) = 1 − 0.514307 = 0.485693 ≥ 0.25 (the contract's target).
    // Before §13.7: cluster-t, SE 0, floored to Wilson for 0/24: [0, z²/(24 + z²)] = [0, 3.841459/27.841459] = [0, 0.137975].
    const got = clustered([0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]);
    const nDf = 24 * (T975[23]! / T975[2]!) ** 2;
    expect(nDf).toBeCloseTo(5.547737, 6);
    expect(got.interval).toEqual({
      method: "korn-graubard",
      lo: 0,
      hi: expect.closeTo(1 - 0.025 ** (1 / nDf), 9),
      units: 24,
      clusters: 3,
      se: 0,
      design_effect: 1,
    });
    expect(got.interval!.hi).toBeCloseTo(0.485693, 6);
    expect(got.interval!.hi).toBeGreaterThanOrEqual(0.25);
  });

  it("every trial passed, 4 tasks × 3: lo = 0.025^(1/n*_df), hi = 1, se 0, design effect 1", () => {
    // n = 12, C = 4, x̄ = 1: d = 1, n*_df = 12 · (2.200985/3.182446)² = 12 · 0.691603² = 12 · 0.478313 = 5.739754.
    // lo = 0.025^(1/5.739754) = e^(−3.688879/5.739754) = e^(−0.642690) = 0.525876.
    const got = clustered([1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1]);
    const nDf = 12 * (T975[11]! / T975[3]!) ** 2;
    expect(got.interval).toEqual({
      method: "korn-graubard",
      lo: expect.closeTo(0.025 ** (1 / nDf), 9),
      hi: 1,
      units: 12,
      clusters: 4,
      se: 0,
      design_effect: 1,
    });
    expect(got.interval!.lo).toBeCloseTo(0.525876, 6);
  });

  it("a mixed one: 1 1 0 | 0 0 | 1 0 1 1 — design effect 237/180, n*_df 1.963, Clopper–Pearson at 1.091 of 1.963", () => {
    // n = 9, C = 3, x̄ = 5/9. Cluster deviation sums: 2 − 15/9 = 1/3, 0 − 10/9 = −10/9, 3 − 20/9 = 7/9;
    // squares 9/81 + 100/81 + 49/81 = 158/81. SE_c² = (3/2 · 158/81)/81 = 237/6561 (SE_c = 0.190059).
    // SE_i² = x̄(1 − x̄)/n = (5/9)(4/9)/9 = 20/729 = 180/6561 (SE_i = 0.165635).
    // d = max(1, 237/180) = 1.316667; se = max(SE_c, SE_i) = SE_c; n* = 9/d = 1620/237 = 6.835443.
    // n*_df = 6.835443 · (t(0.975, 8)/t(0.975, 2))² = 6.835443 · (2.306004/4.302653)² = 6.835443 · 0.287242 = 1.963425.
    // successes x̄·n*_df = 1.090792. lo = qbeta(0.025, 1.090792, 1.963425 − 1.090792 + 1 = 1.872633) = 0.018580;
    // hi = qbeta(0.975, 2.090792, 0.872633) = 0.993180 (R's qbeta).
    const got = clustered([1, 1, 0], [0, 0], [1, 0, 1, 1]);
    expect(got.interval).toMatchObject({ method: "korn-graubard", units: 9, clusters: 3 });
    expect(got.interval!.design_effect).toBeCloseTo(237 / 180, 12);
    expect(got.interval!.se).toBeCloseTo(Math.sqrt(237 / 6561), 12);
    expect(((9 * 180) / 237) * (T975[8]! / T975[2]!) ** 2).toBeCloseTo(1.963425, 6);
    expect(got.interval!.lo).toBeCloseTo(0.01858, 5);
    expect(got.interval!.hi).toBeCloseTo(0.99318, 5);
  });

  it("n*_df below 1 is kept (reading 4): 1 0 | 0 0 gives n*_df = 0.188 and an interval near [0, 1]", () => {
    // n = 4, C = 2, x̄ = 1/4. Deviation sums 1 − 1/2 = 1/2, −1/2; squares 1/2. SE_c² = (2 · 1/2)/16 = 1/16.
    // SE_i² = (1/4)(3/4)/4 = 3/64. d = (1/16)/(3/64) = 4/3; n* = 3.
    // n*_df = 3 · (3.182446/12.706205)² = 3 · 0.250464² = 3 · 0.062732 = 0.188197; successes 0.047049.
    // lo = qbeta(0.025, 0.047049, 1.141148) ≈ 7e-35; hi = qbeta(0.975, 1.047049, 0.141148) = 0.999999999996.
    const got = clustered([1, 0], [0, 0]);
    expect(3 * (T975[3]! / T975[1]!) ** 2).toBeCloseTo(0.188197, 6);
    expect(got.interval).toMatchObject({
      method: "korn-graubard",
      units: 4,
      clusters: 2,
      design_effect: expect.closeTo(4 / 3, 12),
      se: 0.25,
    });
    expect(got.interval!.lo).toBeLessThan(1e-30);
    expect(got.interval!.hi).toBeGreaterThan(0.9999999999);
    expect(got.interval!.hi).toBeLessThan(1);
  });

  it("the design effect is floored at 1: tasks that happen to agree (2 of 4 each) are no better than independent trials", () => {
    // 1 1 0 0 in each of 3 tasks: x̄ = 1/2, every cluster's deviation sum 0, SE_c = 0 (design effect 0 before the floor).
    // SE_i = √(1/4 / 12) = 0.144338 = se; d = max(1, 0) = 1; n*_df = 12 · (2.200985/4.302653)² = 12 · 0.261675 = 3.140096.
    // successes 1.570048: lo = qbeta(0.025, 1.570048, 2.570048) = 0.042800, hi = 1 − lo = 0.957200 (symmetric at x̄ = ½).
    const got = clustered([1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]);
    expect(got.interval).toMatchObject({
      method: "korn-graubard",
      units: 12,
      clusters: 3,
      design_effect: 1,
      se: expect.closeTo(Math.sqrt(0.25 / 12), 12),
    });
    expect(got.interval!.lo).toBeCloseTo(0.0428, 4);
    expect(got.interval!.hi).toBeCloseTo(0.9572, 4);
  });

  it("the line between methods: binary vs fractional in clusters, clustered vs one unit per cluster", () => {
    // Binary in clusters: korn-graubard. One 0.5 among them: cluster-t (the t interval's floor, reading 3a).
    expect(clustered([1, 1, 0], [0, 0], [1, 0, 1, 1]).interval!.method).toBe("korn-graubard");
    expect(clustered([1, 0.5, 0], [0, 0], [1, 0, 1, 1]).interval!.method).toBe("cluster-t");
    // The same binary units one per cluster: Wilson; fractional one per cluster: t.
    expect(clustered([1], [1], [0], [0], [0], [1], [0], [1], [1]).interval!.method).toBe("wilson");
    expect(clustered([1], [0.5], [0], [0], [0], [1], [0], [1], [1]).interval!.method).toBe("t");
    // A binary unit weighted n (a run of equal units) is a cluster of n: clustered, so Korn–Graubard.
    const w = intervalOf([
      { x: 0, cluster: null, n: 3 },
      { x: 1, cluster: null },
      { x: 1, cluster: null },
    ]);
    expect(w.interval!.method).toBe("korn-graubard");
  });
});
