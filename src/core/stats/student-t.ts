// Student's t distribution: its CDF through the regularised incomplete beta function, and its
// quantile by bisection on that CDF. Pure; accurate to ~1e-12, far past what an interval printed
// to three decimals needs (test/stats-t.test.ts checks published tables).

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: ~1e-15 relative). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(T ≤ t) for T ~ t(df), df > 0. */
export function tCdf(t: number, df: number): number {
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5); // P(T > |t|)
  return t > 0 ? 1 - tail : tail;
}

/** The two-sided p-value of a t statistic: P(|T| ≥ |t|). */
export function tTwoSided(t: number, df: number): number {
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, incompleteBeta(df / (df + t * t), df / 2, 0.5));
}

const quantiles = new Map<string, number>();

/** The p-quantile of t(df), 0 < p < 1, df ≥ 1: bisection on the CDF (memoised: a run asks for few). */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) throw new RangeError(`t quantile of p=${p}, df=${df}`);
  if (p === 0.5) return 0;
  const key = `${p}\u0000${df}`;
  const known = quantiles.get(key);
  if (known !== undefined) return known;
  const upper = p > 0.5;
  const q = upper ? p : 1 - p;
  // P(T > x) = 1 − q is monotone in x ≥ 0; bracket, then halve until the bracket stops shrinking.
  let lo = 0;
  let hi = 1;
  while (tCdf(hi, df) < q) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (tCdf(mid, df) < q) lo = mid;
    else hi = mid;
  }
  const x = upper ? (lo + hi) / 2 : -(lo + hi) / 2;
  if (quantiles.size < 10_000) quantiles.set(key, x);
  return x;
}
