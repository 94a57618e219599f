// `npm run bench -- --stats [--reps N] [--confirm N] [--quick] [--cli PATH] [--seed S]`: how often assay's 95%
// claims hold, measured end to end (issue 36, contract §13.7 "Acceptance"). Evidence with a known
// truth (stats-sample.ts, stats-evidence.ts) is scored and compared by the real CLI, and the bench
// reads its documents: coverage of μ by the headline interval, paired false positives and
// regressions under two nulls, the family-wise error of ranking four equal runs, each with its
// Monte-Carlo SE; then the fixed cases (stats-fixed.ts). One markdown table, targets met or missed.

import { existsSync, mkdirSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixedCases, type Fixed } from "./stats-fixed.js";
import { cellSeed, measureCell, type Cell, type CellResult, type Tally } from "./stats-grid.js";
import { pool } from "./stats-run.js";

export interface StatsOptions {
  /** Experiments per cell where C·m is small; larger cells get fewer (`repsFor`). */
  reps: number;
  /** Experiments per run, in all, of a cell re-measured because a figure lay within 2 MC SE of its target (or past it) at first. */
  confirm: number;
  grid: Cell[];
  cli: string;
  seed: number;
  /** Cells measured at once (each runs its commands one after another, one worker each). */
  parallel: number;
}

const cross = (mus: number[], tasks: number[], attempts: number[], rhos: number[]): Cell[] =>
  mus.flatMap((mu) =>
    tasks.flatMap((t) => attempts.flatMap((m) => rhos.map((rho) => ({ mu, tasks: t, attempts: m, rho })))),
  );

/** The grid: μ ∈ {0.15, 0.5}, C ∈ {3, 5, 10, 30}, m ∈ {1, 4, 8}, ρ ∈ {0, 0.1, 0.3, 0.5}. */
export const FULL_GRID = cross([0.15, 0.5], [3, 5, 10, 30], [1, 4, 8], [0, 0.1, 0.3, 0.5]);
/** A smoke run's grid: one cell, seconds. */
export const QUICK_GRID = cross([0.5], [3], [4], [0.3]);

/**
 * Experiments per run in a cell: `reps` up to 8·reps samples per run, then fewer (never below 100,
 * or `reps` if smaller), since the cost is samples scored. At reps = 400: 400 experiments of 3 × 1,
 * 100 of 30 × 8. Coverage pools four independent runs (4·reps experiments: MC SE ≈ 0.5% at 95%).
 */
export const repsFor = (c: Cell, reps: number): number =>
  Math.min(reps, Math.max(100, Math.floor((8 * reps) / (c.tasks * c.attempts))));

const rate = (t: Tally): number => (t.n === 0 ? NaN : t.k / t.n);
/**
 * The Monte-Carlo SE of a rate, √(p̃(1−p̃)/n) at p̃ = (k + ½)/(n + 1): the plain √(p(1−p)/n) would
 * claim a rate of 0 of 400 exact, which a finite simulation cannot (the Jeffreys-style ½ keeps it
 * honest at the edges and changes nothing that matters elsewhere).
 */
export function mcse(t: Tally): number {
  const p = (t.k + 0.5) / (t.n + 1);
  return Math.sqrt((p * (1 - p)) / t.n);
}
const pct = (x: number) => (x * 100).toFixed(1);

/** Each judged figure of a row with its target: `atLeast` or at most `y`. */
const TARGETS: readonly {
  of: (r: CellResult) => Tally;
  ok: (x: number) => boolean;
  near: (x: number, se: number) => boolean;
}[] = [
  { of: (r) => r.coverage, ok: (x) => x >= 0.93, near: (x, se) => x - 2 * se < 0.93 },
  ...[(r: CellResult) => r.fpSame, (r: CellResult) => r.fpOther, (r: CellResult) => r.fwe].map((of) => ({
    of,
    ok: (x: number) => x <= 0.07,
    near: (x: number, se: number) => x + 2 * se > 0.07,
  })),
  ...[(r: CellResult) => r.regSame, (r: CellResult) => r.regOther].map((of) => ({
    of,
    ok: (x: number) => x <= 0.04,
    near: (x: number, se: number) => x + 2 * se > 0.04,
  })),
];

/**
 * A row whose verdict Monte-Carlo noise could decide: some figure within 2 MC SE of its target, or
 * past it. Such a cell is measured again (a fixed number more, whatever the first pass said, so the
 * second pass is no "stop once it passes") and the two passes pooled.
 */
export const undecided = (r: CellResult): boolean => TARGETS.some((t) => t.near(rate(t.of(r)), mcse(t.of(r))));

const add = (a: Tally, b: Tally): Tally => ({ k: a.k + b.k, n: a.n + b.n });
/** Two passes of one cell, pooled. */
export const pooled = (a: CellResult, b: CellResult): CellResult => ({
  cell: a.cell,
  reps: a.reps + b.reps,
  coverage: add(a.coverage, b.coverage),
  fpSame: add(a.fpSame, b.fpSame),
  fpOther: add(a.fpOther, b.fpOther),
  regSame: add(a.regSame, b.regSame),
  regOther: add(a.regOther, b.regOther),
  fwe: add(a.fwe, b.fwe),
  exitMismatches: a.exitMismatches + b.exitMismatches,
});

interface Targets {
  met: number;
  missed: number;
}

/** "94.1 ± 0.4 ✓": the figure, its MC SE, and whether it meets its target (counted in `t`). */
function judged(t: Tally, ok: (x: number) => boolean, targets: Targets): string {
  const good = ok(rate(t));
  if (good) targets.met++;
  else targets.missed++;
  return `${pct(rate(t))} ± ${pct(mcse(t))} ${good ? "✓" : "✗"}`;
}

/** The table, markdown-ready, and the targets line. */
export function table(rows: readonly CellResult[], fixed: readonly Fixed[]): string[] {
  const targets: Targets = { met: 0, missed: 0 };
  const atMost = (y: number) => (x: number) => x <= y;
  const lines = [
    "| μ | C | m | ρ | experiments | coverage % (≥ 93) | FP same agent % (≤ 7) | FP equal skill % (≤ 7) | regression same % (≤ 4) | regression equal skill % (≤ 4) | FWE 4 runs % (≤ 7) |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const c = r.cell;
    lines.push(
      `| ${c.mu} | ${c.tasks} | ${c.attempts} | ${c.rho} | ${r.reps} | ${[
        judged(r.coverage, (x) => x >= 0.93, targets),
        judged(r.fpSame, atMost(0.07), targets),
        judged(r.fpOther, atMost(0.07), targets),
        judged(r.regSame, atMost(0.04), targets),
        judged(r.regOther, atMost(0.04), targets),
        judged(r.fwe, atMost(0.07), targets),
      ].join(" | ")} |`,
    );
  }
  const mismatches = rows.reduce((n, r) => n + r.exitMismatches, 0);
  lines.push(
    "",
    `\`--fail-on regression\` exits checked against the \`regressions\` list: ${rows.length * 2} comparisons, ${mismatches} disagree ${mismatches === 0 ? "✓" : "✗"}`,
  );
  if (mismatches === 0) targets.met++;
  else targets.missed++;
  lines.push("", "| fixed case | assay printed | target | |", "|---|---|---|---|");
  for (const f of fixed) {
    lines.push(`| ${f.name} | ${f.figure} | ${f.target} | ${f.met ? "✓" : "✗"} |`);
    if (f.met) targets.met++;
    else targets.missed++;
  }
  lines.push("", `targets: ${targets.met} met, ${targets.missed} missed`);
  return lines;
}

/** Run the grid and the fixed cases in `dir`; print the table. */
export async function statsBench(dir: string, o: StatsOptions): Promise<string[]> {
  const t0 = process.hrtime.bigint();
  const first = await pool(o.grid, o.parallel, async (c, i) => {
    const r = await measureCell(o.cli, join(dir, `cell${i}`), c, repsFor(c, o.reps), cellSeed(o.seed, c));
    process.stderr.write(
      `  μ ${c.mu} C ${c.tasks} m ${c.attempts} ρ ${c.rho}: ${r.reps} experiments, coverage ${pct(rate(r.coverage))}%\n`,
    );
    return r;
  });
  // Second pass: the rows noise could decide, measured again under another seed up to `confirm` experiments.
  const rows = await pool(first, o.parallel, async (r, i) => {
    if (!undecided(r) || r.reps >= o.confirm) return r;
    const more = await measureCell(
      o.cli,
      join(dir, `again${i}`),
      r.cell,
      o.confirm - r.reps,
      cellSeed(o.seed + 1, r.cell),
    );
    process.stderr.write(
      `  μ ${r.cell.mu} C ${r.cell.tasks} m ${r.cell.attempts} ρ ${r.cell.rho}: again, ${more.reps} more experiments\n`,
    );
    return pooled(r, more);
  });
  const fixedDir = join(dir, "fixed");
  mkdirSync(fixedDir, { recursive: true });
  const fixed = await fixedCases(o.cli, fixedDir, o.parallel);
  rmSync(fixedDir, { recursive: true, force: true });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const lines = [
    `statistics bench: ${o.grid.length} cell${o.grid.length === 1 ? "" : "s"}, seed ${o.seed}, ${o.cli}, ${secs.toFixed(0)} s`,
    "",
    ...table(rows, fixed),
  ];
  for (const l of lines) console.log(l);
  return lines;
}

/** `--stats`'s own options from argv (after `--stats`). */
export function statsOptions(argv: readonly string[]): StatsOptions {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i < 0 ? undefined : argv[i + 1];
  };
  const quick = argv.includes("--quick");
  const reps = Number(value("--reps") ?? (quick ? 10 : 400));
  if (!Number.isInteger(reps) || reps < 1)
    throw new Error(`--reps takes a positive whole number, not ${value("--reps")}`);
  const confirm = Number(value("--confirm") ?? (quick ? 0 : 1600));
  if (!Number.isInteger(confirm) || confirm < 0)
    throw new Error(`--confirm takes a whole number, not ${value("--confirm")}`);
  const cli = value("--cli") ?? fileURLToPath(new URL("../cli.js", import.meta.url));
  if (!existsSync(cli)) throw new Error(`--cli ${cli}: no such file (a build's dist/cli.js)`);
  return {
    reps,
    confirm,
    grid: quick ? QUICK_GRID : FULL_GRID,
    cli,
    seed: Number(value("--seed") ?? 20261207),
    parallel: Math.min(2, availableParallelism()),
  };
}
