// The interval of a metric (contract §13.2): a mean over units in clusters of units that share a
// task. Repeats of one task are not independent trials, so where a cluster holds more than one
// unit the interval is the cluster-robust t interval (Inspect's clustered `stderr`, with its
// finite-cluster correction; Miller 2024, appendix A), not Wilson's. Binary units in such
// clusters get the Korn–Graubard interval instead (§13.7; Korn & Graubard 1998): a t interval
// around a rare success rate over few tasks covers far less than 95% (72% at μ = 0.15, ρ = 0.5, 3
// tasks × 8 attempts) and [0, 0.138] for 0 of 24 in 3 tasks; Clopper–Pearson at the design-effect
// and degrees-of-freedom adjusted number of trials stays honest there. Pure.
//
// Two readings beyond §13.2's letter, both so that no interval claims more than its data hold:
// - bounds are clipped to [0, 1] only when every unit lies there (a Harbor reward or an Inspect
//   mean may be any number: clipping those could leave out the mean itself);
// - a cluster-t interval is never narrower than the one that treats every unit as independent.
//   Its SE falls below the independent one only when the clusters' means happen to agree (a design
//   effect below 1, or 0 when every unit is equal): with few clusters that is chance, not
//   information, and 96 passes in 12 tasks are not "[100%, 100%]". `se` and `design_effect` stay
//   the cluster-robust figures, so a reader sees when the floor applied.

import { wilson95 } from "../batch/stats.js";
import { clopperPearson95 } from "./beta.js";
import { tQuantile } from "./student-t.js";
import { plural } from "../text.js";

export type IntervalMethod = "wilson" | "t" | "cluster-t" | "korn-graubard";

/** §13.2's `interval` object. */
export interface Interval {
  method: IntervalMethod;
  lo: number;
  hi: number;
  /** Units the mean is over, and the clusters they fall in. */
  units: number;
  clusters: number;
  /** The standard error behind the interval (null for Wilson; Korn–Graubard: max(SE_c, SE_i)). */
  se: number | null;
  /** (SE / (s/√n))²: how much wider clustering makes the variance (cluster-t: null when s = 0; Korn–Graubard: d, never null). */
  design_effect: number | null;
  /** Of the clusters, how many are units whose cluster nothing names (a Harbor trial naming no task): never counted as tasks. Absent: none. */
  unplaced?: number;
}

/** An interval, or why there is none. */
export type IntervalOutcome = { interval: Interval; reason: null } | { interval: null; reason: string };

/** One unit: its value, its cluster (null: its own), and (a run of equal units counted once) its weight. */
export interface Unit {
  x: number;
  cluster: string | null;
  n?: number;
}

/** §13.2's two fields of a metric object (`interval`, `interval_reason`) from an outcome. */
export const intervalFields = (o: IntervalOutcome) => ({ interval: o.interval, interval_reason: o.reason });

/**
 * Units gathered one at a time (each kind adds its own as it counts them), then the interval of
 * their mean. Nothing is kept per unit: sums per named cluster (tasks are few) and running sums
 * for the rest, so a million trials cost a few numbers, not a million. A unit added without a
 * cluster is a cluster of its own (with weight n, a cluster of n equal units).
 */
export class UnitSet {
  private n = 0;
  private sum = 0;
  private sumSq = 0;
  private binary = true;
  private successes = 0;
  private first: number | null = null;
  private allEqual = true;
  private min = Infinity;
  private max = -Infinity;
  /** Named clusters: Σ x and Σ weight of each. */
  private readonly named = new Map<string, { s: number; n: number }>();
  /** Clusters of one add each: Σ n²x², Σ n²x, Σ n², and how many. */
  private lone = { a: 0, b: 0, c: 0, count: 0 };

  add(x: number, cluster: string | null, n = 1): void {
    if (n <= 0) return;
    this.n += n;
    this.sum += x * n;
    this.sumSq += x * x * n;
    if (x === 1) this.successes += n;
    else if (x !== 0) this.binary = false;
    if (this.first === null) this.first = x;
    else if (x !== this.first) this.allEqual = false;
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
    if (cluster === null) {
      this.lone.a += n * n * x * x;
      this.lone.b += n * n * x;
      this.lone.c += n * n;
      this.lone.count++;
      return;
    }
    const c = this.named.get(cluster);
    if (c === undefined) this.named.set(cluster, { s: x * n, n });
    else {
      c.s += x * n;
      c.n += n;
    }
  }

  get size(): number {
    return this.n;
  }

  interval(noun: { unit: string; cluster: string } = { unit: "unit", cluster: "cluster" }): IntervalOutcome {
    const { n } = this;
    const clusters = this.named.size + this.lone.count;
    if (n === 0) return { interval: null, reason: `no ${noun.unit} counted` };
    if (n < 2) return { interval: null, reason: `one ${noun.unit}: no interval from a single value` };
    if (clusters < 2)
      return {
        interval: null,
        reason: `all ${plural(n, noun.unit)} are in one ${noun.cluster}: no interval from a single ${noun.cluster}`,
      };
    const mean = this.sum / n;
    // Scores and rewards are of modest size, so the sums below lose nothing an interval printed to 3
    // decimals shows; exact equality (s = 0) is tracked apart rather than read from a difference of sums.
    const ss = this.allEqual ? 0 : Math.max(0, this.sumSq - n * mean * mean);
    const s = Math.sqrt(ss / (n - 1));
    const inUnit = this.min >= 0 && this.max <= 1;
    const clip = (lo: number, hi: number) =>
      (inUnit ? [Math.max(0, lo), Math.min(1, hi)] : [lo, hi]) as [number, number];
    const naive = s / Math.sqrt(n);
    // The interval that treats every unit as independent: Wilson's for 0/1 units, else t over n − 1.
    const independent = (): [number, number] => {
      if (this.binary) return wilson95(this.successes, n)!;
      const half = tQuantile(0.975, n - 1) * naive;
      return clip(mean - half, mean + half);
    };
    if (clusters === n) {
      const [lo, hi] = independent();
      const interval: Interval = this.binary
        ? { method: "wilson", lo, hi, units: n, clusters, se: null, design_effect: null }
        : { method: "t", lo, hi, units: n, clusters, se: naive, design_effect: null };
      return { interval, reason: null };
    }
    const se = this.clusteredSe(mean, clusters);
    if (this.binary) return { interval: kornGraubard(mean, n, clusters, se), reason: null };
    const half = tQuantile(0.975, clusters - 1) * se;
    const [lo, hi] = clip(mean - half, mean + half);
    const [ilo, ihi] = independent();
    return {
      interval: {
        method: "cluster-t",
        lo: Math.min(lo, ilo),
        hi: Math.max(hi, ihi),
        units: n,
        clusters,
        se,
        design_effect: s === 0 ? null : (se / naive) ** 2,
      },
      reason: null,
    };
  }

  /** §13.2's cluster-robust SE: √(C/(C−1) · Σ_c (Σ_{i∈c} (x_i − x̄))²) / n, the inner sum being S_c − n_c·x̄. */
  private clusteredSe(mean: number, clusters: number): number {
    let between = 0;
    if (!this.allEqual) {
      for (const c of this.named.values()) between += (c.s - c.n * mean) ** 2;
      between += Math.max(0, this.lone.a - 2 * mean * this.lone.b + mean * mean * this.lone.c);
    }
    return Math.sqrt((clusters / (clusters - 1)) * between) / this.n;
  }
}

/**
 * Korn–Graubard (§13.7): binary units in C clusters, some holding more than one. The design effect
 * d = max(1, (SE_c/SE_i)²) (never below 1: the floor) shrinks the n trials to n* = n/d; that is
 * shrunk again by (t(0.975, n−1)/t(0.975, C−1))², so few clusters cost what their few degrees of
 * freedom cost a t interval; then Clopper–Pearson for x̄·n*_df successes in n*_df trials. n*_df may
 * fall below 1 (4 trials in 2 tasks: 0.19): the interval is then near [0, 1], and rightly so.
 */
function kornGraubard(mean: number, n: number, clusters: number, seC: number): Interval {
  const seI = Math.sqrt((mean * (1 - mean)) / n);
  const d = mean === 0 || mean === 1 ? 1 : Math.max(1, (seC / seI) ** 2);
  const nDf = (n / d) * (tQuantile(0.975, n - 1) / tQuantile(0.975, clusters - 1)) ** 2;
  const [lo, hi] = clopperPearson95(mean * nDf, nDf);
  return { method: "korn-graubard", lo, hi, units: n, clusters, se: Math.max(seC, seI), design_effect: d };
}

/** Convenience: the interval of plain units (a null cluster: the unit alone). */
export function intervalOf(units: readonly Unit[], noun?: { unit: string; cluster: string }): IntervalOutcome {
  const s = new UnitSet();
  for (const u of units) s.add(u.x, u.cluster, u.n ?? 1);
  return s.interval(noun);
}
