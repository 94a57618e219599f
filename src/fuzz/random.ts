// The project's seeded PRNG (mulberry32): the fuzzer's cases and the seeded tests' cases are the
// same on every run. Small and fast; not for anything secret.

export type Rng = () => number;

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The seed of case `index` of a run seeded `seed`: every case is reproducible on its own, without
 * generating the ones before it (a murmur3-style finaliser spreads neighbouring indices apart).
 */
export function caseSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export const int = (r: Rng, n: number): number => Math.floor(r() * n);
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[int(r, xs.length)]!;

/** One of `items`, each as likely as its weight. */
export function weighted<T>(r: Rng, items: readonly (readonly [number, T])[]): T {
  let x = r() * items.reduce((s, [w]) => s + w, 0);
  for (const [w, v] of items) if ((x -= w) < 0) return v;
  return items[items.length - 1]![1];
}
