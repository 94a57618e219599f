// `npm run bench`: throughput and memory, measured in one run on synthesised corpora and reported
// as ratios. Not a test: numbers, not verdicts. Native bundles against the bare limit (native.ts;
// `npm run bench -- --native` runs that alone); Harbor trials (a synthesised job) with all workers;
// on the larger native corpus, a store's first fill and a rerun against it; in a child process, the peak RSS of validating
// one large journal (1 GB); two large Inspect .eval logs (100,000 samples each: one shaped as Inspect
// writes, one padded) beside their bare limit (inspect.ts; `--inspect`); eight Inspect logs of
// 1–15 MB on 1 and 2 workers (inspect-small.ts; `--inspect-small`); real Inspect logs rerun against a
// store, and Inspect's own reader beside assay verify (inspect-archive.ts; `--inspect-archive`); `assay compare` of two
// 200,000-entry documents with per-sample Inspect values under a capped heap (compare.ts;
// `--compare`); the start-up of `assay score` of one small bundle beside `node -e 0` (startup.ts;
// `--startup`); `assay merge` of 1,000,000 entries in 4 shards, time and peak RSS (merge.ts; `--merge`);
// `assay export` of a 100,000-sample log and 100,000 bundles, time and peak RSS, then of 250,000 and
// 1,000,000 native units, peak RSS as units grow (export.ts; `--export`).
// `--stats` (stats.ts) is not throughput: how often the statistics' 95% claims hold, run alone.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scoreBundle } from "../kinds/bundle/score.js";
import { diskBundle } from "../io/bundle-source.js";
import { writeCorpus } from "../io/corpus.js";
import { scoreRoots } from "../pipeline/score.js";
import { ResultStore } from "../store/store.js";
import { compareBench } from "./compare.js";
import { inspectBench } from "./inspect.js";
import { inspectSmallBench } from "./inspect-small.js";
import { inspectArchiveBench } from "./inspect-archive.js";
import { mergeBench } from "./merge.js";
import { env, median, ROUNDS, secondsSince, time } from "./measure.js";
import { million } from "./million.js";
import { nativeBench, RUN } from "./native.js";
import { startupBench } from "./startup.js";
import { attestBench } from "./attest.js";
import { exportBench } from "./export.js";
import { statsBench, statsOptions } from "./stats.js";

const JOURNAL_MB = env("BENCH_JOURNAL_MB", 1024);
const HARBOR_TRIALS = env("BENCH_HARBOR_TRIALS", 2000);
const rssMb = () => process.resourceUsage().maxRSS / 1024;

/** A valid native journal of about `mb` megabytes, written line by line (never held in memory). */
function writeBigJournal(dir: string, mb: number): void {
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, "journal.jsonl"), "w");
  let prev = "0".repeat(64);
  let at = 1_788_000_000_000;
  let seq = 0;
  let written = 0;
  const put = (rec: Record<string, unknown>) => {
    const line = JSON.stringify({ seq: seq++, at: (at += 1), prev, ...rec });
    prev = createHash("sha256").update(line).digest("hex");
    written += writeSync(fd, line + "\n");
  };
  put({
    type: "session",
    format: "assay.bundle/1",
    profile: "native-game",
    session: "big",
    experiment: "bench",
    trial: "big",
    attempt: 1,
    seed: "00112233445566778899aabbccddeeff",
    harness: { name: "bench", revision: "1" },
    deadline: 9_000_000_000_000,
    meta: {},
  });
  const state = (turn: number) => ({
    character_generated: true,
    playing: true,
    is_dead: false,
    escaped: false,
    depth: 1,
    max_depth: 1,
    game_type: 0,
    noscore: 0,
    wizard: false,
    score_options: false,
    died_from: "",
    turn,
    playerturn: turn,
    silmarils: 0,
    inventory: [{ slot: 0, k_idx: 20, tval: 23, sval: 1, number: 1, name1: 0 }],
  });
  for (let frame = 0; written < mb * 1e6; frame++) {
    if (frame > 0) put({ type: "keys", frame: frame - 1, keys: "l" });
    put({ type: "observation", frame, state: state(frame) });
  }
  closeSync(fd);
}

/** The sections `npm run bench -- --NAME` runs alone, each in a fresh temporary folder. */
const SECTIONS: Record<string, (dir: string) => unknown> = {
  "--native": nativeBench,
  "--inspect": inspectBench,
  "--inspect-small": inspectSmallBench,
  "--inspect-archive": inspectArchiveBench,
  "--compare": compareBench,
  "--startup": startupBench,
  "--merge": mergeBench,
  "--attest": attestBench,
  "--export": exportBench,
};

async function main(): Promise<void> {
  if (process.argv[2] === "--million") return million();
  if (process.argv[2] === "--stats") {
    let options: ReturnType<typeof statsOptions>;
    try {
      options = statsOptions(process.argv.slice(3));
    } catch (e) {
      console.error(`bench --stats: ${(e as Error).message}`);
      process.exitCode = 2;
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "assay-bench-stats-"));
    try {
      await statsBench(dir, options);
      return;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const section = SECTIONS[process.argv[2] ?? ""];
  if (section !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), `assay-bench-${process.argv[2]!.slice(2)}-`));
    try {
      await section(dir);
      return;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (process.argv[2] === "--synth") {
    // Child mode: synthesis holds a corpus's files in memory; kept out of the measured process.
    writeCorpus(process.argv[3]!, { n: HARBOR_TRIALS, seed: "bench", faults: false, profile: "harbor" });
    return;
  }
  if (process.argv[2] === "--validate") {
    // Child mode: validate one bundle, print its verdict and this process's peak RSS.
    const e = scoreBundle(diskBundle(process.argv[3]!));
    console.log(JSON.stringify({ validity: e.validity, errors: e.errors.length, rssMb: rssMb() }));
    return;
  }
  const root = mkdtempSync(join(tmpdir(), "assay-bench-"));
  try {
    const c = await nativeBench(root);
    const harbor = join(root, "harbor");
    if (
      spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--synth", harbor], { stdio: "inherit" }).status !==
      0
    )
      throw new Error("synthesising the Harbor job failed");
    const all = availableParallelism();
    await scoreRoots([harbor], { ...RUN, jobs: all }); // warm
    const te: number[] = [];
    for (let r = 0; r < ROUNDS; r++) te.push(await time(() => scoreRoots([harbor], { ...RUN, jobs: all })));

    const storeFile = join(root, "store.sqlite");
    const store = new ResultStore(storeFile);
    const fill = await time(() => scoreRoots([c.root], { ...RUN, jobs: all, store }));
    const rerun = await time(() => scoreRoots([c.root], { ...RUN, jobs: all, store }));
    store.close();
    const row = (name: string, t: number) =>
      `${name.padEnd(36)} ${(c.dirs.length / t).toFixed(0).padStart(7)} bundles/s ${(c.mb / t).toFixed(1).padStart(7)} MB/s ${t.toFixed(2).padStart(7)} s`;
    console.log("");
    console.log(row(`first run filling a store, ${all} workers`, fill));
    console.log(row("rerun against the full store", rerun));
    const e = median(te);
    console.log(
      `${`Harbor trials, ${all} workers`.padEnd(36)} ${(HARBOR_TRIALS / e).toFixed(0).padStart(7)} trials/s  ${e.toFixed(2).padStart(7)} s   (${HARBOR_TRIALS} trials, ~10 files each)`,
    );
    console.log(`peak RSS of this process (main thread and workers): ${rssMb().toFixed(0)} MB`);

    if (JOURNAL_MB > 0) {
      const big = join(root, "big");
      writeBigJournal(big, JOURNAL_MB);
      const size = statSync(join(big, "journal.jsonl")).size / 1e6;
      const t = process.hrtime.bigint();
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--validate", big], {
        encoding: "utf8",
      });
      const secs = secondsSince(t);
      const r = JSON.parse(child.stdout) as { validity: string; rssMb: number };
      console.log(
        `one ${size.toFixed(0)} MB journal: ${r.validity}, ${secs.toFixed(1)} s, peak RSS ${r.rssMb.toFixed(0)} MB   target < 256 MB`,
      );
    }
    if (env("BENCH_INSPECT_SAMPLES", 100_000) > 0) await inspectBench(root);
    await inspectSmallBench(root);
    await inspectArchiveBench(join(root, "inspect-archive"));
    compareBench(root);
    startupBench(join(root, "startup"));
    await mergeBench(join(root, "merge"));
    attestBench(join(root, "attest"));
    await exportBench(join(root, "export"));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
