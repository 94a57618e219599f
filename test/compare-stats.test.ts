// The statistics of `assay compare` against published and hand-computed values.
import { describe, expect, it } from "vitest";
import { mcnemarExact } from "../src/core/stats/binomial.js";
import { countsOf, newcombe95 } from "../src/core/compare/stats.js";
import { wilson95 } from "../src/core/batch/stats.js";

describe("Newcombe's hybrid score interval (method 10)", () => {
  // Newcombe RG. Interval estimation for the difference between independent proportions:
  // comparison of eleven methods. Statistics in Medicine 1998;17:873-890, table II, method 10
  // (score interval without continuity correction), all eight worked examples (a)-(h), to the
  // paper's four decimals. Values as published (and as reproduced in SAS's and R packages' tests).
  const table2: [number, number, number, number, number, number][] = [
    [56, 70, 48, 80, 0.0524, 0.3339], // (a)
    [9, 10, 3, 10, 0.1705, 0.809], // (b)
    [6, 7, 2, 7, 0.0582, 0.8062], // (c)
    [5, 56, 0, 29, -0.0381, 0.1926], // (d)
    [0, 10, 0, 20, -0.1611, 0.2775], // (e)
    [0, 10, 0, 10, -0.2775, 0.2775], // (f)
    [10, 10, 0, 20, 0.6791, 1], // (g)
    [10, 10, 0, 10, 0.6075, 1], // (h)
  ];
  for (const [k1, n1, k2, n2, lo, hi] of table2)
    it(`${k1}/${n1} − ${k2}/${n2} → ${lo} to ${hi}`, () => {
      const ci = newcombe95(k1, n1, k2, n2)!;
      expect(Math.abs(ci[0] - lo)).toBeLessThan(5e-5);
      expect(Math.abs(ci[1] - hi)).toBeLessThan(5e-5);
    });

  it("is the mirror image when the sides swap, holds the difference, and is null without a trial on a side", () => {
    const [lo, hi] = newcombe95(48, 80, 56, 70)!;
    expect(lo).toBeCloseTo(-0.3339, 4);
    expect(hi).toBeCloseTo(-0.0524, 4);
    for (const [k1, n1, k2, n2] of [
      [1, 1, 0, 1],
      [0, 3, 3, 3],
      [2, 5, 2, 5],
    ] as const) {
      const [l, h] = newcombe95(k1, n1, k2, n2)!;
      expect(l).toBeLessThanOrEqual(k1 / n1 - k2 / n2);
      expect(h).toBeGreaterThanOrEqual(k1 / n1 - k2 / n2);
      expect(l).toBeGreaterThanOrEqual(-1);
      expect(h).toBeLessThanOrEqual(1);
    }
    expect(newcombe95(0, 0, 1, 2)).toBeNull();
    expect(newcombe95(1, 2, 0, 0)).toBeNull();
  });
});

describe("the exact McNemar test", () => {
  it("b=0, c=5: 2·(½)^5 = 0.0625", () => expect(mcnemarExact(0, 5)).toBeCloseTo(0.0625, 15));
  it("b=1, c=9: 2·(1 + 10)/1024 = 0.021484375", () => expect(mcnemarExact(1, 9)).toBeCloseTo(22 / 1024, 15));
  it("b=9, c=1 is the same test", () => expect(mcnemarExact(9, 1)).toBeCloseTo(22 / 1024, 15));
  it("b=c: p = 1 (capped, as 2·P(X ≤ b) > 1)", () => {
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(40, 40)).toBe(1);
  });
  it("b=c=0: no discordant pair, p = 1", () => expect(mcnemarExact(0, 0)).toBe(1));
  it("b=2, c=8: 2·(1 + 10 + 45)/1024 = 0.109375", () => expect(mcnemarExact(2, 8)).toBeCloseTo(112 / 1024, 15));
  it("b=0, c=1: 2·½ = 1", () => expect(mcnemarExact(0, 1)).toBe(1));
  it("stays finite and near the normal approximation for a hundred thousand discordant pairs", () => {
    // z = 500/√100500 = 1.5772: two-sided normal p ≈ 0.1148 (the exact test is a little larger).
    const p = mcnemarExact(50_000, 50_500);
    expect(p).toBeGreaterThan(0.114);
    expect(p).toBeLessThan(0.117);
  });
});

describe("the counts behind a mean given with its Wilson interval", () => {
  it("recovers k and n, and refuses an interval no count gives", () => {
    expect(countsOf(0.25, wilson95(3, 12)!, 100)).toEqual({ k: 3, n: 12 });
    expect(countsOf(0.25, wilson95(25, 100)!, 100)).toEqual({ k: 25, n: 100 });
    expect(countsOf(0.25, [0.2, 0.3], 100)).toBeNull();
    expect(countsOf(0.25, wilson95(25, 100)!, 99)).toBeNull(); // n beyond the bound: not found
  });
});
