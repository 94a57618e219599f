// Issue 23 item 1: the overview first. One line per experiment (kind, trials, headline figure and
// interval, coverage, the harness's claim and whether assay agrees, invalid, flags, cost), problems
// first, capped and saying how many it left out; the explanations once, in a legend; the table's
// per-experiment sections only with --details. The real Harbor jobs' overview fits a screen.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { blankExperiment, viewOf, type Experiment, type Results } from "../src/core/results.js";
import { FORMATS, renderText } from "../src/report/index.js";
import { MAX_ROWS, overview } from "../src/report/overview.js";
import { run } from "./helpers/cli.js";
import { SHARED_DIR } from "./helpers/shared.js";

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

const reward = (mean: number | null, covered: number, trials: number) => ({
  reward: {
    mean,
    wilson95: null,
    coverage: covered / trials,
    covered,
    trials,
    pass_rate: mean,
    pass_at_k: null,
    pass_at_k_reason: null,
    pass_hat_k: null,
    interval:
      mean === null
        ? null
        : { method: "cluster-t" as const, lo: 0.2, hi: 0.6, units: trials, clusters: 3, se: 0.1, design_effect: 1 },
    interval_reason: mean === null ? "no trial counted" : null,
  },
});
const usage = (cost: number | null) => ({
  spent: {
    entries: 4,
    costed: cost === null ? 0 : 4,
    input_tokens: 20_000,
    output_tokens: 500,
    cache_read_tokens: null,
    cost_usd: cost,
  },
  counted: { entries: 4, costed: 0, input_tokens: null, output_tokens: null, cache_read_tokens: null, cost_usd: null },
  successes: 1,
  cost_per_success: null,
});

function job(
  name: string,
  o: { mean?: number | null; claimed?: number; assay?: number | null; invalid?: number; cost?: number | null } = {},
): Experiment {
  const mean = o.mean === undefined ? 0.4 : o.mean;
  return {
    ...blankExperiment(name, "harbor", 12),
    states: { scored: 12 },
    rewards: reward(mean, mean === null ? 0 : 12, 12),
    invalid: Array.from({ length: o.invalid ?? 0 }, (_, i) => ({ trial: `t${i}`, codes: ["SCHEMA"] })),
    claimed:
      o.claimed === undefined
        ? null
        : {
            source: "job result.json",
            metrics: { "x/mean": o.claimed },
            compared: [
              {
                metric: "x/mean",
                claimed: o.claimed,
                assay: o.assay ?? null,
                reason: o.assay === o.claimed ? null : "Harbor counts errors as 0",
              },
            ],
          },
    usage: o.cost === undefined ? null : usage(o.cost),
  };
}
const doc = (experiments: Experiment[], errors: "exclude" | "zero" = "exclude") =>
  viewOf({ format: "assay.results/1", run: { ...RUN, options: { ...RUN.options, errors } }, bundles: [], experiments });

describe("the overview's rows (overview.ts)", () => {
  it("one row per experiment: the headline figure, its interval, trials in tasks, coverage, the claim and whether it agrees, invalid, cost", () => {
    const [row] = overview([job("a", { claimed: 0.4, assay: 0.4, cost: 1.5 })], { errors: "exclude" }).rows;
    expect(row).toMatchObject({
      experiment: "a",
      kind: "harbor",
      trials: 12,
      clusters: "in 3 tasks",
      metric: "reward",
      figure: "0.400",
      interval: "[0.200, 0.600]",
      coverage: "12/12",
      claim: "0.400",
      agreement: "agrees",
      invalid: 0,
      cost: "$1.50",
      problem: false,
    });
    expect(overview([job("b", { cost: null })], { errors: "exclude" }).rows[0]!.cost).toBe("20.5k tok");
  });

  it("problems first (a disputed claim, invalid trials), then kind, then name; capped, counting what it left out", () => {
    const ov = overview([job("c"), job("b", { claimed: 1, assay: 0 }), job("a"), job("d", { invalid: 2 })], {
      errors: "exclude",
      max: 3,
    });
    expect(ov.rows.map((r) => r.experiment)).toEqual(["b", "d", "a"]);
    expect(ov.rows[0]!.agreement).toBe("differs");
    expect(ov.omitted).toBe(1);
  });

  it("the legend says each explanation once, as --errors has it", () => {
    const exclude = overview([job("a"), job("b")], { errors: "exclude" }).legend;
    expect(exclude.filter((l) => l.includes("--errors zero counts them as 0"))).toHaveLength(1);
    expect(exclude.filter((l) => l.startsWith("95% intervals: cluster-robust t"))).toHaveLength(1);
    expect(overview([job("a")], { errors: "zero" }).legend.join("\n")).toContain("count as reward 0 (--errors zero)");
  });
});

describe("the table: the overview, and the sections with --details", () => {
  const text = (d: ReturnType<typeof doc>, details = false) => [...FORMATS.table.render(d, { details })].join("");

  it("shows one line per experiment and the legend once; the per-experiment sections only with --details", () => {
    const d = doc([job("alpha", { claimed: 0.4, assay: 0.4 }), job("beta", { claimed: 1, assay: 0 })]);
    const short = text(d);
    expect(short).toMatch(
      /^beta\s+harbor\s+12 in 3 tasks\s+reward 0\.400\s+\[0\.200, 0\.600\]\s+12\/12\s+1\.000 differs\s+0\s+0$/m,
    );
    expect(short).toMatch(/^alpha\s+harbor .* 0\.400 agrees/m);
    expect(short).not.toContain("job alpha");
    expect(short).toContain("--details");
    const long = text(d, true);
    expect(long).toContain("job alpha   profile harbor");
    expect(long).toContain("job beta   profile harbor");
    // Explained once for the document, not once per experiment.
    expect(long.split("left out of every mean").length - 1).toBe(1);
    expect(long.split("95% intervals:").length - 1).toBe(1);
  });

  it("stays bounded at 10,000 experiments and says how many it left out", () => {
    const many = Array.from({ length: 10_000 }, (_, i) => job(`job-${String(i).padStart(5, "0")}`));
    const short = text(doc(many));
    expect(short.split("\n").length).toBeLessThan(MAX_ROWS + 20);
    expect(short).toContain(`… and ${10_000 - MAX_ROWS} more experiments (--details or --format json for all)`);
    const md = renderText("md", doc(many), { details: true });
    const head = md.slice(0, md.indexOf("\n### "));
    expect(head.split("\n").length).toBeLessThan(MAX_ROWS + 20);
    expect(head).toContain(`… and ${10_000 - MAX_ROWS} more experiments`);
  });

  it("in Markdown: the overview table first, evidence names as code spans, then each experiment's table", () => {
    const md = renderText("md", doc([job("a|<b>", { claimed: 1, assay: 0, cost: 2 })]), { details: true });
    expect(md).toContain(
      "| experiment | kind | trials | figure | 95% interval | coverage | claim | invalid | flags | cost |",
    );
    expect(md).toContain(
      "| `a\\|<b>` | harbor | 12 in 3 tasks | `reward` **0.400** | \\[0.200, 0.600\\] | 12/12 | 1.000 **differs** | 0 | 0 | \\$2.00 |",
    );
    expect(md.indexOf("| experiment |")).toBeLessThan(md.indexOf("### `a|<b>` · harbor"));
    expect(md.split("**Legend**").length - 1).toBe(1);
  });
});

const JOBS = join(SHARED_DIR, "real-world", "harbor-jobs");

describe.skipIf(!existsSync(JOBS))("the 44 real Harbor jobs: an overview on one screen (issue 23's done-when)", () => {
  it("the table's overview is at most 60 lines on a 250-column screen (names whole, issue 40); --details adds the sections after it", async () => {
    const short = await run(["score", "-q", JOBS], { COLUMNS: "250" });
    expect(short.code).toBe(0);
    const lines = short.stdout.trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(60);
    expect(lines.filter((l) => / harbor /.test(l))).toHaveLength(44);
    const long = await run(["score", "-q", "--details", JOBS], { COLUMNS: "250" });
    // The same overview and legend first, then the sections.
    const overviewAndLegend = short.stdout.slice(0, short.stdout.indexOf("\n\n", short.stdout.indexOf("\nlegend\n")));
    // Compared as text, so a failure shows where the two differ (once seen in CI under load, not reproduced).
    expect(long.stdout.slice(0, overviewAndLegend.length)).toBe(overviewAndLegend);
    expect(short.stdout).toContain("findings     4 Harbor trials not valid: REWARD_FILE_MISSING 4");
    // Lone trials (in no job folder) are named with the folder they lie in, relative to the root.
    expect(short.stdout).toMatch(/^job@0813c23b in …[^ ]*\/evidence\/nop +nop +harbor /m);
    expect(long.stdout).toContain(
      "job job@0813c23b   profile harbor   1 trial   lone, in MenendezJuan--terminal-bench-2.1-tasks/tasks/docker-agent-strict-schema/evidence/nop\n",
    );
    expect(long.stdout.split("\n").length).toBeGreaterThan(400);
  });

  it("the Markdown overview, before the first experiment's section, is at most 60 lines", async () => {
    const md = await run(["score", "-q", "--format", "md", JOBS]);
    const head = md.stdout.slice(0, md.stdout.indexOf("\n### "));
    expect(head.split("\n").length).toBeLessThanOrEqual(60);
    expect(head.split("\n").filter((l) => l.includes("| harbor |"))).toHaveLength(44);
    // Lone trials with their folder, cut from the left: its last folders say most.
    expect(head).toMatch(/^\| `job@0813c23b` in `…[^`]*\/evidence\/nop` \| `nop` \| harbor \|/m);
  });
});
