// The merge row of `npm run bench` (`npm run bench -- --merge` runs it alone): `assay merge` of
// BENCH_MERGE_ENTRIES entries (default 1,000,000) in 4 shard documents, as a spawned CLI process:
// wall and CPU time, entries/s and peak RSS (main thread included), beside the targets (issue 26:
// ≤ 30 s, ≤ 256 MB). Run twice, at a quarter of the entries and at all of them: the growth of peak
// RSS between the two, per entry added, is what merge keeps per entry. Beside it, in the same run,
// the bare limit: a process that only reads the same shards, finds and parses each entry and
// writes it indented, one shard after another (no checks, no spill, no order, no batch rules);
// this machine's speed drifts by a third within minutes, and the ratio of the two does not.
//
// The shards are written as `assay score --shard i/4 --format json` writes them, by its own writer
// (report/json.ts over assembleView): entries scored in process from a synthesised corpus of native
// trials with faults (valid and invalid ones, with errors and warnings), copied under new paths
// (one experiment per copy) into the shard their path hashes to, each shard in path order.

import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emptyTally, type BundleEntry } from "../core/results.js";
import { writeCorpus } from "../io/corpus.js";
import { assembleView, scoreRoots } from "../pipeline/score.js";
import { inShard, type Shard } from "../pipeline/shard.js";
import { render } from "../report/json.js";
import { secondsSince } from "./measure.js";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const SHARDS = 4;
const ROOT = "archive";
/** Loaded with --import: the child's peak RSS and CPU time (main thread and every other) to $MERGE_USAGE_FILE at exit. */
const USAGE = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => { const u = process.resourceUsage(); writeFileSync(process.env.MERGE_USAGE_FILE, JSON.stringify({ maxRSS: u.maxRSS, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6 })); });',
)}`;
const OPTIONS = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude" } as const;
/** The bare limit, a module run with `-e`: argv is the shards, then the file to write. */
const BARE = `
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { MembersReader } from ${JSON.stringify(new URL("../core/json/members.js", import.meta.url).href)};
const files = process.argv.slice(1, -1);
const out = openSync(process.argv[process.argv.length - 1], "w");
let held = [];
let size = 0;
const put = (s) => {
  held.push(s);
  if ((size += s.length) >= 65536) {
    writeSync(out, held.join(""));
    held = [];
    size = 0;
  }
};
for (const f of files) {
  const reader = new MembersReader(new Set(["bundles", "experiments"]), {
    member() {},
    element(key, bytes) {
      if (key === "bundles") put(",\\n    " + JSON.stringify(JSON.parse(bytes.toString("utf8")), null, 2).replace(/\\n/g, "\\n    "));
    },
  });
  const fd = openSync(f, "r");
  const buf = Buffer.alloc(1 << 20);
  for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) reader.feed(Buffer.from(buf.subarray(0, n)));
  closeSync(fd);
}
writeSync(out, held.join(""));
closeSync(out);
`;

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
  return {
    ...e,
    path: `${ROOT}/${copy}/${e.path}`,
    experiment: e.experiment === null ? null : `${e.experiment}-${copy}`,
  };
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

interface Usage {
  secs: number;
  cpu: number;
  rssMb: number;
}
interface Measured extends Usage {
  entries: number;
  mib: number;
  bare: Usage;
}

/** A child process's wall time, and its CPU time and peak RSS at exit. */
function usageOf(dir: string, args: string[], check: (r: SpawnSyncReturns<string>) => void): Usage {
  const file = join(dir, "usage");
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--import", USAGE, ...args], {
    encoding: "utf8",
    env: { ...process.env, MERGE_USAGE_FILE: file },
  });
  const secs = secondsSince(start);
  check(r);
  const u = JSON.parse(readFileSync(file, "utf8")) as { maxRSS: number; cpu: number };
  return { secs, cpu: u.cpu, rssMb: u.maxRSS / 1024 };
}

/** `assay merge` of n entries in SHARDS documents, as a child process, and the bare limit on the same shards. */
function measure(dir: string, t: readonly BundleEntry[], n: number): Measured {
  mkdirSync(dir, { recursive: true });
  const shards = Array.from({ length: SHARDS }, (_, i) => join(dir, `shard-${i}.json`));
  shards.forEach((f, index) => writeShard(f, t, n, { index, count: SHARDS }));
  const out = join(dir, "merged.json");
  const merge = usageOf(dir, [CLI, "merge", ...shards, "--format", "json", "--out", out], (r) => {
    const wrote = /\((\d[\d,]*) bundles/.exec(r.stderr ?? "");
    if (r.status !== 0 || Number(wrote?.[1]?.replaceAll(",", "")) !== n)
      throw new Error(`assay merge: exit ${r.status}: ${r.stderr}`);
  });
  rmSync(out);
  const bare = usageOf(dir, ["--input-type=module", "-e", BARE, ...shards, out], (r) => {
    if (r.status !== 0) throw new Error(`the bare limit: exit ${r.status}: ${r.stderr}`);
  });
  const mib = shards.reduce((s, f) => s + statSync(f).size, 0) / 2 ** 20;
  rmSync(dir, { recursive: true, force: true });
  return { ...merge, entries: n, mib, bare };
}

export async function mergeBench(dir: string): Promise<void> {
  const n = Number(process.env["BENCH_MERGE_ENTRIES"] ?? 1_000_000);
  const t = await templates(dir);
  const [small, large] = [measure(join(dir, "quarter"), t, Math.floor(n / 4)), measure(join(dir, "all"), t, n)];
  const row = (m: Measured) =>
    `merge of ${m.entries.toLocaleString("en")} entries (${SHARDS} shards, ${m.mib.toFixed(0)} MiB): ${m.secs.toFixed(1)} s, ${(m.entries / m.secs).toFixed(0)} entries/s, CPU ${m.cpu.toFixed(1)} s, peak RSS ${m.rssMb.toFixed(0)} MiB` +
    `; the bare limit ${m.bare.secs.toFixed(1)} s, CPU ${m.bare.cpu.toFixed(1)} s (merge / bare: ${(m.secs / m.bare.secs).toFixed(2)} wall, ${(m.cpu / m.bare.cpu).toFixed(2)} CPU)`;
  console.log(row(small));
  console.log(`${row(large)}   targets ≤ 30 s, ≤ 256 MB`);
  const perEntry = ((large.rssMb - small.rssMb) * 2 ** 20) / (large.entries - small.entries);
  console.log(
    `peak RSS grows ${perEntry.toFixed(0)} bytes per entry (${small.entries.toLocaleString("en")} → ${large.entries.toLocaleString("en")} entries)`,
  );
}
