// The statistics bench (`npm run bench -- --stats`, issue 36): its truth (the Beta task rates), its
// bookkeeping (experiments per cell, Monte-Carlo SEs), and a --quick run end to end through the
// real CLI — the table's shape and the fixed cases computed. Whether the targets are met is the
// bench's own verdict, not this test's.

import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { pairedRejects } from "../src/bench/stats-grid.js";
import { outcomes, taskRate } from "../src/bench/stats-sample.js";
import { mcse, pooled, repsFor, undecided } from "../src/bench/stats.js";
import { rng } from "../src/fuzz/random.js";
import { CLI } from "./helpers/cli.js";

const BENCH = new URL("../dist/bench/bench.js", import.meta.url).pathname;

describe("the truth: task rates ~ Beta with mean μ and intra-class correlation ρ", () => {
  it("μ = 0.15, ρ = 0.3: 20,000 rates have mean μ and variance ρ·μ(1−μ)", () => {
    // α = 0.15·0.7/0.3 = 0.35, β = 0.85·0.7/0.3 = 1.98333…, α + β = 2.33333…; a Beta's variance is
    // μ(1−μ)/(α + β + 1) = 0.1275/3.33333… = 0.03825 = ρ·μ(1−μ). The mean's SE over 20,000 draws is
    // √(0.03825/20,000) = 0.00138: ±0.006 is over 4 SE.
    const u = rng(36);
    const xs = Array.from({ length: 20_000 }, () => taskRate(0.15, 0.3, u));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1);
    expect(Math.abs(mean - 0.15)).toBeLessThan(0.006);
    expect(Math.abs(variance - 0.03825) / 0.03825).toBeLessThan(0.08);
  });
  it("ρ = 0: every task's rate is μ; outcomes are task-major, attempt a of task t at t·m + a", () => {
    expect(taskRate(0.15, 0, rng(1))).toBe(0.15);
    expect([...outcomes([1, 0, 1], 2, rng(1))]).toEqual([1, 1, 0, 0, 1, 1]);
  });
});

describe("the bench's bookkeeping", () => {
  it("experiments per cell: `reps` up to 8·reps samples per run, never below 100", () => {
    // reps 400: 8·400 = 3,200 samples. 3 × 1: 1,066 → capped at 400; 3 × 8 = 24: 3,200/24 = 133;
    // 30 × 8 = 240: 13 → the floor, 100. reps 10 (--quick): 10 everywhere.
    const cell = (tasks: number, attempts: number) => ({ mu: 0.5, tasks, attempts, rho: 0.3 });
    expect([
      repsFor(cell(3, 1), 400),
      repsFor(cell(3, 8), 400),
      repsFor(cell(30, 8), 400),
      repsFor(cell(30, 8), 10),
    ]).toEqual([400, 133, 100, 10]);
  });
  it("a row noise could decide (a figure within 2 MC SE of its target, or past it) is measured again; a clear row is not", () => {
    const cell = { mu: 0.5, tasks: 10, attempts: 8, rho: 0.3 };
    const t = (k: number, n: number) => ({ k, n });
    const row = (fp: number, coverage = t(390, 400)) => ({
      cell,
      reps: 100,
      coverage,
      fpSame: t(0, 100),
      fpOther: t(fp, 100),
      regSame: t(0, 100),
      regOther: t(0, 100),
      fwe: t(0, 100),
      exitMismatches: 0,
    });
    // 2 of 100: MC SE √(0.0248·0.975/100) = 0.0156, 0.02 + 0.031 = 0.051 ≤ 0.07: clear. 3 of 100 would be within reach.
    expect(undecided(row(2))).toBe(false);
    expect(undecided(row(5))).toBe(true);
    expect(undecided(row(10))).toBe(true); // past it
    // Coverage 372 of 400 = 93.0%: at the line.
    expect(undecided(row(0, t(372, 400)))).toBe(true);
    // Pooled: counts add, as one sample of 1,600.
    const both = pooled(row(10), { ...row(50), reps: 1500, fpOther: t(50, 1500) });
    expect([both.reps, both.fpOther]).toEqual([1600, { k: 60, n: 1600 }]);
  });

  it("a rate's Monte-Carlo SE is never 0, even at 0 of n", () => {
    // p̃ = (k + ½)/(n + 1). 0 of 400: p̃ = 0.5/401 = 0.0012469, √(0.0012469 · 0.9987531 / 400) = 0.0017645.
    // 380 of 400: p̃ = 380.5/401 = 0.9488778, √(0.9488778 · 0.0511222 / 400) = 0.0110124.
    expect(mcse({ k: 0, n: 400 })).toBeCloseTo(0.0017645, 6);
    expect(mcse({ k: 380, n: 400 })).toBeCloseTo(0.0110124, 6);
  });
  it("a paired rejection is read from `p` where the build prints one, else the interval or the sign test in the reason", () => {
    expect([
      pairedRejects({ p: 0.049, interval: null }),
      pairedRejects({ p: 0.05, interval: { lo: 0.1, hi: 0.2 } }),
    ]).toEqual([true, false]);
    expect([
      pairedRejects({ interval: { lo: 0.01, hi: 0.3 } }),
      pairedRejects({ interval: { lo: -0.3, hi: 0.01 } }),
    ]).toEqual([true, false]);
    expect(
      pairedRejects({ interval: null, reason: "all 6 trials differ by exactly -1; exact sign test p = 0.0312" }),
    ).toBe(true);
    expect(
      pairedRejects({ interval: null, reason: "all 4 trials differ by exactly -1; exact sign test p = 0.125" }),
    ).toBe(false);
  });
});

describe("npm run bench -- --stats --quick, end to end", () => {
  const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith("assay-bench-stats-")));
  let r: SpawnSyncReturns<string>;
  let lines: string[] = [];
  beforeAll(() => {
    r = spawnSync(process.execPath, [BENCH, "--stats", "--quick", "--cli", CLI], { encoding: "utf8" });
    lines = r.stdout.trimEnd().split("\n");
  }, 240_000);
  const figure = /^\d+\.\d ± \d+\.\d [✓✗]$/;

  it("runs the named CLI over one cell and removes its temporary folder", () => {
    expect(r.status, r.stderr).toBe(0);
    expect(lines[0]).toMatch(new RegExp(`^statistics bench: 1 cell, seed 20261207, ${CLI}, \\d+ s$`));
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith("assay-bench-stats-") && !before.has(f))).toEqual([]);
  });

  it("prints one markdown row per cell: six figures, each with its MC SE and met/missed", () => {
    const header = lines.indexOf(lines.find((l) => l.startsWith("| μ |"))!);
    expect(lines[header + 1]).toBe("|---|---|---|---|---|---|---|---|---|---|---|");
    const cells = lines[header + 2]!.split("|")
      .slice(1, -1)
      .map((s) => s.trim());
    expect(cells.slice(0, 5)).toEqual(["0.5", "3", "4", "0.3", "10"]);
    expect(cells.slice(5)).toHaveLength(6);
    for (const c of cells.slice(5)) expect(c).toMatch(figure);
    // Coverage pools four runs of 10 experiments: k of 40, a multiple of 2.5%.
    expect(Number(cells[5]!.split(" ")[0]) % 2.5).toBe(0);
    expect(lines).toContain(
      "`--fail-on regression` exits checked against the `regressions` list: 2 comparisons, 0 disagree ✓",
    );
  });

  it("computes the fixed cases from what the CLI printed", () => {
    const row = (name: string) =>
      lines
        .find((l) => l.startsWith(`| ${name} |`))
        ?.split("|")
        .slice(1, -1)
        .map((s) => s.trim());
    expect(row("all failed, 3 tasks × 8")?.[1]).toMatch(/^\[0\.0%, \d+\.\d%\] [a-z-]+$/);
    expect(row("three one-trial runs, one flipped")?.[1]).toMatch(
      /^min p \d\S*; exits [01] \(3 runs\), [01] \(2 runs\)$/,
    );
    expect(row("4 pass→fail among 40 vs among 4")?.[1]).toMatch(
      /^(no )?regression \(exit [01]\) vs (no )?regression \(exit [01]\)$/,
    );
    // BASE: task a 4/4, b 0/1 → headline 4/5 = 80%, task means 50%; HEAD: a 1/1, b 2/4 → 3/5 =
    // 60%, task means 75%. Headline 60 − 80 = −20.0 pts; paired over tasks (a: 1 − 1 = 0, b: 0.5 − 0
    // = 0.5) → mean +25.0 pts.
    expect(row("Harbor: headline vs mean of task means")?.[1]).toMatch(
      /^headline −20\.0 pts, paired \+25\.0 pts; ranked first: (HEAD|BASE)$/,
    );
    for (const name of [
      "all failed, 3 tasks × 8",
      "three one-trial runs, one flipped",
      "4 pass→fail among 40 vs among 4",
      "Harbor: headline vs mean of task means",
    ]) {
      expect(row(name)?.[3]).toMatch(/^[✓✗]$/);
    }
  });

  it("ends with the count of targets, which is the count of marks: 6 figures, the exit check, 4 fixed cases", () => {
    const last = /^targets: (\d+) met, (\d+) missed$/.exec(lines.at(-1)!);
    expect(last).not.toBeNull();
    const marks = (mark: string) => lines.slice(1, -1).join("").split(mark).length - 1;
    expect([Number(last![1]), Number(last![2])]).toEqual([marks("✓"), marks("✗")]);
    expect(Number(last![1]) + Number(last![2])).toBe(11);
  });

  it("refuses a --reps that is not a positive whole number in one line, exit 2, before running anything", () => {
    const bad = spawnSync(process.execPath, [BENCH, "--stats", "--reps", "0"], { encoding: "utf8" });
    expect([bad.status, bad.stdout, bad.stderr]).toEqual([
      2,
      "",
      "bench --stats: --reps takes a positive whole number, not 0\n",
    ]);
  });
  it("refuses a --cli that is not there, the same way", () => {
    const bad = spawnSync(process.execPath, [BENCH, "--stats", "--quick", "--cli", "/nonexistent/dist/cli.js"], {
      encoding: "utf8",
    });
    expect([bad.status, bad.stdout, bad.stderr]).toEqual([
      2,
      "",
      "bench --stats: --cli /nonexistent/dist/cli.js: no such file (a build's dist/cli.js)\n",
    ]);
  });
});
