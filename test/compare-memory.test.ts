// `assay compare` on two documents of 200,000 bundle entries each (about 120 MB apiece), run by
// the COMPILED CLI (dist/) in a child whose heap is capped at 96 MiB: it must finish, find the
// regression and every flipped trial, and keep its peak RSS below either document's size — it
// streams both and keeps per trial only its outcome, never an entry.

import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { comparisonSchema } from "../src/core/compare/schema.js";
import { writeBigResults } from "./helpers/big-results.js";
import { spawnMeasured } from "./helpers/cli.js";
import { SCRATCH } from "./helpers/shared.js";

const N = 200_000;
const HEAP_MB = 96;
const dir = mkdtempSync(join(SCRATCH, "assay-compare-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("compare keeps memory bounded", () => {
  it(`2 × ${N.toLocaleString("en")} entries under a ${HEAP_MB} MiB heap`, () => {
    const base = join(dir, "base.json");
    const head = join(dir, "head.json");
    writeBigResults(base, N, (i) => i % 3 === 0);
    writeBigResults(head, N, (i) => i % 3 === 0 || i % 10 === 1); // every tenth trial from the second loses in HEAD
    const flips = Array.from({ length: N }, (_, i) => i).filter((i) => i % 10 === 1 && i % 3 !== 0).length;
    const out = join(dir, "out.json");
    const started = Date.now();
    const { code, maxRssKb } = spawnMeasured(["compare", base, head, "--out", out], [`--max-old-space-size=${HEAP_MB}`]);
    const rssMB = maxRssKb / 1024;
    const docMB = statSync(base).size / 2 ** 20;
    console.log(`compare of 2 × ${N} entries (${docMB.toFixed(0)} MiB each): ${Date.now() - started} ms, peak RSS ${rssMB.toFixed(0)} MiB`);
    expect(code).toBe(0);
    const doc = comparisonSchema.parse(JSON.parse(readFileSync(out, "utf8")));
    const paired = doc.experiments[0]!.metrics.find((m) => m.metric === "accuracy")!.paired!;
    const p = paired.mcnemar!;
    expect([paired.pairs, p.pass_to_fail, p.fail_to_pass]).toEqual([N, flips, 0]);
    expect(p.flipped.pass_to_fail).toHaveLength(flips); // complete in JSON
    expect(doc.regressions).toEqual([{ base: "big", head: "big", metric: "accuracy" }]);
    expect(rssMB).toBeLessThan(2 * docMB * 0.8);
  }, 180_000);
});
