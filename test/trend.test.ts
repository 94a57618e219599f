// `--trend` (issue 37): the within-unit slope over runs with its cluster-robust interval, checked
// against a hand-computed panel and against OLS with unit dummies computed another way (normal
// equations and the full sandwich); the verdict on each side of 0; runs that cannot be ordered;
// unbalanced panels, clusters and changed tasks; the three text formats.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { verdictOf, withinSlope, type UnitSeries } from "../src/core/stats/trend.js";
import { tQuantile } from "../src/core/stats/student-t.js";
import { pairedDifference } from "../src/core/stats/paired.js";
import { trendOf, type TrendRun } from "../src/core/compare/trend.js";
import { trendSchema } from "../src/core/compare/trend-schema.js";
import { MIXED_CHECKSUMS, UNTOLD_CLUSTER, type Units } from "../src/core/compare/trials.js";
import { trendHtml, trendLines, trendMd } from "../src/report/compare/trend.js";
import { rng } from "./helpers/random.js";

/** One unit per task, its own cluster (Harbor's shape). */
const own = (values: Record<string, number[]>): UnitSeries[] =>
  Object.entries(values).map(([cluster, ys]) => ({ cluster, at: ys.map((_, t) => t), values: ys }));

describe("the within-unit slope, by hand", () => {
  // Tasks A, B, C over runs 0, 1, 2: A 1, ½, 0; B 1, 1, ½; C ½, ½, 0. Within each task t̃ = −1, 0, 1
  // (Σ t̃² = 6); Σ t̃ỹ: A −1, B −½, C −½, so β = −2/6 = −1/3. Residuals e = ỹ + t̃/3: A ⅙, 0, −⅙
  // (score Σ t̃e = −⅓); B −⅙, ⅙, 0 (⅙); C likewise (⅙). CR1: 3/2 · (1/9 + 1/36 + 1/36) / 6² = 1/144,
  // SE 1/12; classical: Σe² = 6/36 over 9 − 3 − 1 = 5 df, (1/30)/6 = 1/180 < 1/144. t(0.975, 2) =
  // 4.302653: −1/3 ± 0.358554 = [−0.6919, 0.0252]: three tasks that all fell are no detected trend.
  const fit = withinSlope(own({ A: [1, 0.5, 0], B: [1, 1, 0.5], C: [0.5, 0.5, 0] }));

  it("gives β = −1/3 with SE 1/12 on 2 degrees of freedom", () => {
    expect(fit.slope).toBeCloseTo(-1 / 3, 12);
    expect(fit.se).toBeCloseTo(1 / 12, 12);
    expect(fit.df).toBe(2);
    expect(fit.interval!.lo).toBeCloseTo(-1 / 3 - 4.302653 / 12, 5);
    expect(fit.interval!.hi).toBeCloseTo(-1 / 3 + 4.302653 / 12, 5);
    expect([fit.units, fit.clusters, fit.left_out, fit.reason]).toEqual([3, 3, 0, null]);
    expect(verdictOf(fit.interval)).toBe("no trend detected");
  });

  it("is never narrower than the classical fixed-effects SE (the floor, §13.7)", () => {
    // Tasks that zigzag around the common slope (C and D dip and recover) have large residuals but
    // small scores Σ t̃e: here the classical SE (0.1475) is the larger, and it is the one used.
    const swing = own({ A: [1, 0, 0], B: [0.5, 1, 0], C: [0.5, 0, 0.5], D: [1, 0.5, 1] });
    const fit = withinSlope(swing);
    const ols = dummiesOls(swing);
    expect(ols.classical).toBeGreaterThan(ols.robust);
    expect(fit.se).toBeCloseTo(Math.sqrt(ols.classical), 12);
  });
});

/**
 * OLS of y on t and one dummy per unit, computed the long way: the normal equations solved and
 * (X'X)⁻¹ inverted by Gauss–Jordan, the classical variance σ̂²(X'X)⁻¹ and the CR1 sandwich
 * G/(G−1)·(X'X)⁻¹ (Σ_c X_c'e_c e_c'X_c) (X'X)⁻¹, each the slope's element.
 */
function dummiesOls(series: readonly UnitSeries[]): { slope: number; classical: number; robust: number } {
  const used = series.filter((s) => s.at.length >= 2);
  const k = used.length + 1;
  const rows: { x: number[]; y: number; c: string }[] = [];
  used.forEach((s, g) =>
    s.at.forEach((t, i) =>
      rows.push({ x: [t, ...used.map((_, j) => (j === g ? 1 : 0))], y: s.values[i]!, c: s.cluster }),
    ),
  );
  const xtx = Array.from({ length: k }, (_, a) =>
    Array.from({ length: k }, (_, b) => rows.reduce((s, r) => s + r.x[a]! * r.x[b]!, 0)),
  );
  const inv = invert(xtx);
  const xty = Array.from({ length: k }, (_, a) => rows.reduce((s, r) => s + r.x[a]! * r.y, 0));
  const beta = inv.map((row) => row.reduce((s, v, b) => s + v * xty[b]!, 0));
  const e = rows.map((r) => r.y - r.x.reduce((s, v, a) => s + v * beta[a]!, 0));
  const sse = e.reduce((s, v) => s + v * v, 0);
  const classical = (sse / (rows.length - k)) * inv[0]![0]!;
  const scores = new Map<string, number[]>();
  rows.forEach((r, i) =>
    scores.set(
      r.c,
      (scores.get(r.c) ?? new Array(k).fill(0)).map((v: number, a) => v + r.x[a]! * e[i]!),
    ),
  );
  const g = scores.size;
  // (A M A)[0][0] = Σ_c (A[0]·u_c)², u_c the cluster's score vector.
  let meat = 0;
  for (const u of scores.values()) meat += inv[0]!.reduce((s, v, a) => s + v * u[a]!, 0) ** 2;
  return { slope: beta[0]!, classical, robust: (g / (g - 1)) * meat };
}

function invert(m: number[][]): number[][] {
  const n = m.length;
  const a = m.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < n; c++) {
    const p = a.reduce((best, row, r) => (r >= c && Math.abs(row[c]!) > Math.abs(a[best]![c]!) ? r : best), c);
    [a[c], a[p]] = [a[p]!, a[c]!];
    const d = a[c]![c]!;
    a[c] = a[c]!.map((v) => v / d);
    for (let r = 0; r < n; r++) if (r !== c) a[r] = a[r]!.map((v, j) => v - a[r]![c]! * a[c]![j]!);
  }
  return a.map((row) => row.slice(n));
}

describe("the within-unit slope against OLS with unit dummies", () => {
  it("agrees on random unbalanced panels with shared clusters, to 1e-9", () => {
    const r = rng(37);
    for (let trial = 0; trial < 20; trial++) {
      const runs = 3 + Math.floor(r() * 5);
      const series: UnitSeries[] = [];
      for (let u = 0; u < 4 + Math.floor(r() * 12); u++) {
        const level = r();
        const at = [...Array(runs).keys()].filter(() => r() < 0.75);
        series.push({
          cluster: `c${Math.floor(r() * 4)}`,
          at,
          values: at.map((t) => level - 0.03 * t + (r() - 0.5) * 0.4),
        });
      }
      const fit = withinSlope(series);
      const ols = dummiesOls(series);
      expect(fit.slope!).toBeCloseTo(ols.slope, 9);
      expect(fit.se!).toBeCloseTo(Math.sqrt(Math.max(ols.classical, ols.robust)), 9);
      expect(fit.df).toBe(fit.clusters - 1);
      expect(fit.interval!.hi - fit.slope!).toBeCloseTo(tQuantile(0.975, fit.clusters - 1) * fit.se!, 12);
      expect(fit.left_out).toBe(series.filter((s) => s.at.length < 2).length);
    }
  });
});

describe("two runs: the slope is compare's paired difference", () => {
  // With t̃ = ±½ in every unit, β is the mean of HEAD − BASE and both SEs reduce to the paired (or
  // cluster-paired) one: a trend over two runs says what `assay compare` says of them.
  it("the same figure, SE, degrees of freedom and interval as the paired t, and as the cluster-paired t", () => {
    const r = rng(5);
    for (const clustered of [false, true]) {
      const base = Array.from({ length: 12 }, () => r());
      const head = base.map((b) => Math.min(1, Math.max(0, b - 0.1 + (r() - 0.5) * 0.5)));
      const clusters = base.map((_, i) => (clustered ? `k${i % 4}` : `u${i}`));
      const fit = withinSlope(base.map((b, i) => ({ cluster: clusters[i]!, at: [0, 1], values: [b, head[i]!] })));
      const d = pairedDifference({ base, head, clusters: clustered ? clusters : null });
      expect(d.interval!.method).toBe(clustered ? "cluster-paired-t" : "paired-t");
      expect(fit.slope!).toBeCloseTo(d.mean_diff!, 12);
      expect(fit.se!).toBeCloseTo(d.se!, 12);
      expect(fit.df).toBe(clustered ? 3 : 11);
      expect(fit.interval!.lo).toBeCloseTo(d.interval!.lo, 12);
      expect(fit.interval!.hi).toBeCloseTo(d.interval!.hi, 12);
    }
  });
});

describe("the verdict", () => {
  it("is degrading only where the interval lies wholly below 0, improving only above", () => {
    expect(verdictOf({ lo: -0.2, hi: -1e-9 })).toBe("degrading");
    expect(verdictOf({ lo: -0.2, hi: 0 })).toBe("no trend detected");
    expect(verdictOf({ lo: 1e-9, hi: 0.2 })).toBe("improving");
    expect(verdictOf({ lo: 0, hi: 0.2 })).toBe("no trend detected");
    expect(verdictOf(null)).toBe("not estimated");
  });

  /** Eight tasks over five runs: a level per task, `drift` per run, and a fixed wobble. */
  const drifting = (drift: number, wobble: number) => {
    const out: Record<string, number[]> = {};
    for (let u = 0; u < 8; u++)
      out[`t${u}`] = [0, 1, 2, 3, 4].map((t) => 0.5 + 0.04 * u + drift * t + wobble * Math.sin(1.7 * u + 2.3 * t));
    return own(out);
  };

  it("says degrading for a steady drop the wobble cannot hide, improving for a rise", () => {
    expect(verdictOf(withinSlope(drifting(-0.05, 0.05)).interval)).toBe("degrading");
    expect(verdictOf(withinSlope(drifting(0.05, 0.05)).interval)).toBe("improving");
  });

  it("says no trend detected for the same drop inside a wobble ten times larger", () => {
    const fit = withinSlope(drifting(-0.05, 0.5));
    expect(fit.slope!).toBeLessThan(0);
    expect(verdictOf(fit.interval)).toBe("no trend detected");
  });
});

describe("the interval by simulation", () => {
  /**
   * G tasks of m trials each over R runs; each task's rate uniform in [0.1, 0.9], moved per run by a
   * task × run interaction (sd 0.1) and by `drift` per run; a run's task value is the mean of its trials.
   */
  function simulate(
    seed: number,
    G: number,
    R: number,
    m: number,
    drift: number,
    reps: number,
  ): { trend: number; covered: number; estimated: number } {
    const r = rng(seed);
    const normal = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    let trend = 0;
    let covered = 0;
    let estimated = 0;
    for (let rep = 0; rep < reps; rep++) {
      const series: UnitSeries[] = Array.from({ length: G }, (_, g) => {
        const p = 0.1 + 0.8 * r();
        const at = [...Array(R).keys()];
        const values = at.map((t) => {
          const q = Math.min(1, Math.max(0, p + 0.1 * normal() + drift * t));
          return Array.from({ length: m }, () => (r() < q ? 1 : 0)).reduce<number>((a, b) => a + b, 0) / m;
        });
        return { cluster: `t${g}`, at, values };
      });
      const fit = withinSlope(series);
      if (fit.interval === null) continue;
      estimated++;
      if (verdictOf(fit.interval) !== "no trend detected") trend++;
      if (fit.interval.lo <= drift && drift <= fit.interval.hi) covered++;
    }
    return { trend: trend / estimated, covered: covered / estimated, estimated };
  }

  for (const [G, R, m] of [
    [3, 4, 4],
    [5, 6, 1],
    [10, 4, 8],
  ] as const)
    it(`${G} tasks, ${R} runs, ${m} trials each: no drift is called a trend at most 7% of the time; a drift of −3 pts per run is covered at least 93%`, () => {
      const still = simulate(G * 100 + R, G, R, m, 0, 1500);
      expect(still.estimated).toBeGreaterThan(1400);
      expect(still.trend).toBeLessThanOrEqual(0.07);
      expect(simulate(G * 100 + R + 1, G, R, m, -0.03, 1500).covered).toBeGreaterThanOrEqual(0.93);
    });
});

describe("the slope without an interval", () => {
  it("one unit: a slope, no cluster-robust interval", () => {
    const fit = withinSlope(own({ A: [1, 0.5, 0] }));
    expect(fit.slope).toBeCloseTo(-0.5, 12);
    expect(fit.interval).toBeNull();
    expect(fit.reason).toBe("one unit held by two runs or more: no cluster-robust interval from a single cluster");
  });

  it("several units in one cluster: a slope, no interval", () => {
    const fit = withinSlope([
      { cluster: "k", at: [0, 1], values: [1, 0] },
      { cluster: "k", at: [0, 1], values: [1, 1] },
    ]);
    expect(fit.slope).toBeCloseTo(-0.5, 12);
    expect([fit.interval, fit.clusters]).toEqual([null, 1]);
    expect(fit.reason).toBe("all 2 units are in one cluster: no cluster-robust interval from a single cluster");
  });

  it("every unit moving by exactly the same amount: the slope is exact, no zero-width interval", () => {
    const fit = withinSlope(own({ A: [0.9, 0.8, 0.7], B: [0.5, 0.4, 0.3], C: [0.3, 0.2, 0.1] }));
    expect(fit.slope).toBeCloseTo(-0.1, 12);
    expect(fit.interval).toBeNull();
    expect(fit.reason).toBe("every unit moves by exactly -0.1 per run: no spread around the slope, so no interval");
    // One unit off by a little: spread, so an interval.
    expect(withinSlope(own({ A: [0.9, 0.8, 0.7], B: [0.5, 0.4, 0.3], C: [0.3, 0.2, 0.11] })).interval).not.toBeNull();
  });

  it("no unit in two runs: no slope; units in one run only are left out and counted", () => {
    const fit = withinSlope([
      { cluster: "a", at: [0], values: [1] },
      { cluster: "b", at: [1], values: [0] },
    ]);
    expect([fit.slope, fit.units, fit.left_out]).toEqual([null, 0, 2]);
    expect(fit.reason).toBe("no unit is held by two runs: no change within a unit to measure");
  });
});

/** A run's units: one per id, values in step (Harbor tasks: no clusters). */
const units = (values: Record<string, number>, extra: Partial<Units> = {}): Units => ({
  unit: "task",
  ids: Object.keys(values),
  values: Float64Array.from(Object.values(values)),
  checksums: null,
  reason: null,
  ...extra,
});
const run = (
  name: string,
  started_at: string | null,
  values: Record<string, number>,
  extra: Partial<Units> = {},
  clock: "utc" | "local" | null = started_at === null ? null : "utc",
): TrendRun => ({
  run: name,
  started_at,
  clock,
  units: units(values, extra),
});

describe("trendOf over matched runs", () => {
  const a = run("a.json", "2026-03-01T10:00:00.000Z", { x: 1, y: 1, z: 0.5 });
  const b = run("b.json", "2026-03-02T10:00:00.000Z", { x: 0.5, y: 1, z: 0.5 });
  const c = run("c.json", "2026-03-03T10:00:00.000Z", { x: 0, y: 0.5, z: 0 });

  it("orders the runs by start time, whatever order they come in, and gives the hand example's figures", () => {
    const t = trendSchema.parse(trendOf("reward/reward/mean", [c, a, b]));
    expect(t.runs.map((r) => [r.run, r.position])).toEqual([
      ["a.json", 0],
      ["b.json", 1],
      ["c.json", 2],
    ]);
    expect(t.runs.map((r) => r.value)).toEqual([2.5 / 3, 2 / 3, 0.5 / 3]);
    expect(t.slope).toBeCloseTo(-1 / 3, 12);
    expect(t.se).toBeCloseTo(1 / 12, 12);
    expect([t.verdict, t.units, t.clusters, t.left_out, t.clock, t.unit, t.reason]).toEqual([
      "no trend detected",
      3,
      3,
      0,
      "utc",
      "task",
      null,
    ]);
    expect(t.assumes).toMatch(/spacing ignored/);
  });

  it("refuses to order runs where one records no start time: runs listed as given, no slope", () => {
    const t = trendOf("m", [c, run("b.json", null, { x: 0.5, y: 1, z: 0.5 }), a]);
    expect([t.slope, t.interval, t.verdict, t.clock]).toEqual([null, null, "not estimated", null]);
    expect(t.reason).toBe("b.json records no start time: the runs cannot be ordered, no trend");
    expect(t.runs.map((r) => [r.run, r.position])).toEqual([
      ["c.json", null],
      ["b.json", null],
      ["a.json", null],
    ]);
    expect(t.runs[0]!.value).toBeCloseTo(0.5 / 3, 12);
  });

  it("refuses to order local times beside instants, and orders local times among themselves", () => {
    const local = run("b.json", "2026-03-02T10:00:00", { x: 0.5, y: 1, z: 0.5 }, {}, "local");
    const mixed = trendOf("m", [a, local, c]);
    expect([mixed.slope, mixed.verdict]).toEqual([null, "not estimated"]);
    expect(mixed.reason).toMatch(/cannot be ordered against each other/);
    const naive = (r: TrendRun): TrendRun => ({
      ...r,
      started_at: r.started_at!.replace(/\.000Z$/, "").replace("T", " "),
      clock: "local",
    });
    const all = trendOf("m", [naive(c), naive(b), naive(a)]);
    expect([all.clock, all.runs.map((r) => r.run)]).toEqual(["local", ["a.json", "b.json", "c.json"]]);
    expect(all.slope).toBeCloseTo(-1 / 3, 12);
  });

  it("gives no trend from fewer than two runs or runs started at one instant; ties share a position", () => {
    expect(trendOf("m", [a]).reason).toBe("fewer than two runs: no trend");
    expect(trendOf("m", [a, { ...b, started_at: a.started_at }]).reason).toBe(
      "every run started at the same time: no order, no trend",
    );
    const tied = trendOf("m", [a, { ...b, started_at: a.started_at }, c]);
    expect(tied.runs.map((r) => r.position)).toEqual([0, 0, 1]);
    expect(tied.notes).toContain("1 run started at the same time as another: they share a position");
  });

  it("one task over the runs: a slope, and no interval with the reason", () => {
    const t = trendOf("m", [run("a", "2026-01-01T00:00:00Z", { x: 1 }), run("b", "2026-01-02T00:00:00Z", { x: 0 })]);
    expect([t.slope, t.interval, t.verdict]).toEqual([-1, null, "not estimated"]);
    expect(t.reason).toMatch(/^one unit held by two runs or more: no cluster-robust interval/);
  });

  it("takes an unbalanced panel: a task missing from a run is compared only with itself; a task in one run only is left out", () => {
    // w, a hard task, is only in the last run: in a mean over what each run holds it would look like a drop.
    const last = run("c.json", "2026-03-03T10:00:00.000Z", { x: 0, y: 0.5, z: 0, w: 0 });
    const gap = run("b.json", "2026-03-02T10:00:00.000Z", { x: 0.5, y: 1 });
    const t = trendOf("m", [a, gap, last]);
    expect([t.units, t.left_out]).toEqual([3, 1]);
    expect(t.runs.map((r) => r.value)).toEqual([2.5 / 3, 0.75, 0.5 / 3]);
    expect(t.notes).toContain(
      "not every task is held by every run: each run's value is over the tasks it holds; the slope compares each task only with itself",
    );
    expect(t.slope).toBeCloseTo(
      withinSlope([
        { cluster: "x", at: [0, 1, 2], values: [1, 0.5, 0] },
        { cluster: "y", at: [0, 1, 2], values: [1, 1, 0.5] },
        { cluster: "z", at: [0, 2], values: [0.5, 0] },
      ]).slope!,
      12,
    );
    // Every task in every run: no such note.
    expect(trendOf("m", [a, b, c]).notes).toEqual([]);
  });

  it("leaves out a task whose task_checksum changed between runs, and a run without per-unit values", () => {
    const sums = (x: string) => ({ checksums: [x, "s", "s"] });
    const t = trendOf("m", [
      run("a.json", a.started_at, { x: 1, y: 1, z: 0.5 }, sums("old")),
      run("b.json", b.started_at, { x: 0.5, y: 1, z: 0.5 }, sums("old")),
      run("c.json", c.started_at, { x: 0, y: 0.5, z: 0 }, sums("new")),
      {
        run: "d.json",
        started_at: "2026-03-04T10:00:00.000Z",
        clock: "utc",
        units: { ...units({}), reason: "no per-sample values" },
      },
    ]);
    expect([t.units, t.left_out]).toEqual([2, 1]);
    expect(t.notes).toEqual([
      "d.json: no per-sample values: not in the trend",
      "task_checksum differs between runs for 1 task: left out (a changed task is not one unit)",
    ]);
    expect(t.runs.at(-1)).toEqual({ run: "d.json", started_at: "2026-03-04T10:00:00.000Z", position: 3, value: null });
    const mixed = trendOf("m", [
      run("a", a.started_at, { x: 1, y: 1 }, { checksums: [MIXED_CHECKSUMS, "s"] }),
      run("b", b.started_at, { x: 1, y: 0 }, { checksums: [MIXED_CHECKSUMS, "s"] }),
    ]);
    expect([mixed.units, mixed.left_out]).toEqual([1, 1]);
  });

  it("clusters units by the clusters they carry, joining clusters that runs disagree on", () => {
    // Four samples in two clusters; sample s4 is put in k1 by one run and k2 by another: one cluster then.
    const sample = (clusters: (string | null)[]): Partial<Units> => ({ unit: "sample", clusters });
    const r1 = run("r1", "2026-01-01T00:00:00Z", { s1: 1, s2: 1, s3: 1, s4: 1 }, sample(["k1", "k1", "k2", "k2"]));
    const r2 = run("r2", "2026-01-02T00:00:00Z", { s1: 0, s2: 1, s3: 0.5, s4: 0 }, sample(["k1", "k1", "k2", "k2"]));
    expect(trendOf("m", [r1, r2]).clusters).toBe(2);
    const disagree = { ...r2, units: { ...r2.units, clusters: ["k1", "k1", "k2", "k1"] } };
    expect(trendOf("m", [r1, disagree]).clusters).toBe(1);
    // A sample lacking its key in one run takes the cluster the other run tells; untold in every run, the untold share one cluster.
    const lacking = { ...r2, units: { ...r2.units, clusters: ["k1", "k1", `${UNTOLD_CLUSTER}"task"`, "k2"] } };
    expect(trendOf("m", [r1, lacking]).clusters).toBe(2);
    const never = (r: TrendRun): TrendRun => ({
      ...r,
      units: { ...r.units, clusters: [`${UNTOLD_CLUSTER}"task"`, `${UNTOLD_CLUSTER}"task"`, null, null] },
    });
    expect(trendOf("m", [never(r1), never(r2)]).clusters).toBe(3);
    // Harbor-shaped units carry none: each its own.
    expect(
      trendOf("m", [run("a", r1.started_at, { s1: 1, s2: 1 }), run("b", r2.started_at, { s1: 0, s2: 1 })]).clusters,
    ).toBe(2);
  });
});

describe("the trend in the text formats", () => {
  const t = trendOf("accuracy", [
    run("a<b>|*.json", "2026-03-01T10:00:00.000Z", { x: 1, y: 1, z: 0.5 }),
    run("b.json", "2026-03-02T10:00:00.000Z", { x: 0.5, y: 1, z: 0.5 }),
    run("c.json", "2026-03-03T10:00:00.000Z", { x: 0, y: 0.5, z: 0 }),
  ]);

  it("says the slope, its interval and the verdict in one line, then the runs in order", () => {
    const lines = trendLines(t);
    expect(lines[0]).toBe(
      "accuracy trend over 3 runs in start-time order (UTC): −33.3 pts per run within 3 tasks, 95% interval [−69.2 pts, +2.5 pts] per run (cluster-robust, t on 2 df): no trend detected (the interval holds 0, which is no evidence the figure is steady)",
    );
    expect(lines.slice(1, 5).map((l) => l.trimEnd())).toEqual([
      "  #  started                   run          value",
      "  1  2026-03-01T10:00:00.000Z  a<b>|*.json  83.3%",
      "  2  2026-03-02T10:00:00.000Z  b.json       66.7%",
      "  3  2026-03-03T10:00:00.000Z  c.json       16.7%",
    ]);
    expect(lines.some((l) => l.startsWith("  assumes: the runs in start-time order"))).toBe(true);
  });

  it("says why there is no slope, and makes hostile names safe in each format", () => {
    const hostile = trendOf("m", [
      run("x\u001b[31m.json", null, { x: 1 }),
      run("<script>|x.json", "2026-01-01T00:00:00Z", { x: 0 }),
    ]);
    expect(trendLines(hostile)[0]).toBe(
      "m trend over 2 runs: not estimated: x\\u001b[31m.json records no start time: the runs cannot be ordered, no trend",
    );
    expect(trendLines(hostile).join("\n")).not.toContain("\u001b");
    expect(trendMd(hostile)).toContain("&lt;script\\>\\|x.json");
    expect(trendHtml(hostile)).toContain("&lt;script&gt;|x.json");
    expect(trendHtml(hostile)).not.toContain("<script>");
    expect(trendMd(t)).toMatch(/^\*\*accuracy trend over 3 runs/);
    expect(trendHtml(t)).toMatch(/^<p class="trend">accuracy trend over 3 runs/);
  });

  it("marks a degrading trend as such in HTML", () => {
    const falling = (v: number, d: string) =>
      run(d, `2026-01-0${d}T00:00:00Z`, { a: v, b: v - 0.1, c: v + 0.05, e: v - 0.02 * Number(d) });
    const down = trendOf("m", [falling(0.9, "1"), falling(0.6, "2"), falling(0.3, "3"), falling(0.05, "4")]);
    expect(down.verdict).toBe("degrading");
    expect(trendHtml(down)).toMatch(/^<p class="reg">/);
    expect(trendLines(down)[0]).toMatch(/: degrading \(the interval lies below 0\)$/);
  });
});

describe("docs/metrics.md's worked example: three Harbor jobs, three tasks", () => {
  it("the page's block is what trendLines prints for it", () => {
    const page = readFileSync(new URL("../docs/metrics.md", import.meta.url), "utf8");
    const block = /<!-- worked example: trend -->\n```\n([^]*?)```/.exec(page)![1]!.trimEnd().split("\n");
    const t = trendOf("reward/reward/mean", [
      run("jobs-mar-03.json", "2026-03-03T10:00:00.000Z", { x: 0, y: 0.5, z: 0 }),
      run("jobs-mar-01.json", "2026-03-01T10:00:00.000Z", { x: 1, y: 1, z: 0.5 }),
      run("jobs-mar-02.json", "2026-03-02T10:00:00.000Z", { x: 0.5, y: 1, z: 0.5 }),
    ]);
    expect(block).toEqual(trendLines(t).slice(0, 5));
    expect(t.slope!).toBeCloseTo(-1 / 3, 12);
    expect(t.se!).toBeCloseTo(1 / 12, 12);
  });
});
