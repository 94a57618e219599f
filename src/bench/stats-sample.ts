// The statistics bench's truth (`npm run bench -- --stats`): task success rates drawn from a Beta
// with mean μ and intra-class correlation ρ, and each attempt's outcome a Bernoulli draw on its
// task's rate. Seeded (src/fuzz/random.ts), so every figure the bench prints is reproducible.

import type { Rng } from "../fuzz/random.js";

/** A standard normal by Box–Muller (one of the pair). */
function normal(u: Rng): number {
  let x = 0;
  while (x === 0) x = u();
  return Math.sqrt(-2 * Math.log(x)) * Math.cos(2 * Math.PI * u());
}

/** Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 boosted by U^(1/shape). */
export function gamma(shape: number, u: Rng): number {
  if (shape < 1) return gamma(shape + 1, u) * u() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(u);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const w = u();
    if (w < 1 - 0.0331 * x ** 4 || Math.log(w) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/**
 * One task's success rate: Beta(α, β) with α = μ(1−ρ)/ρ, β = (1−μ)(1−ρ)/ρ, whose mean is μ and
 * whose Bernoulli draws correlate ρ within a task (ρ = 1/(α + β + 1)). ρ = 0: every task's rate is μ.
 */
export function taskRate(mu: number, rho: number, u: Rng): number {
  if (rho === 0) return mu;
  const ab = (1 - rho) / rho;
  const x = gamma(mu * ab, u);
  return x / (x + gamma((1 - mu) * ab, u));
}

/** C task rates drawn afresh. */
export const taskRates = (tasks: number, mu: number, rho: number, u: Rng): number[] =>
  Array.from({ length: tasks }, () => taskRate(mu, rho, u));

/** Outcomes of m attempts at each task, task-major (attempt a of task t at t·m + a): 1 with the task's rate. */
export function outcomes(rates: readonly number[], attempts: number, u: Rng): Uint8Array {
  const out = new Uint8Array(rates.length * attempts);
  rates.forEach((p, t) => {
    for (let a = 0; a < attempts; a++) out[t * attempts + a] = u() < p ? 1 : 0;
  });
  return out;
}
