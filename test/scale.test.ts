// A million runs (issue 12, item 8): memory does not follow the archive. In child processes,
// running the built CLI: scoring 80,000 small bundles takes at most 0.5 KB more peak RSS per
// bundle than scoring 20,000; merging a shard document of 200,000 entries succeeds in a process
// whose heap is capped at 256 MB (the document itself is about 160 MB).
import { closeSync, createReadStream, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { writeCorpus } from "../src/io/corpus.js";
import { spawnCli, spawnMeasured } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-scale-", SCRATCH);
// In memory, not on the disk: writing, reading and removing 100,000 bundles' files waited on the disk
// for most of this test's time, and the disk is not what is measured.
describe("memory does not follow the archive", { timeout: 420_000 }, () => {
  it("80,000 small bundles take at most 0.5 KB more peak RSS per bundle than 20,000", () => {
    const small = join(tmp, "small");
    const large = join(tmp, "large");
    // The synthesised mix (wins, deaths, retries, interrupted and killed runs), about 20 records a bundle.
    const n20 = writeCorpus(small, { n: 17_000, seed: "scale", faults: false });
    const n80 = writeCorpus(large, { n: 68_000, seed: "scale", faults: false });
    expect([n20 > 19_000, n80 > 79_000]).toEqual([true, true]);
    const args = (root: string) => [
      "score",
      root,
      "--format",
      "json",
      "--out",
      join(tmp, "out.json"),
      "--quiet",
      "--jobs",
      "2",
    ];
    // Peak RSS is the need plus the collector's timing (±3 MB run to run here, ±50 bytes a bundle
    // over 60,000): each size's least of two runs is its need, the noise only ever adds to it.
    const leastOf = (root: string) => {
      const runs = [spawnMeasured(args(root)), spawnMeasured(args(root))];
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      return { maxRssKb: Math.min(...runs.map((r) => r.maxRssKb)) };
    };
    const a = leastOf(small);
    const b = leastOf(large);
    const perBundle = ((b.maxRssKb - a.maxRssKb) * 1024) / (n80 - n20);
    console.log(
      `peak RSS ${(a.maxRssKb / 1024).toFixed(0)} MB at ${n20} bundles, ${(b.maxRssKb / 1024).toFixed(0)} MB at ${n80}: ${perBundle.toFixed(0)} bytes per bundle`,
    );
    expect(perBundle).toBeLessThan(512);
    rmSync(small, { recursive: true, force: true });
    rmSync(large, { recursive: true, force: true });
  });

  it("merge of a 200,000-entry shard document succeeds with a 256 MB heap, and every entry is in the result", async () => {
    const corpus = join(tmp, "seed");
    writeCorpus(corpus, { n: 200, seed: "merge", faults: true });
    const shard = join(tmp, "one-shard.json");
    expect(spawnCli(["score", corpus, "--shard", "0/1", "--out", shard, "--quiet"]).code).toBe(0);
    const doc = JSON.parse(readFileSync(shard, "utf8")) as { run: unknown; bundles: { path: string }[] };
    // 200,000 entries: the scored ones again and again under new paths, written in pieces.
    const big = join(tmp, "big-shard.json");
    const fd = openSync(big, "w");
    writeSync(fd, `{\n  "format": "assay.results/1",\n  "run": ${JSON.stringify(doc.run)},\n  "bundles": [`);
    const total = 200_000;
    for (let i = 0; i < total; i++) {
      const e = doc.bundles[i % doc.bundles.length]!;
      writeSync(
        fd,
        `${i === 0 ? "" : ","}\n${JSON.stringify({ ...e, path: `${e.path}/copy-${String(i).padStart(6, "0")}` })}`,
      );
    }
    writeSync(fd, `\n  ],\n  "experiments": []\n}\n`);
    closeSync(fd);
    const out = join(tmp, "merged.json");
    const r = spawnMeasured(["merge", big, "--format", "json", "--out", out], ["--max-old-space-size=256"]);
    expect(r.stderr).toMatch(/^assay: wrote .*merged\.json \(200000 bundles\)\n$/);
    expect(r.code).toBe(0);
    let entries = 0;
    for await (const line of createInterface({ input: createReadStream(out) }))
      if (line.startsWith('      "path": ')) entries++;
    expect(entries).toBe(total);
    console.log(`merge of ${total} entries: peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MB`);
  });
});
