// `assay narrate` on a results document of 200,000 bundle entries (about 120 MB), run by the
// COMPILED CLI (dist/) offline in a child whose heap is capped at 96 MiB: it reads the document an
// entry at a time (it used to read it whole, into one string), and its facts count every entry.

import { createHash } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Narrative } from "../src/analysis/narrative.js";
import { writeBigResults } from "./helpers/big-results.js";
import { spawnMeasured } from "./helpers/cli.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const N = 200_000;
const HEAP_MB = 96;
const { dir } = scratch("assay-narrate-memory-", SCRATCH);

describe("narrate keeps memory bounded", () => {
  it(`${N.toLocaleString("en")} entries under a ${HEAP_MB} MiB heap`, async () => {
    const doc = join(dir, "big.json");
    const { victories } = writeBigResults(doc, N, (i) => i % 4 === 0);
    const out = join(dir, "narrative.json");
    const started = Date.now();
    const env = { ANTHROPIC_API_KEY: "", ASSAY_CACHE: join(dir, "cache.sqlite") };
    const { code, maxRssKb } = spawnMeasured(
      ["narrate", doc, "--offline", "--format", "json", "--out", out],
      [`--max-old-space-size=${HEAP_MB}`],
      env,
    );
    const docMB = statSync(doc).size / 2 ** 20;
    console.log(
      `narrate of ${N} entries (${docMB.toFixed(0)} MiB): ${Date.now() - started} ms, peak RSS ${(maxRssKb / 1024).toFixed(0)} MiB`,
    );
    expect(code).toBe(3); // offline and not in the cache: no prose, the facts all the same
    const n = JSON.parse(readFileSync(out, "utf8")) as Narrative;
    expect(n.status).toBe("not-written");
    expect(n.facts.bundles).toEqual({ total: N, valid: N, invalid: 0, error: 0 });
    expect(n.facts.experiments[0]!.accuracy!.victories).toBe(victories);
    expect(n.facts.unanalysed).toHaveLength(N);
    expect(n.facts.unanalysed[0]!.trial).toBe("big/t0000000");
    const digest = createHash("sha256");
    for await (const c of createReadStream(doc)) digest.update(c as Buffer);
    expect(n.source).toBe(digest.digest("hex"));
  }, 180_000);
});
