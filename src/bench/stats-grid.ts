// One cell of the statistics bench's grid (μ, C tasks, m attempts, ρ), end to end through the CLI.
// Five runs of `reps` experiments each, every experiment its own draw of task rates:
//   A   the reference run;
//   B   the same agent re-run: A's task rates, fresh outcomes (null 1, "same agent");
//   H   an agent of equal average skill: every task's rate drawn anew (null 2, the task × run interaction);
//   R3, R4  two more such agents, ranked with A and H (four equal runs).
// A, H, R3 and R4 are independent experiments with the truth μ, so all four measure coverage.

import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { caseSeed, rng } from "../fuzz/random.js";
import { writeLog } from "./stats-evidence.js";
import { assay, readDoc } from "./stats-run.js";
import { outcomes, taskRates } from "./stats-sample.js";

export interface Cell {
  mu: number;
  tasks: number;
  attempts: number;
  rho: number;
}

/** k of n, a rate with its Monte-Carlo SE √(p(1−p)/n). */
export interface Tally {
  k: number;
  n: number;
}

export interface CellResult {
  cell: Cell;
  reps: number;
  coverage: Tally;
  fpSame: Tally;
  fpOther: Tally;
  regSame: Tally;
  regOther: Tally;
  fwe: Tally;
  /** `--fail-on regression` exits that disagree with the document's `regressions` list. */
  exitMismatches: number;
}

/** The headline metric of an Inspect experiment scored by the bench (its scorer `match`, metric `mean`). */
export const HEADLINE = "inspect/match/mean/mean/value";
const SCORED = "match/mean/mean";
const RUNS = ["A", "B", "H", "R3", "R4"] as const;

/**
 * Whether a comparison's paired analysis rejects "no difference" at 5%: its `p` where the build
 * gives one (§13.7); an older build's paired-t interval excluding 0, or the sign test in its reason.
 */
export function pairedRejects(paired: any): boolean {
  if (typeof paired?.p === "number") return paired.p < 0.05;
  if (paired?.interval != null) return paired.interval.lo > 0 || paired.interval.hi < 0;
  const sign = /sign test p = ([0-9.e+-]+)/.exec(paired?.reason ?? "");
  return sign !== null && Number(sign[1]) < 0.05;
}

/** Write the cell's five runs, `reps` logs each (experiment r is `rep<r>` in every run, so runs pair). */
function writeRuns(dir: string, c: Cell, reps: number, seed: number): void {
  const u = rng(seed);
  for (const run of RUNS) mkdirSync(join(dir, run), { recursive: true });
  for (let r = 0; r < reps; r++) {
    const log = (run: string, rates: number[]) =>
      writeLog(join(dir, run), {
        task: `rep${r}`,
        taskId: `${run}-${r}`,
        values: outcomes(rates, c.attempts, u),
        attempts: c.attempts,
      });
    const a = taskRates(c.tasks, c.mu, c.rho, u);
    log("A", a);
    log("B", a);
    for (const run of ["H", "R3", "R4"]) log(run, taskRates(c.tasks, c.mu, c.rho, u));
  }
}

const tally = (hits: readonly boolean[]): Tally => ({ k: hits.filter(Boolean).length, n: hits.length });

/** A document that did not read every experiment, or compared fewer than were written, would measure something else: stop. */
function all<T>(xs: T[], reps: number, what: string): T[] {
  if (xs.length !== reps) throw new Error(`${what}: ${xs.length} experiments read, ${reps} written`);
  return xs;
}

/** Each experiment's headline interval covers μ (no interval: not covered); every log's own claim must agree (the writer is Inspect's arithmetic). */
function covered(doc: any, mu: number, reps: number): boolean[] {
  return all(
    doc.experiments.map((x: any) => {
      const m = x.inspect?.[SCORED];
      if (m?.check !== "agrees")
        throw new Error(
          `${x.experiment}: the log's claim is ${m?.check ?? "missing"}, not agrees: the bench's evidence is wrong`,
        );
      return m.interval != null && m.interval.lo <= mu && mu <= m.interval.hi;
    }),
    reps,
    "score",
  );
}

/** `assay compare A B --fail-on regression`: per experiment, paired rejection and regression; and whether the exit matched the list. */
async function compareTwo(
  cli: string,
  dir: string,
  a: string,
  b: string,
  reps: number,
): Promise<{ fp: boolean[]; reg: boolean[]; exitOk: boolean }> {
  const out = join(dir, `${a}-${b}.json`);
  const { code } = await assay(
    cli,
    [
      "compare",
      join(dir, `${a}.json`),
      join(dir, `${b}.json`),
      "--fail-on",
      "regression",
      "--format",
      "json",
      "--out",
      out,
    ],
    [0, 1],
  );
  const doc = readDoc(out);
  const regressed = new Set<string>(doc.regressions.map((r: any) => r.base));
  const fp: boolean[] = [];
  const reg: boolean[] = [];
  for (const x of all<any>(doc.experiments, reps, `compare ${a} ${b}`)) {
    const paired = x.metrics.find((m: any) => m.metric === HEADLINE)?.paired;
    if (paired == null) throw new Error(`compare ${a} ${b}: ${x.base} has no paired analysis of ${HEADLINE}`);
    fp.push(pairedRejects(paired));
    reg.push(regressed.has(x.base));
  }
  return { fp, reg, exitOk: code === (doc.regressions.length > 0 ? 1 : 0) };
}

/** `assay compare A H R3 R4`: per experiment, any pair Holm-significant or the runs in more than one group. */
async function rankFour(cli: string, dir: string, reps: number): Promise<boolean[]> {
  const out = join(dir, "rank.json");
  await assay(cli, [
    "compare",
    ...["A", "H", "R3", "R4"].map((r) => join(dir, `${r}.json`)),
    "--format",
    "json",
    "--out",
    out,
  ]);
  const ranked = readDoc(out).experiments.filter((x: any) => x.ranking.metric === HEADLINE);
  return all(ranked, reps, "ranking").map(
    (x: any) =>
      x.ranking.pairs.some((p: any) => p.p_holm < 0.05) || new Set(x.ranking.runs.map((r: any) => r.group)).size > 1,
  );
}

/** Measure one cell in `dir` (removed after). */
export async function measureCell(cli: string, dir: string, c: Cell, reps: number, seed: number): Promise<CellResult> {
  try {
    writeRuns(dir, c, reps, seed);
    for (const run of RUNS)
      await assay(cli, [
        "score",
        join(dir, run),
        "-j",
        "1",
        "--format",
        "json",
        "--out",
        join(dir, `${run}.json`),
        "--quiet",
      ]);
    const coverage = tally(["A", "H", "R3", "R4"].flatMap((r) => covered(readDoc(join(dir, `${r}.json`)), c.mu, reps)));
    const same = await compareTwo(cli, dir, "A", "B", reps);
    const other = await compareTwo(cli, dir, "A", "H", reps);
    const fwe = tally(await rankFour(cli, dir, reps));
    return {
      cell: c,
      reps,
      coverage,
      fwe,
      fpSame: tally(same.fp),
      fpOther: tally(other.fp),
      regSame: tally(same.reg),
      regOther: tally(other.reg),
      exitMismatches: (same.exitOk ? 0 : 1) + (other.exitOk ? 0 : 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The seed of a cell, from its parameters: its figures do not depend on which cells ran before it, or beside it. */
export const cellSeed = (seed: number, c: Cell): number =>
  caseSeed(seed, Math.round(c.mu * 100) * 1e6 + c.tasks * 1e4 + c.attempts * 100 + Math.round(c.rho * 10));
