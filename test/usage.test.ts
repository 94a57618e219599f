// What a run cost (contract §13.5): each Harbor trial's agent_result and each Inspect log's
// model_usage become the entry's `usage` (null where not recorded, never 0), and each experiment
// totals what every entry spent beside what its counted units spent, with cost per success. The
// totals below are counted by hand from the folders and logs this file writes.
//
// Workers run compiled code (dist/): build first.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { BundleEntry, Experiment, Results } from "../src/core/results.js";
import { inspectFileName, inspectLogBytes, type InspectSpec } from "../src/synth/inspect.js";
import { run } from "./helpers/cli.js";
import { float, writeJob, writeTrial, type TrialSpec } from "./helpers/harbor.js";
import { runsWithShared, SCRATCH, scratch, SHARED_DIR } from "./helpers/shared.js";

const DOCKER = { type: "RuntimeError", message: "Docker compose command failed: network not found" };
const agent = (
  n_input_tokens: number | null,
  n_cache_tokens: number | null,
  n_output_tokens: number | null,
  cost_usd: number | null,
) => ({
  agent_result: { n_input_tokens, n_cache_tokens, n_output_tokens, cost_usd, rollout_details: null, metadata: null },
});

/**
 * Job `spend` (key `reward`):
 *   won     reward 1   1000 in, 100 cache, 50 out, $0.10
 *   lost    reward 0   2000 in,   0 cache, 100 out, $0.20
 *   crashed infrastructure error (left out of the mean): 500 in, cache not recorded, 20 out, $0.05
 *   quiet   reward 1   agent_result all null: nothing recorded
 *   bad     reward 1 claimed, its reward.txt says 0 (REWARD_MISMATCH: invalid, counted as 0): 300 in, 0 cache, 30 out, $0.03
 * spent: all five; counted: won, lost, quiet, bad; successes: won and quiet (bad is invalid).
 */
const SPEND: TrialSpec[] = [
  { name: "won", task: "t1", rewards: { reward: float(1) }, extra: agent(1000, 100, 50, 0.1) },
  { name: "lost", task: "t2", rewards: { reward: float(0) }, extra: agent(2000, 0, 100, 0.2) },
  { name: "crashed", task: "t3", rewards: null, exception: DOCKER, extra: agent(500, null, 20, 0.05) },
  { name: "quiet", task: "t4", rewards: { reward: float(1) }, extra: agent(null, null, null, null) },
  {
    name: "bad",
    task: "t5",
    rewards: { reward: float(1) },
    rewardFiles: { "reward.txt": "0" },
    extra: agent(300, 0, 30, 0.03),
  },
];
/** Job `tokens-only`: tokens recorded, no cost anywhere: cost and cost per success null, never 0. */
const TOKENS_ONLY: TrialSpec[] = [
  { name: "a", task: "t1", rewards: { reward: float(1) }, extra: agent(10, 0, 5, null) },
  { name: "b", task: "t2", rewards: { reward: float(0) }, extra: agent(20, 0, 5, null) },
];
/** Job `no-wins`: a cost, no success: cost per success null. */
const NO_WINS: TrialSpec[] = [{ name: "a", task: "t1", rewards: { reward: float(0) }, extra: agent(10, 0, 5, 0.5) }];

const { dir: root } = scratch("assay-usage-", SCRATCH);
let harbor: Results;
let inspect: Results;

const score = async (args: string[]): Promise<Results> => {
  const r = await run(["score", ...args, "--format", "json", "--quiet"]);
  expect(r.code, r.stderr).toBeLessThan(3);
  return JSON.parse(r.stdout) as Results;
};
const exp = (doc: Results, name: string): Experiment => doc.experiments.find((e) => e.experiment === name)!;
const entry = (doc: Results, suffix: string): BundleEntry => doc.bundles.find((b) => b.path.endsWith(suffix))!;
const total = (
  entries: number,
  costed: number,
  input_tokens: number | null,
  output_tokens: number | null,
  cache_read_tokens: number | null,
  cost_usd: number | null,
) => ({
  entries,
  costed,
  input_tokens,
  output_tokens,
  cache_read_tokens,
  cost_usd: cost_usd === null ? null : expect.closeTo(cost_usd, 12),
});

/** An Inspect log of the synthesiser (.json), its samples' model_usage and its stats.model_usage set by `edit`. */
const inspectSpec = (over: Partial<InspectSpec>): InspectSpec => ({
  task: "arith",
  model: "m/x",
  case: "clean",
  samples: 4,
  epochs: 1,
  format: "json",
  method: 8,
  seed: "usage",
  offset: 0,
  ...over,
});
function writeLog(dir: string, spec: InspectSpec, edit: (log: any) => void): void {
  const log = JSON.parse(inspectLogBytes(spec).toString("utf8"));
  edit(log);
  writeFileSync(join(dir, inspectFileName(spec)), JSON.stringify(log));
}
const perSample = (input_tokens: number, output_tokens: number) => (log: any) => {
  for (const s of log.samples)
    s.model_usage = { "m/x": { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens } };
};

beforeAll(async () => {
  const jobs = join(root, "jobs");
  mkdirSync(jobs);
  writeJob(jobs, "spend", SPEND);
  writeJob(jobs, "tokens-only", TOKENS_ONLY);
  writeJob(jobs, "no-wins", NO_WINS);
  // A lone multi-step trial whose usage is recorded per step only (the helper gives each step 100 in, 0 cache, 10 out, $0.001).
  writeTrial(join(root, "lone", "steps__1"), {
    name: "steps__1",
    task: "s",
    rewards: { reward: float(1) },
    steps: [
      { name: "one", rewards: { reward: float(1) } },
      { name: "two", rewards: { reward: float(1) } },
    ],
    extra: { agent_result: null },
  });
  harbor = await score([jobs, join(root, "lone")]);

  const logs = join(root, "logs");
  mkdirSync(logs);
  // `summed`: stats.model_usage empty: the log spent its 4 samples' 40 in / 8 out each; no cache or cost recorded.
  writeLog(logs, inspectSpec({ task: "summed" }), (log) => {
    perSample(40, 8)(log);
    log.stats.model_usage = {};
  });
  // `stated`: stats.model_usage over two models wins over the samples': 1000 + 10 in, 100 + 1 out, 300 cache read, $0.50 (the judge records no cost).
  writeLog(logs, inspectSpec({ task: "stated" }), (log) => {
    perSample(1, 1)(log);
    log.stats.model_usage = {
      "m/x": {
        input_tokens: 1000,
        output_tokens: 100,
        total_tokens: 1100,
        input_tokens_cache_read: 300,
        total_cost: 0.5,
      },
      "judge/y": { input_tokens: 10, output_tokens: 1, total_tokens: 11 },
    };
  });
  // `chain`: an eval-retry chain, an errored log ($0.30) superseded by a success ($0.20): spent both, counted the success.
  const cost = (usd: number, input_tokens: number) => (log: any) => {
    log.stats.model_usage = {
      "m/x": { input_tokens, output_tokens: 1, total_tokens: input_tokens + 1, total_cost: usd },
    };
  };
  writeLog(
    logs,
    inspectSpec({ task: "chain", case: "retried-error", taskId: "CHAINchainCHAINchain22" }),
    cost(0.3, 30),
  );
  writeLog(
    logs,
    inspectSpec({ task: "chain", case: "retried-success", taskId: "CHAINchainCHAINchain22", offset: 60 }),
    cost(0.2, 20),
  );
  inspect = await score([logs]);
}, 120_000);

describe("Harbor (agent_result)", () => {
  it("each trial's entry carries its agent_result as recorded, null where not recorded (never 0)", () => {
    expect(entry(harbor, "/spend/won").usage).toEqual({
      input_tokens: 1000,
      output_tokens: 50,
      cache_read_tokens: 100,
      cost_usd: 0.1,
    });
    expect(entry(harbor, "/spend/crashed").usage).toEqual({
      input_tokens: 500,
      output_tokens: 20,
      cache_read_tokens: null,
      cost_usd: 0.05,
    });
    expect(entry(harbor, "/spend/quiet").usage).toEqual({
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cost_usd: null,
    });
  });
  it("a multi-step trial without a top-level agent_result sums its steps'", () => {
    expect(entry(harbor, "/steps__1").usage).toEqual({
      input_tokens: 200,
      output_tokens: 20,
      cache_read_tokens: 0,
      cost_usd: 0.002,
    });
  });
  it("spent counts every trial (the errored one too), counted only the trials in the mean; cost per success over valid wins", () => {
    const e = exp(harbor, "spend");
    expect(e.excluded.map((x) => x.trial)).toEqual(["crashed"]);
    expect(e.invalid.map((x) => x.trial)).toEqual(["bad"]);
    expect(e.usage).toEqual({
      spent: total(5, 4, 1000 + 2000 + 500 + 300, 50 + 100 + 20 + 30, 100 + 0 + 0, 0.1 + 0.2 + 0.05 + 0.03),
      counted: total(4, 3, 1000 + 2000 + 300, 50 + 100 + 30, 100, 0.1 + 0.2 + 0.03),
      successes: 2,
      cost_per_success: expect.closeTo((0.1 + 0.2 + 0.05 + 0.03) / 2, 12),
    });
  });
  it("tokens without a cost: cost and cost per success null, not 0; a cost without a success: cost per success null", () => {
    expect(exp(harbor, "tokens-only").usage).toEqual({
      spent: total(2, 0, 30, 10, 0, null),
      counted: total(2, 0, 30, 10, 0, null),
      successes: 1,
      cost_per_success: null,
    });
    expect(exp(harbor, "no-wins").usage).toMatchObject({
      spent: { cost_usd: 0.5 },
      successes: 0,
      cost_per_success: null,
    });
  });
});

describe("Inspect (model_usage)", () => {
  const log = (task: string) => inspect.bundles.find((b) => b.experiment?.startsWith(`${task} `))!;
  it("a log without stats.model_usage spent its samples' model_usage, summed (cache and cost not recorded: null)", () => {
    expect(log("summed").usage).toEqual({
      input_tokens: 160,
      output_tokens: 32,
      cache_read_tokens: null,
      cost_usd: null,
    });
  });
  it("stats.model_usage, summed over its models, is the log's usage", () => {
    expect(log("stated").usage).toEqual({
      input_tokens: 1010,
      output_tokens: 101,
      cache_read_tokens: 300,
      cost_usd: 0.5,
    });
  });
  it("an eval-retry chain: spent over both logs, counted over the one that decides", () => {
    const e = exp(inspect, "chain (m/x)");
    expect(e.flags.map((f) => f.code)).toEqual(["SUPERSEDED"]);
    expect(e.usage!.spent).toEqual(total(2, 2, 50, 2, null, 0.5));
    expect(e.usage!.counted).toEqual(total(1, 1, 20, 1, null, 0.2));
    // The deciding log's samples score C, I, C, I: accuracy 0.5 over 4, so 2 successes.
    expect(Object.entries(e.inspect!).find(([k]) => k.endsWith("/accuracy"))![1].value).toBe(0.5);
    expect(e.usage!.successes).toBe(2);
    expect(e.usage!.cost_per_success).toBeCloseTo(0.5 / 2, 12);
  });
});

describe("every format shows it", () => {
  let file: string;
  beforeAll(() => {
    file = join(root, "spend.json");
    writeFileSync(file, JSON.stringify(harbor));
  });
  const render = async (format: string) => {
    const r = await run(["score", join(root, "jobs"), "--format", format, "--quiet", "--details", "--width", "250"]);
    return r.stdout;
  };
  it("table and Markdown: one cost line per experiment, 'no cost recorded' rather than $0", async () => {
    const table = await render("table");
    expect(table).toContain(
      "  cost         spent: 5 trials, $0.38 (4 of 5 record a cost), tokens 3800 in / 200 out / 100 cache read · counted: 4 trials, $0.33 (3 of 4 record a cost), tokens 3300 in / 180 out / 100 cache read · $0.19 per success (2)",
    );
    expect(table).toContain(
      "spent (all counted): 2 trials, no cost recorded, tokens 30 in / 10 out / 0 cache read · cost per success: no cost recorded",
    );
    expect(table).toContain("cost per success: no success");
    const md = await render("md");
    expect(md).toContain(
      "**cost** (as recorded; never priced by assay): spent: 5 trials, \\$0.38 (4 of 5 record a cost)",
    );
  });
  it("JUnit: usage properties, a null left out", async () => {
    const xml = await render("junit");
    expect(xml).toContain('<property name="usage.spent.entries" value="5"/>');
    expect(xml).toContain('<property name="usage.successes" value="2"/>');
    expect(xml).toMatch(/<property name="usage\.spent\.cost_usd" value="0\.38\d*"\/>/);
    expect(xml).not.toMatch(/usage\.\w+\.cost_usd" value=""/);
  });
  it("HTML: cost spent, counted and per success as figures", async () => {
    const html = await render("html");
    expect(html).toMatch(
      /data-metric="usage:spent:cost_usd" data-value="0\.38\d*"><b>0\.380<\/b><span>cost spent, USD<\/span>/,
    );
    expect(html).toMatch(/data-metric="usage:cost_per_success" data-value="0\.19\d*"><b>0\.190<\/b>/);
    // tokens-only: no cost recorded is n/a, never 0
    expect(html).toMatch(
      /data-metric="usage:spent:cost_usd" data-value=""><b>n\/a<\/b><span>cost spent, USD<\/span><small>every entry, retried and superseded ones included: 2 trials, no cost recorded/,
    );
  });
  it("compare: each side's spend and cost per success beside the metrics, with no interval", async () => {
    const r = await run(["compare", file, file, "--width", "250"]);
    expect(r.stdout).toMatch(/^ {2}cost spent +\$0\.38 +\$0\.38$/m);
    expect(r.stdout).toMatch(/^ {2}cost per success +\$0\.19 +\$0\.19$/m);
    expect(r.stdout).toContain("a total, not an estimate: no interval");
    const json = JSON.parse((await run(["compare", file, file, "--format", "json"])).stdout);
    const spend = json.experiments.find((e: { base: string }) => e.base === "spend");
    expect(spend.usage.base.cost_per_success).toBeCloseTo(0.19, 12);
    expect(spend.usage.head).toEqual(spend.usage.base);
  });
  it("compare of three runs: each run's spend beside its ranking, in the ranking's order", async () => {
    // Three runs alike but for their start (one document given thrice is one run, never ranked against itself).
    const again = (n: number) => {
      const d = JSON.parse(readFileSync(file, "utf8"));
      for (const x of d.experiments)
        if (x.identity?.started_at)
          x.identity.started_at = x.identity.started_at.replace(/^\d{4}/, (y: string) => String(Number(y) + n));
      const out = file.replace(/\.json$/, `-${n}.json`);
      writeFileSync(out, JSON.stringify(d));
      return out;
    };
    const files = [file, again(1), again(2)];
    const r = await run(["compare", ...files, "--width", "250"]);
    expect(r.stdout).toMatch(/^ {2}run +cost spent +cost counted +cost per success +tokens spent$/m);
    // Each experiment's once (one reward key here): three runs, three rows.
    expect(r.stdout.match(/spend(-\d)?\.json +\$0\.38 +\$0\.33 +\$0\.19 +3800 in \/ 200 out$/gm)).toHaveLength(3);
    const json = JSON.parse((await run(["compare", ...files, "--format", "json"])).stdout);
    const spend = json.experiments.find((e: { experiment: string }) => e.experiment === "spend");
    expect(spend.usage.map((u: { run: string }) => u.run)).toEqual(
      spend.ranking.runs.map((x: { run: string }) => x.run),
    );
    expect(spend.usage[0].usage.spent.cost_usd).toBeCloseTo(0.38, 12);
  });
});

describe.runIf(runsWithShared(join(SHARED_DIR, "examples")))("real archives", () => {
  it("real Harbor trials and Inspect logs give the tokens (and cost) their files record", async () => {
    const canary = join(
      SHARED_DIR,
      "real-world/harbor-jobs/PeterMakhnatch--eval-lab/research/evidence/runs/canary-event-summary-codex-20260815",
    );
    expect(existsSync(canary)).toBe(true);
    const h = await score([canary]);
    // Each trial's result.json records tokens and cost_usd (e.g. 86942 in, 79360 cache, 877 out, $0.04156).
    expect(h.bundles.find((b) => b.path.endsWith("event-summary__EKfePmM"))!.usage).toEqual({
      input_tokens: 86942,
      output_tokens: 877,
      cache_read_tokens: 79360,
      cost_usd: 0.04156,
    });
    for (const b of h.bundles) expect(b.usage!.cost_usd).not.toBeNull();
    expect(h.experiments[0]!.usage!.spent.entries).toBe(3);
    const i = await score([join(SHARED_DIR, "real-world/inspect/2025-05-12T20-28-13-04-00_popularity.json")]);
    expect(i.bundles[0]!.usage).toMatchObject({ input_tokens: 192, output_tokens: 6 });
  });
});
