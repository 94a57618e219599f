// Inspect's reducers and built-in metrics, written from their documented rules (scorer/_reducer,
// scorer/_metrics), and the agreement test between two figures (contract §12). Pure.

import { allPassChance, passAtK } from "../batch/stats.js";
import { valueToFloat } from "./value.js";

/** The five metrics assay recomputes. */
export const BUILT_IN_METRICS = ["accuracy", "mean", "stderr", "std", "var"] as const;
export type BuiltInMetric = (typeof BUILT_IN_METRICS)[number];
export const isBuiltInMetric = (name: string): name is BuiltInMetric => (BUILT_IN_METRICS as readonly string[]).includes(name);

/** |a − b| ≤ max(1e-9 · max(|a|, |b|), 1e-12); NaN agrees only with NaN. */
export function agree(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  return Math.abs(a - b) <= Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), 1e-12);
}

const sampleVariance = (xs: readonly number[]): number => {
  const m = exactMean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) * (x - m);
  return s / (xs.length - 1);
};

/**
 * A built-in metric over the reduced values (NaN already dropped): accuracy is a sequential sum
 * over n; stderr, std and var use n − 1 and are 0 below two values. Nothing left: NaN (Inspect
 * makes every metric NaN when no sample was scored).
 */
export function metric(name: BuiltInMetric, xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  switch (name) {
    case "accuracy": {
      let s = 0;
      for (const x of xs) s += x;
      return s / xs.length;
    }
    case "mean":
      return exactMean(xs);
    case "var":
      return xs.length < 2 ? 0 : sampleVariance(xs);
    case "std":
      return xs.length < 2 ? 0 : Math.sqrt(sampleVariance(xs));
    case "stderr":
      return xs.length < 2 ? 0 : Math.sqrt(sampleVariance(xs)) / Math.sqrt(xs.length);
  }
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
  if (xs.length === 0) return NaN;
  if (!xs.every(Number.isFinite)) return xs.reduce((a, b) => a + b, 0) / xs.length;
  const parts = xs.map(exact).filter((p) => p.m !== 0n);
  if (parts.length === 0) return 0;
  const e0 = Math.min(...parts.map((p) => p.e));
  let sum = 0n;
  for (const p of parts) sum += p.m << BigInt(p.e - e0);
  if (sum === 0n) return 0;
  const neg = sum < 0n;
  const n = BigInt(xs.length);
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
export type Reducer = { kind: "mean" | "median" | "mode" | "max" } | { kind: "at_least" | "pass_at" | "pass_k"; k: number };
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
  const values = raw.filter((v) => !(typeof v === "number" && Number.isNaN(v)));
  const floats = values.map((v) => valueToFloat(v, version).x).filter((x) => !Number.isNaN(x));
  if (values.length === 0 || floats.length === 0) return NaN;
  switch (r.kind) {
    case "mean":
      return exactMean(floats);
    case "median": {
      const s = [...floats].sort((a, b) => a - b);
      const h = s.length >> 1;
      return s.length % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
    }
    case "mode": {
      // Counter.most_common(1): the highest count, the first seen among equals.
      const counts = new Map<string, { n: number; v: unknown }>();
      for (const v of values) {
        const k = counterKey(v);
        const c = counts.get(k);
        if (c) c.n++;
        else counts.set(k, { n: 1, v });
      }
      let best: { n: number; v: unknown } | null = null;
      for (const c of counts.values()) if (best === null || c.n > best.n) best = c;
      return valueToFloat(best!.v, version).x;
    }
    case "max":
      return Math.max(...floats);
    case "at_least":
      return floats.filter((x) => x >= 1).length >= r.k ? 1 : 0;
    case "pass_at": {
      const correct = floats.filter((x) => x >= 1).length;
      return floats.length < r.k ? NaN : passAtK(correct, floats.length, r.k);
    }
    case "pass_k": {
      const correct = floats.filter((x) => x >= 1).length;
      return floats.length < r.k ? NaN : allPassChance(correct, floats.length, r.k);
    }
  }
}
