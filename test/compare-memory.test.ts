// `assay compare` on two documents of 200,000 bundle entries each (about 120 MB apiece), run by
// the COMPILED CLI (dist/) in a child whose heap is capped at 96 MiB: it must finish, find the
// regression and every flipped trial, and keep its peak RSS below either document's size — it
// streams both and keeps per trial only its outcome, never an entry. Then the bench's documents
// (src/bench/compare.ts): 198,000 native trials and 2,000 Inspect logs of 100 samples with
// per-sample values, whose samples pair by id, under the same cap.

import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeBigCompareDocument, BENCH_SHAPE } from "../src/bench/compare.js";
import { comparisonSchema } from "../src/core/compare/schema.js";
import { writeBigResults } from "./helpers/big-results.js";
import { spawnMeasured } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const N = 200_000;
const HEAP_MB = 96;
const { dir } = scratch("assay-compare-memory-", SCRATCH);

describe("compare keeps memory bounded", () => {
  it(`2 × ${N.toLocaleString("en")} entries under a ${HEAP_MB} MiB heap`, () => {
    const base = join(dir, "base.json");
    const head = join(dir, "head.json");
    writeBigResults(base, N, (i) => i % 3 === 0);
    writeBigResults(head, N, (i) => i % 3 === 0 || i % 10 === 1); // every tenth trial from the second loses in HEAD
    const flips = Array.from({ length: N }, (_, i) => i).filter((i) => i % 10 === 1 && i % 3 !== 0).length;
    const out = join(dir, "out.json");
    const started = Date.now();
    const { code, maxRssKb } = spawnMeasured(
      ["compare", base, head, "--out", out],
      [`--max-old-space-size=${HEAP_MB}`],
    );
    const rssMB = maxRssKb / 1024;
    const docMB = statSync(base).size / 2 ** 20;
    console.log(
      `compare of 2 × ${N} entries (${docMB.toFixed(0)} MiB each): ${Date.now() - started} ms, peak RSS ${rssMB.toFixed(0)} MiB`,
    );
    expect(code).toBe(0);
    const doc = comparisonSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    const paired = doc.experiments[0]!.metrics.find((m) => m.metric === "accuracy")!.paired!;
    const p = paired.mcnemar!;
    expect([paired.pairs, p.pass_to_fail, p.fail_to_pass]).toEqual([N, flips, 0]);
    expect(p.flipped.pass_to_fail).toHaveLength(flips); // complete in JSON
    expect(doc.regressions).toEqual([{ base: "big", head: "big", metric: "accuracy" }]);
    expect(rssMB).toBeLessThan(2 * docMB * 0.8);
  }, 180_000);

  it(`2 × 200,000 entries with ${(BENCH_SHAPE.logs * BENCH_SHAPE.samples).toLocaleString("en")} Inspect samples' values under a ${HEAP_MB} MiB heap`, () => {
    const base = join(dir, "inspect-base.json");
    const head = join(dir, "inspect-head.json");
    writeBigCompareDocument(base, BENCH_SHAPE, (i) => i % 3 === 0);
    writeBigCompareDocument(head, BENCH_SHAPE, (i) => i % 3 === 0 || i % 10 === 1);
    const out = join(dir, "inspect-out.json");
    const { code, maxRssKb } = spawnMeasured(
      ["compare", base, head, "--out", out],
      [`--max-old-space-size=${HEAP_MB}`],
    );
    const rssMB = maxRssKb / 1024;
    const docMB = statSync(base).size / 2 ** 20;
    console.log(
      `compare of 2 × 200,000 entries with Inspect values (${docMB.toFixed(0)} MiB each): peak RSS ${rssMB.toFixed(0)} MiB`,
    );
    expect(code).toBe(0);
    const doc = comparisonSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(doc.experiments).toHaveLength(1 + BENCH_SHAPE.logs);
    // Log j's samples are units j·100 … j·100 + 99: in log 0, samples 1, 11, …, 91 not ≡ 0 (mod 3)
    // flip from 1 to 0 — seven of them (21, 51, 81 are ≡ 0) — so mean_diff = −7/100.
    const first = doc.experiments
      .find((e) => e.base === "task-t0000000 (model)")!
      .metrics.find((m) => m.metric === "inspect/match/-/accuracy/value")!.paired!;
    expect([first.unit, first.pairs, first.only_base, first.only_head]).toEqual(["sample", 100, 0, 0]);
    expect(first.mean_diff).toBeCloseTo(-0.07, 12);
    // Binary unclustered samples: exact McNemar decides (§13.7), b = 7, c = 0: p = 2·½⁷ = 0.015625.
    expect([first.test, first.mcnemar?.pass_to_fail, first.mcnemar?.fail_to_pass]).toEqual(["mcnemar", 7, 0]);
    expect(first.p).toBeCloseTo(0.015625, 12);
    expect(rssMB).toBeLessThan(2 * docMB);
  }, 180_000);
});
