// The export row of `npm run bench` (`npm run bench -- --export` runs it alone): `assay export` of
// one results document holding an Inspect .eval of BENCH_EXPORT_SAMPLES samples (default 100,000;
// the realistic shape of inspect.ts, each sample's record read back from the log) and a corpus of
// BENCH_EXPORT_BUNDLES native trials (default 100,000; faults and retries add ~17 %), each a unit:
// wall time, units/s and peak RSS of the whole process (GNU time), beside `assay score` of the
// same archive (the export reads the log again: its cost is a score's share of the log), and the
// sizes written. Memory is the point: rows are streamed into DuckDB through its appender, which
// keeps to its memory limit, so peak RSS stays flat as units grow. Then the growth itself: one
// document of BENCH_EXPORT_UNITS native entries (default 1,000,000; 0 skips it) and one of a
// quarter as many, each entry its own unit, exported at a 128MB limit and at the default: the ratio
// of the two peaks says what the export keeps per unit (1: nothing).

import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emptyTally, type BundleEntry } from "../core/results.js";
import { writeCorpus } from "../io/corpus.js";
import { assembleView, scoreRoots } from "../pipeline/score.js";
import { render } from "../report/json.js";
import { env, secondsSince } from "./measure.js";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const INSPECT = fileURLToPath(new URL("./inspect.js", import.meta.url));

/** One spawned `assay …` in `cwd`: wall seconds and its peak RSS (GNU time's %M, KB). */
function timed(cwd: string, argv: string[]): { secs: number; rssMb: number; stderr: string } {
  const t = process.hrtime.bigint();
  const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, CLI, ...argv], { cwd, encoding: "utf8" });
  const secs = secondsSince(t);
  if (r.status !== 0) throw new Error(`assay ${argv.join(" ")}: exit ${r.status}\n${r.stderr}`);
  const lines = r.stderr.trim().split("\n");
  return { secs, rssMb: Number(lines.at(-1)) / 1024, stderr: lines.slice(0, -1).join("\n") };
}

/** The units and sizes `assay export` reported and wrote. */
function written(out: string, stderr: string): { units: number; mb: number } {
  const units = Number(/(\d+) units/.exec(stderr)?.[1] ?? NaN);
  const mb = readdirSync(out).reduce((s, f) => s + statSync(join(out, f)).size, 0) / 2 ** 20;
  return { units, mb };
}

const OPTIONS = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude" } as const;

/**
 * A results document of n native entries, written piece by piece by assay's JSON writer: 2,000
 * trials (faults and retries among them) scored in process, copied under new folders.
 */
async function nativeDocument(dir: string, file: string, n: number): Promise<void> {
  const corpus = join(dir, "templates");
  writeCorpus(corpus, { n: 2000, seed: "export-growth", faults: true, events: 4 });
  const t = (await scoreRoots([corpus], OPTIONS)).bundles.map((e) => ({ ...e, path: e.path.slice(corpus.length + 1) }));
  rmSync(corpus, { recursive: true, force: true });
  const width = String(Math.ceil(n / t.length)).length;
  const source = {
    records: [],
    tally: emptyTally(),
    *[Symbol.iterator](): Generator<BundleEntry> {
      for (let k = 0; k < n; k++) {
        const e = t[k % t.length]!;
        const copy = `c${String(Math.floor(k / t.length)).padStart(width, "0")}`;
        yield { ...e, path: `archive/${copy}/${e.path}`, experiment: e.experiment && `${e.experiment}-${copy}` };
      }
    },
  };
  const view = assembleView(source, OPTIONS, new Date().toISOString(), { complete: true, roots: ["archive"] });
  const fd = openSync(file, "w");
  let held: string[] = [];
  let size = 0;
  for (const piece of render(view)) {
    held.push(piece);
    if ((size += piece.length) >= 1 << 20) {
      writeSync(fd, held.join(""));
      [held, size] = [[], 0];
    }
  }
  writeSync(fd, held.join(""));
  closeSync(fd);
}

/** Peak RSS of exporting n and n/4 native units: flat means nothing is kept per unit. */
async function growthBench(dir: string): Promise<void> {
  const n = env("BENCH_EXPORT_UNITS", 1_000_000);
  if (n === 0) return;
  const sizes = [Math.floor(n / 4), n];
  mkdirSync(dir, { recursive: true });
  for (const k of sizes) await nativeDocument(dir, join(dir, `doc-${k}.json`), k);
  console.log(`\nexport growth: documents of native entries, each its own unit (and an entry's row); whole process:`);
  for (const limit of ["128MB", "512MB"]) {
    const peaks = sizes.map((k) => {
      const out = join(dir, "out");
      const r = timed(dir, ["export", `doc-${k}.json`, "--out", out, "--memory-limit", limit, "--quiet"]);
      rmSync(out, { recursive: true, force: true });
      console.log(
        `  ${`${k.toLocaleString("en")} units, --memory-limit ${limit}`.padEnd(44)} ${r.secs.toFixed(1).padStart(7)} s  peak RSS ${r.rssMb.toFixed(0).padStart(4)} MB  ${(k / r.secs).toFixed(0).padStart(7)} units/s`,
      );
      return r.rssMb;
    });
    console.log(
      `  ${"".padEnd(44)} peak RSS ${sizes[1]!.toLocaleString("en")} / ${sizes[0]!.toLocaleString("en")} units: ${(peaks[1]! / peaks[0]!).toFixed(2)}`,
    );
  }
  for (const k of sizes) rmSync(join(dir, `doc-${k}.json`), { force: true });
}

export async function exportBench(dir: string): Promise<void> {
  const samples = env("BENCH_EXPORT_SAMPLES", 100_000);
  const bundles = env("BENCH_EXPORT_BUNDLES", 100_000);
  if (samples > 0 || bundles > 0) realisticBench(dir, samples, bundles);
  await growthBench(join(dir, "growth"));
}

/** A realistic .eval's samples and a native corpus in one document, exported at two limits beside its score. */
function realisticBench(dir: string, samples: number, bundles: number): void {
  mkdirSync(join(dir, "archive", "logs"), { recursive: true });
  const log = join(dir, "archive", "logs", "2025-11-03T10-00-00+00-00_bench_realistic.eval");
  const synth = spawnSync(process.execPath, [INSPECT, "--synth", log, "realistic"], {
    stdio: "inherit",
    env: { ...process.env, BENCH_INSPECT_SAMPLES: String(samples) },
  });
  if (synth.status !== 0) throw new Error("synthesising the .eval failed");
  const made = writeCorpus(join(dir, "archive", "runs"), { n: bundles, seed: "export-bench", faults: true });
  const score = timed(dir, ["score", "archive", "-f", "json", "-o", "r.json", "-q", "--jobs", "2"]);
  const docMb = statSync(join(dir, "r.json")).size / 2 ** 20;
  console.log(
    `\nexport: one .eval of ${samples.toLocaleString("en")} samples (${(statSync(log).size / 1e6).toFixed(0)} MB) and ${made.toLocaleString("en")} native bundles, a ${docMb.toFixed(0)} MB document; each a whole process:`,
  );
  const row = (what: string, r: { secs: number; rssMb: number }, units?: number) =>
    console.log(
      `  ${what.padEnd(44)} ${r.secs.toFixed(1).padStart(7)} s  peak RSS ${r.rssMb.toFixed(0).padStart(4)} MB${units === undefined ? "" : `  ${(units / r.secs).toFixed(0).padStart(7)} units/s`}`,
    );
  row("assay score --jobs 2 (the same archive)", score);
  for (const limit of ["128MB", "512MB"]) {
    const out = join(dir, `out-${limit}`);
    const r = timed(dir, ["export", "r.json", "--out", out, "--memory-limit", limit]);
    const w = written(out, r.stderr);
    row(`assay export --memory-limit ${limit}`, r, w.units);
    console.log(
      `  ${"".padEnd(44)} ${w.units.toLocaleString("en")} units, ${w.mb.toFixed(0)} MB written (database and Parquet)`,
    );
  }
}
