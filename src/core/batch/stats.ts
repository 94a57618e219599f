// Small statistics used by the metrics (§6).

export const WILSON_Z = 1.959963984540054;

/** Wilson score interval for k successes in n trials; null when n = 0. */
export function wilson95(k: number, n: number): [number, number] | null {
  if (n === 0) return null;
  const z2 = WILSON_Z * WILSON_Z;
  const p = k / n;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (WILSON_Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/** C(c,k)/C(n,k): the chance that k draws without replacement from n trials all pass, c passing. */
export function allPassChance(c: number, n: number, k: number): number {
  let r = 1;
  // Stops at the first zero factor (k may be far beyond the passes: the loop follows c, not k).
  for (let i = 0; i < k && r > 0; i++) r *= (c - i) / (n - i);
  return Math.max(0, r);
}

/**
 * Most k listed for pass@k and pass^k: past it the list (and the work, k × groups × passes) would
 * follow a group's size, or a log's declared epochs, rather than anything a reader can use.
 */
export const MAX_PASS_AT_K = 1000;

/**
 * pass^k over groups of independent repeats (trials sharing a task): for k = 1..(smallest group, at most MAX_PASS_AT_K),
 * the mean over tasks of C(c,k)/C(n,k). Null when there is no group.
 */
export function passHatK(
  groups: ReadonlyMap<string, { passed: number; total: number }>,
): Record<string, number> | null {
  if (groups.size === 0) return null;
  const kMax = Math.min(smallestTotal(groups.values()), MAX_PASS_AT_K);
  const out: Record<string, number> = {};
  for (let k = 1; k <= kMax; k++) {
    let sum = 0;
    for (const g of groups.values()) sum += allPassChance(g.passed, g.total, k);
    out[String(k)] = sum / groups.size;
  }
  return out;
}

/**
 * The unbiased pass@k estimator: 1 − C(n−c,k)/C(n,k), the chance that k of n trials include a
 * pass. Defined for k ≤ n (callers take k up to the smallest group).
 */
export function passAtK(c: number, n: number, k: number): number {
  if (k > n) throw new RangeError(`pass@${k} over ${n} trials`);
  if (n - c < k) return 1; // fewer failures than draws: every draw of k holds a pass
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/**
 * The smallest group's size. A loop, not Math.min(...sizes): spreading a million groups into
 * arguments overflows the stack (a million-bundle run died so at its very end).
 */
export function smallestTotal(groups: Iterable<{ total: number }>): number {
  let min = Infinity;
  for (const g of groups) if (g.total < min) min = g.total;
  return min;
}
