// Paired comparison of two runs over the units both hold (contract §13.4, §13.7): the mean
// difference with its paired (or cluster-paired) t interval, the smallest difference the comparison
// could detect (mde80), the test that decides p and a regression (McNemar, t, or the sign test);
// Holm's step-down adjustment over many pairs and the tie groups of a ranking. Pure.

import { mcnemarDrop, mcnemarExact, floorP, signTest } from "./binomial.js";
import { tQuantile, tTwoSided } from "./student-t.js";
import { plural } from "../text.js";

/** How a paired difference was tested (§13.7). */
export type PairedTest = "paired-t" | "cluster-paired-t" | "mcnemar" | "sign" | "none";

export interface PairedDifference {
  pairs: number;
  /** Clusters the pairs fall in where some cluster holds two or more of them (cluster-paired-t), else null. */
  clusters: number | null;
  mean_diff: number | null;
  /**
   * mean_diff ± t(0.975, df)·SE, never clipped (a difference may be negative): `paired-t` (SE = s_d/√P,
   * df P − 1) or `cluster-paired-t` (SE the cluster-robust one, floored by s_d/√P, df C − 1). Null below
   * 2 pairs (or 2 clusters) and when SE = 0.
   */
  interval: { method: "paired-t" | "cluster-paired-t"; lo: number; hi: number } | null;
  se: number | null;
  df: number | null;
  /** (t(0.975, df) + t(0.80, df))·SE: approximate (it takes the observed SE as the true one); null with the interval. */
  mde80: number | null;
  /** What decides p and `regression`. */
  test: PairedTest;
  /** Two-sided p of `test`: 1 where there is no information (P < 2, C < 2, every difference 0); never 0 from no information. */
  p: number;
  /** McNemar's counts where every unit is 0/1 on both sides: b = 1→0, c = 0→1 (null otherwise). */
  discordant: { b: number; c: number } | null;
  /** A drop that is not chance, by `test` (§13.7); never below 2 pairs. */
  regression: boolean;
  /** Why there is no interval (null when there is one). */
  reason: string | null;
}

/** The pairs of one comparison: each unit's BASE and HEAD values in step, and (optionally) its cluster (null: its own). */
export interface Pairs {
  base: ArrayLike<number>;
  head: ArrayLike<number>;
  clusters?: ArrayLike<string | null> | null;
}

/**
 * Differences this close, relative to the values' size, are one (a Harbor task mean summed in
 * another order differs in its last bits; rewards of a million differ by 1e-10): rounding must not
 * pass for spread, or p ≈ 0 would come from no information.
 */
const ROUNDING = 1e-12;

/** The rounding a difference of these values can carry: ROUNDING, scaled by the largest value. */
function roundingOf(pairs: Pairs): number {
  let most = 1;
  for (let i = 0; i < pairs.base.length; i++) most = Math.max(most, Math.abs(pairs.base[i]!), Math.abs(pairs.head[i]!));
  return ROUNDING * most;
}

/**
 * §13.4 with §13.7: the paired difference HEAD − BASE over P units. Where units share a cluster
 * (a task repeated), the differences of one cluster move together, so the SE is the
 * cluster-robust one over them (never below s_d/√P) with C − 1 degrees of freedom. Where every unit
 * is 0/1 on both sides and none shares a cluster, exact McNemar decides. Degenerate cases claim
 * nothing: P < 2 or C < 2 give p = 1; equal differences (SE = 0) give the exact sign test, over
 * the clusters where clustered.
 */
export function pairedDifference(pairs: Pairs, unit = "unit"): PairedDifference {
  const P = pairs.base.length;
  const none = {
    clusters: null,
    interval: null,
    se: null,
    df: null,
    mde80: null,
    discordant: null,
    regression: false,
  } as const;
  if (P === 0) return { ...none, pairs: 0, mean_diff: null, test: "none", p: 1, reason: `no ${unit} on both sides` };
  const ds = Float64Array.from({ length: P }, (_, i) => pairs.head[i]! - pairs.base[i]!);
  let sum = 0;
  for (const d of ds) sum += d;
  const mean = sum / P;
  const discordant = discordantOf(pairs);
  if (P < 2)
    return {
      ...none,
      pairs: P,
      mean_diff: mean,
      discordant,
      test: "none",
      p: 1,
      reason: `one ${unit} on both sides: no interval or test from a single pair`,
    };
  const groups = clusterSums(ds, pairs.clusters ?? null, mean);
  const clustered = groups !== null && groups.size < P;
  const C = clustered ? groups.size : P;
  if (clustered && C < 2)
    return {
      ...none,
      pairs: P,
      clusters: C,
      mean_diff: mean,
      discordant,
      test: "none",
      p: 1,
      reason: `all ${plural(P, unit)} on both sides are in one cluster: no interval or test from a single cluster`,
    };
  let ss = 0;
  let allEqual = true;
  const rounding = roundingOf(pairs);
  for (const d of ds) {
    ss += (d - mean) * (d - mean);
    if (Math.abs(d - ds[0]!) > rounding) allEqual = false;
  }
  const naive = allEqual ? 0 : Math.sqrt(ss / (P - 1)) / Math.sqrt(P);
  let between = 0;
  if (clustered && !allEqual) for (const s of groups.values()) between += s * s;
  const se = clustered ? Math.max(Math.sqrt((C / (C - 1)) * between) / P, naive) : naive;
  const base = {
    pairs: P,
    clusters: clustered ? C : null,
    mean_diff: mean,
    discordant,
    se,
    df: null,
    interval: null,
    mde80: null,
    reason: null,
  };
  // Every pair differs by the same amount (SE = 0): the t has no spread to measure, and a
  // zero-width "interval" (or an mde80 of 0) would claim certainty.
  const zero = Math.abs(mean) <= rounding;
  const flat =
    se === 0
      ? `all ${plural(P, unit)} ${zero ? "agree exactly (every difference 0)" : `differ by exactly ${Number(mean.toPrecision(6))}`}: no spread, so no interval`
      : null;
  const spread = flat !== null ? { reason: flat } : withInterval(mean, se, C - 1, clustered);
  if (discordant !== null && !clustered) {
    const { b, c } = discordant;
    return { ...base, ...spread, test: "mcnemar", p: mcnemarExact(b, c), regression: mcnemarDrop(b, c) };
  }
  if (flat !== null) {
    if (zero) return { ...base, ...spread, test: "none", p: 1, regression: false };
    // The exact sign test: how unlikely that many equal-signed differences are by chance,
    // counting clusters, not repeats, where clustered.
    const p = signTest(C);
    const counted = clustered ? plural(C, "cluster") : plural(P, unit);
    return {
      ...base,
      test: "sign",
      p,
      regression: mean < 0 && p < 0.05,
      reason: `${flat}; exact sign test over ${counted} p = ${p.toPrecision(3)}`,
    };
  }
  const p = floorP(tTwoSided(mean / se, C - 1));
  return { ...base, ...spread, test: clustered ? "cluster-paired-t" : "paired-t", p, regression: mean < 0 && p < 0.05 };
}

/** The t interval of a difference and its mde80, over df degrees of freedom. */
function withInterval(mean: number, se: number, df: number, clustered: boolean) {
  const t975 = tQuantile(0.975, df);
  const method = clustered ? ("cluster-paired-t" as const) : ("paired-t" as const);
  return {
    df,
    interval: { method, lo: mean - t975 * se, hi: mean + t975 * se },
    mde80: (t975 + tQuantile(0.8, df)) * se,
  };
}

/** b (1→0) and c (0→1) where every unit is 0 or 1 on both sides, else null. */
function discordantOf(pairs: Pairs): { b: number; c: number } | null {
  let b = 0;
  let c = 0;
  for (let i = 0; i < pairs.base.length; i++) {
    const [x, y] = [pairs.base[i]!, pairs.head[i]!];
    if ((x !== 0 && x !== 1) || (y !== 0 && y !== 1)) return null;
    if (x > y) b++;
    else if (x < y) c++;
  }
  return { b, c };
}

/** Per cluster, Σ (d_u − d̄) over its units (a null cluster: the unit alone); null without clusters. */
function clusterSums(
  ds: Float64Array,
  clusters: ArrayLike<string | null> | null,
  mean: number,
): Map<string, number> | null {
  if (clusters === null) return null;
  const sums = new Map<string, number>();
  for (let i = 0; i < ds.length; i++) {
    const k = clusters[i] ?? `\u0000${i}`;
    sums.set(k, (sums.get(k) ?? 0) + ds[i]! - mean);
  }
  return sums;
}

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
