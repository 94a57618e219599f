// `--format md` (issue 15): a compact Markdown summary for $GITHUB_STEP_SUMMARY and PR comments.
// Its figures are the JSON document's; evidence text is text, never markup: a folder named `| x |`
// keeps its table whole, one with backticks or `<img>` stays inside its code span.
import { renameSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  blankEntry,
  blankExperiment,
  viewOf,
  type BundleEntry,
  type Experiment,
  type Results,
} from "../src/core/results.js";
import { writeCorpus } from "../src/io/corpus.js";
import { mdName, mdText } from "../src/report/md-text.js";
import { renderText } from "../src/report/index.js";
import { run } from "./helpers/cli.js";
import { writeEveryKind } from "./helpers/corpus.js";
import { scratch } from "./helpers/shared.js";

const { dir: tmp } = scratch("assay-md-");
let corpus: string;

beforeAll(async () => {
  corpus = join(tmp, "corpus");
  await writeEveryKind(corpus, "md");
});

const RUN: Results["run"] = {
  tool_version: "t",
  scoring_version: 1,
  started_at: "",
  complete: true,
  shard: null,
  roots: ["r"],
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

/**
 * A line's table cells as cmark-gfm reads them: split at each pipe no backslash precedes (its cell
 * scanner takes a backslash and the pipe after it as one escaped character, however many
 * backslashes come before), then each cell's backslash before a pipe dropped, before its inlines
 * (a code span too) are parsed.
 */
function cells(line: string): string[] {
  const out: string[] = [];
  let cell = "";
  for (let i = 1; i < line.length - 1; i++) {
    if (line[i] === "|" && line[i - 1] !== "\\") {
      out.push(cell);
      cell = "";
    } else cell += line[i];
  }
  return [...out, cell].map((c) => c.replace(/\\\|/g, "|"));
}

/** A line with its code spans removed (CommonMark: a run of n backticks closes at the next run of exactly n). */
function outsideCode(line: string): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    if (line[i] === "\\" && line[i + 1] !== undefined) {
      out += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (line[i] !== "`") {
      out += line[i++];
      continue;
    }
    const run = /^`+/.exec(line.slice(i))![0];
    let j = i + run.length;
    let close = -1;
    while (j < line.length) {
      const next = /`+/.exec(line.slice(j));
      if (next === null) break;
      if (next[0].length === run.length) {
        close = j + next.index;
        break;
      }
      j += next.index + next[0].length;
    }
    if (close === -1) {
      out += run; // an unclosed run is literal backticks
      i += run.length;
    } else i = close + run.length;
  }
  return out;
}

/** Every table keeps its header's width, and nothing outside a code span is raw markup. */
function expectSafe(md: string): void {
  const lines = md.split("\n");
  let width = 0;
  for (const line of lines) {
    if (!line.startsWith("|")) {
      width = 0;
      continue;
    }
    const n = cells(line).length;
    if (width === 0) width = n;
    expect(n, line).toBe(width);
  }
  for (const line of lines) {
    const rest = outsideCode(line);
    // Markup a folder name could bring: HTML, links and images, maths, a stray code span, a mention (an @ after a word is none: pass@k).
    expect(rest, line).not.toMatch(/(^|[^\\])[<[`$]|(^|[^\w\\])@/);
  }
}

describe("--format md on the demo corpus", () => {
  it("a headline, one table per experiment with the JSON document's figures, findings by code with counts", async () => {
    const doc = JSON.parse((await run(["score", corpus, "--format", "json", "--quiet"])).stdout) as Results;
    const r = await run(["score", corpus, "--format", "md", "--quiet", "--details"]);
    expect(r.code).toBe(0);
    const md = r.stdout;
    expectSafe(md);
    const t = viewOf(doc).tally;
    expect(md).toContain(`: ${t.valid} valid, ${t.invalid} invalid, ${t.error} tool errors`);
    expect(md.match(/^### `/gm)?.length).toBe(doc.experiments.length);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    for (const e of doc.experiments) {
      const section = md.slice(md.indexOf(`### \`${e.experiment}\``)).split("\n### ")[0]!;
      if (e.accuracy !== null) {
        const a = e.accuracy;
        // §13.2's interval, over the trials in their tasks (the demo repeats tasks), never wilson95.
        const iv = a.interval!;
        expect(iv.clusters).toBeLessThan(iv.units);
        expect(section).toContain(
          `| accuracy | **${pct(a.value!)}** (${a.victories}/${a.scored}) · 95% \\[${pct(iv.lo)}, ${pct(iv.hi)}\\] over ${iv.units} trials in ${iv.clusters} tasks |`,
        );
        expect(section).not.toContain("Wilson 95%");
        expect(section.match(/^95% intervals: /gm)).toHaveLength(1);
      }
      if (e.pass !== null) expect(section).toContain(`| pass | **${e.pass.passed}/${e.pass.total} = `);
      for (const [d, v] of Object.entries(e.dimensions ?? {}))
        expect(section).toContain(
          `| \`${d}\`${["world_integrity", "prohibited_effects", "preservation", "policy_compliance", "recovery"].includes(d) ? " (hard)" : ""} | ${v.passed}/${v.total} · ${v.interval === null ? "" : `95% \\[${pct(v.interval.lo)}, ${pct(v.interval.hi)}\\] over ${v.interval.units} trials`}`,
        );
      for (const [key, rw] of Object.entries(e.rewards ?? {}))
        expect(section).toContain(`| reward \`${key}\` | **${rw.mean!.toFixed(3)}**`);
      // Harbor's own figure beside assay's.
      for (const c of e.claimed?.compared ?? [])
        expect(section).toMatch(new RegExp(`\\| ${c.assay!.toFixed(3)} \\| .* \\| ${c.claimed.toFixed(3)} \\|`));
      for (const [key, m] of Object.entries(e.inspect ?? {}))
        expect(section).toContain(`| \`${key}\` | **${m.value === null ? "n/a" : m.value.toFixed(3)}**`);
      if (e.invalid.length > 0) expect(section).toContain(`- **invalid** ${e.invalid.length}: `);
      if (e.excluded.length > 0) expect(section).toContain(`- **excluded** ${e.excluded.length}: `);
    }
    // Each code with the number of bundles carrying it.
    const bundlesWith = (code: string) => doc.bundles.filter((b) => b.errors.some((f) => f.code === code)).length;
    for (const code of ["SUMMARY_MISMATCH", "JOURNAL_CHAIN", "REWARD_MISMATCH"]) {
      expect(bundlesWith(code)).toBeGreaterThan(0);
      expect(md).toMatch(new RegExp(`\\| \`${code}\` \\| error \\| ${bundlesWith(code)} \\|`));
    }
  });

  it("caps what it lists and says what was left out", () => {
    const doc = viewOf({
      format: "assay.results/1",
      run: {
        tool_version: "t",
        scoring_version: 1,
        started_at: "",
        complete: false,
        shard: null,
        roots: ["r"],
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
      },
      bundles: [],
      experiments: Array.from({ length: 60 }, (_, i) => ({
        experiment: `e${String(i).padStart(2, "0")}`,
        profile: "native-game" as const,
        scheduled: 30,
        invalid: Array.from({ length: 30 }, (_, j) => ({ trial: `t${j}`, codes: ["SEED_COLLISION" as const] })),
        missing: [],
        excluded: [],
        unscored: [],
        flags: [],
        accuracy: {
          value: 0,
          victories: 0,
          scored: 30,
          wilson95: [0, 0.11] as [number, number],
          interval: null,
          interval_reason: null,
        },
        raw_record: null,
        completion: { value: 0, completed: 0, scheduled: 30, interval: null, interval_reason: null },
        retry: [],
        dimensions: null,
        pass: null,
        pass_hat_k: null,
        rewards: null,
        states: null,
        claimed: null,
        job: null,
        job_id: null,
        exceptions: null,
        warnings: [],
        log: null,
        inspect: null,
        usage: null,
        identity: null,
      })),
    });
    const md = renderText("md", doc, { details: true });
    expect(md).toContain("**incomplete**");
    expect(md.match(/^### `e/gm)?.length).toBe(50);
    expect(md).toContain("… and 10 more experiments");
    expect(md).toContain("- **invalid** 30: `t0` (SEED_COLLISION)");
    expect(md).toContain(", and 20 more");
    expect(md).not.toContain("`t10`");
  });
});

describe("the findings table", () => {
  it("counts a code the batch rules give a trial and none of its bundles holds, the trial as its example; a code a bundle holds is counted once", () => {
    const entry = (trial: string, fields: Partial<BundleEntry> = {}) => ({
      path: `r/x/${trial}/a1`,
      ...blankEntry({
        validity: "valid",
        errors: [],
        profile: "native-game",
        experiment: "x",
        trial,
        attempt: 1,
        ...fields,
      }),
    });
    const schema = { code: "SCHEMA" as const, file: null, line: null, message: "m" };
    const x: Experiment = {
      ...blankExperiment("x", "native-game", 4),
      accuracy: { value: 0, victories: 0, scored: 4, wilson95: [0, 0.5], interval: null, interval_reason: null },
      invalid: [
        { trial: "t1", codes: ["SEED_MISMATCH"] },
        { trial: "t2", codes: ["SCHEMA"] },
        { trial: "t3", codes: ["SCHEMA", "TRIAL_DUPLICATE"] },
        { trial: "t4", codes: ["SEED_MISMATCH"] },
      ],
    };
    const bundles = [
      entry("t0"),
      entry("t1"),
      entry("t2", { validity: "invalid", errors: [schema] }),
      entry("t3", { validity: "invalid", errors: [schema] }),
      entry("t4"),
    ];
    const md = renderText("md", viewOf({ format: "assay.results/1", run: RUN, bundles, experiments: [x] }), {
      details: true,
    });
    const findings = md.slice(md.indexOf("### Findings"));
    expect(findings).toContain("| `SEED_MISMATCH` | error | 2 | `t1`, `t4` |");
    expect(findings).toContain("| `SCHEMA` | error | 2 | `x/t2/a1`, `x/t3/a1` |");
    expect(findings).toContain("| `TRIAL_DUPLICATE` | error | 1 | `t3` |");
    expectSafe(md);
  });
});

describe("the labels of the figures", () => {
  it("mark the dimensions a world pass needs (hard), and no other; for a profile this version cannot name too", () => {
    const dim = { passed: 1, total: 2, interval: null, interval_reason: null };
    const world = (name: string, profile: "world" | null): Experiment => ({
      ...blankExperiment(name, profile, 2),
      pass: { passed: 1, total: 2, interval: null, interval_reason: null },
      dimensions: { world_integrity: dim, task_completion: dim },
    });
    const md = renderText(
      "md",
      viewOf({
        format: "assay.results/1",
        run: RUN,
        bundles: [],
        experiments: [world("w", "world"), world("u", null)],
      }),
      { details: true },
    );
    for (const name of ["w", "u"]) {
      const section = md.slice(md.indexOf(`### \`${name}\``)).split("\n### ")[0]!;
      expect(section).toContain("| `world_integrity` (hard) | 1/2");
      expect(section).toContain("| `task_completion` | 1/2");
    }
  });

  it("say what --invalid does with invalid trials: count (as failures, 0) or left out", () => {
    const experiments: Experiment[] = [
      {
        ...blankExperiment("g", "native-game", 2),
        accuracy: { value: 0.5, victories: 1, scored: 2, wilson95: [0.1, 0.9], interval: null, interval_reason: null },
        completion: { value: 1, completed: 2, scheduled: 2, interval: null, interval_reason: null },
      },
      {
        ...blankExperiment("w", "world", 2),
        pass: { passed: 1, total: 2, interval: null, interval_reason: null },
        dimensions: {},
      },
      {
        ...blankExperiment("h", "harbor", 2),
        states: { scored: 2 },
        rewards: {
          reward: {
            mean: 0.5,
            wilson95: [0.1, 0.9],
            coverage: 1,
            covered: 2,
            trials: 2,
            pass_rate: 0.5,
            pass_at_k: null,
            pass_at_k_reason: null,
            pass_hat_k: null,
            interval: null,
            interval_reason: null,
          },
        },
      },
    ];
    const md = (invalid: "count" | "exclude") =>
      renderText(
        "md",
        viewOf({
          format: "assay.results/1",
          run: { ...RUN, options: { ...RUN.options, invalid } },
          bundles: [],
          experiments,
        }),
        { details: true },
      );
    const count = md("count");
    expect(count).toContain("invalid trials count as non-victories");
    expect(count).toContain("every hard dimension and task_completion; invalid trials fail");
    expect(count).toContain("trials scored (invalid ones as 0)");
    expect(count).not.toContain("--invalid exclude)");
    const exclude = md("exclude");
    expect(exclude).toContain("invalid trials left out (--invalid exclude)");
    expect(exclude).toContain("every hard dimension and task_completion; invalid trials left out (--invalid exclude)");
    expect(exclude).toContain("trials scored (invalid ones left out: --invalid exclude)");
    expect(exclude).not.toMatch(/invalid trials fail|invalid ones as 0|count as non-victories/);
  });
});

describe("what a Harbor job claims", () => {
  it("is shown beside assay's figure, a claim assay does not compute says so, and many claims are capped", () => {
    const run: Results["run"] = {
      tool_version: "t",
      scoring_version: 1,
      started_at: "",
      complete: true,
      shard: null,
      roots: ["r"],
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
    const metrics: Record<string, number> = { "a/0/mean": 0.5, "a/pass_at_k/2": 0.75 };
    for (let i = 0; i < 12; i++) metrics[`b${i}/0/mean`] = i / 100;
    const job = {
      experiment: "job",
      profile: "harbor" as const,
      scheduled: 2,
      invalid: [],
      missing: [],
      excluded: [],
      unscored: [],
      flags: [],
      accuracy: null,
      raw_record: null,
      completion: null,
      retry: null,
      dimensions: null,
      pass: null,
      pass_hat_k: null,
      rewards: null,
      states: { scored: 2 },
      job: "r/job",
      job_id: null,
      exceptions: {},
      warnings: [],
      log: null,
      inspect: null,
      usage: null,
      identity: null,
      claimed: {
        source: "job result.json stats.evals",
        metrics,
        compared: [{ metric: "a/0/mean", claimed: 0.5, assay: 0.25, reason: "Harbor counts | x | <b>" }],
      },
    };
    const md = renderText("md", { format: "assay.results/1", run, bundles: [], experiments: [job] }, { details: true });
    expectSafe(md);
    expect(md).toContain("| Harbor's `a/0/mean` | 0.250 | Harbor counts \\| x \\| \\<b\\> | 0.500 |");
    expect(md).toContain("| Harbor's `a/pass_at_k/2` |  | not compared: assay computes no such figure | 0.750 |");
    expect(md).toContain("and 4 more figures the job claims");
  });
});

describe("advisory records", () => {
  it("are counted in a section of their own after the findings, and only when there are any", () => {
    const run: Results["run"] = {
      tool_version: "t",
      scoring_version: 1,
      started_at: "",
      complete: true,
      shard: null,
      roots: ["r"],
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
    const advisory = (outcome: "pass" | "fail", cached: boolean) => ({
      status: "analysed" as const,
      reason: null,
      analysis: "trial-legitimacy",
      rubric: "r",
      model: "m",
      cached,
      summary: null,
      rubric_digest: "d",
      evidence_digest: "e",
      provenance: null,
      outcomes: { reward_hacking: { outcome, explanation: "<img src=x>" } },
    });
    const entry = (path: string, a: ReturnType<typeof advisory> | null) => ({
      path,
      ...blankEntry({
        validity: "valid",
        errors: [],
        profile: "native-game",
        experiment: "x",
        trial: path,
        attempt: 1,
      }),
      advisory: a,
    });
    const md = renderText(
      "md",
      {
        format: "assay.results/1",
        run,
        experiments: [],
        bundles: [entry("r/a", advisory("fail", false)), entry("r/b", advisory("pass", true)), entry("r/c", null)],
      },
      { details: true },
    );
    const section = md.slice(md.indexOf("### Advisory"));
    expect(md.indexOf("### Advisory")).toBeGreaterThan(md.indexOf("### Findings"));
    expect(section).toContain("a model's judgement, which changes no figure above");
    expect(section).toContain(
      "2 analysed (1 from the cache), 0 not analysed; 1 trial with a failing or errored criterion",
    );
    expectSafe(md);
    expect(
      renderText(
        "md",
        { format: "assay.results/1", run, experiments: [], bundles: [entry("r/c", null)] },
        { details: true },
      ),
    ).not.toContain("Advisory");
  });
});

describe("evidence in Markdown is text", () => {
  const HOSTILE = [
    "| x |",
    "a`b``c",
    "`edge`",
    "<img src=x onerror=alert(1)>",
    "@everyone $x^2$ [link](http://e.test) **bold** _i_",
    "a\\|b",
    "esc\u001b[31mred\u202ertl",
    "a\nb",
    "ends\\",
    "\\\\|",
  ];

  it("a name is a code span whose fence outlasts its backticks; in a table only its pipes are escaped, so it reads as in a heading", () => {
    for (const s of HOSTILE) {
      expectSafe(`| h |\n|---|\n| ${mdName(s, true)} |`);
      expectSafe(`- ${mdName(s)}`);
    }
    expect(mdName("a`b``c")).toBe("```a`b``c```");
    expect(mdName("`edge`")).toBe("`` `edge` ``");
    expect(mdName("| x |", true)).toBe("`\\| x \\|`");
    // A cell, once GFM has read its pipes, holds the very code span a heading does: the name shows the same in both.
    for (const s of [...HOSTILE, "\u0001\\u0001", "x\\", "\\|", "a\\\\|b"])
      expect(cells(`| ${mdName(s, true)} |`)[0]!.trim(), s).toBe(mdName(s));
    expect(mdName("esc\u001b[31m\u202e")).toBe("`esc\\u001b[31m\\u202e`");
    expect(mdName("a\nb")).toBe("`a\\u000ab`"); // one line: a newline cannot end the table row
    // The checks above do catch what escaping prevents.
    expect(() => expectSafe("| h |\n|---|\n| | x | |")).toThrow();
    expect(() => expectSafe("| h |\n|---|\n| `a|b` |")).toThrow();
    for (const raw of ["<img src=x>", "[a](b)", "@team", "$x$", "a ` b"]) expect(() => expectSafe(raw)).toThrow();
  });

  it("prose has every ASCII punctuation mark escaped and its whitespace made one line", () => {
    for (const s of HOSTILE) expectSafe(`| h |\n|---|\n| ${mdText(s)} |`);
    expect(mdText("<img src=x>")).toBe("\\<img src\\=x\\>");
    expect(mdText("a\n\nb")).toBe("a b");
    expect(mdText("x".repeat(500)).length).toBeLessThan(170);
  });

  it("a Harbor job folder named as markup keeps the summary's tables whole (the CLI, end to end)", async () => {
    const root = join(tmp, "hostile");
    writeCorpus(root, { n: 4, seed: "md-hostile", faults: false, profile: "harbor" });
    const name = "| x | `tick` <img src=x onerror=alert(1)> @everyone";
    renameSync(join(root, "synth-harbor-job"), join(root, name));
    const r = await run(["score", root, "--format", "md", "--quiet", "--details"]);
    expect(r.code).toBe(0);
    expectSafe(r.stdout);
    expect(r.stdout).toContain("### ``| x | `tick` <img src=x onerror=alert(1)> @everyone`` · harbor");
  });
});
