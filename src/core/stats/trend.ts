// The trend of a paired figure over runs (issue 37): the within-unit (fixed-effects) slope of the
// units' values on the runs' positions, with a cluster-robust interval. Pure.
//
// Each unit g (a task, a sample, a trial slot) has values y_gt at run positions t. Demeaning t and
// y within each unit absorbs the unit's own level, so only how a unit moves from run to run counts
// (a hard task held by fewer runs does not pass for a drop). β = Σ t̃ỹ / Σ t̃². Its SE is
// cluster-robust (CR1, Cameron & Miller 2015 §III–IV) over clusters of units (a task's trials are one
// cluster): V = G/(G−1) · Σ_c (Σ_{gt∈c} t̃·e)² / (Σ t̃²)². The unit effects are nested in the
// clusters, so they are not counted in K (Cameron & Miller §IV.C: counting them would inflate the
// factor without bound as units grow); K = 1 makes Stata's (N−1)/(N−K) equal 1, leaving G/(G−1),
// the factor §13.2 and Inspect's clustered stderr use. As everywhere in assay (§13.7) the SE is
// never below the one that takes every observation as independent (the classical fixed-effects SE,
// σ̂² = Σe²/(N − U − 1)), and the interval is β ± t(0.975, G−1)·SE.

import { tQuantile } from "./student-t.js";
import { plural } from "../text.js";

/** One unit's values at its run positions (in step); `cluster` groups units that move together. */
export interface UnitSeries {
  cluster: string;
  at: readonly number[];
  values: readonly number[];
}

export interface WithinSlope {
  /** Change of the value per run position, within units; null without a unit held at two positions. */
  slope: number | null;
  /** β ± t(0.975, G−1)·SE; null with `reason`. */
  interval: { lo: number; hi: number } | null;
  se: number | null;
  df: number | null;
  /** Units held at two positions or more: the ones the slope is of. */
  units: number;
  /** Clusters those units fall in (G). */
  clusters: number;
  /** Units held at one position only: no within-unit change to measure, left out. */
  left_out: number;
  /** Why there is no slope or no interval (null when there is an interval). */
  reason: string | null;
}

export type Verdict = "degrading" | "improving" | "no trend detected" | "not estimated";

/** Residuals this small relative to the values are rounding, not spread (as in stats/paired.ts). */
const ROUNDING = 1e-12;

/** A unit's deviations from its own means: t̃ and ỹ, in step. */
function demeaned(s: UnitSeries): { t: number[]; y: number[] } {
  const n = s.at.length;
  const mt = s.at.reduce((a, b) => a + b, 0) / n;
  const my = s.values.reduce((a, b) => a + b, 0) / n;
  return { t: s.at.map((v) => v - mt), y: s.values.map((v) => v - my) };
}

/** The within-unit slope of `series` on their positions, with its cluster-robust interval. */
export function withinSlope(series: readonly UnitSeries[]): WithinSlope {
  const used = series.filter((s) => s.at.length >= 2);
  const left_out = series.length - used.length;
  const d = used.map(demeaned);
  let sxx = 0;
  let sxy = 0;
  for (const { t, y } of d) t.forEach((ti, i) => ((sxx += ti * ti), (sxy += ti * y[i]!)));
  const clusters = new Set(used.map((s) => s.cluster)).size;
  const base = { units: used.length, clusters, left_out, interval: null, se: null, df: null };
  if (used.length === 0)
    return { ...base, slope: null, reason: "no unit is held by two runs: no change within a unit to measure" };
  if (sxx === 0)
    return { ...base, slope: null, reason: "every unit's runs are at one position: no change over runs to measure" };
  const slope = sxy / sxx;
  if (clusters < 2) {
    const what =
      used.length === 1 ? "one unit held by two runs or more" : `all ${plural(used.length, "unit")} are in one cluster`;
    return { ...base, slope, reason: `${what}: no cluster-robust interval from a single cluster` };
  }
  const scores = new Map<string, number>();
  let sse = 0;
  let largest = 1;
  let n = 0;
  used.forEach((s, g) => {
    const { t, y } = d[g]!;
    let score = 0;
    t.forEach((ti, i) => {
      const e = y[i]! - slope * ti;
      score += ti * e;
      sse += e * e;
      largest = Math.max(largest, Math.abs(s.values[i]!));
      n++;
    });
    scores.set(s.cluster, (scores.get(s.cluster) ?? 0) + score);
  });
  // Every unit moved by exactly β per run: the slope is exact, and a zero-width interval would claim certainty it has not earned.
  if (Math.sqrt(sse / n) <= ROUNDING * largest)
    return {
      ...base,
      slope,
      reason: `every unit moves by exactly ${Number(slope.toPrecision(6))} per run: no spread around the slope, so no interval`,
    };
  let between = 0;
  for (const s of scores.values()) between += s * s;
  const robust = ((clusters / (clusters - 1)) * between) / (sxx * sxx);
  // The classical fixed-effects variance needs a residual degree of freedom beyond the units' levels and the slope.
  const residualDf = n - used.length - 1;
  const classical = residualDf > 0 ? sse / residualDf / sxx : 0;
  const se = Math.sqrt(Math.max(robust, classical));
  const df = clusters - 1;
  const half = tQuantile(0.975, df) * se;
  return { ...base, slope, se, df, interval: { lo: slope - half, hi: slope + half }, reason: null };
}

/** What an interval of the slope says: a direction only where it excludes 0. */
export function verdictOf(interval: { lo: number; hi: number } | null): Verdict {
  if (interval === null) return "not estimated";
  if (interval.hi < 0) return "degrading";
  if (interval.lo > 0) return "improving";
  return "no trend detected";
}
