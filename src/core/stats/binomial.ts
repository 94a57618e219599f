// Exact binomial tails at one half: McNemar's test on the discordant pairs of two runs and the
// sign test (contract §13.7). Pure.

/** ln C(n, k), summed term by term: exact enough for any n a run holds, O(min(k, n − k)). */
function logChoose(n: number, k: number): number {
  const m = Math.min(k, n - k);
  let s = 0;
  for (let i = 1; i <= m; i++) s += Math.log((n - m + i) / i);
  return s;
}

/**
 * P(X ≤ m) for X ~ Binomial(n, ½), m ≤ n / 2 or not. Summed down from its largest term in ordinary
 * floating point, each term the one above times k / (n − k + 1), so no term underflows before it
 * stops mattering.
 */
export function lowerTailHalf(m: number, n: number): number {
  if (m < 0) return 0;
  if (m >= n) return 1;
  if (m > n / 2) return 1 - lowerTailHalf(n - m - 1, n);
  let term = Math.exp(logChoose(n, m) - n * Math.LN2);
  let tail = 0;
  for (let k = m; k >= 0 && term > 0; k--) {
    tail += term;
    term *= k / (n - k + 1);
  }
  return Math.min(1, tail);
}

/**
 * The exact McNemar test: the two-sided binomial test of b against b + c discordant pairs at one
 * half, p = min(1, 2 · P(X ≤ min(b, c))), X ~ Bin(b + c, ½). 1 when there is no discordant pair.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  return n === 0 ? 1 : floorP(2 * lowerTailHalf(Math.min(b, c), n));
}

/**
 * A p-value in (0, 1]: a tail past ~1075 halvings underflows to 0, and a p of 0 would claim
 * certainty no finite evidence gives; the smallest positive double stands for "below 1e-300".
 */
export const floorP = (p: number): number => Math.min(1, Math.max(Number.MIN_VALUE, p));

/**
 * §13.7: a drop by McNemar — more pass→fail (b) than fail→pass (c), and one-sided P(X ≥ b) < 0.025
 * for X ~ Bin(b + c, ½) (the two-sided test's 0.05 split evenly).
 */
export function mcnemarDrop(b: number, c: number): boolean {
  return b > c && lowerTailHalf(c, b + c) < 0.025; // P(X ≥ b) = P(X ≤ c) by symmetry
}

/** The exact two-sided sign test of N differences all of one sign: min(1, 2·½^N). */
export const signTest = (N: number): number => floorP(2 * 0.5 ** N);
