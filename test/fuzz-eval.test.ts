// A short seeded run of the .eval structure fuzzer (src/fuzz/eval.ts; `npm run fuzz` runs 10,000):
// hostile member tables, sizes, end records, zstd frames and Deflate streams, each case a real file
// read in a child process whose peak RSS is bounded per case, a share through `assay score --jobs 2`
// (real workers). No case throws, becomes a tool error (but FILE_TOO_LARGE and EVAL_METHOD, what an
// archive may declare), hangs, or takes more memory than its largest declared member allows.

import { describe, expect, it } from "vitest";
import { fuzzEval, RSS_BASE_MB } from "../src/fuzz/eval.js";

describe(".eval structure fuzzer", () => {
  it("400 seeded cases: no failure, every kind of mutation drawn, memory bounded", async () => {
    const r = await fuzzEval({ seed: 21, cases: 400, batch: 100, cliEvery: 150 });
    console.log(
      `${r.cases} cases in ${r.seconds.toFixed(1)} s; peak RSS ${r.peakRssMb.toFixed(0)} MB in process, ${r.cliPeakRssMb.toFixed(0)} MB through the CLI; ${JSON.stringify(r.firstCode)}`,
    );
    expect(
      r.failure,
      r.failure === null ? "" : `case ${r.failure.index}: ${r.failure.ops.join("; ")}: ${r.failure.message}`,
    ).toBeNull();
    expect(r.cases).toBe(400);
    expect(r.cliCases).toBe(3);
    for (const kind of [
      "local",
      "central",
      "eocd",
      "eocd64",
      "zip64-extra",
      "frame",
      "block",
      "rle",
      "blocks",
      "window",
      "content",
      "skippable",
      "deflate-bomb",
      "usize",
      "frames",
      "method",
      "flip",
      "truncate",
      "hole",
    ])
      expect(r.ops[kind] ?? 0, kind).toBeGreaterThan(0);
    // the mutants are judged, not merely survived: most are corrupt, some stay valid
    expect(r.validity["invalid"] ?? 0).toBeGreaterThan(200);
    expect(r.firstCode["EVAL_CORRUPT"] ?? 0).toBeGreaterThan(150);
    expect(r.peakRssMb).toBeGreaterThan(0);
    expect(r.cliPeakRssMb).toBeLessThan(RSS_BASE_MB);
  }, 240_000);
});
