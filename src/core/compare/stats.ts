// Statistics of `assay compare`, pure: Newcombe's hybrid score interval for the difference of two
// independent proportions, and the count behind a proportion the results document gives as a
// value and its Wilson interval. (McNemar and the sign test: core/stats/binomial.ts.)

import { wilson95 } from "../batch/stats.js";

/**
 * Newcombe (1998) method 10: the 95% interval for p1 − p2 (p1 = k1/n1, p2 = k2/n2) built from each
 * proportion's Wilson score interval (without continuity correction), squared and added. Null when
 * either side has no trial. Stays within [−1, 1] and always holds the difference.
 */
export function newcombe95(k1: number, n1: number, k2: number, n2: number): [number, number] | null {
  const w1 = wilson95(k1, n1);
  const w2 = wilson95(k2, n2);
  if (w1 === null || w2 === null) return null;
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const d = p1 - p2;
  const lo = d - Math.sqrt((p1 - w1[0]) ** 2 + (w2[1] - p2) ** 2);
  const hi = d + Math.sqrt((w1[1] - p1) ** 2 + (p2 - w2[0]) ** 2);
  return [Math.max(-1, lo), Math.min(1, hi)];
}

/**
 * The k and n of a proportion a document gives as `value` with its Wilson interval (a Harbor
 * reward mean, an Inspect metric: their n is not written down): the only n ≤ `most` whose
 * round(value · n) / n is the value and whose Wilson interval is the one written. Null when none
 * is (the figure is then reported without an interval).
 */
export function countsOf(
  value: number,
  interval: readonly [number, number],
  most: number,
): { k: number; n: number } | null {
  for (let n = 1; n <= most; n++) {
    const k = Math.round(value * n);
    if (Math.abs(k / n - value) > 1e-12) continue;
    const w = wilson95(k, n)!;
    if (Math.abs(w[0] - interval[0]) <= 1e-12 && Math.abs(w[1] - interval[1]) <= 1e-12) return { k, n };
  }
  return null;
}
