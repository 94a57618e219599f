// `npm run bench` (and `npm run bench -- --inspect-archive` alone): Inspect logs at archive scale
// (issue 40 §4). Reruns against a --store: the real logs of ../shared/real-world/inspect-more as a
// folder, and a folder of 50 real logs, each scored into a fresh store and again, in-process like
// the bundle store's row (rerun / first, and how many came from the store). The peer: Inspect's own
// `read_eval_log` (Python, from inspect_ai's source: BENCH_INSPECT_PYTHON and
// BENCH_INSPECT_PYTHONPATH, docs/development.md) beside `assay verify` on the same logs, in MB/s of
// the files on disk; skipped, with the reason, where Python cannot import it. The claims-only pass
// against a full verify on the 100,000-sample log is inspect.ts's (it has the log), by `triageRow`.

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_BATCH } from "../core/batch/experiments.js";
import type { BundleEntry } from "../core/results.js";
import { discover } from "../io/discover.js";
import { scoreRoots } from "../pipeline/score.js";
import { ResultStore } from "../store/store.js";
import { median, ROUNDS, secondsSince, timeProcess } from "./measure.js";
import { PEER_PY } from "./inspect-peer.js";

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const SHARED = resolve(process.env["ASSAY_SHARED_DIR"] ?? fileURLToPath(new URL("../../../shared", import.meta.url)));
const REAL = join(SHARED, "real-world");

/** Every Inspect log under the roots, as discovery finds them. */
const logsUnder = (roots: readonly string[]): string[] =>
  [...discover(roots.filter((r) => existsSync(r)))].filter((f) => f.kind === "inspect").map((f) => f.dir);

/** `n` logs copied from `from` (in turn) into `dir`, one folder each (names kept), dated an hour ago as an archive's are. */
function folderOf(dir: string, from: readonly string[], n: number): string {
  const old = Date.now() / 1000 - 3600;
  for (let i = 0; i < n; i++) {
    const to = join(dir, String(i).padStart(2, "0"));
    mkdirSync(to, { recursive: true });
    const file = join(to, basename(from[i % from.length]!));
    copyFileSync(from[i % from.length]!, file);
    utimesSync(file, old, old);
  }
  return dir;
}

/** One store's first run and its rerun (fresh store each round): seconds, and how many the rerun took from the store. */
async function rerunRounds(root: string, dir: string, label: string): Promise<void> {
  const jobs = availableParallelism();
  const run = { schedules: [], ...DEFAULT_BATCH, jobs };
  await scoreRoots([root], run); // warm: the files in the page cache, the JIT, as a rerun finds them
  const first: number[] = [];
  const again: number[] = [];
  let cached = 0;
  let logs = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const store = new ResultStore(join(dir, `store-${label}-${r}.sqlite`));
    try {
      let t = process.hrtime.bigint();
      await scoreRoots([root], { ...run, store });
      first.push(secondsSince(t));
      cached = 0;
      logs = 0;
      const progress = { done: (_e: BundleEntry, _b: number, c: boolean) => void ((logs += 1), (cached += c ? 1 : 0)) };
      t = process.hrtime.bigint();
      await scoreRoots([root], { ...run, store, progress });
      again.push(secondsSince(t));
    } finally {
      store.close();
    }
  }
  const ratios = again.map((t, i) => t / first[i]!);
  console.log(
    `${label.padEnd(44)} first ${median(first).toFixed(2).padStart(6)} s   rerun ${median(again).toFixed(2).padStart(6)} s   rerun / first ${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(" ")})   from the store ${cached}/${logs}`,
  );
}

/** The reruns against a store: the real logs as they lie, and a folder of 50. */
export async function inspectRerunBench(dir: string): Promise<void> {
  const inspectMore = join(REAL, "inspect-more");
  const real = logsUnder([inspectMore]);
  console.log(
    `\nInspect logs, rerun against --store (median of ${ROUNDS} rounds, ${availableParallelism()} workers, in process)`,
  );
  if (real.length === 0) {
    console.log(`skipped: no real Inspect logs at ${inspectMore} (set ASSAY_SHARED_DIR)`);
    return;
  }
  await rerunRounds(inspectMore, dir, `the ${real.length} real logs of inspect-more`);
  const all = logsUnder([join(REAL, "inspect"), inspectMore]);
  await rerunRounds(folderOf(join(dir, "fifty"), all, 50), dir, "a folder of 50 real logs");
}

/** A whole `assay` process's wall time and peak RSS (a child that runs main and reports its own rusage). */
export function measuredCli(args: readonly string[]): { secs: number; rssMb: number; code: number } {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [SELF, "--cli", ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const secs = secondsSince(t);
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  if (!last.startsWith("{")) throw new Error(`assay ${args.join(" ")} failed: ${r.stderr}`);
  const { rssMb, code } = JSON.parse(last) as { rssMb: number; code: number };
  return { secs, rssMb, code };
}

/** The claims-only pass beside a full verify of the same log (whole processes, alternating rounds). */
export function triageRow(file: string): void {
  const triage: { secs: number; rssMb: number }[] = [];
  const verify: { secs: number; rssMb: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    triage.push(measuredCli(["triage", file]));
    verify.push(measuredCli(["verify", file]));
  }
  const ratios = triage.map((t, i) => t.secs / verify[i]!.secs);
  const row = (name: string, xs: { secs: number; rssMb: number }[]) =>
    console.log(
      `${name.padEnd(50)} ${median(xs.map((x) => x.secs))
        .toFixed(1)
        .padStart(6)} s   peak RSS ${median(xs.map((x) => x.rssMb)).toFixed(0)} MB`,
    );
  row("assay verify (full, whole process)", verify);
  row("assay triage (header, reductions, summaries)", triage);
  console.log(
    `${"triage / verify".padEnd(50)} ${median(ratios).toFixed(3).padStart(6)}   (rounds ${ratios.map((x) => x.toFixed(3)).join(" ")}; median of ${ROUNDS})`,
  );
}

/**
 * Whether triage's memory follows the log's size: its peak RSS on the log of N samples against the
 * same log of N/10 (a whole process each, median of ROUNDS). Node alone is ~60 MB of either.
 */
export function triageScalingRow(big: string, small: string, samples: number): void {
  const peak = (file: string) => median(Array.from({ length: ROUNDS }, () => measuredCli(["triage", file]).rssMb));
  const [b, s] = [peak(big), peak(small)];
  const tenth = Math.round(samples / 10).toLocaleString("en");
  console.log(
    `${`assay triage peak RSS, ${tenth} vs ${samples.toLocaleString("en")} samples`.padEnd(50)} ${s.toFixed(0)} MB vs ${b.toFixed(0)} MB   ratio ${(b / s).toFixed(2)} (1.00: independent of the log's size)`,
  );
}

/** The peer: Inspect's read_eval_log beside assay verify on the same logs, or why it cannot run here. */
export function inspectPeerBench(dir: string, files?: readonly string[]): void {
  const logs = files ?? logsUnder([join(REAL, "inspect"), join(REAL, "inspect-more")]);
  console.log(
    `\nThe peer: Inspect's read_eval_log beside assay verify, ${logs.length} logs (MB/s of the files on disk)`,
  );
  if (logs.length === 0) return void console.log("skipped: no logs (set ASSAY_SHARED_DIR)");
  const python = process.env["BENCH_INSPECT_PYTHON"];
  if (python === undefined)
    return void console.log(
      "skipped: BENCH_INSPECT_PYTHON is not set (a Python with inspect_ai's source and dependencies: docs/development.md)",
    );
  const script = join(dir, "inspect-peer.py");
  writeFileSync(script, PEER_PY);
  const env = { ...process.env, PYTHONPATH: process.env["BENCH_INSPECT_PYTHONPATH"] ?? "" };
  const t = process.hrtime.bigint();
  const r = spawnSync(python, [script, ...logs], { encoding: "utf8", env, maxBuffer: 64 * 1024 * 1024 });
  const whole = secondsSince(t);
  const last = r.stdout?.trim().split("\n").at(-1) ?? "";
  if (r.status !== 0 || !last.startsWith("{"))
    return void console.log(
      `skipped: ${python} cannot run read_eval_log here: ${(r.error?.message ?? r.stderr ?? "").trim().split("\n").at(-1)}`,
    );
  const peer = JSON.parse(last) as {
    import_s: number;
    stand_ins: string[];
    logs: { file: string; s: number; error?: string }[];
  };
  const read = peer.logs.filter((l) => l.error === undefined);
  for (const l of peer.logs.filter((l) => l.error !== undefined))
    console.log(`  Inspect could not read ${l.file}: ${l.error}`);
  const mb = (fs: readonly string[]) => fs.reduce((n, f) => n + statSync(f).size, 0) / 1e6;
  const readMb = mb(read.map((l) => l.file));
  const inspectSecs = read.reduce((n, l) => n + l.s, 0);
  const row = (name: string, secs: number, m: number) =>
    console.log(`${name.padEnd(62)} ${secs.toFixed(2).padStart(7)} s ${(m / secs).toFixed(2).padStart(8)} MB/s`);
  console.log(
    `(${readMb.toFixed(1)} MB in ${read.length} logs Inspect reads; its stand-ins for modules not installable here: ${peer.stand_ins.join(", ") || "none"})`,
  );
  row("Inspect read_eval_log, one process, reading only", inspectSecs, readMb);
  row(`Inspect, whole process (its import ${peer.import_s.toFixed(1)} s)`, whole, readMb);
  let assaySecs = 0;
  for (const l of read) assaySecs += timeProcess([CLI, "verify", l.file], [0, 1, 3]);
  row("assay verify, one whole process a log", assaySecs, readMb);
  const scored = join(dir, "peer-logs");
  folderOf(
    scored,
    read.map((l) => l.file),
    read.length,
  );
  row(
    "assay score of them as a folder, whole process",
    timeProcess([CLI, "score", scored, "--quiet"], [0, 1, 3]),
    readMb,
  );
}

/** `npm run bench -- --inspect-archive`: the reruns and the peer. */
export async function inspectArchiveBench(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await inspectRerunBench(dir);
  inspectPeerBench(dir);
}

if (process.argv[1] === SELF && process.argv[2] === "--cli") {
  // Child: `assay ARGS` as dist/cli.js runs it (its heap setting), its output discarded, then
  // this process's exit code and peak RSS.
  (await import("node:v8")).setFlagsFromString("--heap-growing-percent=20");
  const { main } = await import("../cli/main.js");
  const code = await main(process.argv.slice(3), {
    stdout: () => {},
    stderr: () => {},
    env: process.env,
    stderrIsTTY: false,
    onInterrupt: () => () => {},
  });
  console.log(JSON.stringify({ code, rssMb: process.resourceUsage().maxRSS / 1024 }));
}
