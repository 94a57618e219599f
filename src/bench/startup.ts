// The start-up row of `npm run bench` (`npm run bench -- --startup` runs it alone): `assay score` of
// one small synthesised bundle as a whole process — node's own start, the imports, the scoring (in
// the main thread: a run this small starts no worker, pipeline/in-thread.ts) and the table — spawned
// again and again, alternating with `node -e 0` (node's start alone, the floor), so all see the same
// load: the installed CLI (the bundle, dist/bundle/cli.js) and tsc's dist/cli.js, which the tests
// run. Wall time, median and min, and the CPU time of the child (every thread); the ratio to the
// floor is what the load moves least.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeCorpus } from "../io/corpus.js";
import { discover } from "../io/discover.js";
import { median } from "./measure.js";

const CLI = fileURLToPath(new URL("../cli.js", import.meta.url));
const BUNDLED = fileURLToPath(new URL("../bundle/cli.js", import.meta.url));
const RUNS = Number(process.env["BENCH_STARTUP_RUNS"] ?? 20);
const TARGET_MS = 250;

/** CPU time of this process's waited-for children so far, in ms (Linux /proc; null elsewhere). */
function childrenCpuMs(): number | null {
  try {
    const self = readFileSync("/proc/self/stat", "latin1");
    // Fields after the command name (which may hold spaces): cutime and cstime are the 14th and 15th.
    const f = self
      .slice(self.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    return ((f[13]! + f[14]!) * 1000) / 100; // clock ticks: 100 a second on Linux
  } catch {
    return null;
  }
}

interface Timed {
  wall: number[];
  cpu: number[];
}

/** One spawn: its wall time and its CPU time, in ms; a failure stops the bench. */
function once(args: string[], into: Timed): void {
  const cpu = childrenCpuMs();
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  into.wall.push(Number(process.hrtime.bigint() - t) / 1e6);
  const after = childrenCpuMs();
  if (cpu !== null && after !== null) into.cpu.push(after - cpu);
  if (r.status !== 0) throw new Error(`node ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
}

const ms = (x: number) => `${x.toFixed(0).padStart(4)} ms`;
const figures = (t: Timed) =>
  `median ${ms(median(t.wall))}, min ${ms(Math.min(...t.wall))}` +
  (t.cpu.length > 0 ? `; CPU median ${ms(median(t.cpu))}, min ${ms(Math.min(...t.cpu))}` : "");

/** Synthesise one small bundle in `dir` (empty or absent), then time `assay score` of it beside `node -e 0`. */
export function startupBench(dir: string, runs = RUNS): void {
  writeCorpus(dir, { n: 1, seed: "bench", faults: false, events: 9 });
  const bundle = [...discover([dir])][0]!.dir; // the bundle's own folder as the root: one bundle
  const score: Timed = { wall: [], cpu: [] };
  const unbundled: Timed = { wall: [], cpu: [] };
  const floor: Timed = { wall: [], cpu: [] };
  for (const cli of [BUNDLED, CLI]) once([cli, "score", bundle, "--quiet"], { wall: [], cpu: [] }); // the page cache
  for (let i = 0; i < runs; i++) {
    once(["-e", "0"], floor);
    once([BUNDLED, "score", bundle, "--quiet"], score);
    once([CLI, "score", bundle, "--quiet"], unbundled);
  }
  console.log(`\nstart-up, whole process (${runs} alternating runs; CPU: every thread of the child, in 10 ms ticks)`);
  console.log(`  assay score of one small bundle  ${figures(score)}   target median <= ${TARGET_MS} ms`);
  console.log(`  the same, tsc's dist/cli.js      ${figures(unbundled)}`);
  console.log(`  node -e 0 (the floor)            ${figures(floor)}`);
  console.log(
    `  score / floor                    median ${(median(score.wall) / median(floor.wall)).toFixed(1)}, min ${(Math.min(...score.wall) / Math.min(...floor.wall)).toFixed(1)}`,
  );
}
