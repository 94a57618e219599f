// The statistics bench's fixed cases (issue 36): the degenerate evidence the grid's averages hide,
// each written as real evidence, run through the CLI, and read from what it printed.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { synthHarborJobFiles, synthHarborTrial, type HarborSpec } from "../synth/harbor.js";
import { HEADLINE, pairedRejects } from "./stats-grid.js";
import { writeLog } from "./stats-evidence.js";
import { assay, pool, readDoc } from "./stats-run.js";

export interface Fixed {
  name: string;
  /** What assay printed, in words. */
  figure: string;
  target: string;
  met: boolean;
}

const ones = (n: number, zeros = 0) => Uint8Array.from({ length: n }, (_, i) => (i < n - zeros ? 1 : 0));

/** Score the Inspect logs (unclustered unless `attempts`) of one run into `<dir>/<run>.json`. */
async function scoreRun(
  cli: string,
  dir: string,
  run: string,
  values: Uint8Array,
  attempts: number | null = null,
): Promise<string> {
  mkdirSync(join(dir, run), { recursive: true });
  writeLog(join(dir, run), { task: "case", taskId: run, values, attempts });
  const out = join(dir, `${run}.json`);
  await assay(cli, ["score", join(dir, run), "--format", "json", "--out", out]);
  return out;
}

/** `assay compare FILES --fail-on regression`, its exit code and document. */
async function compare(cli: string, out: string, files: string[]): Promise<{ code: number; doc: any }> {
  const { code } = await assay(
    cli,
    ["compare", ...files, "--fail-on", "regression", "--format", "json", "--out", out],
    [0, 1],
  );
  return { code, doc: readDoc(out) };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Every repeated trial failed: 0 of 24 in 3 tasks × 8 attempts. */
async function allFailed(cli: string, dir: string): Promise<Fixed> {
  const doc = readDoc(await scoreRun(cli, dir, "zero", new Uint8Array(24), 8));
  const i = doc.experiments[0].inspect["match/mean/mean"].interval;
  const hi = i?.hi ?? null;
  return {
    name: "all failed, 3 tasks × 8",
    figure: i == null ? "no interval" : `[${pct(i.lo)}, ${pct(hi)}] ${i.method}`,
    target: "upper bound ≥ 25%",
    met: hi !== null && hi >= 0.25,
  };
}

/** Three one-trial runs, the third flipped: no p of 0 anywhere, no regression exit (two runs or three). */
async function oneTrialRuns(cli: string, dir: string): Promise<Fixed> {
  const runs = [
    await scoreRun(cli, dir, "one1", ones(1)),
    await scoreRun(cli, dir, "one2", ones(1)),
    await scoreRun(cli, dir, "one3", ones(1, 1)),
  ];
  const three = await compare(cli, join(dir, "one-rank.json"), runs);
  const two = await compare(cli, join(dir, "one-pair.json"), [runs[0]!, runs[2]!]);
  const ps: number[] = three.doc.experiments.flatMap((x: any) => x.ranking.pairs.map((p: any) => p.p));
  const paired = two.doc.experiments[0]?.metrics.find((m: any) => m.metric === HEADLINE)?.paired;
  const twoP = typeof paired?.p === "number" ? paired.p : null;
  const minP = Math.min(...ps, ...(twoP === null ? [] : [twoP]));
  return {
    name: "three one-trial runs, one flipped",
    figure: `min p ${minP.toPrecision(3)}; exits ${three.code} (3 runs), ${two.code} (2 runs)`,
    target: "p > 0, exit 0",
    met: minP > 0 && three.code === 0 && two.code === 0,
  };
}

/** 4 pass→fail among 40 trials (36 agree) and 4 among 4: the same verdict. */
async function fourFlips(cli: string, dir: string): Promise<Fixed> {
  const verdict = async (n: number) => {
    const { code, doc } = await compare(cli, join(dir, `flips-${n}.json`), [
      await scoreRun(cli, dir, `base${n}`, ones(n)),
      await scoreRun(cli, dir, `head${n}`, ones(n, 4)),
    ]);
    const m = doc.experiments[0].metrics.find((x: any) => x.metric === HEADLINE);
    return { code, regression: m.regression as boolean, rejects: pairedRejects(m.paired) };
  };
  const many = await verdict(40);
  const few = await verdict(4);
  const word = (v: typeof many) => `${v.regression ? "regression" : "no regression"} (exit ${v.code})`;
  return {
    name: "4 pass→fail among 40 vs among 4",
    figure: `${word(many)} vs ${word(few)}`,
    target: "the same verdict",
    met: many.regression === few.regression && many.code === few.code && many.rejects === few.rejects,
  };
}

/** Write a Harbor job folder `<root>/<job>` of pass/fail trials. */
function harborJob(root: string, job: string, trials: readonly [task: string, pass: boolean][]): void {
  const specs: HarborSpec[] = trials.map(([task, pass], i) => ({
    job,
    trial: `${task}__t${i}`,
    task,
    case: pass ? "pass" : "fail",
    offset: i,
  }));
  const put = (rel: string, bytes: Buffer) => {
    mkdirSync(dirname(join(root, job, rel)), { recursive: true });
    writeFileSync(join(root, job, rel), bytes);
  };
  for (const s of specs) for (const [rel, bytes] of synthHarborTrial(s)) put(`${s.trial}/${rel}`, bytes);
  for (const [rel, bytes] of synthHarborJobFiles(job, specs)) put(rel, bytes);
}

/**
 * Harbor, where the trial-weighted headline and the mean of task means disagree. BASE: task a 4/4,
 * task b 0/1 (headline 4/5 = 80%, task means (1 + 0)/2 = 50%); HEAD: a 1/1, b 2/4 (headline 3/5 =
 * 60%, task means (1 + 0.5)/2 = 75%). A third run, BASE again, makes a ranking: it must follow the
 * paired figure (HEAD first), as the two-run comparison's paired difference (+25 pts) does.
 */
async function harborEstimand(cli: string, dir: string): Promise<Fixed> {
  const runs: Record<string, [string, boolean][]> = {
    base: [
      ["a", true],
      ["a", true],
      ["a", true],
      ["a", true],
      ["b", false],
    ],
    head: [
      ["a", true],
      ["b", true],
      ["b", true],
      ["b", false],
      ["b", false],
    ],
  };
  runs["again"] = runs["base"]!;
  const files: Record<string, string> = {};
  for (const [run, trials] of Object.entries(runs)) {
    harborJob(join(dir, `harbor-${run}`), "job", trials);
    files[run] = join(dir, `harbor-${run}.json`);
    await assay(cli, ["score", join(dir, `harbor-${run}`), "--format", "json", "--out", files[run], "--quiet"]);
  }
  const two = await compare(cli, join(dir, "harbor-pair.json"), [files["base"]!, files["head"]!]);
  const m = two.doc.experiments[0].metrics.find((x: any) => x.metric === "reward/reward/mean");
  const ranked = await compare(cli, join(dir, "harbor-rank.json"), [files["base"]!, files["head"]!, files["again"]!]);
  const top =
    ranked.doc.experiments.find((x: any) => x.ranking.metric === "reward/reward/mean")?.ranking.runs[0]?.run ?? "";
  const diff = (x: number | null) => (x === null ? "null" : `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} pts`);
  return {
    name: "Harbor: headline vs mean of task means",
    figure: `headline ${diff(m.difference)}, paired ${diff(m.paired?.mean_diff ?? null)}; ranked first: ${top === files["head"] ? "HEAD" : "BASE"}`,
    target: "ranking follows the paired figure",
    met: m.paired?.mean_diff > 0 && top === files["head"],
  };
}

/** Every fixed case, in `dir`, `parallel` at a time (their files do not overlap). */
export function fixedCases(cli: string, dir: string, parallel = 1): Promise<Fixed[]> {
  return pool([allFailed, oneTrialRuns, fourFlips, harborEstimand], parallel, (f) => f(cli, dir));
}
