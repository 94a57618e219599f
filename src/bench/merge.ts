// The merge row of `npm run bench` (`npm run bench -- --merge` runs it alone): `assay merge` of
// BENCH_MERGE_ENTRIES entries (default 1,000,000) in 4 shard documents, as a spawned CLI process:
// wall and CPU time, entries/s and peak RSS (main thread included), beside the targets (issue 26:
// ≤ 30 s, ≤ 256 MB). Run twice, at a quarter of the entries and at all of them: the growth of peak
// RSS between the two, per entry added, is what merge keeps per entry.
//
// The shards are written as `assay score --shard i/4 --format json` writes them, by its own writer
// (report/json.ts over assembleView): entries scored in process from a synthesised corpus of native
// trials with faults (valid and invalid ones, with errors and warnings), copied under new paths
// (one experiment per copy) into the shard their path hashes to, each shard in path order.

import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emptyTally, type BundleEntry } from "../core/results.js";
import { writeCorpus } from "../io/corpus.js";
import { assembleView, scoreRoots } from "../pipeline/score.js";
import { inShard, type Shard } from "../pipeline/shard.js";
import { render } from "../report/json.js";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const SHARDS = 4;
const ROOT = "archive";
/** Loaded with --import: the child's peak RSS and CPU time (main thread and every other) to $MERGE_USAGE_FILE at exit. */
const USAGE = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => { const u = process.resourceUsage(); writeFileSync(process.env.MERGE_USAGE_FILE, JSON.stringify({ maxRSS: u.maxRSS, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6 })); });',
)}`;
const OPTIONS = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude" } as const;

/** Entries as assay scores them: a corpus of native trials (a mix of outcomes and labelled faults), scored in process. */
async function templates(dir: string): Promise<BundleEntry[]> {
  const corpus = join(dir, "corpus");
  writeCorpus(corpus, { n: 2000, seed: "merge", faults: true, events: 4 });
  const doc = await scoreRoots([corpus], OPTIONS);
  rmSync(corpus, { recursive: true, force: true });
  return doc.bundles.map((e) => ({ ...e, path: e.path.slice(corpus.length + 1) }));
}

/** Entry k of n: template k mod T, copy ⌊k/T⌋ under its own folder and experiment; in path order as k grows. */
function entryAt(t: readonly BundleEntry[], k: number, width: number): BundleEntry {
  const e = t[k % t.length]!;
  const copy = `c${String(Math.floor(k / t.length)).padStart(width, "0")}`;
  return { ...e, path: `${ROOT}/${copy}/${e.path}`, experiment: e.experiment === null ? null : `${e.experiment}-${copy}` };
}

/** Shard document `shard` of n entries, written piece by piece by assay's JSON writer. */
function writeShard(file: string, t: readonly BundleEntry[], n: number, shard: Shard): void {
  const width = String(Math.ceil(n / t.length)).length;
  const source = {
    records: [],
    tally: emptyTally(),
    *[Symbol.iterator]() {
      for (let k = 0; k < n; k++) {
        const e = entryAt(t, k, width);
        if (inShard(e.path, shard)) yield e;
      }
    },
  };
  const view = assembleView(source, OPTIONS, new Date().toISOString(), { complete: true, shard, roots: [ROOT] });
  const fd = openSync(file, "w");
  let held: string[] = [];
  let bytes = 0;
  for (const piece of render(view)) {
    held.push(piece);
    bytes += piece.length;
    if (bytes >= 1 << 20) {
      writeSync(fd, held.join(""));
      held = [];
      bytes = 0;
    }
  }
  writeSync(fd, held.join(""));
  closeSync(fd);
}

interface Measured {
  entries: number;
  secs: number;
  cpu: number;
  rssMb: number;
  mib: number;
}

/** `assay merge` of n entries in SHARDS documents, as a child process. */
function measure(dir: string, t: readonly BundleEntry[], n: number): Measured {
  mkdirSync(dir, { recursive: true });
  const shards = Array.from({ length: SHARDS }, (_, i) => join(dir, `shard-${i}.json`));
  shards.forEach((f, index) => writeShard(f, t, n, { index, count: SHARDS }));
  const [out, usage] = [join(dir, "merged.json"), join(dir, "usage")];
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--import", USAGE, CLI, "merge", ...shards, "--format", "json", "--out", out], {
    encoding: "utf8",
    env: { ...process.env, MERGE_USAGE_FILE: usage },
  });
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  const wrote = /\((\d[\d,]*) bundles/.exec(r.stderr ?? "");
  if (r.status !== 0 || Number(wrote?.[1]?.replaceAll(",", "")) !== n) throw new Error(`assay merge: exit ${r.status}: ${r.stderr}`);
  const u = JSON.parse(readFileSync(usage, "utf8")) as { maxRSS: number; cpu: number };
  const mib = shards.reduce((s, f) => s + statSync(f).size, 0) / 2 ** 20;
  rmSync(dir, { recursive: true, force: true });
  return { entries: n, secs, cpu: u.cpu, rssMb: u.maxRSS / 1024, mib };
}

export async function mergeBench(dir: string): Promise<void> {
  const n = Number(process.env["BENCH_MERGE_ENTRIES"] ?? 1_000_000);
  const t = await templates(dir);
  const [small, large] = [measure(join(dir, "quarter"), t, Math.floor(n / 4)), measure(join(dir, "all"), t, n)];
  const row = (m: Measured) =>
    `merge of ${m.entries.toLocaleString("en")} entries (${SHARDS} shards, ${m.mib.toFixed(0)} MiB): ${m.secs.toFixed(1)} s, ${(m.entries / m.secs).toFixed(0)} entries/s, CPU ${m.cpu.toFixed(1)} s, peak RSS ${m.rssMb.toFixed(0)} MiB`;
  console.log(row(small));
  console.log(`${row(large)}   targets ≤ 30 s, ≤ 256 MB`);
  const perEntry = ((large.rssMb - small.rssMb) * 2 ** 20) / (large.entries - small.entries);
  console.log(`peak RSS grows ${perEntry.toFixed(0)} bytes per entry (${small.entries.toLocaleString("en")} → ${large.entries.toLocaleString("en")} entries)`);
}
