// The interval of a metric (contract §13.2): a mean over units in clusters of units that share a
// task. Repeats of one task are not independent trials, so where a cluster holds more than one
// unit the interval is the cluster-robust t interval (Inspect's clustered `stderr`, with its
// finite-cluster correction; Miller 2024, appendix A), not Wilson's. Pure.

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
}

/** An interval, or why there is none. */
export type IntervalOutcome = { interval: Interval; reason: null } | { interval: null; reason: string };

/** One unit: its value in [0, 1], its cluster, and (a run of equal units counted once) its weight. */
export interface Unit {
  x: number;
  cluster: string;
  n?: number;
}

/** §13.2's two fields of a metric object (`interval`, `interval_reason`) from an outcome. */
export const intervalFields = (o: IntervalOutcome) => ({ interval: o.interval, interval_reason: o.reason });

const clip = (v: number) => Math.min(1, Math.max(0, v));

/**
 * Units gathered one at a time (each kind adds its own as it counts them), then the interval of
 * their mean. `noun` and `clusterNoun` name them in a reason ("1 trial", "12 tasks").
 */
export class UnitSet {
  private readonly xs: number[] = [];
  private readonly ws: number[] = [];
  private readonly cs: number[] = [];
  private readonly clusterIds = new Map<string, number>();

  add(x: number, cluster: string, n = 1): void {
    if (n <= 0) return;
    let c = this.clusterIds.get(cluster);
    if (c === undefined) this.clusterIds.set(cluster, (c = this.clusterIds.size));
    this.xs.push(x);
    this.ws.push(n);
    this.cs.push(c);
  }

  get size(): number {
    let n = 0;
    for (const w of this.ws) n += w;
    return n;
  }

  interval(noun: { unit: string; cluster: string } = { unit: "unit", cluster: "cluster" }): IntervalOutcome {
    return metricInterval(this.xs, this.ws, this.cs, this.clusterIds.size, noun);
  }
}

/** Convenience: the interval of plain units. */
export function intervalOf(units: readonly Unit[], noun?: { unit: string; cluster: string }): IntervalOutcome {
  const s = new UnitSet();
  for (const u of units) s.add(u.x, u.cluster, u.n ?? 1);
  return s.interval(noun);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function metricInterval(xs: readonly number[], ws: readonly number[], cs: readonly number[], clusters: number, noun: { unit: string; cluster: string }): IntervalOutcome {
  let n = 0;
  let sum = 0;
  let binary = true;
  let successes = 0;
  for (let i = 0; i < xs.length; i++) {
    n += ws[i]!;
    sum += xs[i]! * ws[i]!;
    if (xs[i] === 1) successes += ws[i]!;
    else if (xs[i] !== 0) binary = false;
  }
  if (n === 0) return { interval: null, reason: `no ${noun.unit} counted` };
  if (n < 2) return { interval: null, reason: `one ${noun.unit}: no interval from a single value` };
  if (clusters < 2) return { interval: null, reason: `all ${plural(n, noun.unit)} are in one ${noun.cluster}: no interval from a single ${noun.cluster}` };
  const mean = sum / n;
  // Two passes: deviations from the mean, never Σx² − n·x̄² (which cancels to nonsense near s = 0).
  let ss = 0;
  let allEqual = true;
  const devByCluster = new Float64Array(clusters);
  for (let i = 0; i < xs.length; i++) {
    const d = xs[i]! - mean;
    ss += ws[i]! * d * d;
    devByCluster[cs[i]!]! += ws[i]! * d;
    if (xs[i] !== xs[0]) allEqual = false;
  }
  const s = allEqual ? 0 : Math.sqrt(ss / (n - 1));
  if (clusters === n) {
    if (binary) {
      const w = wilson95(successes, n)!;
      return { interval: { method: "wilson", lo: w[0], hi: w[1], units: n, clusters, se: null, design_effect: null }, reason: null };
    }
    const se = s / Math.sqrt(n);
    const half = tQuantile(0.975, n - 1) * se;
    return { interval: { method: "t", lo: clip(mean - half), hi: clip(mean + half), units: n, clusters, se, design_effect: null }, reason: null };
  }
  let between = 0;
  if (!allEqual) for (const d of devByCluster) between += d * d;
  const se = Math.sqrt((clusters / (clusters - 1)) * between) / n;
  const half = tQuantile(0.975, clusters - 1) * se;
  const naive = s / Math.sqrt(n);
  return {
    interval: { method: "cluster-t", lo: clip(mean - half), hi: clip(mean + half), units: n, clusters, se, design_effect: s === 0 ? null : (se / naive) ** 2 },
    reason: null,
  };
}
