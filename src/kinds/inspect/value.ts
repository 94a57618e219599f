// Score values as Inspect reads them (contract §12): the `Value` union, `value_to_float` for the
// writer's version, equality as JSON with NaN equal to NaN, and the unscored sentinel. Pure.

import { atLeast, SINCE } from "./version.js";

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/** Inspect's `Value`: a scalar, a list of scalars, or a map of scalars (or null). */
export function isValue(v: unknown): boolean {
  if (isScalar(v)) return true;
  if (Array.isArray(v)) return v.every(isScalar);
  if (typeof v === "object" && v !== null) return Object.values(v).every((x) => x === null || isScalar(x));
  return false;
}

/** ±Infinity anywhere in a value (NaN is Inspect's "unscored" and legal). */
export function infiniteIn(v: unknown): boolean {
  if (typeof v === "number") return v === Infinity || v === -Infinity;
  if (typeof v === "object" && v !== null) return Object.values(v).some(infiniteIn);
  return false;
}

/** Python's float() of a string: trimmed, underscores between digits, inf/infinity/nan in any case. */
const PY_FLOAT = /^[+-]?((\d(_?\d)*)?\.?\d(_?\d)*([eE][+-]?\d(_?\d)*)?|(\d(_?\d)*)\.|inf|infinity|nan)$/i;

/**
 * Inspect's value_to_float (scorer/_metric.py) for a writer of `version`: numbers and booleans
 * as they are, C/P/I/N, yes/true/no/false in any case, numeric strings (finite only from
 * 0.3.221). `fallback`: anything else, which Inspect maps to 0 with a warning only.
 */
export function valueToFloat(v: unknown, version: readonly number[] | null): { x: number; fallback: boolean } {
  if (typeof v === "number") return { x: v, fallback: false };
  if (typeof v === "boolean") return { x: v ? 1 : 0, fallback: false };
  if (typeof v === "string") {
    if (v === "C") return { x: 1, fallback: false };
    if (v === "P") return { x: 0.5, fallback: false };
    if (v === "I" || v === "N") return { x: 0, fallback: false };
    const s = v.trim().toLowerCase();
    if (s === "yes" || s === "true") return { x: 1, fallback: false };
    if (s === "no" || s === "false") return { x: 0, fallback: false };
    if (PY_FLOAT.test(s)) {
      const x = /nan/.test(s)
        ? NaN
        : /inf/.test(s)
          ? s.startsWith("-")
            ? -Infinity
            : Infinity
          : Number(s.replace(/_/g, ""));
      if (Number.isFinite(x) || !atLeast(version, SINCE.finiteStrings)) return { x, fallback: false };
    }
  }
  return { x: 0, fallback: true };
}

/** Inspect's unscored sentinel: a float NaN at the root of a value. */
export const isNaNValue = (v: unknown): boolean => typeof v === "number" && Number.isNaN(v);

/** Two score values are equal when both are NaN or they are equal as JSON (key order aside). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every(
        (k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return a === b;
}

/** A value as findings quote it (NaN and ±Infinity spelled as Python writes them). */
export function showValue(v: unknown): string {
  const s = JSON.stringify(v, (_k, x: unknown) => (typeof x === "number" && !Number.isFinite(x) ? `\u0000${x}` : x));
  return (s ?? "null").replace(/"\\u0000(NaN|Infinity|-Infinity)"/g, "$1");
}

/**
 * The part of a record's score value a metric entry reads: the whole value, or for a dict-valued
 * scorer (one results entry per key) the value under `key` (a NaN root: NaN). Undefined when absent.
 */
export function leaf(value: unknown, key: string | null): unknown {
  // NaN at the root is unscored under every key (Inspect's scorers_from_metric_dict counts it so).
  if (key === null || isNaNValue(value)) return value;
  // Its own member only: a key named `toString` absent from this value is absent, not a function.
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  return undefined;
}
