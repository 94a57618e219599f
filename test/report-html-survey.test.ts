// The HTML report read at scale (issue 23 items 1 and 2): the experiments table carries each
// experiment's result (kind, trials in tasks, headline with its interval, coverage, the harness's
// claim and whether assay agrees, invalid, flags, cost), each row linking to its section; the trial
// rows carry reward, victory and pass apart; the charts survive all-zero figures and long names.
import { describe, expect, it } from "vitest";
import { blankEntry, blankExperiment, viewOf, type BundleEntry, type Experiment, type Results } from "../src/core/results.js";
import { render } from "../src/report/html/index.js";
import * as chart from "../src/report/html/charts.js";
import { COLUMNS, rows } from "../src/report/html/rows.js";
import { headlineOf, SURVEY_COLUMNS } from "../src/report/html/survey.js";

const RUN: Results["run"] = {
  tool_version: "test",
  scoring_version: 1,
  started_at: "2026-01-01T00:00:00.000Z",
  complete: true,
  shard: null,
  roots: ["/r"],
  options: { invalid: "count", resource_bound: "default", errors: "exclude", schedules: [], hmac_key: null },
  jobs: [],
  unrecognised: { count: 0, paths: [] },
};
const interval = (lo: number, hi: number, units: number, clusters: number) => ({ interval: { method: "cluster-t" as const, lo, hi, units, clusters, se: null, design_effect: null }, interval_reason: null });
const LONG = "a_very_long_scorer_name_that_goes_on/mean_reducer_with_a_long_name/metric_with_an_even_longer_name/accuracy";

const game: Experiment = {
  ...blankExperiment("game-run", "native-game", 10),
  accuracy: { value: 0.4, victories: 4, scored: 10, wilson95: null, ...interval(0.1, 0.7, 10, 5) },
  completion: { value: 1, completed: 10, scheduled: 10, interval: null, interval_reason: null },
  raw_record: { values: [], mean: 0.4 },
  retry: [],
  invalid: [{ trial: "t3", codes: ["SEED_MISMATCH"] }],
};
const world: Experiment = { ...blankExperiment("world-run", "world", 4), pass: { passed: 1, total: 4, interval: null, interval_reason: null } };
const job = (name: string, mean: number, claimed: number, reason: string | null, cost: number | null): Experiment => ({
  ...blankExperiment(name, "harbor", 3),
  rewards: { reward: { mean, wilson95: null, coverage: 2 / 3, covered: 2, trials: 3, pass_rate: mean, pass_at_k: null, pass_at_k_reason: null, pass_hat_k: null, interval: null, interval_reason: null } },
  states: { scored: 2, infrastructure_error: 1 },
  claimed: { source: "result.json", metrics: { reward: claimed }, compared: [{ metric: "reward", claimed, assay: mean, reason }] },
  flags: [{ code: "JOB_CLAIM_MISMATCH", trial: "t1", attempt: null, evidence: null }],
  usage: cost === null ? null : { spent: { entries: 3, costed: 3, cost_usd: cost, input_tokens: 10, output_tokens: 5, cache_read_tokens: null }, counted: { entries: 2, costed: 2, cost_usd: cost, input_tokens: 10, output_tokens: 5, cache_read_tokens: null }, successes: 1, cost_per_success: cost },
});
const log: Experiment = {
  ...blankExperiment("log-task", "inspect", 5),
  inspect: { [LONG]: { claimed: 0.8, value: 0.8, coverage: { scored: 4, planned: 5 }, wilson95: null, pass_at_k: null, check: "agrees", note: null, errors_zero: 0.64, interval: null, interval_reason: null, pass_hat_k: null } },
};
const EXPERIMENTS = [game, world, job("job-agrees", 1, 1, null, 0.25), job("job-differs", 0, 1, "Harbor counts the errored trial as 0", null), log];

const page = async (experiments: Experiment[], bundles: BundleEntry[] = []) =>
  [...(await render(viewOf({ format: "assay.results/1", run: RUN, bundles, experiments } as Results)))].join("");
/** The experiments table's rows: each cell's data-sort and its text without markup. */
const surveyRows = (html: string) =>
  [...html.slice(html.indexOf(`<table id="survey">`), html.indexOf("</table>", html.indexOf(`<table id="survey">`))).matchAll(/<tr id="survey-(\d+)">(.*?)<\/tr>/g)].map(([, i, tr]) => ({
    i: Number(i),
    cells: [...tr!.matchAll(/<td[^>]*data-sort="([^"]*)">(.*?)<\/td>/g)].map(([, sort, text]) => ({ sort: sort!, text: text!.replace(/<[^>]+>/g, "") })),
    href: /href="(#exp-\d+)"/.exec(tr!)?.[1],
  }));

describe("the experiments table", () => {
  it("has a column for each thing a reader asks of an experiment first, in order", async () => {
    const html = await page(EXPERIMENTS);
    const heads = [...html.slice(html.indexOf(`<table id="survey">`)).matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].slice(0, SURVEY_COLUMNS.length).map((m) => m[1]);
    expect(heads).toEqual(["experiment", "kind", "trials", "headline (95% interval)", "coverage", "harness claims", "invalid", "flags", "cost"]);
    // It comes before the first section: the result of each job without scrolling into one.
    expect(html.indexOf(`<table id="survey">`)).toBeLessThan(html.indexOf(`id="exp-0"`));
  });

  it("gives each experiment its headline with its interval, coverage, the claim and the check, invalid, flags and cost, and links to its section", async () => {
    const html = await page(EXPERIMENTS);
    const got = surveyRows(html);
    expect(got.map((r) => r.i)).toEqual([0, 1, 2, 3, 4]);
    for (const r of got) {
      expect(r.href).toBe(`#exp-${r.i}`);
      expect(html).toContain(`<section class="experiment" id="exp-${r.i}"`);
      expect(r.cells).toHaveLength(SURVEY_COLUMNS.length);
    }
    const text = got.map((r) => r.cells.map((c) => c.text));
    expect(text[0]).toEqual(["game-run", "game", "10 in 5 tasks", "40.0% [10.0%, 70.0%] accuracy", "100.0%", "—", "1", "0", "—"]);
    expect(text[1]).toEqual(["world-run", "world", "4", "25.0% pass", "100.0%", "—", "0", "0", "—"]);
    expect(text[2]).toEqual(["job-agrees", "Harbor job", "3", "1.000 reward mean", "66.7%", "1.000 · agrees", "0", "1", "$0.25"]);
    expect(text[3]).toEqual(["job-differs", "Harbor job", "3", "0.000 reward mean", "66.7%", "1.000 · differs", "0", "1", "—"]);
    // An Inspect accuracy is a proportion: a percentage, as the claim beside it.
    expect(text[4]![3]).toBe(`80.0% ${LONG}`);
    expect(text[4]!.slice(4, 6)).toEqual(["80.0%", "80.0% · agrees"]);
    // Why a claim differs is on hover; sorting reads the numbers themselves.
    expect(html).toContain(`title="Harbor counts the errored trial as 0"`);
    expect(got.map((r) => r.cells[3]!.sort)).toEqual(["0.4", "0.25", "1", "0", "0.8"]);
    expect(got.map((r) => r.cells[8]!.sort)).toEqual(["", "", "0.25", "", ""]);
  });

  it("says 'not scored' for an experiment with no headline, and sorts it last (an empty data-sort)", async () => {
    const empty = blankExperiment("nothing", "harbor", 2);
    expect(headlineOf(empty)).toBeNull();
    const [r] = surveyRows(await page([empty]));
    expect(r!.cells[3]).toEqual({ sort: "", text: "not scored" });
  });

  it("keeps evidence text as text in every cell", async () => {
    const html = await page([job(`<img src=x onerror=alert(1)>`, 1, 1, `<b>why</b>`, null)]);
    const table = html.slice(html.indexOf(`<table id="survey">`), html.indexOf("</nav>"));
    expect(table).not.toMatch(/<img|<b>why/);
    expect(table).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("the trial rows", () => {
  const e = (path: string, fields: Partial<BundleEntry>): BundleEntry => ({ path, ...blankEntry({ validity: "valid", errors: [], trial: path, attempt: 1, ...fields }) });
  it("carry reward, victory and pass each in its own column, the state or status apart, and the folder", () => {
    const bundles = [
      e("/r/g/t1", { profile: "native-game", experiment: "g", status: "completed", victory: true }),
      e("/r/w/t1", { profile: "world", experiment: "w", status: "completed", pass: false }),
      e("/r/h/job/t1", { profile: "harbor", experiment: "h", attempt: null, state: "scored", rewards: { reward: 1 } }),
    ];
    const experiments = [{ ...blankExperiment("g", "native-game", 1) }, { ...blankExperiment("w", "world", 1) }, { ...blankExperiment("h", "harbor", 1) }];
    const got = [...rows(bundles, experiments, ["/r"])].map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]])));
    expect(got).toEqual([
      { path: "r/g/t1", experiment: "g", trial: "/r/g/t1", attempt: 1, validity: "valid", reward: "", victory: "victory", pass: "", outcome: "completed", codes: "", flags: "" },
      { path: "r/w/t1", experiment: "w", trial: "/r/w/t1", attempt: 1, validity: "valid", reward: "", victory: "", pass: "fail", outcome: "completed", codes: "", flags: "" },
      { path: "r/h/job/t1", experiment: "h", trial: "/r/h/job/t1", attempt: null, validity: "valid", reward: "reward=1", victory: "", pass: "", outcome: "scored", codes: "", flags: "" },
    ]);
  });
});

describe("the charts' edge cases", () => {
  const zero = job("zero", 0, 0, null, null);
  it("draw all-zero figures: each value written beside its (empty) bar, an axis from 0 to 1, no NaN", async () => {
    const headline = await chart.svg(chart.headline(zero)!, "z");
    expect(headline).not.toMatch(/NaN|Infinity/);
    expect(headline.match(/>0\.0%</g)?.length).toBe(2); // the mean and the pass rate, each labelled though it has no bar
    const claims = await chart.svg(chart.claimed(zero)!, "c");
    expect(claims).not.toMatch(/NaN|Infinity/);
    expect(claims).toMatch(/>1\.0</); // the axis still runs to 1 (a [0, 0] domain draws one tick, 0.000000)
    expect(claims).not.toContain("0.000000");
  });

  it("wrap a long metric name onto lines, never cut, each row tall enough", async () => {
    const lines = chart.wrap(LONG).split("\n");
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join("")).toBe(LONG);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(36);
    const svg = await chart.svg(chart.headline(log)!, "l");
    expect(svg).not.toContain("…");
    for (const l of lines) expect(svg).toContain(`>${l}<`);
    const claims = await chart.svg(chart.claimed(log)!, "k");
    expect(claims).not.toContain("…");
  });
});
