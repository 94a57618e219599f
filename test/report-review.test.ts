// The review of issue 23's words, on real evidence (the demo's, edited as a reviewer did): the HTML
// experiments table chooses its headline and orders its rows on the raw names, as the table and
// Markdown do; an experiment whose profile this version cannot name keeps its figures in every
// format; lone trials under several relative roots are not said to be "in /"; an Inspect log tied
// to no task run is not called unread.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { colour, painted } from "../src/cli/colour.js";
import { blankExperiment, viewOf, type Experiment, type Results } from "../src/core/results.js";
import { render as html } from "../src/report/html/index.js";
import { folderTail } from "../src/report/lone.js";
import { overview } from "../src/report/overview.js";
import { spawnCli } from "./helpers/cli.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-review-");
let demo = "";
beforeAll(() => {
  demo = join(tmp, "demo");
  expect(spawnCli(["demo", "--out", demo]).code).toBe(0);
});

const score = (args: string[], cwd?: string) => {
  const r = spawnCli(["score", "-q", "--width", "250", ...args], { cwd });
  expect(r.stderr).toBe("");
  return r.stdout;
};
/** The HTML page's experiments table. */
const surveyOf = (html: string) =>
  html.slice(html.indexOf(`<table id="survey">`), html.indexOf("</table>", html.indexOf(`<table id="survey">`)));
/** A fresh folder under the test's temporary one. */
const dir = (name: string) => {
  const d = join(tmp, name);
  mkdirSync(d, { recursive: true });
  return d;
};
const JOB = "2025-11-03__10-00-00";

describe("the HTML experiments table chooses as the table and Markdown do (names forTerminal quotes)", () => {
  it("takes the same headline metric when the scorer's name holds a tab and stderr comes first", () => {
    const logs = join(demo, "logs");
    const file = readdirSync(logs).find((f) => f.includes("_epochs-0_"))!;
    // The scorer `match` renamed `ma<TAB>tch` everywhere the log names it; `stderr` put before `accuracy`.
    const rename = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(rename)
        : v !== null && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k === "match" ? "ma\ttch" : k, rename(x)]))
          : v === "match"
            ? "ma\ttch"
            : v;
    const log = rename(JSON.parse(readFileSync(join(logs, file), "utf8"))) as {
      results: { scores: { metrics: Record<string, unknown> }[] };
    };
    const m = log.results.scores[0]!.metrics;
    log.results.scores[0]!.metrics = { stderr: m["stderr"], accuracy: m["accuracy"] };
    const d = dir("key");
    writeFileSync(join(d, file), JSON.stringify(log));

    expect(score([d])).toMatch(
      /^epochs-0 +openai\/gpt-4o-mini +inspect +\S+ +\d+ +"ma\\u0009tch\/mean\/accuracy" 0\.800 /m,
    );
    expect(score(["--details", "--format", "md", d])).toMatch(/\*\*0\.800\*\*/);
    const survey = surveyOf(score(["--format", "html", d]));
    expect(survey).toContain(`<b>0.800</b>`);
    expect(survey).toContain(`<small>&quot;ma\\u0009tch/mean/accuracy&quot;</small>`);
    expect(survey).not.toContain("stderr");
  });

  it("lists the rows in the same order when a name sorts differently quoted", () => {
    const d = dir("order");
    cpSync(join(demo, "jobs", JOB), join(d, "aa-job"), { recursive: true });
    cpSync(join(demo, "jobs", JOB), join(d, 'zz"job'), { recursive: true });
    const t = score([d]);
    expect(t.indexOf("\naa-job ")).toBeGreaterThan(0);
    expect(t.indexOf("\naa-job ")).toBeLessThan(t.indexOf('\n"zz\\"job" '));
    const md = score(["--details", "--format", "md", d]);
    expect(md.indexOf("`aa-job`")).toBeLessThan(md.indexOf("zz"));
    const survey = surveyOf(score(["--format", "html", d]));
    expect(survey.indexOf(">aa-job</a>")).toBeGreaterThan(0);
    expect(survey.indexOf(">aa-job</a>")).toBeLessThan(survey.indexOf(`>&quot;zz\\&quot;job&quot;</a>`));
  });
});

describe("an experiment whose profile this version cannot name keeps its figures", () => {
  it("in the table's --details and in Markdown, as in HTML; a named profile's experiment as before", () => {
    const d = dir("bogus");
    for (const t of ["t0000", "t0001"])
      cpSync(join(demo, "runs", "synth-native", t), join(d, "synth-native", t), { recursive: true });
    for (const t of ["t0000", "t0001"])
      for (const a of readdirSync(join(d, "synth-native", t))) {
        const f = join(d, "synth-native", t, a, "journal.jsonl");
        writeFileSync(f, readFileSync(f, "utf8").replace('"profile":"native-game"', '"profile":"bogus"'));
      }
    const long = score(["--details", d]);
    expect(long).toMatch(/^experiment synth-native {3}profile unknown/m);
    expect(long).toMatch(/^ {2}accuracy {5}0\/2 = 0\.0%/m);
    expect(long).toMatch(/^ {2}completion {3}/m);
    expect(long).toMatch(/^ {2}raw record {3}/m);
    const md = score(["--details", "--format", "md", d]);
    expect(md).toMatch(/^\| accuracy \| \*\*0\.0%\*\* \(0\/2\)/m);
    expect(score(["--format", "html", d])).toContain("accuracy");
    // The same trials under their own profile: the same lines.
    const native = dir("native");
    for (const t of ["t0000", "t0001"])
      cpSync(join(demo, "runs", "synth-native", t), join(native, "synth-native", t), { recursive: true });
    expect(score(["--details", native])).toMatch(/^ {2}accuracy {5}\d+\/2 = /m);
  });
});

describe("lone trials under several roots", () => {
  it("are said to be in several roots, not in /, where the roots are relative; one root, its folder", () => {
    const d = dir("lone");
    const trials = readdirSync(join(demo, "jobs", JOB)).filter((f) => f.startsWith("task-"));
    // Two trials of one job, each lone under a root of its own: one group (their config's job id), no folder shared.
    cpSync(join(demo, "jobs", JOB, trials[0]!), join(d, "r1", trials[0]!), { recursive: true });
    cpSync(join(demo, "jobs", JOB, trials[1]!), join(d, "r2", trials[1]!), { recursive: true });
    const t = score(["r1", "r2"], d);
    expect(t).toMatch(/^job@\S+ in several roots +terminus-2 \/ gpt-4o +harbor +\S+ +2 /m);
    expect(t).not.toContain(" in /");
    expect(score(["--details", "r1", "r2"], d)).toMatch(
      /^job job@\S+ +profile harbor +2 trials +lone, in several roots$/m,
    );
    expect(score(["--details", "--format", "md", "r1", "r2"], d)).toContain(
      "Harbor trials in no job folder, in several roots",
    );
    const html = score(["--format", "html", "r1", "r2"], d);
    expect(surveyOf(html)).toContain(`<span class="muted">in several roots</span>`);
    expect(html).toContain("in no job folder, in several roots");
    // Both under one root: the folder they share.
    cpSync(join(demo, "jobs", JOB, trials[1]!), join(d, "r1", trials[1]!), { recursive: true });
    expect(score(["r1"], d)).toMatch(/^job@\S+ in r1 +terminus-2 \/ gpt-4o +harbor +\S+ +2 /m);
    // Absolute roots: the folder the two share, as a path.
    expect(score([join(d, "r1", trials[0]!), join(d, "r2", trials[1]!)])).toMatch(
      /^job@\S+ in (…|\/)\S*lone +terminus-2 \/ gpt-4o +harbor +\S+ +2 /m,
    );
  });
});

describe("an Inspect log tied to no task run", () => {
  it("is named as such, apart from the logs the tool could not read", () => {
    const logs = join(demo, "logs");
    const d = dir("unattributed");
    const clean = readdirSync(logs).find((f) => f.includes("_clean-0_"))!;
    cpSync(join(logs, clean), join(d, clean));
    // A log cut short in its header: read, but naming no task run.
    const epochs = readFileSync(
      join(
        logs,
        readdirSync(logs).find((f) => f.includes("_epochs-0_"))!,
      ),
      "utf8",
    );
    writeFileSync(join(d, "2025-11-03T11-00-00+00-00_broken-0_hBeni218f1ClDlNIdUGQ9X.json"), epochs.slice(0, 300));
    const long = score(["--details", d]);
    expect(long).toContain("task run (logs not attributed to a task run)   profile inspect");
    expect(long).not.toContain("could not read)");
    expect(score(["--details", "--format", "md", d])).toContain("(logs not attributed to a task run)");
  });
});

// The lesser findings, each on its line's two sides.
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
const page = async (experiments: Experiment[]) =>
  surveyOf([...(await html(viewOf({ format: "assay.results/1", run: RUN, bundles: [], experiments })))].join(""));
type Reward = NonNullable<Experiment["rewards"]>[string];
const reward = (mean: number | null): Reward => ({
  mean,
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
});
const job = (
  rewards: Record<string, Reward>,
  compared: NonNullable<Experiment["claimed"]>["compared"] = [],
): Experiment => ({
  ...blankExperiment("job", "harbor", 2),
  states: { scored: 2 },
  rewards,
  claimed:
    compared.length === 0
      ? null
      : { source: "result.json", metrics: Object.fromEntries(compared.map((x) => [x.metric, x.claimed])), compared },
});

describe("the HTML experiments table's cells are the overview's", () => {
  it("cost: tokens where no cost is recorded, as the table says; a recorded cost in dollars", async () => {
    const total = (cost: number | null) => ({
      entries: 2,
      costed: cost === null ? 0 : 2,
      input_tokens: 400_000,
      output_tokens: 26_100,
      cache_read_tokens: null,
      cost_usd: cost,
    });
    const used = (cost: number | null): Experiment => ({
      ...job({ reward: reward(0.5) }),
      usage: { spent: total(cost), counted: total(cost), successes: 1, cost_per_success: cost },
    });
    expect(await page([used(null)])).toContain(">426.1k tok</td>");
    expect(await page([used(0.23)])).toContain(`data-sort="0.23">$0.23</td>`);
  });

  it("figure: n/a beside the metric where nothing was counted, as the table says; none where there is no metric", async () => {
    const p = await page([job({ reward: reward(null) })]);
    expect(p).toContain(`<b>n/a</b> <small>reward</small>`);
    expect(p).not.toContain("not scored");
    expect(await page([blankExperiment("nothing", "harbor", 0)])).toContain(`<span class="muted">none</span>`);
  });
});

describe("a Harbor claim beside the headline", () => {
  it("is shown only when it is a figure of the headline's key; another key's claim is counted, not shown as the headline's", () => {
    const other = overview(
      [
        job({ reward: reward(0.5), other: reward(0.9) }, [
          { metric: "e/0/other", claimed: 0.9, assay: 0.9, reason: null },
        ]),
      ],
      { errors: "exclude" },
    ).rows[0]!;
    expect([other.metric, other.claim, other.agreement]).toEqual(["reward", "1 figure", "agrees"]);
    const own = overview(
      [
        job({ reward: reward(0.5), other: reward(0.9) }, [
          { metric: "e/0/reward", claimed: 0.5, assay: 0.5, reason: null },
        ]),
      ],
      { errors: "exclude" },
    ).rows[0]!;
    expect([own.metric, own.claim]).toEqual(["reward", "0.500"]);
    // Harbor's `mean` of a job's only key is that key's.
    const mean = overview(
      [job({ reward: reward(0.5) }, [{ metric: "e/0/mean", claimed: 0.5, assay: 0.5, reason: null }])],
      { errors: "exclude" },
    ).rows[0]!;
    expect(mean.claim).toBe("0.500");
  });
});

describe("an invalid log beside a claim that agrees (the demo's summary-edited-0)", () => {
  it("says in its note that the claim was checked on the log as written; a clean log's row has no note", () => {
    const t = score([join(demo, "logs")]);
    expect(t).toMatch(
      /^summary-edited-0 .* 0\.000 .* 0\.600 agrees .* invalid: counts 0; claim checked on the log as written$/m,
    );
    expect(t).toMatch(/^clean-0 .* 0\.800 agrees +0 +0 +480 tok$/m);
    expect(t).toContain("an invalid log beside a claim that agrees: the claim was checked on the log as written");
  });
});

describe("the HTML tally tile", () => {
  it("says one Harbor trial in the singular, several in the plural", () => {
    const d = dir("one-trial");
    const trial = readdirSync(join(demo, "jobs", JOB)).find((f) => f.startsWith("task-"))!;
    cpSync(join(demo, "jobs", JOB, trial), join(d, trial), { recursive: true });
    expect(score(["--format", "html", d])).toContain(`data-value="1"><b>1</b><span>Harbor trial</span></div>`);
    expect(score(["--format", "html", join(demo, "jobs")])).toContain(`<b>8</b><span>Harbor trials</span></div>`);
  });
});

describe("a lone folder", () => {
  it("is cut raw, on a code point, then shown whole in Markdown; the table shows it whole (it tells rows apart): its quotes and escapes are never cut", () => {
    expect(folderTail("ab😀cd", 4)).toBe("…cd");
    expect(folderTail("ab😀cd", 5)).toBe("…😀cd");
    expect(folderTail("abc", 3)).toBe("abc");
    const d = dir("long-folder");
    const trial = readdirSync(join(demo, "jobs", JOB)).find((f) => f.startsWith("task-"))!;
    // The escape just before the trial's folder: the table wraps a long name, never cuts it (issue 40).
    cpSync(join(demo, "jobs", JOB, trial), join(d, `${"x".repeat(60)}\x1b[m`, trial), { recursive: true });
    const row = score([d])
      .split("\n")
      .find((l) => l.startsWith("job@"))!;
    expect(row).toMatch(/^job@\S+ in "x{60}\\u001b\[m\/task-[^"]*" +terminus-2 \/ gpt-4o +harbor /);
  });
});

describe("the CLI's words for what it scored", () => {
  it("says Harbor trials when it writes a document of them", () => {
    const out = join(tmp, "jobs.json");
    const r = spawnCli(["score", "--out", out, join(demo, "jobs")]);
    expect(r.stderr).toMatch(/^assay: wrote \S+jobs\.json \(8 Harbor trials\)$/m);
  });

  it("paints differs where it is a verdict, never in prose that says a field differs from another", () => {
    const [out] = [...painted(["a  0.600 differs\nSUMMARY_MISMATCH field x differs from the journal\n"], colour(true))];
    expect(out).toBe("a  0.600 \x1b[1;31mdiffers\x1b[0m\nSUMMARY_MISMATCH field x differs from the journal\n");
  });
});
