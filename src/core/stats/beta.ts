// The beta distribution's quantile, and through it the Clopper–Pearson interval (Clopper &
// Pearson 1934) at any real number of trials, as the Korn–Graubard interval needs (§13.7). Pure.

import { incompleteBeta } from "./student-t.js";

/**
 * The p-quantile of Beta(a, b), a, b > 0: bisection on the regularised incomplete beta (monotone
 * in x), halved until the bracket stops shrinking (~1e-16, far past the ~1e-10 an interval needs).
 */
export function betaQuantile(p: number, a: number, b: number): number {
  if (!(p >= 0 && p <= 1) || !(a > 0) || !(b > 0)) throw new RangeError(`beta quantile of p=${p}, a=${a}, b=${b}`);
  if (p === 0) return 0;
  if (p === 1) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (incompleteBeta(mid, a, b) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The Clopper–Pearson 95% interval for k successes in n trials, 0 ≤ k ≤ n, n > 0 (both may be
 * non-integer): [B(0.025; k, n − k + 1), B(0.975; k + 1, n − k)], with lo = 0 at k = 0 and hi = 1
 * at k = n, where those betas are undefined.
 */
export function clopperPearson95(k: number, n: number): [number, number] {
  if (!(n > 0) || !(k >= 0 && k <= n)) throw new RangeError(`Clopper–Pearson of ${k} in ${n}`);
  const lo = k === 0 ? 0 : betaQuantile(0.025, k, n - k + 1);
  const hi = k === n ? 1 : betaQuantile(0.975, k + 1, n - k);
  return [lo, hi];
}
