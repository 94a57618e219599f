// `npm run bench`: assay's single-thread validation against the bare limit — a loop that only
// reads, splits, JSON.parses and SHA-256-chains the same files — measured alternately in one
// run on one synthesised corpus, reported as a ratio. Not a test: numbers, not verdicts.

import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { scoreBundle } from "../core/bundle.js";
import { diskBundle } from "../io/bundle-source.js";
import { writeCorpus } from "../io/corpus.js";
import { discover } from "../io/discover.js";

const N = Number(process.env["BENCH_TRIALS"] ?? 1500);
const EVENTS = Number(process.env["BENCH_EVENTS"] ?? 64); // key batches: 2 records each → ~128 events
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);

/** The bare limit: read, split, JSON.parse, chain. No rules, no schemas. */
function bare(dirs: string[]): number {
  let lines = 0;
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, name));
      if (name.endsWith(".jsonl")) {
        let prev = "0".repeat(64);
        let from = 0;
        for (;;) {
          const nl = bytes.indexOf(0x0a, from);
          if (nl === -1) break;
          const line = bytes.subarray(from, nl);
          const rec = JSON.parse(line.toString("utf8")) as { prev: string };
          if (rec.prev !== prev) throw new Error("chain");
          prev = createHash("sha256").update(line).digest("hex");
          lines++;
          from = nl + 1;
        }
      } else if (name.endsWith(".json")) JSON.parse(bytes.toString("utf8"));
    }
  }
  return lines;
}

function assay(dirs: string[]): number {
  let invalid = 0;
  for (const dir of dirs) if (scoreBundle(diskBundle(dir)).validity !== "valid") invalid++;
  return invalid;
}

function time(fn: () => unknown): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e9;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main(): void {
  const root = mkdtempSync(join(tmpdir(), "assay-bench-"));
  try {
    const corpus = join(root, "corpus");
    const made = writeCorpus(corpus, { n: N, seed: "bench", faults: false, events: EVENTS });
    const dirs = [...discover([corpus])].map((f) => f.dir);
    let bytes = 0;
    for (const d of dirs) for (const f of readdirSync(d)) bytes += statSync(join(d, f)).size;
    const mb = bytes / 1e6;
    console.log(`corpus: ${made} bundles, ${mb.toFixed(1)} MB, ${EVENTS} key batches each; ${cpus()[0]?.model ?? "cpu"} ×${cpus().length}, node ${process.version}`);
    // Warm both paths (JIT, page cache) before measuring.
    bare(dirs);
    const invalid = assay(dirs);
    if (invalid !== 0) console.log(`warning: ${invalid} synthesised bundles were invalid`);
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      a.push(time(() => bare(dirs)));
      b.push(time(() => assay(dirs)));
    }
    const ta = median(a);
    const tb = median(b);
    const row = (name: string, t: number) =>
      `${name.padEnd(28)} ${(dirs.length / t).toFixed(0).padStart(8)} bundles/s ${(mb / t).toFixed(1).padStart(8)} MB/s`;
    console.log(row("(a) bare limit, 1 thread", ta));
    console.log(row("(b) assay validate, 1 thread", tb));
    console.log(`(b)/(a) = ${(ta / tb).toFixed(3)}   (median of ${ROUNDS} alternating rounds; target for the pool issue: >= 0.75)`);
    console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main();
