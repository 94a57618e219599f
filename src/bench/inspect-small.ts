// `npm run bench` (and `npm run bench -- --inspect-small` alone): Inspect logs of every size use
// every core. Eight realistic .eval logs of 1–15 MB (330 to 5,000 samples, zstd), and the largest
// of them alone, each scored by `assay score` as a whole process with 1 and with 2 workers, in
// alternating rounds, beside the bare loop (inspect.ts) over the same members on 1 and 2 threads
// (what this machine's second CPU gives); the ratio of the two times, median of the rounds' own ratios.

import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inspectFileName, writeInspectLog, type InspectSpec } from "../synth/inspect.js";
import { readyZstd } from "../synth/zip.js";
import { bareThreads } from "./inspect.js";
import { median, ROUNDS, secondsSince, timeProcess } from "./measure.js";

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
/** Samples per log: about 3 KB of zstd a sample, so 1 MB to 15 MB. */
const SIZES = [330, 1000, 1700, 2300, 3000, 3700, 4300, 5000];

/** Child: write the eight logs into `dir`. */
async function synth(dir: string): Promise<void> {
  await readyZstd();
  SIZES.forEach((samples, i) => {
    const spec: InspectSpec = {
      task: `small${i}`,
      model: "openai/gpt-4o-mini",
      case: "errors-hidden",
      samples,
      epochs: 1,
      format: "eval",
      method: 93,
      seed: `small${i}`,
      offset: i,
      shape: "realistic",
    };
    const fd = openSync(join(dir, inspectFileName(spec)), "w");
    try {
      writeInspectLog(spec, (b) => void writeSync(fd, b));
    } finally {
      closeSync(fd);
    }
  });
}

/** `assay score ROOT --jobs N`, whole process, in seconds. */
const scoreSecs = (root: string, jobs: number): number =>
  timeProcess([CLI, "score", root, "--quiet", "--jobs", String(jobs)]);

/** The section: eight logs, then the largest alone. */
export async function inspectSmallBench(dir: string): Promise<void> {
  const all = join(dir, "small-logs");
  mkdirSync(all, { recursive: true });
  const made = spawnSync(process.execPath, [SELF, "--synth", all], { stdio: "inherit" });
  if (made.status !== 0) throw new Error("synthesising the small logs failed");
  const files = readdirSync(all).map((f) => join(all, f));
  const sizes = files.map((f) => statSync(f).size / 1e6);
  const largest = files[sizes.indexOf(Math.max(...sizes))]!;
  console.log(
    `\nInspect, small logs: ${files.length} realistic .eval logs of ${Math.min(...sizes).toFixed(1)}–${Math.max(...sizes).toFixed(1)} MB (zstd); median of ${ROUNDS} alternating rounds, whole process`,
  );
  const row = (name: string, one: number[], two: number[], target: string) => {
    const ratios = two.map((t, i) => t / one[i]!);
    console.log(
      `${name.padEnd(58)} 1: ${median(one).toFixed(2).padStart(5)} s   2: ${median(two).toFixed(2).padStart(5)} s   2 / 1 ${median(ratios).toFixed(3)} (rounds ${ratios.map((x) => x.toFixed(2)).join(" ")})   ${target}`,
    );
  };
  for (const [name, roots, target] of [
    ["the eight logs", [all], "target <= 0.6"],
    [`the largest alone (${Math.max(...sizes).toFixed(1)} MB)`, [largest], ""],
  ] as const) {
    const one: number[] = [];
    const two: number[] = [];
    const bare: [number[], number[]] = [[], []];
    for (let r = 0; r < ROUNDS; r++) {
      one.push(scoreSecs(roots[0]!, 1));
      two.push(scoreSecs(roots[0]!, 2));
      // The machine's own scaling: the bare loop over the same members on 1 and 2 threads.
      for (const t of [1, 2]) {
        const t0 = process.hrtime.bigint();
        await bareThreads(roots[0] === all ? files : [largest], t);
        bare[t - 1]!.push(secondsSince(t0));
      }
    }
    row(`${name}, assay score (jobs 1, jobs 2)`, one, two, target);
    row(`${name}, bare loop (threads 1, 2)`, bare[0], bare[1], "");
  }
}

if (process.argv[1] === SELF && process.argv[2] === "--synth") await synth(process.argv[3]!);
