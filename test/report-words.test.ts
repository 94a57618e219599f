// Issue 23's words: every format says trials, logs or bundles as the evidence is (one vocabulary,
// src/report/vocabulary.ts); an Inspect task run's samples not scored and the logs the tool could
// not read are two lines with two names; one headline chooser serves the overview and the HTML
// experiments table; a task run sorted first says why; the HTML experiments table is capped as
// the overview is; warnings are in the table, apart from errors; lone Harbor trials are named with
// their folder; merge has --details as score does.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { blankExperiment, viewOf, type Experiment, type Results } from "../src/core/results.js";
import { render as html } from "../src/report/html/index.js";
import { FORMATS, renderText } from "../src/report/index.js";
import { headline, MAX_ROWS, overview } from "../src/report/overview.js";
import { evidencePhrase, nameOf, WORDS, wordsOf } from "../src/report/vocabulary.js";
import { run, spawnCli } from "./helpers/cli.js";
import { scratch, SHARED_DIR } from "./helpers/shared.js";

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
const doc = (experiments: Experiment[]) => viewOf({ format: "assay.results/1", run: RUN, bundles: [], experiments });
const table = (experiments: Experiment[], details = false) =>
  [...FORMATS.table.render(doc(experiments), { details })].join("");
const page = async (experiments: Experiment[]) => [...(await html(doc(experiments)))].join("");

type Metric = NonNullable<Experiment["inspect"]>[string];
const metric = (
  value: number,
  claimed: number | null,
  check: Metric["check"] = "agrees",
  note: string | null = null,
): Metric => ({
  claimed,
  value,
  coverage: { scored: 3, planned: 13 },
  wilson95: null,
  pass_at_k: null,
  check,
  note,
  errors_zero: value,
  interval: null,
  interval_reason: "one sample",
  pass_hat_k: null,
});
/** An Inspect task run: 10 of its 13 planned records unscored (Inspect's own state), its log as given. */
const taskRun = (
  name: string,
  metrics: Record<string, Metric>,
  log: Experiment["log"] = { path: `/r/${name}.eval`, status: "success", state: "complete" },
): Experiment => ({
  ...blankExperiment(name, "inspect", 13),
  states: { scored: 3, unscored: 10 },
  inspect: metrics,
  log,
});

describe("one vocabulary (vocabulary.ts)", () => {
  it("has a record per profile and a fallback, and names an unnamed experiment as its kind does", () => {
    expect(wordsOf("harbor").evidence).toBe("Harbor trial");
    expect(wordsOf("inspect").evidencePlural).toBe("Inspect logs");
    expect(wordsOf("native-game").evidence).toBe("bundle");
    expect(wordsOf(null).kind).toBe("unknown");
    expect(wordsOf("constructor").kind).toBe("unknown");
    expect(nameOf({ experiment: null, profile: "harbor" })).toBe("(lone trials)");
    expect(nameOf({ experiment: null, profile: "inspect" })).toBe("(logs not attributed to a task run)");
    expect(nameOf({ experiment: null, profile: null })).toBe("(none)");
    expect(nameOf({ experiment: "x", profile: "inspect" })).toBe("x");
  });

  it("counts several kinds in one phrase, each by its own noun; kinds counted 0 left out", () => {
    expect(
      evidencePhrase([
        [WORDS["native-game"], 48],
        [WORDS.harbor, 8],
        [WORDS.inspect, 6],
      ]),
    ).toBe("48 bundles, 8 Harbor trials and 6 Inspect logs");
    expect(
      evidencePhrase([
        [WORDS["native-game"], 0],
        [WORDS.harbor, 1],
        [WORDS.inspect, 0],
      ]),
    ).toBe("1 Harbor trial");
    expect(
      evidencePhrase([
        [WORDS.world, 2],
        [WORDS["native-game"], 3],
      ]),
    ).toBe("5 bundles");
    expect(evidencePhrase([[WORDS.harbor, 0]])).toBe("0 bundles");
  });
});

describe("an Inspect task run's two kinds of not scored", () => {
  it("names samples not scored (Inspect's state) and logs the tool could not read apart, in every format", async () => {
    const e = { ...taskRun("t", { "m/accuracy": metric(1, 1) }), unscored: ["/r/broken.eval"] };
    const long = table([e], true);
    expect(long).toMatch(/^ {2}samples {6}scored 3 · unscored 10 {3}\(of 13 planned records/m);
    expect(long).toContain("  unread logs  /r/broken.eval   (logs the tool could not read: outside every metric)");
    // No line of the section says "unscored" for the logs, a few lines below the samples' state.
    expect(long).not.toMatch(/^ {2}unscored /m);
    const harbor = table([{ ...blankExperiment("j", "harbor", 2), states: { scored: 2 } }], true);
    expect(harbor).toMatch(/^ {2}unscored {5}none$/m);
    expect(renderText("md", doc([e]), { details: true })).toContain(
      "- **unread logs** 1 (logs the tool could not read: outside every metric): `broken.eval`",
    );
    expect(await page([e])).toContain(
      "<summary>unread logs (logs the tool could not read: outside every metric) (1)</summary>",
    );
  });
});

describe("the overview's count column", () => {
  it("is headed as the kinds count: trials, an Inspect task run's planned records, or both where both are shown", async () => {
    const job = { ...blankExperiment("j", "harbor", 2), states: { scored: 2 } };
    const run = taskRun("t", { "m/accuracy": metric(1, 1) });
    expect(table([job])).toMatch(/^experiment +kind +trials +figure/m);
    expect(table([run])).toMatch(/^experiment +kind +records +figure/m);
    expect(table([run])).toContain("records: an Inspect task run's planned records (sample × epoch)");
    expect(table([job, run])).toMatch(/^experiment +kind +trials\/records +figure/m);
    expect(renderText("md", doc([job, run]), { details: true })).toContain(
      "| experiment | kind | trials/records | figure |",
    );
    expect(await page([run])).toContain(`<th scope="col" tabindex="0">records</th>`);
    expect(await page([job])).toContain(`<th scope="col" tabindex="0">trials</th>`);
  });
});

describe("one headline chooser (overview.ts) for the overview and the HTML experiments table", () => {
  it("takes an Inspect log's first accuracy or mean, never a stderr, std or var; else the first other metric", () => {
    const first = (keys: string[]) =>
      headline(taskRun("t", Object.fromEntries(keys.map((k, i) => [k, metric(i / 10, null)])))).metric;
    expect(first(["match/-/stderr", "match/-/accuracy"])).toBe("match/-/accuracy");
    expect(first(["s/-/var", "s/-/std", "s/-/mean", "s/-/accuracy"])).toBe("s/-/mean");
    expect(first(["x/stderr", "x/custom"])).toBe("x/custom");
    expect(first(["x/stderr"])).toBe("x/stderr");
  });

  it("gives the overview's rows and the HTML table the same metric, figure, claim and agreement", async () => {
    const run = taskRun("inspect-run", {
      "match/-/stderr": metric(0.2, 0.2),
      "match/-/accuracy": metric(0.667, 0.9, "mismatch", "Inspect's rules give 0.667"),
    });
    const job: Experiment = {
      ...blankExperiment("job", "harbor", 2),
      states: { scored: 2 },
      rewards: {
        reward: {
          mean: 0.5,
          wilson95: null,
          coverage: 1,
          covered: 2,
          trials: 2,
          pass_rate: 0.5,
          pass_at_k: null,
          pass_at_k_reason: null,
          pass_hat_k: null,
          interval: null,
          interval_reason: "x",
        },
      },
      claimed: {
        source: "result.json",
        metrics: { "a/reward/mean": 0.5, "a/other": 3 },
        compared: [
          { metric: "a/reward/mean", claimed: 0.5, assay: 0.5, reason: null },
          { metric: "a/other", claimed: 3, assay: 1, reason: "Harbor counts errors as 0" },
        ],
      },
    };
    const rows = overview([run, job], { errors: "exclude" }).rows;
    expect(rows.map((r) => [r.experiment, r.metric, r.figure, r.claim, r.agreement])).toEqual([
      ["job", "reward", "0.500", "2 figures", "differs"],
      ["inspect-run", "match/-/accuracy", "0.667", "0.900", "differs"],
    ]);
    const p = await page([run, job]);
    const survey = p.slice(p.indexOf(`<table id="survey">`), p.indexOf("</table>", p.indexOf(`<table id="survey">`)));
    expect(survey).toMatch(/<b>0\.667<\/b> <small>match\/-\/accuracy<\/small>/);
    expect(survey).not.toContain("stderr");
    expect(survey).toContain(
      `0.900 · <span class="warn" title="match/-/accuracy: Inspect&#39;s rules give 0.667">differs</span>`,
    );
    expect(survey).toMatch(/<b>0\.500<\/b> <small>reward<\/small>/);
    expect(survey).toContain(`title="Harbor counts errors as 0">differs</span>`);
    // The legend says how an Inspect headline is chosen.
    expect(table([run])).toContain("Inspect: the log's first accuracy or mean metric (never a stderr, std or var");
  });
});

describe("a task run sorted first says why", () => {
  const clean = taskRun("a-clean", { "m/accuracy": metric(1, 1) });
  const cut = taskRun(
    "z-cut",
    { "m/accuracy": metric(1, null, "unverified", "the log is cut short") },
    { path: "/r/z.eval", status: "started", state: "incomplete" },
  );
  const failed = taskRun(
    "y-failed",
    { "m/accuracy": metric(1, 1) },
    { path: "/r/y.eval", status: "error", state: "complete" },
  );

  it("in the table's note column (only when a row has one), in Markdown and in the HTML table", async () => {
    const t = table([clean, cut, failed]);
    expect(t).toMatch(/^experiment .* cost +note$/m);
    expect(t).toMatch(/^y-failed .* log error, complete$/m);
    expect(t).toMatch(/^z-cut .* log started, incomplete$/m);
    expect(t).toMatch(/^a-clean .* 0 +0$/m);
    expect(t.indexOf("y-failed")).toBeLessThan(t.indexOf("a-clean"));
    expect(table([clean])).not.toMatch(/ note$/m);
    const md = renderText("md", doc([clean, cut]), { details: true });
    expect(md).toContain("| flags | cost | note |");
    expect(md).toMatch(/^\| `z-cut` \| inspect \|.*\| \*\*log started, incomplete\*\* \|$/m);
    expect(md).toMatch(/^\| `a-clean` \| inspect \|.*\|  \|$/m);
    expect(renderText("md", doc([clean]), { details: true })).not.toContain("| note |");
    expect(await page([clean, cut])).toContain(
      `<a href="#exp-1">z-cut</a> <span class="warn">log started, incomplete</span>`,
    );
  });
});

describe("the HTML experiments table at 10,000 experiments", () => {
  it("shows the overview's MAX_ROWS rows, problems first, says how many it left out; every section stays bounded", async () => {
    const many: Experiment[] = Array.from({ length: 10_000 }, (_, i) => ({
      ...blankExperiment(`job-${String(i).padStart(5, "0")}`, "harbor", 1),
      states: { scored: 1 },
      invalid: i === 9_999 ? [{ trial: "t", codes: ["SCHEMA"] }] : [],
      // Long lists on every experiment: each section shows the first few.
      excluded: Array.from({ length: 200 }, (_, k) => ({ trial: `t${k}`, reason: "excluded" })),
    }));
    const p = await page(many);
    const survey = p.slice(p.indexOf(`<table id="survey">`), p.indexOf("</table>", p.indexOf(`<table id="survey">`)));
    const rows = [...survey.matchAll(/<tr id="survey-(\d+)">/g)].map((m) => Number(m[1]));
    expect(rows).toHaveLength(MAX_ROWS);
    expect(rows[0]).toBe(9_999); // the one with invalid trials, first
    expect(rows.slice(1, 4)).toEqual([0, 1, 2]);
    expect(p).toContain(`id="survey-cap" data-shown="${MAX_ROWS}" data-left-out="${10_000 - MAX_ROWS}"`);
    // Each section: its lists capped (50 of 200 excluded), no chart past the first 100.
    expect(p.split(`<section class="experiment"`).length - 1).toBe(10_000);
    expect(p.split("… 150 more (the JSON document has them all)").length - 1).toBe(10_000);
    expect(p.length / 10_000).toBeLessThan(12_000);
    const small = await page(many.slice(0, 3));
    expect(small).not.toContain(`id="survey-cap"`);
  }, 120_000);
});

describe("warnings in the table, apart from errors", () => {
  it("counts a job's own warnings (its result.json) on the findings lines, and lists them in its section", () => {
    const job = (warnings: Experiment["warnings"]) => ({
      ...blankExperiment("j", "harbor", 2),
      states: { scored: 2 },
      warnings,
    });
    const warned = table([
      job([{ code: "JOB_PLAN_EXCEEDED", file: "result.json", line: null, message: "planned 1, holds 2" }]),
    ]);
    expect(warned).toMatch(
      /^warnings {5}1 Harbor job's own files \(apart from errors: a warning invalidates nothing\): JOB_PLAN_EXCEEDED 1$/m,
    );
    expect(warned).not.toMatch(/^findings /m);
    expect(table([job([])])).not.toMatch(/^warnings /m);
    expect(
      table(
        [job([{ code: "JOB_PLAN_EXCEEDED", file: "result.json", line: null, message: "planned 1, holds 2" }])],
        true,
      ),
    ).toContain("  warning      JOB_PLAN_EXCEEDED result.json planned 1, holds 2");
  });
});

const JOBS = join(SHARED_DIR, "real-world", "harbor-jobs");
const INSPECT = join(SHARED_DIR, "real-world", "inspect-more");

describe.skipIf(!existsSync(JOBS) || !existsSync(INSPECT))(
  "real evidence: words as the evidence is, warnings apart",
  () => {
    it("counts Harbor trials as trials and Inspect logs as logs; PLAN_MISMATCH is a warning in the table, apart from errors", async () => {
      const r = await run(["score", "-q", "--width", "250", JOBS, INSPECT]);
      expect(r.stdout).toMatch(/^assay: 61 Harbor trials and \d+ Inspect logs: /);
      expect(r.stdout).toMatch(/^findings {5}4 Harbor trials not valid: REWARD_FILE_MISSING 4/m);
      // Three of the real Harbor jobs were archived while running (JOB_IN_PROGRESS, a job's own warning);
      // the two copies of books-interest-cocoa lack the result.json beside their reward.txt (REWARD_WITHOUT_RESULT).
      expect(r.stdout).toMatch(
        /^warnings {5}2 Harbor trials and \d+ Inspect logs; 3 Harbor jobs' own files \(apart from errors: a warning invalidates nothing\): PLAN_MISMATCH \d+ · JOB_IN_PROGRESS 3 · REWARD_WITHOUT_RESULT 2$/m,
      );
      expect(r.stdout).not.toMatch(/\bbundles?\b(?! could)/);
      const long = await run(["score", "-q", "--details", "--width", "2000", JOBS, INSPECT]);
      expect(long.stdout).toContain("\nHarbor trials not valid, with their findings\n");
      expect(long.stdout).toMatch(
        /\nHarbor trials and Inspect logs with a warning \(apart from errors: a warning invalidates nothing\)\n(?: {2}\S+: valid REWARD_WITHOUT_RESULT .*\n){2} {2}\S+\.json: valid PLAN_MISMATCH /,
      );
      expect(long.stdout).toContain("\nHarbor trials with an exception\n");
    });

    it("the HTML tally tile counts the evidence by its kinds, and says each where it counts several", async () => {
      const one = (await run(["score", "-q", "--format", "html", JOBS])).stdout;
      expect(one).toContain(`data-metric="bundles" data-value="61"><b>61</b><span>Harbor trials</span></div>`);
      const both = (await run(["score", "-q", "--format", "html", JOBS, INSPECT])).stdout;
      expect(both).toMatch(
        /data-metric="bundles" data-value="\d+"><b>\d+<\/b><span>Harbor trials and Inspect logs<\/span><small>61 Harbor trials and \d+ Inspect logs<\/small><\/div>/,
      );
    });
  },
);

describe("assay merge --details", () => {
  const { dir: tmp } = scratch("assay-merge-details-");
  beforeAll(() => {
    expect(spawnCli(["demo", "--out", join(tmp, "demo")]).code).toBe(0);
  });

  it("adds the sections after the overview, as score does; without it the table ends with the counts", () => {
    const shards = [0, 1].map((i) => join(tmp, `shard-${i}.json`));
    for (const [i, f] of shards.entries())
      expect(spawnCli(["score", "-q", "--shard", `${i}/2`, "--out", f, join(tmp, "demo", "jobs")]).code).toBe(0);
    const short = spawnCli(["merge", ...shards]);
    const long = spawnCli(["merge", "--details", ...shards]);
    expect(long.code, long.stderr).toBe(0);
    expect(short.stdout).not.toContain("job 2025-11-03__10-00-00   profile harbor");
    expect(long.stdout).toContain("job 2025-11-03__10-00-00   profile harbor   8 trials");
    expect(long.stdout.startsWith(short.stdout.slice(0, short.stdout.indexOf("\nlegend\n")))).toBe(true);
    expect(spawnCli(["merge", "--help"]).stdout).toContain("--details");
  });
});
