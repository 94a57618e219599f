// The interval of a metric (contract §13.2): a mean over units in clusters of units that share a
// task. Repeats of one task are not independent trials, so where a cluster holds more than one
// unit the interval is the cluster-robust t interval (Inspect's clustered `stderr`, with its
// finite-cluster correction; Miller 2024, appendix A), not Wilson's. Pure.
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
import { tQuantile } from "./student-t.js";

export type IntervalMethod = "wilson" | "t" | "cluster-t";

/** §13.2's `interval` object. */
export interface Interval {
  method: IntervalMethod;
  lo: number;
  hi: number;
  /** Units the mean is over, and the clusters they fall in. */
  units: number;
  clusters: number;
  /** The standard error behind the interval (null for Wilson). */
  se: number | null;
  /** (SE / (s/√n))²: how much wider clustering makes the variance (cluster-t only; null when s = 0). */
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
    if (clusters < 2) return { interval: null, reason: `all ${plural(n, noun.unit)} are in one ${noun.cluster}: no interval from a single ${noun.cluster}` };
    const mean = this.sum / n;
    // Scores and rewards are of modest size, so the sums below lose nothing an interval printed to 3
    // decimals shows; exact equality (s = 0) is tracked apart rather than read from a difference of sums.
    const ss = this.allEqual ? 0 : Math.max(0, this.sumSq - n * mean * mean);
    const s = Math.sqrt(ss / (n - 1));
    const inUnit = this.min >= 0 && this.max <= 1;
    const clip = (lo: number, hi: number) => (inUnit ? [Math.max(0, lo), Math.min(1, hi)] : [lo, hi]) as [number, number];
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
    // Σ_c (Σ_{i∈c} (x_i − x̄))² = Σ_c (S_c − n_c·x̄)².
    let between = 0;
    if (!this.allEqual) {
      for (const c of this.named.values()) between += (c.s - c.n * mean) ** 2;
      between += Math.max(0, this.lone.a - 2 * mean * this.lone.b + mean * mean * this.lone.c);
    }
    const se = Math.sqrt((clusters / (clusters - 1)) * between) / n;
    const half = tQuantile(0.975, clusters - 1) * se;
    const [lo, hi] = clip(mean - half, mean + half);
    const [ilo, ihi] = independent();
    return {
      interval: { method: "cluster-t", lo: Math.min(lo, ilo), hi: Math.max(hi, ihi), units: n, clusters, se, design_effect: s === 0 ? null : (se / naive) ** 2 },
      reason: null,
    };
  }
}

/** Convenience: the interval of plain units (a null cluster: the unit alone). */
export function intervalOf(units: readonly Unit[], noun?: { unit: string; cluster: string }): IntervalOutcome {
  const s = new UnitSet();
  for (const u of units) s.add(u.x, u.cluster, u.n ?? 1);
  return s.interval(noun);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
