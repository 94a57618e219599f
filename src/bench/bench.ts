// `npm run bench`: throughput and memory, measured in one run on synthesised corpora and reported
// as ratios. Not a test: numbers, not verdicts. For each of two corpora (~130 records per bundle:
// per-byte work; ~20: per-bundle overhead), in alternating rounds:
//   the bare limit (bare.ts) on 1 and on 2 threads; assay with 1 and with 2 workers — each both in
//   this process (the corpus already walked; a fresh pool per run) and as a whole process (the CLI,
//   or bare.ts as a script), so startup and discovery count
// then, on the first corpus, a rerun against a full store; Harbor trials (a synthesised job) with
// all workers; in a child process, the peak RSS of validating one large journal (1 GB); two large
// Inspect .eval logs (100,000 samples each: one shaped as Inspect writes, one padded) beside their
// bare limit (inspect.ts; `npm run bench -- --inspect` runs that alone); eight Inspect logs of
// 1–15 MB on 1 and 2 workers (inspect-small.ts; `--inspect-small`); `assay compare` of two
// 200,000-entry documents with per-sample Inspect values under a capped heap (compare.ts; `npm run bench -- --compare`); and
// the start-up of `assay score` of one small bundle beside `node -e 0` (startup.ts; `-- --startup`);
// `assay merge` of 1,000,000 entries in 4 shards, time and peak RSS (merge.ts; `npm run bench -- --merge`).

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scoreBundle } from "../core/bundle.js";
import { diskBundle, readChunks } from "../io/bundle-source.js";
import { writeCorpus } from "../io/corpus.js";
import { discover } from "../io/discover.js";
import { scoreRoots } from "../pipeline/score.js";
import { ResultStore } from "../store/store.js";
import { bare, bareThreads } from "./bare.js";
import { compareBench } from "./compare.js";
import { inspectBench } from "./inspect.js";
import { inspectSmallBench } from "./inspect-small.js";
import { mergeBench } from "./merge.js";
import { median, secondsSince, timeProcess } from "./measure.js";
import { million } from "./million.js";
import { startupBench } from "./startup.js";

const env = (k: string, d: number) => Number(process.env[k] ?? d);
const TRIALS = env("BENCH_TRIALS", 4300); // ≈ 5,000 bundles with retries
const EVENTS = env("BENCH_EVENTS", 64); // key batches: 64 keys + 65 observations ≈ 130 records
const SMALL_EVENTS = env("BENCH_SMALL_EVENTS", 9); // ≈ 20 records
const ROUNDS = env("BENCH_ROUNDS", 3);
const JOURNAL_MB = env("BENCH_JOURNAL_MB", 1024);
const HARBOR_TRIALS = env("BENCH_HARBOR_TRIALS", 2000);
const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const BARE = fileURLToPath(new URL("./bare.js", import.meta.url));

async function time(fn: () => unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return secondsSince(t);
}
/** A whole process (exit 1 too: a corpus with invalid bundles). */
const timeScore = (args: string[]) => timeProcess(args, [0, 1]);
const rssMb = () => process.resourceUsage().maxRSS / 1024;
const RUN = { schedules: [], invalid: "count", resourceBound: "default", errors: "exclude" } as const;
/** The two-worker figures compare with the two-thread bare loop (the issue's "--jobs 2"). */
const TWO = 2;

interface Corpus {
  name: string;
  root: string;
  dirs: string[];
  mb: number;
  records: number;
}

function describe(name: string, root: string): Corpus {
  const dirs = [...discover([root])].map((f) => f.dir);
  let bytes = 0;
  let lines = 0;
  for (const d of dirs)
    for (const f of readdirSync(d)) {
      bytes += statSync(join(d, f)).size;
      if (f === "journal.jsonl") for (const c of readChunks(join(d, f))) for (let i = c.indexOf(0x0a); i !== -1; i = c.indexOf(0x0a, i + 1)) lines++;
    }
  return { name, root, dirs, mb: bytes / 1e6, records: lines / dirs.length };
}

/**
 * CPU time so far, in ticks (Linux /proc; null elsewhere): the machine's in all (`total`), busy,
 * taken by the host (steal), and this process's own with its waited-for children (the whole-process
 * rows). Busy time that is neither ours nor stolen is other processes': every two-thread figure
 * needs idle CPUs, so the report says how much they took.
 */
function procStat(): { total: number; busy: number; steal: number; ours: number } | null {
  try {
    const line = (f: string) => f.slice(0, f.indexOf("\n"));
    const ticks = line(readFileSync("/proc/stat", "latin1")).trim().split(/\s+/).slice(1).map(Number);
    const self = readFileSync("/proc/self/stat", "latin1");
    // Fields after the command name (which may hold spaces, so read from its closing parenthesis): utime is the 12th.
    const f = self.slice(self.lastIndexOf(")") + 2).split(" ").map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    return { total, busy: total - ticks[3]! - (ticks[4] ?? 0), steal: ticks[7] ?? 0, ours: f[11]! + f[12]! + f[13]! + f[14]! };
  } catch {
    return null;
  }
}

/** What the host and other processes took of the machine between two readings, as shares of all its CPU time. */
function contention(a: ReturnType<typeof procStat>, b: ReturnType<typeof procStat>): string | null {
  if (a === null || b === null || b.total === a.total) return null;
  const all = b.total - a.total;
  const steal = (b.steal - a.steal) / all;
  const others = Math.max(0, b.busy - a.busy - (b.ours - a.ours) - (b.steal - a.steal)) / all;
  return `CPU the host took (steal) during the rounds: ${(100 * steal).toFixed(1)}%; other processes here: ${(100 * others).toFixed(1)}%`;
}

const ROWS = ["bare loop, 1 thread", "bare loop, 2 threads", "assay, 1 worker (--jobs 1)", "assay, 2 workers (--jobs 2)"] as const;

/** CPU seconds of this process (every thread: workers, V8's compiler and GC threads) while `fn` runs. */
async function cpuOf(fn: () => unknown, into: number[]): Promise<void> {
  const c = process.cpuUsage();
  await fn();
  const d = process.cpuUsage(c);
  into.push((d.user + d.system) / 1e6);
}

/** One round on a corpus: each row in this process (wall and CPU) and as a whole process. */
async function round(c: Corpus, into: Map<string, number[]>): Promise<void> {
  const put = (k: string, t: number) => into.set(k, [...(into.get(k) ?? []), t]);
  const cpu = (k: string) => (into.get(`cpu:${k}`) ?? into.set(`cpu:${k}`, []).get(`cpu:${k}`)!);
  put(`in:${ROWS[0]}`, await time(() => cpuOf(() => bare(c.dirs), cpu(ROWS[0]))));
  put(`in:${ROWS[1]}`, await time(() => cpuOf(() => bareThreads(c.dirs, TWO), cpu(ROWS[1]))));
  put(`in:${ROWS[2]}`, await time(() => cpuOf(() => scoreRoots([c.root], { ...RUN, jobs: 1 }), cpu(ROWS[2]))));
  put(`in:${ROWS[3]}`, await time(() => cpuOf(() => scoreRoots([c.root], { ...RUN, jobs: TWO }), cpu(ROWS[3]))));
  put(`proc:${ROWS[0]}`, timeScore([BARE, c.root, "1"]));
  put(`proc:${ROWS[1]}`, timeScore([BARE, c.root, String(TWO)]));
  put(`proc:${ROWS[2]}`, timeScore([CLI, "score", c.root, "--quiet", "--jobs", "1"]));
  put(`proc:${ROWS[3]}`, timeScore([CLI, "score", c.root, "--quiet", "--jobs", String(TWO)]));
}

function report(c: Corpus, times: Map<string, number[]>): void {
  const t = (k: string) => median(times.get(k)!);
  console.log(`\n~${c.records.toFixed(0)} records per bundle: ${c.dirs.length} bundles, ${c.mb.toFixed(1)} MB`);
  console.log(`${"".padEnd(30)} ${"in process".padStart(24)}   ${"whole process".padStart(24)}   CPU in process (all threads)`);
  const cell = (s: number) => `${s.toFixed(2).padStart(6)} s ${(c.dirs.length / s).toFixed(0).padStart(6)} bundles/s`;
  const cpu = (r: string) => `${t(`cpu:${r}`).toFixed(2).padStart(6)} s ${((t(`cpu:${r}`) * 1e6) / c.dirs.length).toFixed(0).padStart(5)} us/bundle`;
  for (const r of ROWS) console.log(`${r.padEnd(30)} ${cell(t(`in:${r}`))}   ${cell(t(`proc:${r}`))}   ${cpu(r)}`);
  // Each round's own ratio beside the ratio of medians: the host's load drifts between rounds, and
  // a ratio of two rows timed moments apart in one round is less exposed to it.
  const rounds = (k: string, num: string, den: string) => times.get(`${k}:${num}`)!.map((x, i) => (x / times.get(`${k}:${den}`)![i]!).toFixed(2)).join(" ");
  const ratio = (name: string, num: string, den: string, target: string) =>
    console.log(
      `${name.padEnd(30)} ${(t(`in:${num}`) / t(`in:${den}`)).toFixed(3).padStart(24)}   ${(t(`proc:${num}`) / t(`proc:${den}`)).toFixed(3).padStart(24)}   ${target}` +
        (target ? `\n${"  each round".padEnd(30)} ${rounds("in", num, den).padStart(24)}   ${rounds("proc", num, den).padStart(24)}` : ""),
    );
  ratio("assay 2 workers / bare 2", ROWS[1], ROWS[3], "target >= 0.55 whole process");
  // No target: 1.7 was withdrawn (issue 26), the bare loop itself scales 1.1–1.6 on these two CPUs.
  ratio("jobs 2 / jobs 1", ROWS[2], ROWS[3], "");
  ratio("assay 1 worker / bare 1", ROWS[0], ROWS[2], "");
  ratio("bare 2 threads / 1 thread", ROWS[0], ROWS[1], "");
  // Throughput per CPU second: what assay does beyond the bare loop, whatever else loads the machine.
  console.log(`${"assay 1 worker / bare 1, CPU".padEnd(30)} ${(t(`cpu:${ROWS[0]}`) / t(`cpu:${ROWS[2]}`)).toFixed(3).padStart(24)}   target >= 0.65 (all threads)`);
}

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

/** The sections `npm run bench -- --NAME` runs alone, each in a fresh temporary folder. */
const SECTIONS: Record<string, (dir: string) => unknown> = {
  "--inspect": inspectBench,
  "--inspect-small": inspectSmallBench,
  "--compare": compareBench,
  "--startup": startupBench,
  "--merge": mergeBench,
};

async function main(): Promise<void> {
  if (process.argv[2] === "--million") return million();
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
    writeCorpus(process.argv[3]!, { n: TRIALS, seed: "bench", faults: false, events: EVENTS });
    writeCorpus(process.argv[4]!, { n: TRIALS, seed: "bench", faults: false, events: SMALL_EVENTS });
    writeCorpus(process.argv[5]!, { n: HARBOR_TRIALS, seed: "bench", faults: false, profile: "harbor" });
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
    const [large, small, harbor] = ["corpus", "small", "harbor"].map((d) => join(root, d)) as [string, string, string];
    spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--synth", large, small, harbor], { stdio: "inherit" });
    const corpora = [describe("large", large), describe("small", small)];
    const all = availableParallelism();
    console.log(`machine: ${cpus()[0]?.model ?? "cpu"} ×${cpus().length}, node ${process.version}; median of ${ROUNDS} alternating rounds`);
    // Scaling needs idle cores: other processes' load skews every two-thread figure.
    console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
    for (const c of corpora) {
      bare(c.dirs); // warm the page cache and the JIT
      await scoreRoots([c.root], { ...RUN, jobs: 1 });
    }
    await scoreRoots([harbor], { ...RUN, jobs: all });
    const before = procStat();
    const times = corpora.map(() => new Map<string, number[]>());
    const te: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, c] of corpora.entries()) await round(c, times[i]!);
      te.push(await time(() => scoreRoots([harbor], { ...RUN, jobs: all })));
    }
    console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
    const shared = contention(before, procStat());
    if (shared !== null) console.log(shared);
    for (const [i, c] of corpora.entries()) report(c, times[i]!);

    const c = corpora[0]!;
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
    console.log(`${`Harbor trials, ${all} workers`.padEnd(36)} ${(HARBOR_TRIALS / e).toFixed(0).padStart(7)} trials/s  ${e.toFixed(2).padStart(7)} s   (${HARBOR_TRIALS} trials, ~10 files each)`);
    console.log(`peak RSS of this process (main thread and workers): ${rssMb().toFixed(0)} MB`);

    if (JOURNAL_MB > 0) {
      const big = join(root, "big");
      writeBigJournal(big, JOURNAL_MB);
      const size = statSync(join(big, "journal.jsonl")).size / 1e6;
      const t = process.hrtime.bigint();
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--validate", big], { encoding: "utf8" });
      const secs = secondsSince(t);
      const r = JSON.parse(child.stdout) as { validity: string; rssMb: number };
      console.log(`one ${size.toFixed(0)} MB journal: ${r.validity}, ${secs.toFixed(1)} s, peak RSS ${r.rssMb.toFixed(0)} MB   target < 256 MB`);
    }
    if (env("BENCH_INSPECT_SAMPLES", 100_000) > 0) await inspectBench(root);
    await inspectSmallBench(root);
    compareBench(root);
    startupBench(join(root, "startup"));
    await mergeBench(join(root, "merge"));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
