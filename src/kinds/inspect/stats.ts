// Inspect's reducers and built-in metrics, written from their documented rules (scorer/_reducer,
// scorer/_metrics), and the agreement test between two figures (contract §12). Pure.

import { allPassChance, passAtK } from "../../core/batch/stats.js";
import { valueToFloat } from "./value.js";

/** The five metrics assay recomputes. */
export const BUILT_IN_METRICS = ["accuracy", "mean", "stderr", "std", "var"] as const;
export type BuiltInMetric = (typeof BUILT_IN_METRICS)[number];
export const isBuiltInMetric = (name: string): name is BuiltInMetric =>
  (BUILT_IN_METRICS as readonly string[]).includes(name);

/** |a − b| ≤ max(1e-9 · max(|a|, |b|), 1e-12); NaN agrees only with NaN. */
export function agree(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  return Math.abs(a - b) <= Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), 1e-12);
}

/**
 * A value standing for `n` equal values in a row. A plan's records are counted, never enumerated
 * (`epochs` is the log's word and may be 10^7): the records a log lacks enter a reduction or a
 * metric as one zero of weight n. Only such zeros weigh more than 1.
 */
export interface Weighted<T = number> {
  v: T;
  n: number;
}

const one = <T>(v: T): Weighted<T> => ({ v, n: 1 });
const total = (xs: readonly Weighted<unknown>[]): number => xs.reduce((a, x) => a + x.n, 0);

/** Repeated additions up to this many are done one by one, so a small weight gives the same bits as the values written out. */
const ADD_ONE_BY_ONE = 1 << 16;
/** `s` plus `t`, `n` times over, as a sequential sum would give it (past ADD_ONE_BY_ONE: `t × n` added once). */
function addRepeated(s: number, t: number, n: number): number {
  if (n > ADD_ONE_BY_ONE) return s + t * n;
  for (let i = 0; i < n; i++) s += t;
  return s;
}

const sampleVariance = (xs: readonly Weighted[]): number => {
  const m = exactMeanOf(xs);
  let s = 0;
  for (const x of xs) s = addRepeated(s, (x.v - m) * (x.v - m), x.n);
  return s / (total(xs) - 1);
};

/**
 * A built-in metric over the reduced values (NaN already dropped): accuracy is a sequential sum
 * over n; stderr, std and var use n − 1 and are 0 below two values. Nothing left: NaN (Inspect
 * makes every metric NaN when no sample was scored).
 */
export function metric(name: BuiltInMetric, xs: readonly number[]): number {
  return weightedMetric(name, xs.map(one));
}

/** metric() over weighted values (each standing for n equal ones). */
export function weightedMetric(name: BuiltInMetric, xs: readonly Weighted[]): number {
  const n = total(xs);
  if (n === 0) return NaN;
  switch (name) {
    case "accuracy": {
      let s = 0;
      for (const x of xs) s = addRepeated(s, x.v, x.n);
      return s / n;
    }
    case "mean":
      return exactMeanOf(xs);
    case "var":
      return n < 2 ? 0 : sampleVariance(xs);
    case "std":
      return n < 2 ? 0 : Math.sqrt(sampleVariance(xs));
    case "stderr":
      return n < 2 ? 0 : Math.sqrt(sampleVariance(xs)) / Math.sqrt(n);
  }
}

/**
 * Inspect's clustered `stderr` (std.py `clustered_metric`): √(C/(C−1) · Σ_c (Σ_{i∈c} (x_i − x̄))²) / n
 * over the reduced values and their clusters, and C. No value, or one cluster (numpy's 0/0): NaN.
 */
export function clusteredStderr(xs: readonly (Weighted & { cluster: string })[]): { se: number; clusters: number } {
  const n = total(xs);
  const byCluster = new Map<string, number>();
  if (n === 0) return { se: NaN, clusters: 0 };
  const m = exactMeanOf(xs);
  for (const x of xs) byCluster.set(x.cluster, addRepeated(byCluster.get(x.cluster) ?? 0, x.v - m, x.n));
  const c = byCluster.size;
  if (c < 2) return { se: NaN, clusters: c };
  let between = 0;
  for (const d of byCluster.values()) between += d * d;
  return { se: Math.sqrt((between * c) / (c - 1)) / n, clusters: c };
}

/** A double as an exact integer times a power of two. */
function exact(x: number): { m: bigint; e: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e = biased - 1075;
  if (biased === 0) e = -1074;
  else m |= 1n << 52n;
  return { m: hi >>> 31 ? -m : m, e };
}

/**
 * The mean rounded once, as Python's statistics.mean does (an exact sum of the doubles, divided,
 * then rounded to the nearest double): the mean reducer's figure to the last bit.
 */
export function exactMean(xs: readonly number[]): number {
  return exactMeanOf(xs.map(one));
}

/** Σ v·n when every value is an integer and every product and partial sum is a safe integer (so the sum is exact); else null. */
function safeIntegerSum(xs: readonly Weighted[]): number | null {
  let sum = 0;
  for (const x of xs) {
    const p = x.v * x.n;
    if (!Number.isInteger(x.v) || Math.abs(p) > Number.MAX_SAFE_INTEGER) return null;
    sum += p;
    if (Math.abs(sum) > Number.MAX_SAFE_INTEGER) return null;
  }
  return sum;
}

/** exactMean over weighted values. */
export function exactMeanOf(xs: readonly Weighted[]): number {
  const count = total(xs);
  if (count === 0) return NaN;
  if (!xs.every((x) => Number.isFinite(x.v))) return xs.reduce((a, x) => addRepeated(a, x.v, x.n), 0) / count;
  const integers = safeIntegerSum(xs);
  // Both exact: their quotient, rounded once by the division, is the exact mean rounded.
  if (integers !== null && count <= Number.MAX_SAFE_INTEGER) return integers / count;
  // Each distinct value once, with its weight (most scores take a few values: 0, 1, 0.5).
  const weights = new Map<number, bigint>();
  for (const x of xs) if (x.v !== 0) weights.set(x.v, (weights.get(x.v) ?? 0n) + BigInt(x.n));
  const parts = [...weights].map(([v, w]) => ({ ...exact(v), w }));
  if (parts.length === 0) return 0;
  let e0 = Infinity; // a loop, not Math.min(...): a million values spread as arguments overflow the stack
  for (const p of parts) if (p.e < e0) e0 = p.e;
  let sum = 0n;
  for (const p of parts) sum += (p.m * p.w) << BigInt(p.e - e0);
  if (sum === 0n) return 0;
  const neg = sum < 0n;
  const n = BigInt(count);
  // Quotient with 64 bits to spare, then cut to its top 64 bits; the remainder and the bits cut
  // off survive as a sticky last bit, so BigInt → Number rounds exactly as the rational would.
  let q = ((neg ? -sum : sum) << 64n) / n;
  let sticky = ((neg ? -sum : sum) << 64n) % n !== 0n;
  let e = e0 - 64;
  const cut = q.toString(2).length - 64;
  if (cut > 0) {
    sticky ||= (q & ((1n << BigInt(cut)) - 1n)) !== 0n;
    q >>= BigInt(cut);
    e += cut;
  }
  if (sticky) q |= 1n;
  // In two steps: 2^e alone underflows for tiny values.
  const r = Number(q) * 2 ** Math.max(e, -1000) * 2 ** Math.min(0, e + 1000);
  return neg ? -r : r;
}

/** A reducer's name parsed: the seven assay recomputes, or null for any other. */
export type Reducer =
  { kind: "mean" | "median" | "mode" | "max" } | { kind: "at_least" | "pass_at" | "pass_k"; k: number };
export function parseReducer(name: string | null): Reducer | null {
  if (name === null || name === "mean") return { kind: "mean" };
  if (name === "median" || name === "mode" || name === "max") return { kind: name };
  const m = /^(at_least|pass_at|pass_k)_(\d+)$/.exec(name);
  if (m === null || Number(m[2]) < 1) return null;
  return { kind: m[1] as "at_least" | "pass_at" | "pass_k", k: Number(m[2]) };
}

/** Python's equality for Counter keys: 1, 1.0 and True are one key; strings are themselves. */
const counterKey = (v: unknown): string => (typeof v === "string" ? `s${v}` : `n${Number(v)}`);

/**
 * Reduce one sample's epoch values (raw scalars) as Inspect's reducer does; the result as a float
 * (value_to_float of what mode and max return). NaN epochs are skipped; none left is NaN.
 */
export function reduce(r: Reducer, raw: readonly unknown[], version: readonly number[] | null): number {
  return reduceWeighted(r, raw.map(one), version);
}

/** reduce() over weighted values (each standing for n equal ones, in its place). */
export function reduceWeighted(
  r: Reducer,
  raw: readonly Weighted<unknown>[],
  version: readonly number[] | null,
): number {
  const values = raw.filter((x) => !(typeof x.v === "number" && Number.isNaN(x.v)));
  const floats = values.map((x) => ({ v: valueToFloat(x.v, version).x, n: x.n })).filter((x) => !Number.isNaN(x.v));
  if (values.length === 0 || floats.length === 0) return NaN;
  const n = total(floats);
  const passes = floats.reduce((a, x) => a + (x.v >= 1 ? x.n : 0), 0);
  switch (r.kind) {
    case "mean":
      return exactMeanOf(floats);
    case "median": {
      const s = [...floats].sort((a, b) => a.v - b.v);
      // The i-th value (0-based) of the sorted values written out.
      const at = (i: number): number => {
        for (const x of s) {
          if (i < x.n) return x.v;
          i -= x.n;
        }
        return NaN;
      };
      const h = Math.floor(n / 2);
      return n % 2 === 1 ? at(h) : (at(h - 1) + at(h)) / 2;
    }
    case "mode": {
      // Counter.most_common(1): the highest count, the first seen among equals.
      const counts = new Map<string, { n: number; v: unknown }>();
      for (const x of values) {
        const k = counterKey(x.v);
        const c = counts.get(k);
        if (c) c.n += x.n;
        else counts.set(k, { n: x.n, v: x.v });
      }
      let best: { n: number; v: unknown } | null = null;
      for (const c of counts.values()) if (best === null || c.n > best.n) best = c;
      return valueToFloat(best!.v, version).x;
    }
    case "max": {
      let m = -Infinity; // a loop, not Math.max(...): a million epochs spread as arguments overflow the stack
      for (const x of floats) m = Math.max(m, x.v);
      return m;
    }
    case "at_least":
      return passes >= r.k ? 1 : 0;
    case "pass_at":
      return n < r.k ? NaN : passAtK(passes, n, r.k);
    case "pass_k":
      return n < r.k ? NaN : allPassChance(passes, n, r.k);
  }
}
