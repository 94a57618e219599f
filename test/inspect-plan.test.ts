// The plan is counted, never enumerated (issue 21 item 4). `eval.config.epochs` is the log's word:
// `"epochs": 10000000` in a 42 KB log made a Set of 3 × 10^7 record keys (WORKER_FAILED: "Set
// maximum size exceeded"; 10^6 ran for minutes). States, coverage, `--errors zero` figures and
// pass@k now follow the records present: the epochs a log lacks enter as one zero of their count.
// Workers run compiled code: build first (`npm run build`).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rng } from "../src/fuzz/random.js";
import { MAX_PASS_AT_K, passHatK } from "../src/core/batch/stats.js";
import {
  metric,
  parseReducer,
  reduce,
  reduceWeighted,
  weightedMetric,
  BUILT_IN_METRICS,
  type Weighted,
} from "../src/kinds/inspect/stats.js";
import { scoreInspectLog } from "../src/kinds/inspect/read.js";
import { spawnMeasured } from "./helpers/cli.js";
import { place, readFixture } from "./helpers/inspect.js";

const POPULARITY = "2025-05-12T20-28-13-04-00_popularity.json";
/** The real 42 KB log (ids 1, 2, 3 at epoch 1: C, C, I), edited by `f`, written under a timestamped name. */
function log(name: string, f: (v: any) => void): string {
  const v = readFixture(POPULARITY);
  f(v);
  return place(`2025-01-01T00-00-00_${name}.json`, JSON.stringify(v));
}

describe("a plan of 3 × 10^7 records in a 42 KB log, through the CLI", () => {
  const file = log("epochs", (v) => (v.eval.config.epochs = 10_000_000));

  it("score --errors zero: exit 0 within a small RSS; the missing records counted, every figure over the plan", () => {
    const r = spawnMeasured(
      ["score", file, "--format", "json", "--errors", "zero", "--quiet"],
      ["--max-old-space-size=96"],
    );
    expect(r.stderr).not.toMatch(/WORKER_FAILED|internal error/);
    expect(r.code).toBe(0);
    expect(r.maxRssKb).toBeLessThan(250 * 1024);
    const doc = JSON.parse(r.stdout);
    const [entry] = doc.bundles;
    expect(entry.validity).toBe("valid");
    expect(entry.inspect.plan).toEqual({ records: 30_000_000, ids: 3, epochs: 10_000_000, source: "sample_ids" });
    expect(entry.samples).toMatchObject({ scored: 3, missing: 29_999_997, "early-stopped": 0 });
    const [exp] = doc.experiments;
    expect(exp.missing).toEqual([{ count: 29_999_997, reason: expect.stringContaining("planned, with no record") }]);
    const acc = exp.inspect["match/-/accuracy"];
    expect(acc.coverage).toEqual({ scored: 3, planned: 30_000_000 });
    // Each id's mean over its 10^7 epochs (one C, the rest 0), then accuracy over the three ids.
    expect(acc.value).toBeCloseTo(2 / 30_000_000, 20);
    // pass@k listed for k = 1..MAX_PASS_AT_K, not for every one of the 10^7 epochs.
    expect(Object.keys(acc.pass_at_k)).toHaveLength(MAX_PASS_AT_K);
    expect(acc.pass_at_k["1"]).toBeCloseTo(2 / 30_000_000, 15);
  });

  it("score's table and Markdown list the first pass@k figures and the last, not a thousand", () => {
    for (const format of ["table", "md"]) {
      const r = spawnMeasured(
        ["score", file, "--format", format, "--errors", "zero", "--quiet", "--details", "--width", "250"],
        ["--max-old-space-size=96"],
      );
      expect(r.code).toBe(0);
      const line = r.stdout.split("\n").find((l) => l.includes("k=1 "))!;
      expect(line).toMatch(/k=5 0\.000.*… 994 more k \(--format json\) ….*k=1000 0\.000/);
      expect(line).not.toContain("k=6 ");
    }
  });

  it("verify: the log's entry, exit 0", () => {
    const r = spawnMeasured(["verify", file], ["--max-old-space-size=96"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("30000000 records: 3 sample ids × 10000000 epochs");
    expect(r.stdout).toContain("missing 29999997");
  });
});

describe("a plan past what a count can say exactly", () => {
  it("epochs 2^53 − 1: SCHEMA, counted as one epoch, and the document it gives reads back (compare)", async () => {
    const file = log("huge-plan", (v) => (v.eval.config.epochs = Number.MAX_SAFE_INTEGER));
    const out = file.replace(/\.json$/, ".results.json");
    const r = spawnMeasured(["score", file, "--format", "json", "--out", out, "--quiet"], ["--max-old-space-size=96"]);
    expect(r.code, r.stderr).toBe(0);
    const [entry] = JSON.parse(readFileSync(out, "utf8")).bundles;
    expect(entry.validity).toBe("invalid");
    expect(entry.errors).toContainEqual(
      expect.objectContaining({
        code: "SCHEMA",
        message: `the plan: 3 samples × ${Number.MAX_SAFE_INTEGER} epochs = ${3 * Number.MAX_SAFE_INTEGER} records, more than assay counts (2^40): counted as 1 epoch`,
      }),
    );
    expect(entry.inspect.plan).toEqual({ records: 3, ids: 3, epochs: 1, source: "sample_ids" });
    const c = spawnMeasured(["compare", out, out]);
    expect(c.code, c.stderr).toBe(0);
  });

  it("2^40 records exactly is counted as planned", () => {
    const file = log(
      "edge-plan",
      (v) => ((v.eval.config.epochs = 2 ** 40 / 4), (v.eval.dataset.sample_ids = [1, 2, 3, 4])),
    );
    const e = scoreInspectLog(file, "json");
    expect(e.errors.filter((f) => f.code === "SCHEMA")).toEqual([]);
    expect(e.inspect!.plan.records).toBe(2 ** 40);
  });
});

describe("records scattered over a plan of 2 × 10^9 (in process)", () => {
  it("early-stopped, present, missing and unplanned records each counted once; --errors zero's figures from the gaps", () => {
    const file = log("scattered", (v) => {
      v.eval.config.epochs = 1_000_000_000;
      v.eval.dataset.sample_ids = [1, 2];
      v.samples[0].epoch = 1; // id 1: C at epoch 1
      v.samples[1].epoch = 1_000_000_000; // id 2: C at the last planned epoch
      // id 3 (I at epoch 1) is outside sample_ids: SAMPLE_UNPLANNED, counted, in no figure over the plan.
      v.results.early_stopping = {
        manager: "m",
        early_stops: [
          { id: 1, epoch: 7, reason: "enough" },
          { id: 1, epoch: 1, reason: "has a record" },
          { id: 9, epoch: 1, reason: "not planned" },
        ],
      };
      delete v.results.total_samples;
      delete v.reductions;
    });
    const e = scoreInspectLog(file, "json");
    expect(e.errors).toEqual([]);
    expect(e.inspect!.plan.records).toBe(2_000_000_000);
    expect(e.samples).toEqual({
      scored: 3,
      "scored-with-error": 0,
      error: 0,
      cancelled: 0,
      unscored: 0,
      invalidated: 0,
      missing: 2_000_000_000 - 2 - 1,
      "early-stopped": 1,
    });
    expect(e.flags.map((f) => f.code)).toEqual(["SAMPLE_UNPLANNED"]);
    const acc = e.inspect!.metrics["match/-/accuracy"]!;
    expect(acc.coverage).toEqual({ scored: 2, planned: 2_000_000_000 });
    expect(acc.exclude.value).toBe(1);
    // id 1: one 1 over 10^9 − 1 records (epoch 7 early-stopped); id 2: one 1 over 10^9.
    expect(acc.zero.value).toBeCloseTo((1 / 999_999_999 + 1 / 1_000_000_000) / 2, 22);
    expect(acc.zero.n).toBe(2);
  });
});

describe("weighted values equal the values written out", () => {
  const REDUCERS = ["mean", "median", "mode", "max", "at_least_2", "pass_at_2", "pass_k_2"];
  const pick = <T>(r: () => number, xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;

  it("every reducer and metric, 500 random runs of values with zeros of weight 1..40", () => {
    const r = rng(21);
    for (let run = 0; run < 500; run++) {
      const weighted: Weighted<unknown>[] = [];
      for (let i = 0, n = 1 + Math.floor(r() * 8); i < n; i++)
        weighted.push(
          r() < 0.4
            ? { v: 0, n: 1 + Math.floor(r() * 40) }
            : { v: pick(r, [1, 0.5, "C", "I", 2, -1, true, NaN] as unknown[]), n: 1 },
        );
      const written = weighted.flatMap((x) => Array.from({ length: x.n }, () => x.v));
      for (const name of REDUCERS) {
        const red = parseReducer(name)!;
        expect(
          Object.is(reduceWeighted(red, weighted, null), reduce(red, written, null)) ||
            reduceWeighted(red, weighted, null) === reduce(red, written, null),
        ).toBe(true);
      }
      const numbers = weighted.filter((x): x is Weighted => typeof x.v === "number" && !Number.isNaN(x.v));
      const numbersWritten = numbers.flatMap((x) => Array.from({ length: x.n }, () => x.v));
      for (const m of BUILT_IN_METRICS) expect(weightedMetric(m, numbers)).toBe(metric(m, numbersWritten));
    }
  });

  it("the mean is the exact mean rounded once, whichever way it is summed: integers (a double sum while it stays exact) and their halvings (exact) agree", () => {
    // Halving every value is exact (no underflow here) and commutes with rounding: the integers
    // take the double sum while it is exact, the halves the exact sum over distinct values.
    const r = rng(26);
    const mean = (xs: Weighted[]) => weightedMetric("mean", xs);
    for (let run = 0; run < 2000; run++) {
      const big = run % 4 === 0; // sums past 2^53: the exact path for both
      const xs: Weighted[] = Array.from({ length: 1 + Math.floor(r() * 30) }, () => ({
        v: Math.floor((r() - 0.3) * (big ? 2 ** 52 : 1000)),
        n: 1 + Math.floor(r() * (r() < 0.1 ? 1e6 : 3)),
      }));
      const halves = xs.map((x) => ({ v: x.v / 1024, n: x.n }));
      expect(mean(halves)).toBe(mean(xs) / 1024);
    }
    // The sum's rounding would show: 2^53 + 1 is no double, but the mean of it and 1 is exact.
    expect(
      mean([
        { v: 2 ** 53, n: 1 },
        { v: 1, n: 1 },
        { v: 1, n: 1 },
      ]),
    ).toBe((2 ** 53 + 2) / 3);
    expect(
      mean([
        { v: 0.1, n: 3 },
        { v: 0.2, n: 1 },
      ]),
    ).toBe(0.125);
  });

  it("a median and a mode over 10^9 epochs of which one is present: 0, at once", () => {
    expect(
      reduceWeighted(
        parseReducer("median")!,
        [
          { v: 1, n: 1 },
          { v: 0, n: 999_999_999 },
        ],
        null,
      ),
    ).toBe(0);
    expect(
      reduceWeighted(
        parseReducer("mode")!,
        [
          { v: 1, n: 1 },
          { v: 0, n: 999_999_999 },
        ],
        null,
      ),
    ).toBe(0);
    expect(
      reduceWeighted(
        parseReducer("pass_k_1000000000")!,
        [
          { v: 1, n: 1 },
          { v: 0, n: 999_999_999 },
        ],
        null,
      ),
    ).toBe(0);
    expect(
      reduceWeighted(
        parseReducer("mean")!,
        [
          { v: 1, n: 1 },
          { v: 0, n: 999_999_999 },
        ],
        null,
      ),
    ).toBe(1e-9);
  });
});

describe("pass^k over a task repeated 100,000 times", () => {
  it("is listed for k = 1..MAX_PASS_AT_K: the work follows the cap, not the group's size squared", () => {
    const out = passHatK(new Map([["task", { passed: 50_000, total: 100_000 }]]))!;
    expect(Object.keys(out)).toHaveLength(MAX_PASS_AT_K);
    expect(out["1"]).toBe(0.5);
    // C(c,2)/C(n,2) by hand.
    expect(out["2"]).toBeCloseTo((50_000 * 49_999) / (100_000 * 99_999), 15);
  });
});
