// The words of a score report of issue 36 (contract §13.7 "words"; issue 23's: report-words.test.ts),
// in every format: an interval says which question it answers — the mean over the population of
// tasks (Inspect: samples) these were drawn from — once, in its legend; Korn–Graubard is named where
// it was used; pass@k and pass^k say, once a report, that they assume an attempt's absence is
// unrelated to its outcome (missing at random).
// Each on both sides: a report without intervals, or without pass@k / pass^k, says neither.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { blankExperiment, viewOf, type Experiment, type IntervalField, type Results } from "../src/core/results.js";
import { render as html } from "../src/report/html/index.js";
import { FORMATS, renderText } from "../src/report/index.js";
import { synthNative } from "../src/synth/native.js";
import { run } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const RUN: Results["run"] = {
  tool_version: "t",
  scoring_version: 7,
  started_at: "",
  complete: true,
  shard: null,
  roots: ["/r"],
  options: {
    invalid: "count",
    resource_bound: "default",
    errors: "exclude",
    schedules: [],
    hmac_key: null,
    filters: null,
  },
  jobs: [],
  unrecognised: { count: 0, paths: [] },
};

const TASKS = "each for the mean over the population of tasks these were drawn from";
const SAMPLES = "each for the mean over the population of samples these were drawn from";
const MAR =
  "pass@k, pass^k: they assume an attempt's absence (an infrastructure error, an excluded trial) is unrelated to its outcome (missing at random)";
const KG_TRIALS =
  "Korn–Graubard (Clopper–Pearson at the effective number of trials) where pass/fail trials repeat tasks";

// The all-failed 3 × 8 experiment of test/stats-korn-graubard.test.ts: [0, 0.4857], d = 1, se 0.
const KG: IntervalField = {
  method: "korn-graubard",
  lo: 0,
  hi: 0.4857,
  units: 24,
  clusters: 3,
  se: 0,
  design_effect: 1,
};
const native = (name: string, passHat: Record<string, number> | null): Experiment => ({
  ...blankExperiment(name, "native-game", 24),
  accuracy: { value: 0, victories: 0, scored: 24, wilson95: [0, 0.138], interval: KG, interval_reason: null },
  completion: { value: 1, completed: 24, scheduled: 24, interval: { ...KG, lo: 0.5143, hi: 1 }, interval_reason: null },
  raw_record: { values: [], mean: 0 },
  retry: [],
  pass_hat_k: passHat,
});
const withPassK = native("kg", { "1": 0, "8": 0 });
const without = native("plain", null);
// An Inspect experiment: its intervals answer for samples.
const inspect: Experiment = {
  ...blankExperiment("t (m)", "inspect", 3),
  log: { path: "/r/logs/a.eval", status: "success", state: "complete" },
  states: { scored: 3 },
  inspect: {
    "match/mean/accuracy": {
      claimed: 2 / 3,
      value: 2 / 3,
      coverage: { scored: 3, planned: 3 },
      wilson95: [0.2, 0.94],
      pass_at_k: null,
      check: "agrees",
      note: null,
      errors_zero: 2 / 3,
      interval: { method: "wilson", lo: 0.2077, hi: 0.9385, units: 3, clusters: 3, se: null, design_effect: null },
      interval_reason: null,
      pass_hat_k: null,
    },
  },
};
const doc = (...experiments: Experiment[]) =>
  viewOf({ format: "assay.results/1", run: RUN, bundles: [], experiments } satisfies Results);
const count = (text: string, s: string) => text.split(s).length - 1;
const table = (v: ReturnType<typeof doc>, details: boolean) => [...FORMATS.table.render(v, { details })].join("");
const page = async (v: ReturnType<typeof doc>) => [...(await html(v))].join("");

describe("an interval names its question, once, in the legend", () => {
  it("the table, Markdown and HTML: Korn–Graubard named, the population of tasks (Inspect: samples) once per legend", async () => {
    const v = doc(withPassK, inspect);
    const t = table(v, true);
    expect(t).toContain(`95% intervals: ${KG_TRIALS}; ${TASKS}`);
    expect(t).toContain(`95% intervals: Wilson where each sample stands alone; ${SAMPLES}`);
    expect(count(t, TASKS)).toBe(1);
    const md = renderText("md", v, { details: true });
    expect(md).toContain(`95% intervals: ${KG_TRIALS}; ${TASKS}`);
    // Markdown has two legends: the overview's and the one under the experiment's table.
    expect(count(md, TASKS)).toBe(2);
    expect(md).toContain("| accuracy | **0.0%** (0/24) · 95% \\[0.0%, 48.6%\\] over 24 trials in 3 tasks |");
    const h = await page(v);
    expect(h).toContain(
      `<p class="muted legend">95% intervals: Korn–Graubard (Clopper–Pearson at the effective number of trials) where pass/fail trials repeat tasks; ${TASKS}</p>`,
    );
    // The figure's own line stays short: bounds and what they are over, never the question again.
    expect(t).toContain("accuracy     0/24 = 0.0%   95% [0.0%, 48.6%] over 24 trials in 3 tasks");
  });

  it("JUnit: a suite with an interval says its question as a property; one without an interval does not", () => {
    const x = renderText(
      "junit",
      doc(withPassK, {
        ...without,
        experiment: "none",
        accuracy: { ...without.accuracy!, interval: null, interval_reason: "no trial counted" },
        completion: { ...without.completion!, interval: null, interval_reason: "no trial counted" },
      }),
    );
    const suite = (name: string) =>
      x.slice(
        x.indexOf(`<testsuite name="${name}"`),
        x.indexOf("</testsuite>", x.indexOf(`<testsuite name="${name}"`)),
      );
    expect(suite("kg")).toContain(
      `<property name="interval.question" value="the mean over the population of tasks these were drawn from"/>`,
    );
    expect(suite("kg")).toContain(`<property name="accuracy.interval_method" value="korn-graubard"/>`);
    expect(suite("none")).not.toContain("interval.question");
  });
});

describe("pass@k and pass^k say what they assume (missing at random), once a report", () => {
  it("said once in every format where some experiment shows pass@k or pass^k", async () => {
    const v = doc(withPassK, { ...withPassK, experiment: "kg2" });
    expect(count(table(v, true), MAR)).toBe(1);
    expect(count(renderText("md", v, { details: true }), MAR)).toBe(1);
    expect(
      count(
        await page(v),
        "they assume an attempt&#39;s absence (an infrastructure error, an excluded trial) is unrelated to its outcome (missing at random)",
      ),
    ).toBe(1);
    const x = renderText("junit", v);
    expect(count(x, `name="pass_at_k.assumes"`)).toBe(2); // a property of each suite that holds pass^k
  });

  it("the other side: a report without pass@k or pass^k says nothing of it", async () => {
    const v = doc(without, inspect);
    expect(table(v, true)).not.toContain("missing at random");
    expect(renderText("md", v, { details: true })).not.toContain("missing at random");
    expect(await page(v)).not.toContain("missing at random");
    expect(renderText("junit", v)).not.toContain("pass_at_k.assumes");
  });

  it("the table without --details shows no pass@k, so it says nothing of it", () => {
    expect(table(doc(withPassK), false)).not.toContain("missing at random");
  });
});

describe("through the CLI: a native run with repeated tasks", () => {
  const { dir: root } = scratch("assay-words-");
  beforeAll(() => {
    // Two tasks × two trials: a victory and a death in each; repeats, so Korn–Graubard and pass^k.
    const seed = (n: number) => n.toString(16).padStart(2, "0").repeat(16);
    const outcomes = ["victory", "death", "victory", "death"] as const;
    outcomes.forEach((outcome, i) => {
      const dir = join(root, "exp", `t${i}`, "a1");
      mkdirSync(dir, { recursive: true });
      for (const [p, b] of synthNative({
        experiment: "exp",
        trial: `t${i}`,
        attempt: 1,
        seed: seed(i + 1),
        outcome,
        task: i < 2 ? "A" : "B",
        events: 3,
      }))
        writeFileSync(join(dir, p), b);
    });
  });

  it("the details name Korn–Graubard and the population once, and the missing-at-random assumption once", async () => {
    const r = await run(["score", root, "--details", "--width", "250"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/accuracy {5}2\/4 = 50\.0% {3}95% \[[0-9.]+%, [0-9.]+%\] over 4 trials in 2 tasks/);
    expect(count(r.stdout, `${KG_TRIALS}; ${TASKS}`)).toBe(1);
    expect(count(r.stdout, MAR)).toBe(1);
    const json = JSON.parse((await run(["score", root, "--format", "json", "--quiet"])).stdout) as Results;
    expect(json.experiments[0]!.accuracy!.interval!.method).toBe("korn-graubard");
  });
});
