// Paired comparison of two runs over the units both hold (contract §13.4): the mean difference
// with its paired t interval, the smallest difference the comparison could detect (mde80), and the
// two-sided p-value; Holm's step-down adjustment over many pairs and the tie groups of a ranking.
// Pure.

import { tQuantile, tTwoSided } from "./student-t.js";

export interface PairedDifference {
  pairs: number;
  mean_diff: number | null;
  /** mean_diff ± t(0.975, P−1)·s_d/√P (never clipped: a difference may be negative); null below 2 pairs or when SE = 0. */
  interval: { method: "paired-t"; lo: number; hi: number } | null;
  se: number | null;
  /** (t(0.975, P−1) + t(0.80, P−1))·SE: the smallest true difference detected with 80% power (null with the interval). */
  mde80: number | null;
  /** Two-sided paired t p-value (P < 2 or SE = 0: 1 when mean_diff is 0, else 0). */
  p: number;
  /** Why there is no interval (null when there is one). */
  reason: string | null;
}

export function pairedDifference(ds: readonly number[], unit = "unit"): PairedDifference {
  const P = ds.length;
  if (P === 0) return { pairs: 0, mean_diff: null, interval: null, se: null, mde80: null, p: 1, reason: `no ${unit} on both sides` };
  let sum = 0;
  for (const d of ds) sum += d;
  const mean = sum / P;
  if (P < 2) return { pairs: P, mean_diff: mean, interval: null, se: null, mde80: null, p: mean === 0 ? 1 : 0, reason: `one ${unit} on both sides: no interval from a single pair` };
  let ss = 0;
  let allEqual = true;
  for (const d of ds) {
    ss += (d - mean) * (d - mean);
    if (d !== ds[0]) allEqual = false;
  }
  const se = allEqual ? 0 : Math.sqrt(ss / (P - 1)) / Math.sqrt(P);
  if (se === 0) {
    // Every pair differs by the same amount: the t has no spread to measure, and a zero-width
    // "interval" (or mde80 of 0) would claim certainty. The exact sign test over the P pairs says
    // how unlikely P equal-signed differences are by chance. p keeps §13.6's reading for rankings.
    const why = mean === 0 ? `all ${P} ${unit}s agree exactly (every difference 0)` : `all ${P} ${unit}s differ by exactly ${Number(mean.toPrecision(6))}; exact sign test p = ${signTest(P).toPrecision(3)}`;
    return { pairs: P, mean_diff: mean, interval: null, se: 0, mde80: null, p: mean === 0 ? 1 : 0, reason: `${why}: the paired t has no spread to measure, so no interval` };
  }
  const t975 = tQuantile(0.975, P - 1);
  const p = tTwoSided(mean / se, P - 1);
  return {
    pairs: P,
    mean_diff: mean,
    interval: { method: "paired-t", lo: mean - t975 * se, hi: mean + t975 * se },
    se,
    mde80: (t975 + tQuantile(0.8, P - 1)) * se,
    p,
    reason: null,
  };
}

/** The exact two-sided sign test of P differences all of one sign: 2·½^P (at most 1). */
export const signTest = (P: number): number => Math.min(1, 2 * 0.5 ** P);

/**
 * Holm (1979): with the m p-values sorted ascending p_(1) ≤ … ≤ p_(m), the adjusted
 * p_(i) = max over j ≤ i of min(1, (m − j + 1)·p_(j)). Returned in the input's order.
 */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/**
 * Tie groups down a ranking (§13.6): the best run not yet grouped opens a group, and every
 * ungrouped run whose adjusted p against that run is ≥ 0.05 joins it; repeat. `ranked` is best
 * first; `adjusted(a, b)` gives the Holm-adjusted p of two runs. Returns each run's group (from 1).
 */
export function tieGroups(ranked: readonly number[], adjusted: (a: number, b: number) => number): Map<number, number> {
  const group = new Map<number, number>();
  let next = 1;
  for (const leader of ranked) {
    if (group.has(leader)) continue;
    const g = next++;
    group.set(leader, g);
    for (const r of ranked) if (!group.has(r) && adjusted(leader, r) >= 0.05) group.set(r, g);
  }
  return group;
}
