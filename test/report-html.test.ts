// The HTML report (issue 15 item 1), without a browser: every headline number in the page is the
// JSON document's, evidence text never becomes markup or script, the trial table's rows are capped
// (problem rows first) and the page says so, the advisory section stands apart from every hard
// figure, nothing in the page points outside it, and every command that writes a document writes it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  blankEntry,
  blankExperiment,
  viewOf,
  type Advisory,
  type BundleEntry,
  type Experiment,
  type Results,
} from "../src/core/results.js";
import { forTerminal } from "../src/core/text.js";
import { render, CSP } from "../src/report/html/index.js";
import { scriptJson } from "../src/report/html/escape.js";
import { matchable } from "../src/report/html/matrix.js";
import { kindKey } from "../src/core/compare/names.js";
import { copyReason } from "../src/core/batch/copy-reason.js";
import * as chart from "../src/report/html/charts.js";
import { COLUMNS, MAX_ROWS, rows, shortPath } from "../src/report/html/rows.js";
import { experimentKey, survey, SURVEY_COLUMNS } from "../src/report/html/survey.js";
import { headline } from "../src/report/overview.js";
import { run } from "./helpers/cli.js";
import { demoReport, expectedFigures, type DemoReport } from "./helpers/demo.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-html-");
let demo: DemoReport;
beforeAll(async () => {
  demo = await demoReport(tmp);
});
afterAll(() => {
  demo?.cleanup();
});

const page = async (doc: Results) => [...(await render(viewOf(doc)))].join("");
/** The part of `html` from the element opening with `open` to its closing tag `close` (the first after it). */
const part = (html: string, open: string, close = "</section>") => {
  const at = html.indexOf(open);
  return at < 0 ? "" : html.slice(at, html.indexOf(close, at) + close.length);
};
/** Each data-metric in `html`: name → data-value as a number (null when empty). */
const metrics = (html: string): Record<string, number | null> =>
  Object.fromEntries(
    [...html.matchAll(/data-metric="([^"]*)" data-value="([^"]*)"/g)].map(([, k, v]) => [
      k!
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&"),
      v === "" ? null : Number(v),
    ]),
  );
const trialData = (html: string): unknown[] =>
  JSON.parse(
    part(html, `<script type="application/json" id="trial-data">`, "</script>")
      .replace(/^<script[^>]*>/, "")
      .replace(/<\/script>$/, ""),
  ) as unknown[];

const RUN: Results["run"] = {
  tool_version: "test",
  scoring_version: 1,
  started_at: "2026-01-01T00:00:00.000Z",
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
const entry = (path: string, fields: Partial<BundleEntry> = {}): BundleEntry => ({
  path,
  ...blankEntry({
    validity: "valid",
    errors: [],
    profile: "native-game",
    experiment: "x",
    trial: path,
    attempt: 1,
    ...fields,
  }),
});
const native = (name: string, n: number): Experiment => ({
  ...blankExperiment(name, "native-game", n),
  accuracy: { value: 0.5, victories: n / 2, scored: n, wilson95: [0.2, 0.8], interval: null, interval_reason: null },
  completion: { value: 1, completed: n, scheduled: n, interval: null, interval_reason: null },
  raw_record: { values: [], mean: 0.5 },
  retry: [],
});

/** A Harbor job whose reward key and claimed metric are named `name`. */
const harborClaiming = (name: string): Experiment => ({
  ...blankExperiment(name, "harbor", 2),
  rewards: {
    [name]: {
      mean: 0.5,
      wilson95: [0.1, 0.9],
      coverage: 1,
      covered: 2,
      trials: 2,
      pass_rate: 0.5,
      pass_at_k: null,
      pass_at_k_reason: name,
      pass_hat_k: null,
      interval: null,
      interval_reason: null,
    },
  },
  states: { scored: 2 },
  claimed: {
    source: name,
    metrics: { [name]: 0.7 },
    compared: [{ metric: name, claimed: 0.7, assay: 0.5, reason: name }],
  },
});

describe("the HTML report of the demo", () => {
  it("gives each experiment's headline figures exactly as the JSON document states them", () => {
    expect(demo.doc.experiments.length).toBeGreaterThan(3);
    for (const [i, e] of demo.doc.experiments.entries()) {
      const section = part(demo.html, `<section class="experiment" id="exp-${i}" data-experiment="${i}">`);
      expect(section, `experiment ${i}`).not.toBe("");
      expect(metrics(section), `${e.experiment}`).toEqual(expectedFigures(e));
    }
    const t = metrics(part(demo.html, `id="tally"`, "</header>"));
    expect(t).toEqual({
      bundles: demo.doc.bundles.length,
      valid: demo.doc.bundles.filter((b) => b.validity === "valid").length,
      invalid: demo.doc.bundles.filter((b) => b.validity === "invalid").length,
      error: demo.doc.bundles.filter((b) => b.validity === "error").length,
    });
  });

  it("draws charts as inline SVG, each set of ids its own", () => {
    const svgs = demo.html.match(/<svg\b/g) ?? [];
    expect(svgs.length).toBeGreaterThan(demo.doc.experiments.length);
    const ids = [...demo.html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    // the world experiment's dimension grid marks its hard dimensions
    const world = demo.doc.experiments.findIndex((e) => e.profile === "world");
    expect(part(demo.html, `id="exp-${world}"`)).toContain("world_integrity (hard)");
  });

  it("is self-contained: a CSP that allows no request, and nothing that points outside the page", () => {
    expect(demo.html).toContain(`<meta http-equiv="Content-Security-Policy" content="${CSP}">`);
    expect(CSP).toMatch(/default-src 'none'/);
    // every link is to a place in the page (the task × run matrix is in it, issue 40 §3); no src at all; url() only to an SVG's own ids
    expect(
      [...demo.html.matchAll(/\b(?:href|src)="([^"]*)"/g)].map((m) => m[1]).filter((u) => !u!.startsWith("#")),
    ).toEqual([]);
    // the evidence links the script makes are file: URLs, each opened only on a click
    const HREF = COLUMNS.length;
    expect(
      trialData(demo.html).every(
        (r) => typeof (r as unknown[])[HREF] === "string" && String((r as unknown[])[HREF]).startsWith("file:///"),
      ),
    ).toBe(true);
    expect([...demo.html.matchAll(/url\(([^)]*)\)/g)].map((m) => m[1]).filter((u) => !u!.startsWith("#"))).toEqual([]);
    expect(demo.html).not.toMatch(/@import|@font-face/);
  });

  it("embeds every trial's row and every Inspect sample's when under the cap, and says so", () => {
    // Each Inspect log with per-sample values gives a row per planned sample id beside its own.
    const samples = demo.doc.bundles.reduce((n, e) => n + (e.inspect?.sample_ids?.length ?? 0), 0);
    expect(samples).toBeGreaterThan(0);
    const total = demo.doc.bundles.length + samples;
    expect(trialData(demo.html)).toHaveLength(total);
    expect(demo.html).toContain(`data-embedded="${total}" data-left-out="0"`);
  });
});

describe("evidence text in the page", () => {
  const evil = `</script><!--<script>alert(1)</script><img src=x onerror=alert(2)>"'&`;
  let html: string;
  beforeAll(async () => {
    const bad = entry(`/r/${evil}`, {
      validity: "invalid",
      experiment: evil,
      trial: evil,
      errors: [{ code: "SCHEMA", file: evil, line: 1, message: evil }],
      flags: [{ code: "SCHEMA", evidence: evil }],
    });
    html = await page({
      format: "assay.results/1",
      run: { ...RUN, roots: ["/elsewhere"] },
      bundles: [bad],
      experiments: [
        {
          ...native(evil, 2),
          invalid: [{ trial: evil, codes: ["SCHEMA"] }],
          excluded: [{ trial: evil, reason: evil }],
        },
        harborClaiming(evil),
      ],
    });
  });

  it("never becomes markup: no element but the page's own, the text escaped (in the charts' SVG too)", () => {
    expect(html).toContain("Harbor claims, beside assay's value");
    expect(part(html, `id="exp-0"`)).toContain("Findings by code"); // its entries found under the name as shown
    expect(html.match(/<script\b/g)).toHaveLength(2); // the rows' JSON and the table's script
    expect(html).not.toMatch(/<img\b|<!--/);
    // the attribute's words occur only inside escaped text: HTML's entities, or the JSON's \u escapes,
    // or a chart label's wrapped line (its "<img src=x " escaped on the line before; &#xA; the break in a title)
    const escaped = [
      "&lt;img src=x onerror=alert(2)&gt;",
      "\\u003cimg src=x onerror=alert(2)\\u003e",
      "&lt;img src=x &#xA;onerror=alert(2)&gt;",
      `dy="12">onerror=alert(2)&gt;`,
      "%3Cimg%20src=x%20onerror=alert(2)%3E", // in the evidence's file: URL
    ];
    const words = [...html.matchAll(/.{0,20}onerror=alert\(2\).{0,8}/g)]
      .map((m) => m[0])
      .filter((m) => !escaped.some((e) => m.includes(e)));
    expect(words).toEqual([]);
    expect(html).toContain(
      "&lt;/script&gt;&lt;!--&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;",
    );
  });

  it("inside the embedded JSON, cannot end the element or open a comment, and reads back unchanged", () => {
    const [row] = trialData(html) as string[][];
    expect(row![0]).toBe(forTerminal(`/r/${evil}`)); // a name as a terminal shows it (quoted: it holds a quote)
    expect(row![2]).toBe(forTerminal(evil));
    expect(scriptJson(evil)).not.toMatch(/<|>|&/);
    expect(JSON.parse(scriptJson({ s: `${evil}\u2028\u2029` }))).toEqual({ s: `${evil}\u2028\u2029` });
  });
});

describe("the trial table's rows", () => {
  const clean = (i: number) => entry(`/r/b${String(i).padStart(6, "0")}`);
  const broken = (i: number) =>
    entry(`/r/z${i}`, { validity: "invalid", errors: [{ code: "SCHEMA", file: null, line: null, message: "m" }] });

  it("take the entries with something to look at first, then the rest in path order, up to the cap", () => {
    const bundles = [clean(1), clean(2), broken(1), clean(3), broken(2)];
    expect([...rows(bundles, [native("x", 5)], ["/r"], 3)].map((r) => r[0])).toEqual(["r/z1", "r/z2", "r/b000001"]);
    expect([...rows(bundles, [native("x", 5)], ["/r"], 10)].map((r) => r[0])).toEqual([
      "r/z1",
      "r/z2",
      "r/b000001",
      "r/b000002",
      "r/b000003",
    ]);
  });

  it("say what the experiment makes of a valid bundle: a trial invalid, excluded, unscored or superseded shows its state and codes, never a win, and comes first", () => {
    const won = (trial: string, attempt = 1) =>
      entry(`/r/${trial}/a${attempt}`, { trial, attempt, status: "completed", ending: true, victory: true });
    const bundles = [
      won("t0"),
      won("t1"),
      won("t2"),
      won("t3"),
      won("t4"),
      won("t4", 2),
      entry("/r/t5/a1", { trial: "t5", validity: "error" }),
      won("t5", 2),
    ];
    const x: Experiment = {
      ...native("x", 6),
      invalid: [{ trial: "t1", codes: ["SEED_MISMATCH"] }],
      excluded: [{ trial: "t2", reason: "resource-bound without a native ending" }],
      flags: [{ code: "SUPERSEDED", trial: "t4", attempt: 1, evidence: null }],
      unscored: ["t5"],
    };
    // [validity, victory, outcome, codes]: the win in its own column
    const got = Object.fromEntries([...rows(bundles, [x], ["/r"])].map((r) => [r[0], [r[4], r[6], r[8], r[9]]]));
    expect(got).toEqual({
      "r/t0/a1": ["valid", "victory", "completed", ""],
      "r/t1/a1": ["invalid (trial: SEED_MISMATCH)", "no credit", "completed", "SEED_MISMATCH"],
      "r/t2/a1": ["excluded: resource-bound without a native ending", "no credit", "completed", ""],
      "r/t3/a1": ["valid", "victory", "completed", ""],
      "r/t4/a1": ["superseded", "no credit", "completed", ""],
      "r/t4/a2": ["valid", "victory", "completed", ""],
      "r/t5/a1": ["error", "", "tool error", ""],
      "r/t5/a2": ["unscored: a tool error on another attempt", "no credit", "completed", ""],
    });
    // Under a cap the rows not counted come before the clean wins.
    expect([...rows(bundles, [x], ["/r"], 5)].map((r) => r[0])).toEqual([
      "r/t1/a1",
      "r/t2/a1",
      "r/t4/a1",
      "r/t5/a1",
      "r/t5/a2",
    ]);
  });

  it("show a Harbor trial's copy as the copy it is and a bundle-invalid trial's codes beyond its own, both without a reward as credit", () => {
    const harbor = (path: string, fields: Partial<BundleEntry>) =>
      entry(path, {
        profile: "harbor",
        experiment: "job",
        trial: "tr",
        attempt: null,
        state: "scored",
        rewards: { reward: 1 },
        ...fields,
      });
    const bundles = [
      harbor("/r/job/tr", {}),
      harbor("/r/job/tr-copy", {}),
      harbor("/r/job/u", {
        trial: "u",
        validity: "invalid",
        errors: [{ code: "SCHEMA", file: null, line: null, message: "m" }],
      }),
    ];
    const x: Experiment = {
      ...blankExperiment("job", "harbor", 2),
      invalid: [{ trial: "u", codes: ["SCHEMA", "TRIAL_DUPLICATE"] }],
      excluded: [{ trial: "tr", reason: copyReason("/r/job/tr") }],
    };
    // [validity, reward, outcome, codes]
    const got = Object.fromEntries([...rows(bundles, [x], ["/r"])].map((r) => [r[0], [r[4], r[5], r[8], r[9]]]));
    expect(got).toEqual({
      "r/job/tr": ["valid", "reward=1", "scored", ""],
      "r/job/tr-copy": [
        "excluded: a byte-identical copy of /r/job/tr (counted once, there)",
        "no credit",
        "scored",
        "",
      ],
      "r/job/u": ["invalid", "no credit", "scored", "SCHEMA TRIAL_DUPLICATE"],
    });
  });

  it("show a path from its root's own name on, and a path outside every root whole", () => {
    expect(shortPath("/data/runs/a/b", ["/data/runs/"])).toBe("runs/a/b");
    expect(shortPath("/data/runsx/a", ["/data/runs"])).toBe("/data/runsx/a");
  });

  it(`are embedded ${MAX_ROWS} at most; the page says how many were left out, and no problem row is`, async () => {
    const n = MAX_ROWS + 7;
    const bundles = [...Array.from({ length: n - 2 }, (_, i) => clean(i)), broken(1), broken(2)];
    const html = await page({ format: "assay.results/1", run: RUN, bundles, experiments: [native("x", n)] });
    const data = trialData(html) as string[][];
    expect(data).toHaveLength(MAX_ROWS);
    expect(data.slice(0, 2).map((r) => r[0])).toEqual(["r/z1", "r/z2"]);
    expect(html).toContain(`data-embedded="${MAX_ROWS}" data-left-out="7"`);
    expect(html).toMatch(new RegExp(`holds ${MAX_ROWS} of ${n} rows .*7 left out`));
  });
});

describe("findings by code", () => {
  it("count a code the batch rules give a trial and none of its bundles holds (once per trial), beside the bundles' own codes", async () => {
    const schema = { code: "SCHEMA" as const, file: null, line: null, message: "m" };
    const x: Experiment = {
      ...native("x", 4),
      invalid: [
        { trial: "t1", codes: ["SEED_MISMATCH"] },
        { trial: "t2", codes: ["SCHEMA", "TRIAL_DUPLICATE"] },
      ],
    };
    const bundles = [
      entry("/r/t0"),
      entry("/r/t1/a1", { trial: "t1" }),
      entry("/r/t1/a2", { trial: "t1", attempt: 2 }),
      entry("/r/t2", { trial: "t2", validity: "invalid", errors: [schema] }),
    ];
    const s = survey(bundles, [x]);
    expect(Object.fromEntries(s.codes)).toEqual({ SCHEMA: 1, SEED_MISMATCH: 1, TRIAL_DUPLICATE: 1 });
    expect(Object.fromEntries(s.codesBy.get(experimentKey("native-game", "x"))!)).toEqual({
      SCHEMA: 1,
      SEED_MISMATCH: 1,
      TRIAL_DUPLICATE: 1,
    });
    const html = await page({ format: "assay.results/1", run: RUN, bundles, experiments: [x] });
    expect(part(html, `<section id="findings">`)).toContain("SEED_MISMATCH");
    expect(part(html, `<section class="experiment" id="exp-0"`)).toContain("TRIAL_DUPLICATE");
  });
});

describe("the labels of the figures", () => {
  it("say what --invalid does with invalid trials: count (as failures, 0) or left out", async () => {
    const world: Experiment = {
      ...blankExperiment("w", "world", 2),
      pass: { passed: 1, total: 2, interval: null, interval_reason: null },
      dimensions: {},
    };
    const experiments = [native("g", 2), world, harborClaiming("h")];
    const html = (invalid: "count" | "exclude") =>
      page({
        format: "assay.results/1",
        run: { ...RUN, options: { ...RUN.options, invalid } },
        bundles: [],
        experiments,
      });
    const count = await html("count");
    expect(count).toContain("invalid trials count as non-victories");
    expect(count).toContain("invalid trials fail");
    expect(count).toContain("trials scored (invalid as 0)");
    expect(count).not.toContain("--invalid exclude)");
    const exclude = await html("exclude");
    expect(exclude.match(/invalid trials left out \(--invalid exclude\)/g)).toHaveLength(2);
    expect(exclude).toContain("trials scored (invalid left out: --invalid exclude)");
    expect(exclude).not.toMatch(/invalid trials fail|invalid as 0|count as non-victories/);
  });
});

describe("the advisory section", () => {
  const advisory: Advisory = {
    status: "analysed",
    reason: null,
    analysis: "trial-legitimacy",
    rubric: "r",
    model: "m",
    cached: false,
    outcomes: { honest: { outcome: "fail", explanation: "ADVISORY-WORDS <b>bold</b>" } },
    summary: null,
    rubric_digest: "d",
    evidence_digest: null,
    provenance: null,
  };
  const doc = (a: Advisory | null): Results => ({
    format: "assay.results/1",
    run: RUN,
    bundles: [entry("/r/a", { advisory: a }), entry("/r/b")],
    experiments: [native("x", 2)],
  });

  it("stands apart from every hard figure: its words only in it, no figure in it, the figures unchanged by it", async () => {
    const [withA, without] = [await page(doc(advisory)), await page(doc(null))];
    const section = part(withA, `<section id="advisory"`);
    expect(section).toMatch(/Advisory: a model's judgement/);
    expect(section).toContain("ADVISORY-WORDS &lt;b&gt;bold&lt;/b&gt;");
    expect(withA.replace(section, "")).not.toContain("ADVISORY-WORDS");
    expect(section).not.toContain("data-metric");
    expect(metrics(withA)).toEqual(metrics(without));
    expect(without).not.toContain(`id="advisory"`);
  });
});

describe("--format html on the commands that write a document", () => {
  it("score writes the page to standard output; merge writes it to --out and to standard output", async () => {
    const page = /^<!doctype html>[\s\S]*<\/html>\n$/;
    const a = await run(["score", demo.corpus, "--quiet", "--format", "html"]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(page);
    const shard = join(tmp, "shard.json");
    expect((await run(["score", demo.corpus, "--quiet", "--shard", "0/1", "--out", shard])).code).toBe(0);
    const out = join(tmp, "merged.html");
    const b = await run(["merge", shard, "--format", "html", "--out", out]);
    expect(b.code, b.stderr).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(page);
    expect((await run(["merge", shard, "--format", "html"])).stdout).toMatch(page);
    expect((await run(["merge", shard, "--format", "htm"])).stderr).toMatch(/--format must be one of .*html/);
  });
});

// The HTML report read at scale (issue 23 items 1 and 2): the experiments table carries each
// experiment's result (kind, trials in tasks, headline with its interval, coverage, the harness's
// claim and whether assay agrees, invalid, flags, cost), each row linking to its section; the trial
// rows carry reward, victory and pass apart; the charts survive all-zero figures and long names.
const interval = (lo: number, hi: number, units: number, clusters: number) => ({
  interval: { method: "cluster-t" as const, lo, hi, units, clusters, se: null, design_effect: null },
  interval_reason: null,
});
const LONG =
  "a_very_long_scorer_name_that_goes_on/mean_reducer_with_a_long_name/metric_with_an_even_longer_name/accuracy";

const game: Experiment = {
  ...blankExperiment("game-run", "native-game", 10),
  accuracy: { value: 0.4, victories: 4, scored: 10, wilson95: null, ...interval(0.1, 0.7, 10, 5) },
  completion: { value: 1, completed: 10, scheduled: 10, interval: null, interval_reason: null },
  raw_record: { values: [], mean: 0.4 },
  retry: [],
  invalid: [{ trial: "t3", codes: ["SEED_MISMATCH"] }],
};
const world: Experiment = {
  ...blankExperiment("world-run", "world", 4),
  pass: { passed: 1, total: 4, interval: null, interval_reason: null },
};
const job = (name: string, mean: number, claimed: number, reason: string | null, cost: number | null): Experiment => ({
  ...blankExperiment(name, "harbor", 3),
  rewards: {
    reward: {
      mean,
      wilson95: null,
      coverage: 2 / 3,
      covered: 2,
      trials: 3,
      pass_rate: mean,
      pass_at_k: null,
      pass_at_k_reason: null,
      pass_hat_k: null,
      interval: null,
      interval_reason: null,
    },
  },
  states: { scored: 2, infrastructure_error: 1 },
  claimed: {
    source: "result.json",
    metrics: { reward: claimed },
    compared: [{ metric: "reward", claimed, assay: mean, reason }],
  },
  flags: [{ code: "JOB_CLAIM_MISMATCH", trial: "t1", attempt: null, evidence: null }],
  usage:
    cost === null
      ? null
      : {
          spent: { entries: 3, costed: 3, cost_usd: cost, input_tokens: 10, output_tokens: 5, cache_read_tokens: null },
          counted: {
            entries: 2,
            costed: 2,
            cost_usd: cost,
            input_tokens: 10,
            output_tokens: 5,
            cache_read_tokens: null,
          },
          successes: 1,
          cost_per_success: cost,
        },
});
const log: Experiment = {
  ...blankExperiment("log-task", "inspect", 5),
  inspect: {
    [LONG]: {
      claimed: 0.8,
      value: 0.8,
      coverage: { scored: 4, planned: 5 },
      wilson95: null,
      pass_at_k: null,
      check: "agrees",
      note: null,
      errors_zero: 0.64,
      interval: null,
      interval_reason: null,
      pass_hat_k: null,
    },
  },
};
const EXPERIMENTS = [
  game,
  world,
  job("job-agrees", 1, 1, null, 0.25),
  job("job-differs", 0, 1, "Harbor counts the errored trial as 0", null),
  log,
];

const pageOf = (experiments: Experiment[]) => page({ format: "assay.results/1", run: RUN, bundles: [], experiments });
/** The experiments table's rows: each cell's data-sort and its text without markup. */
const surveyRows = (html: string) =>
  [
    ...html
      .slice(html.indexOf(`<table id="survey">`), html.indexOf("</table>", html.indexOf(`<table id="survey">`)))
      .matchAll(/<tr id="survey-(\d+)">(.*?)<\/tr>/g),
  ].map(([, i, tr]) => ({
    i: Number(i),
    cells: [...tr!.matchAll(/<td[^>]*data-sort="([^"]*)">(.*?)<\/td>/g)].map(([, sort, text]) => ({
      sort: sort!,
      text: text!.replace(/<[^>]+>/g, ""),
    })),
    href: /href="(#exp-\d+)"/.exec(tr!)?.[1],
  }));

describe("the experiments table", () => {
  it("has a column for each thing a reader asks of an experiment first, in order", async () => {
    const html = await pageOf(EXPERIMENTS);
    const heads = [...html.slice(html.indexOf(`<table id="survey">`)).matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)]
      .slice(0, SURVEY_COLUMNS.length)
      .map((m) => m[1]);
    // The count column as the kinds count: trials, and an Inspect task run's planned records.
    expect(heads).toEqual([
      "experiment",
      "kind",
      "trials/records",
      "headline (95% interval)",
      "coverage",
      "harness claims",
      "invalid",
      "flags",
      "cost",
    ]);
    // It comes before the first section: the result of each job without scrolling into one.
    expect(html.indexOf(`<table id="survey">`)).toBeLessThan(html.indexOf(`id="exp-0"`));
  });

  it("gives each experiment its headline with its interval, coverage, the claim and the check, invalid, flags and cost, and links to its section", async () => {
    const html = await pageOf(EXPERIMENTS);
    const got = surveyRows(html);
    // The overview's order (overview.ts): problems first (a disputed claim, a task run with no readable log, invalid trials), then by kind and name.
    expect(got.map((r) => r.i)).toEqual([3, 4, 0, 2, 1]);
    for (const r of got) {
      expect(r.href).toBe(`#exp-${r.i}`);
      expect(html).toContain(`<section class="experiment" id="exp-${r.i}"`);
      expect(r.cells).toHaveLength(SURVEY_COLUMNS.length);
    }
    const text = Object.fromEntries(got.map((r) => [r.i, r.cells.map((c) => c.text)]));
    expect(text[0]).toEqual([
      "game-run",
      "native-game",
      "10 in 5 tasks",
      "40.0% [10.0%, 70.0%] accuracy",
      "100.0%",
      "—",
      "1",
      "0",
      "—",
    ]);
    expect(text[1]).toEqual(["world-run", "world", "4", "25.0% pass", "100.0%", "—", "0", "0", "—"]);
    expect(text[2]).toEqual([
      "job-agrees",
      "Harbor",
      "3",
      "1.000 reward",
      "66.7%",
      "1.000 · agrees",
      "0",
      "1",
      "$0.25",
    ]);
    expect(text[3]).toEqual(["job-differs", "Harbor", "3", "0.000 reward", "66.7%", "1.000 · differs", "0", "1", "—"]);
    // An Inspect metric as Inspect shows it, to 3 decimals, as the overview of the table and Markdown does (one chooser).
    expect(text[4]![3]).toBe(`0.800 ${LONG}`);
    expect(text[4]!.slice(4, 6)).toEqual(["80.0%", "0.800 · agrees"]);
    // Why a claim differs is on hover; sorting reads the numbers themselves.
    expect(html).toContain(`title="Harbor counts the errored trial as 0"`);
    expect(got.map((r) => r.cells[3]!.sort)).toEqual(["0", "0.8", "0.4", "1", "0.25"]);
    expect(got.map((r) => r.cells[8]!.sort)).toEqual(["", "", "", "0.25", ""]);
    // A task run sorted first says why, which no other cell does.
    expect(text[4]![0]).toBe("log-task no readable log");
  });

  it("says 'none' for an experiment with no headline, as the table does, and sorts it last (an empty data-sort)", async () => {
    const empty = blankExperiment("nothing", "harbor", 2);
    expect(headline(empty).metric).toBeNull();
    const [r] = surveyRows(await pageOf([empty]));
    expect(r!.cells[3]).toEqual({ sort: "", text: "none" });
  });

  it("keeps evidence text as text in every cell", async () => {
    const html = await pageOf([job(`<img src=x onerror=alert(1)>`, 1, 1, `<b>why</b>`, null)]);
    const table = html.slice(html.indexOf(`<table id="survey">`), html.indexOf("</nav>"));
    expect(table).not.toMatch(/<img|<b>why/);
    expect(table).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("the trial rows", () => {
  it("carry the task, and where the evidence is: an Inspect log with the inspect view command that opens its folder (quoted when it must be)", () => {
    const bundles = [
      entry("/r/logs/a.eval", { profile: "inspect", experiment: "t (m)", task: "t", trial: null, attempt: null }),
      entry("/r/my logs/b.eval", { profile: "inspect", experiment: "u (m)", task: "u", trial: null, attempt: null }),
      entry("/r/h/job/t1", { profile: "harbor", experiment: "h", task: "hello", attempt: null, state: "scored" }),
    ];
    const experiments = ["t (m)", "u (m)"].map((x) => blankExperiment(x, "inspect", 1));
    const got = [...rows(bundles, [...experiments, blankExperiment("h", "harbor", 1)], ["/r"])].map((r) => [
      r[COLUMNS.indexOf("task")],
      r[COLUMNS.indexOf("evidence")],
      r[COLUMNS.length],
    ]);
    expect(got).toEqual([
      ["t", "r/logs/a.eval · inspect view --log-dir /r/logs", "file:///r/logs/a.eval"],
      ["u", "r/my logs/b.eval · inspect view --log-dir '/r/my logs'", "file:///r/my%20logs/b.eval"],
      ["hello", "r/h/job/t1/agent/trajectory.json", "file:///r/h/job/t1/agent/trajectory.json"],
    ]);
  });

  it("carry reward, victory and pass each in its own column, the state or status apart, and the folder", () => {
    const bundles = [
      entry("/r/g/t1", { profile: "native-game", experiment: "g", status: "completed", victory: true }),
      entry("/r/w/t1", { profile: "world", experiment: "w", status: "completed", pass: false }),
      entry("/r/h/job/t1", {
        profile: "harbor",
        experiment: "h",
        attempt: null,
        state: "scored",
        rewards: { reward: 1 },
      }),
    ];
    const experiments = [
      { ...blankExperiment("g", "native-game", 1) },
      { ...blankExperiment("w", "world", 1) },
      { ...blankExperiment("h", "harbor", 1) },
    ];
    const got = [...rows(bundles, experiments, ["/r"])].map((r) =>
      Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]])),
    );
    expect(got).toEqual([
      {
        path: "r/g/t1",
        experiment: "g",
        trial: "/r/g/t1",
        attempt: 1,
        validity: "valid",
        reward: "",
        victory: "victory",
        pass: "",
        outcome: "completed",
        codes: "",
        flags: "",
        task: "",
        evidence: "r/g/t1/journal.jsonl",
        sample: "",
        epochs: null,
        score: "",
      },
      {
        path: "r/w/t1",
        experiment: "w",
        trial: "/r/w/t1",
        attempt: 1,
        validity: "valid",
        reward: "",
        victory: "",
        pass: "fail",
        outcome: "completed",
        codes: "",
        flags: "",
        task: "",
        evidence: "r/w/t1/journal.jsonl",
        sample: "",
        epochs: null,
        score: "",
      },
      {
        path: "r/h/job/t1",
        experiment: "h",
        trial: "/r/h/job/t1",
        attempt: null,
        validity: "valid",
        reward: "reward=1",
        victory: "",
        pass: "",
        outcome: "scored",
        codes: "",
        flags: "",
        task: "",
        evidence: "r/h/job/t1/agent/trajectory.json",
        sample: "",
        epochs: null,
        score: "",
      },
    ]);
    // Each row's evidence link: the file its kind opens first, as a file: URL.
    expect([...rows(bundles, experiments, ["/r"])].map((r) => r[COLUMNS.length])).toEqual([
      "file:///r/g/t1/journal.jsonl",
      "file:///r/w/t1/journal.jsonl",
      "file:///r/h/job/t1/agent/trajectory.json",
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

// Issue 40 §3: an Inspect log's samples are rows of the trial table, from what the document holds
// of each (its sample ids and per-sample values), each with the viewer's address of that sample.
describe("the Inspect samples' rows", () => {
  type Log = NonNullable<BundleEntry["inspect"]>;
  type Values = { exclude: (number | null)[]; zero: (number | null)[] };
  const metric = (values: Values | null) => ({
    claimed: null,
    check: "unverified" as const,
    note: values === null ? "no sample record behind it" : null,
    coverage: { scored: 0, planned: 0 },
    exclude: {
      value: null,
      n: 0,
      wilson95: null,
      pass_at_k: null,
      interval: null,
      interval_reason: null,
      pass_hat_k: null,
    },
    zero: {
      value: null,
      n: 0,
      wilson95: null,
      pass_at_k: null,
      interval: null,
      interval_reason: null,
      pass_hat_k: null,
    },
    values,
  });
  const log = (ids: string[] | null, metrics: Record<string, Values | null>, epochs = 1): Log => ({
    format: "eval",
    log_version: 2,
    inspect_version: "0.3.100",
    eval_id: "e",
    run_id: "r",
    task_id: "t",
    model: "m",
    created: null,
    completed_at: null,
    plan: { records: (ids?.length ?? 0) * epochs, ids: ids?.length ?? 0, epochs, source: "sample_ids" },
    total_samples: null,
    sample_ids: ids,
    sample_clusters: null,
    metrics: Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, metric(v)])),
  });
  const inspectEntry = (path: string, inspect: Log | null, fields: Partial<BundleEntry> = {}) =>
    entry(path, { profile: "inspect", experiment: "t (m)", task: "t", trial: null, attempt: null, inspect, ...fields });
  const byName = (r: unknown[]) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]]));
  const X = [blankExperiment("t (m)", "inspect", 1)];

  it("give each planned sample a row: its id, epochs, state and value, the log's validity and task, and the address that opens it in inspect view", () => {
    const e = inspectEntry(
      "/r/my logs/a+b.eval",
      log(["1", "x/y", "3"], { "match/mean/accuracy": { exclude: [1, null, null], zero: [1, 0, null] } }, 3),
    );
    const got = [...rows([e], X, ["/r"])].map(byName);
    // Samples without a score before the clean log row, then the rest, each in plan order.
    expect(got.map((r) => [r["sample"], r["outcome"], r["score"]])).toEqual([
      ["x/y", "no score: left out", "—"],
      ["3", "in neither figure", "—"],
      ["3 samples", "", ""],
      ["1", "scored", "1"],
    ]);
    const one = got[3]!;
    expect([one["path"], one["experiment"], one["validity"], one["task"], one["epochs"]]).toEqual([
      "r/my logs/a+b.eval",
      "t (m)",
      "valid",
      "t",
      3,
    ]);
    // inspect view's route to a sample: #/logs/<log, relative to --log-dir>/samples/sample/<id>/<epoch>, each part encoded.
    expect(got[0]!["evidence"]).toBe(
      "r/my logs/a+b.eval #x/y · inspect view --log-dir '/r/my logs' · http://127.0.0.1:7575/#/logs/a%2Bb.eval/samples/sample/x%2Fy/1",
    );
    expect([...rows([e], X, ["/r"])].map((r) => r[COLUMNS.length])).toEqual(
      Array(4).fill("file:///r/my%20logs/a+b.eval"),
    );
    // --errors zero: the sample without a score counts 0, and says so.
    const zero = [...rows([e], X, ["/r"], MAX_ROWS, { errors: "zero", samples: true })].map(byName);
    expect(zero.find((r) => r["sample"] === "x/y")).toMatchObject({ outcome: "no score: counted 0", score: "0" });
  });

  it("give a sample whose id no URL can carry (a lone surrogate) its row and no viewer address; a well-formed id its address", () => {
    const e = inspectEntry(
      "/r/a.eval",
      log(["\ud800", "ok"], { "match/mean/accuracy": { exclude: [1, 1], zero: [1, 1] } }),
    );
    const got = [...rows([e], X, ["/r"])].map(byName);
    const lone = got.find((r) => r["sample"] !== "ok" && r["sample"] !== "2 samples")!;
    expect(lone["evidence"]).not.toContain("127.0.0.1");
    expect(lone["evidence"]).toContain("inspect view --log-dir /r");
    expect(got.find((r) => r["sample"] === "ok")!["evidence"]).toContain("/samples/sample/ok/1");
  });

  it("name each scorer's value where a log has several, and give a log its experiment does not count no credit", () => {
    const e = inspectEntry(
      "/r/a.eval",
      log(["1"], {
        "match/mean/accuracy": { exclude: [0.6666666666666666], zero: [0.6666666666666666] },
        "match/mean/stderr": null,
        "includes/mean/accuracy": { exclude: [1], zero: [1] },
      }),
    );
    expect(byName([...rows([e], X, ["/r"])][1]!)["score"]).toBe("match=0.6667 includes=1");
    const invalid = inspectEntry("/r/a.eval", e.inspect, {
      validity: "invalid",
      errors: [{ code: "METRIC_MISMATCH", file: null, line: null, message: "m" }],
    });
    const got = [...rows([invalid], X, ["/r"])].map(byName);
    expect(got.map((r) => [r["sample"], r["validity"], r["score"]])).toEqual([
      ["1 sample", "invalid", ""],
      ["1", "invalid", "no credit"],
    ]);
  });

  it("say why a log has no sample rows: not read, or no per-sample values in the document", () => {
    const unread = inspectEntry("/r/bad.eval", null, {
      validity: "error",
      errors: [{ code: "EVAL_CORRUPT", file: null, line: null, message: "m" }],
    });
    const none = inspectEntry("/r/none.eval", log(null, { "match/mean/accuracy": null }));
    const got = [...rows([unread, none], X, ["/r"])].map(byName);
    expect(got.map((r) => [r["path"], r["sample"]])).toEqual([
      ["r/bad.eval", "the log could not be read: no sample"],
      [
        "r/none.eval",
        "no per-sample values in the document: assay recomputes no accuracy or mean metric of this log (no sample record behind it)",
      ],
    ]);
  });

  it("never push a log's own row out behind another log's samples under the cap", () => {
    const ids = Array.from({ length: 10 }, (_, i) => `s${i}`);
    const clean = { exclude: ids.map(() => 1), zero: ids.map(() => 1) };
    const a = inspectEntry("/r/a.eval", log(ids, { "m/mean/accuracy": clean }));
    const b = inspectEntry("/r/b.eval", log(ids, { "m/mean/accuracy": clean }));
    const got = [...rows([a, b], X, ["/r"], 3)].map(byName);
    expect(got.map((r) => [r["path"], r["sample"]])).toEqual([
      ["r/a.eval", "10 samples"],
      ["r/b.eval", "10 samples"],
      ["r/a.eval", "s0"],
    ]);
  });

  it("keep a 100,000-sample log's page to the cap, saying how many rows are left out", async () => {
    const N = 100_000;
    const ids = Array.from({ length: N }, (_, i) => `s${i}`);
    const values = { exclude: ids.map((_, i) => i % 2), zero: ids.map((_, i) => i % 2) };
    const e = inspectEntry("/r/big.eval", log(ids, { "m/mean/accuracy": values }));
    const t = Date.now();
    const html = await page({ format: "assay.results/1", run: RUN, bundles: [e], experiments: X });
    const ms = Date.now() - t;
    expect(trialData(html)).toHaveLength(MAX_ROWS);
    expect(html).toContain(`data-embedded="${MAX_ROWS}" data-left-out="${N + 1 - MAX_ROWS}"`);
    expect(html).toContain(`1 entry and ${N} Inspect samples`);
    console.log(`a 100,000-sample log: page rendered in ${ms} ms, ${(html.length / 2 ** 20).toFixed(1)} MiB`);
  });
});

// Issue 40 §3: the task × run matrix is in the page, as assay compare groups the document's runs; where none can be drawn the page says why.
describe("the task × run matrix", () => {
  it("shows, for the demo's Inspect runs of the same samples, each sample's value in each run as the JSON document holds it", () => {
    const section = part(demo.html, `<section id="task-matrix">`);
    expect(section).toContain("<table>");
    expect(section).not.toContain("no-task-matrix");
    // Each run's column: its log's reduced value per sample id under the run's --errors (— where it counts none).
    const valueOf = (run: string, sample: string) => {
      const x = demo.doc.experiments.find((y) => y.experiment === run)!;
      const e = demo.doc.bundles.find((b) => b.path === x.log!.path)!;
      const i = e.inspect!.sample_ids!.indexOf(sample);
      // --invalid count: an invalid log's samples each count 0, as its figure counts them.
      if (x.invalid.length > 0 && demo.doc.run.options.invalid === "count") return "0";
      const v =
        e.inspect!.metrics[x.profile === "inspect" ? Object.keys(x.inspect!)[0]! : ""]!.values!.exclude[i] ?? null;
      return v === null ? "—" : Number(v.toFixed(4)).toString();
    };
    const tables = section.split("<table>").slice(1);
    let checked = 0;
    for (const table of tables) {
      const runs = [...table.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]!.replace(/&#39;/g, "'")).slice(1);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      if (!runs.every((r) => demo.doc.experiments.some((x) => x.experiment === r && x.profile === "inspect"))) continue;
      for (const [, sample, cells] of table.matchAll(/<tr><td>([^<]*)<\/td>((?:<td class="n">[^<]*<\/td>)+)<\/tr>/g)) {
        const got = [...cells!.matchAll(/<td class="n">([^<]*)<\/td>/g)].map((m) => m[1]);
        expect(got).toEqual(runs.map((r) => valueOf(r, sample!)));
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  const doc = (experiments: Experiment[], bundles: BundleEntry[]): Results => ({
    format: "assay.results/1",
    run: RUN,
    bundles,
    experiments,
  });

  it("says the page holds one run where it does", async () => {
    const html = await page(doc([native("x", 2)], [entry("/r/x/t1"), entry("/r/x/t2")]));
    expect(part(html, `<section id="task-matrix">`)).toMatch(
      /id="no-task-matrix">No task × run matrix: this document holds one run;/,
    );
  });

  it("says no two runs share tasks where none do, and draws a matrix where two runs are of the same tasks", async () => {
    const apart = await page(
      doc([native("x", 1), native("y", 1)], [entry("/r/x/t1"), entry("/r/y/t1", { experiment: "y" })]),
    );
    expect(part(apart, `<section id="task-matrix">`)).toContain(
      "No task × run matrix: no two of its 2 runs share tasks",
    );
    // Two runs matched by their task set are drawn: each trial's value in each run.
    const tasks = { count: 2, digest: "sha256:" + "0".repeat(64), unit: "scenario" as const };
    const identity = {
      agent: null,
      model: null,
      benchmark: null,
      tasks,
      harness: null,
      started_at: null,
      finished_at: null,
      clock: null,
    };
    const same = (name: string): Experiment => ({ ...native(name, 2), identity });
    const win = (path: string, experiment: string, trial: string, victory: boolean) =>
      entry(path, { experiment, trial, victory, status: "completed" });
    const html = await page(
      doc(
        [same("x"), same("y")],
        [
          win("/r/x/a", "x", "a", true),
          win("/r/x/b", "x", "b", false),
          win("/r/y/a", "y", "a", false),
          win("/r/y/b", "y", "b", false),
        ],
      ),
    );
    const section = part(html, `<section id="task-matrix">`);
    expect(section).not.toContain("no-task-matrix");
    expect(section).toContain(`<tr><td>a</td><td class="n">1</td><td class="n">0</td></tr>`);
    // Only runs that share a key compare matches by have their entries read: x and y (task set), not z.
    expect([...matchable([same("x"), same("y"), native("z", 1)])].sort()).toEqual([
      kindKey("native-game", "x"),
      kindKey("native-game", "y"),
    ]);
    expect(matchable([native("x", 1), native("y", 1)]).size).toBe(0);
  });
});
