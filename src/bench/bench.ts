// `npm run bench`: throughput and memory, measured in one run on one synthesised corpus and
// reported as ratios. Not a test: numbers, not verdicts.
//   (a) the bare limit: a loop that only reads, splits, JSON.parses and SHA-256-chains the files
//   (b) assay with 1 worker   (c) assay with all workers   (d) a rerun against a full store
//   (e) Harbor trials (a synthesised job) with all workers
// and, in a child process, the peak RSS of validating one large journal (1 GB by default).

import { spawnSync } from "node:child_process";
import { createHash, hash as oneShot } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scoreBundle } from "../core/bundle.js";
import { diskBundle } from "../io/bundle-source.js";
import { writeCorpus } from "../io/corpus.js";
import { discover } from "../io/discover.js";
import { scoreRoots } from "../pipeline/score.js";
import { ResultStore } from "../store/store.js";
import { million } from "./million.js";

const env = (k: string, d: number) => Number(process.env[k] ?? d);
const TRIALS = env("BENCH_TRIALS", 4300); // ≈ 5,000 bundles with retries
const EVENTS = env("BENCH_EVENTS", 64); // key batches: 64 keys + 65 observations ≈ 128 events
const ROUNDS = env("BENCH_ROUNDS", 3);
const JOURNAL_MB = env("BENCH_JOURNAL_MB", 1024);
const HARBOR_TRIALS = env("BENCH_HARBOR_TRIALS", 2000);

function bare(dirs: string[]): void {
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
          prev = oneShot("sha256", line, "hex");
          from = nl + 1;
        }
      } else if (name.endsWith(".json")) JSON.parse(bytes.toString("utf8"));
    }
  }
}

async function time(fn: () => unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e9;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rssMb = () => process.resourceUsage().maxRSS / 1024;
const RUN = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude" } as const;

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
  put({ type: "session", format: "assay.bundle/1", profile: "native-game", session: "big", experiment: "bench", trial: "big", attempt: 1,
    seed: "00112233445566778899aabbccddeeff", harness: { name: "bench", revision: "1" }, deadline: 9_000_000_000_000, meta: {} });
  const state = (turn: number) => ({ character_generated: true, playing: true, is_dead: false, escaped: false, depth: 1, max_depth: 1, game_type: 0,
    noscore: 0, wizard: false, score_options: false, died_from: "", turn, playerturn: turn, silmarils: 0,
    inventory: [{ slot: 0, k_idx: 20, tval: 23, sval: 1, number: 1, name1: 0 }] });
  for (let frame = 0; written < mb * 1e6; frame++) {
    if (frame > 0) put({ type: "keys", frame: frame - 1, keys: "l" });
    put({ type: "observation", frame, state: state(frame) });
  }
  closeSync(fd);
}

async function main(): Promise<void> {
  if (process.argv[2] === "--million") return million();
  if (process.argv[2] === "--synth") {
    // Child mode: synthesis holds a corpus's files in memory; kept out of the measured process.
    writeCorpus(process.argv[3]!, { n: TRIALS, seed: "bench", faults: false, events: EVENTS });
    writeCorpus(process.argv[4]!, { n: HARBOR_TRIALS, seed: "bench", faults: false, profile: "harbor" });
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
    const corpus = join(root, "corpus");
    const harbor = join(root, "harbor");
    spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--synth", corpus, harbor], { stdio: "inherit" });
    const dirs = [...discover([corpus])].map((f) => f.dir);
    const made = dirs.length;
    let bytes = 0;
    for (const d of dirs) for (const f of readdirSync(d)) bytes += statSync(join(d, f)).size;
    const mb = bytes / 1e6;
    const all = availableParallelism();
    console.log(`machine: ${cpus()[0]?.model ?? "cpu"} ×${cpus().length}, node ${process.version}`);
    console.log(`corpus: ${made} bundles, ${mb.toFixed(1)} MB, ${EVENTS} key batches each; median of ${ROUNDS} alternating rounds`);
    bare(dirs); // warm the page cache and the JIT
    await scoreRoots([corpus], { ...RUN, jobs: 1 });
    await scoreRoots([harbor], { ...RUN, jobs: all });
    const ta: number[] = [];
    const tb: number[] = [];
    const tc: number[] = [];
    const te: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      ta.push(await time(() => bare(dirs)));
      tb.push(await time(() => scoreRoots([corpus], { ...RUN, jobs: 1 })));
      tc.push(await time(() => scoreRoots([corpus], { ...RUN, jobs: all })));
      te.push(await time(() => scoreRoots([harbor], { ...RUN, jobs: all })));
    }
    const storeFile = join(root, "store.sqlite");
    const store = new ResultStore(storeFile);
    const fill = await time(() => scoreRoots([corpus], { ...RUN, jobs: all, store }));
    const rerun = await time(() => scoreRoots([corpus], { ...RUN, jobs: all, store }));
    store.close();
    const [a, b, c] = [median(ta), median(tb), median(tc)];
    const row = (name: string, t: number) =>
      `${name.padEnd(36)} ${(dirs.length / t).toFixed(0).padStart(7)} bundles/s ${(mb / t).toFixed(1).padStart(7)} MB/s ${t.toFixed(2).padStart(7)} s`;
    console.log(row("(a) bare limit, 1 thread", a));
    console.log(row("(b) assay, 1 worker", b));
    console.log(row(`(c) assay, ${all} workers`, c));
    console.log(row("    first run filling a store", fill));
    console.log(row("(d) rerun against the full store", rerun));
    const e = median(te);
    console.log(`${`(e) Harbor trials, ${all} workers`.padEnd(36)} ${(HARBOR_TRIALS / e).toFixed(0).padStart(7)} trials/s  ${e.toFixed(2).padStart(7)} s   (${HARBOR_TRIALS} trials, ~10 files each)`);
    console.log(`(b)/(a) = ${(a / b).toFixed(3)}   target >= 0.75`);
    console.log(`(c)/(b) = ${(b / c).toFixed(3)}   target >= 1.8 on 2 cores`);
    console.log(`peak RSS of the scoring process (main thread and workers): ${rssMb().toFixed(0)} MB`);

    if (JOURNAL_MB > 0) {
      const big = join(root, "big");
      writeBigJournal(big, JOURNAL_MB);
      const size = statSync(join(big, "journal.jsonl")).size / 1e6;
      const t = process.hrtime.bigint();
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--validate", big], { encoding: "utf8" });
      const secs = Number(process.hrtime.bigint() - t) / 1e9;
      const r = JSON.parse(child.stdout) as { validity: string; rssMb: number };
      console.log(`one ${size.toFixed(0)} MB journal: ${r.validity}, ${secs.toFixed(1)} s, peak RSS ${r.rssMb.toFixed(0)} MB   target < 256 MB`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
