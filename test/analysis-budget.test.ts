// Budgets for model requests (issue 7, item 1), against the fake Messages API with the real SDK:
// limits hold under concurrency (a worst case is reserved before each request), a run stops cleanly
// and says what it left, and everything answered stays in the cache for the next run.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { Budget } from "../src/analysis/budget.js";
import { run } from "./helpers/cli.js";
import { errorReply, FakeMessagesApi, toolUseReply } from "./helpers/fake-anthropic.js";
import { SCRATCH, scratch } from "./helpers/shared.js";

const TOOL = "record_assessment";
const CRITERIA = [
  "behaviour_specified",
  "behaviour_tested",
  "anti_cheating",
  "pinned_dependencies",
  "no_hardcoded_solution",
  "deterministic_tests",
];
const answer = {
  summary: "ok",
  criteria: Object.fromEntries(CRITERIA.map((c) => [c, { outcome: "pass", explanation: "checked" }])),
};

const fake = FakeMessagesApi.forTests();
const { dir: tmp } = scratch("assay-budget-", SCRATCH);
let n = 0;
beforeEach(() => {
  fake.requests.length = 0;
  // Slow answers: every reservation is decided while the first requests are still in flight.
  fake.fallback = {
    ...toolUseReply(TOOL, answer, { usage: { input_tokens: 1000, output_tokens: 200 } }),
    delayMs: 150,
  };
});

const tasks = (count: number) =>
  Array.from({ length: count }, (_, i) => {
    const dir = join(tmp, `set-${++n}`, `task-${i}`);
    mkdirSync(join(dir, "tests"), { recursive: true });
    writeFileSync(join(dir, "instruction.md"), `Task ${i}: write out.txt.\n`);
    writeFileSync(join(dir, "tests/test.py"), "def test(): pass\n");
    return dir;
  });
const env = (cache: string) => ({
  ANTHROPIC_API_KEY: "sk-ant-budget-test-key-000000",
  ANTHROPIC_BASE_URL: fake.url,
  ASSAY_CACHE: cache,
});
const check = (dirs: string[], cache: string, ...flags: string[]) =>
  run(["check-task", ...dirs, "--json", "--concurrency", "4", "--max-retries", "0", ...flags], env(cache));
type Out = {
  task: string;
  advisory: { status: string; reason: string | null; cached: boolean; provenance: { cost_usd: number | null } | null };
}[];

describe("--max-calls", () => {
  it("stops at the limit under concurrency, says what it left, and the next run picks up from the cache", async () => {
    const dirs = tasks(5);
    const cache = join(tmp, `c${++n}.sqlite`);
    const first = await check(dirs, cache, "--max-calls", "2");
    expect(fake.requests).toHaveLength(2);
    const out = JSON.parse(first.stdout) as Out;
    expect(out.filter((t) => t.advisory.status === "analysed")).toHaveLength(2);
    expect(out.filter((t) => t.advisory.reason === "budget reached (--max-calls 2)")).toHaveLength(3);
    expect(first.code).toBe(3); // a gate never passes on "not analysed"
    expect(first.stderr).toMatch(
      /2 analysed \(0 from the cache\); 3 left for a later run: budget reached \(--max-calls 2\)/,
    );
    const second = await check(dirs, cache, "--max-calls", "2");
    expect(fake.requests).toHaveLength(4);
    expect((JSON.parse(second.stdout) as Out).filter((t) => t.advisory.cached)).toHaveLength(2);
    const third = await check(dirs, cache, "--max-calls", "2");
    expect([fake.requests.length, third.code]).toEqual([5, 0]);
  });
});

describe("--max-cost", () => {
  it("never lets concurrent requests overshoot, and waits for them rather than giving up early", async () => {
    fake.fallback = {
      ...toolUseReply(TOOL, answer, { usage: { input_tokens: 5000, output_tokens: 8000 } }),
      delayMs: 150,
    };
    const dirs = tasks(6);
    const cache = join(tmp, `c${++n}.sqlite`);
    // Worst case per request ≈ (request bytes + 1000) × $3/M + 8192 × $15/M ≈ $0.153; each reply
    // really costs 5000 × $3/M + 8000 × $15/M = $0.135. Three fit under $0.50 (0.405); a fourth
    // would not (0.54). Under concurrency 4 the fourth waits for the first three, then is refused.
    const r = await check(dirs, cache, "--max-cost", "0.5", "--price", "claude-sonnet-5-5=3,15");
    expect(fake.requests).toHaveLength(3);
    const spent = Number(/([\d.]+) USD spent \(list prices as of/.exec(r.stderr)?.[1]);
    expect(spent).toBeCloseTo(3 * 0.135, 9);
    expect(spent).toBeLessThanOrEqual(0.5);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.filter((t) => t.advisory.reason === "budget reached (--max-cost 0.5 USD)")).toHaveLength(3);
    expect(out.find((t) => t.advisory.status === "analysed")!.advisory.provenance!.cost_usd).toBeCloseTo(0.135, 12);
  });

  it("the limit a run reaches does not depend on --concurrency", async () => {
    fake.fallback = {
      ...toolUseReply(TOOL, answer, { usage: { input_tokens: 5000, output_tokens: 8000 } }),
      delayMs: 50,
    };
    for (const c of ["1", "8"]) {
      fake.requests.length = 0;
      await check(
        tasks(6),
        join(tmp, `c${++n}.sqlite`),
        "--max-cost",
        "0.5",
        "--price",
        "claude-sonnet-5-5=3,15",
        "--concurrency",
        c,
      );
      expect(fake.requests, `--concurrency ${c}`).toHaveLength(3);
    }
  });

  it("a model with no known price cannot be held to a cost limit: a usage error, before any request", async () => {
    const r = await check(tasks(1), join(tmp, `c${++n}.sqlite`), "--max-cost", "1");
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringMatching(/no price is known for claude-sonnet-5-5: give --price/),
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it("a failed request keeps its worst case against the budget (it may have been charged)", () => {
    const b = new Budget({ maxCostUsd: 1 }, "m", new Map([["m", { input: 1, output: 1 }]]));
    const r = b.reserve(99_000, 100_000) as { worstUsd: number }; // $0.2 worst case (with the 1,000-token preamble)
    b.settle(r, r.worstUsd);
    expect(b.spentUsd).toBeCloseTo(0.2, 12);
    expect(b.reserve(499_000, 400_000)).toBe("no"); // 0.2 + 0.9 > 1
    const fits = b.reserve(299_000, 300_000); // 0.2 + 0.6 ≤ 1
    expect(fits).toMatchObject({ worstUsd: expect.closeTo(0.6, 12) });
    expect(b.reserve(199_000, 200_000)).toBe("wait"); // fits after the one in flight settles, not beside it
  });

  it("the worst case is the one docs/analyses.md states: (bytes + 1,000) × input + max_tokens × output, halved in a batch", () => {
    const b = new Budget({ maxCostUsd: 0.49 }, "m", new Map([["m", { input: 3, output: 15 }]]));
    expect(b.worst(40_000, 8192)).toBeCloseTo(0.24588, 12);
    expect(b.worst(40_000, 8192, 0.5)).toBeCloseTo(0.12294, 12);
    expect(b.reserve(40_000, 8192)).toMatchObject({ worstUsd: expect.closeTo(0.24588, 12) });
    expect(b.reserve(40_000, 8192)).toBe("wait"); // 0.49176 > 0.49: without the preamble it would have fitted
  });

  it.each(["x", "m=1", "m=1,b", "=1,2"])("--price %s is a usage error", async (spec) => {
    expect((await check(tasks(1), join(tmp, `c${++n}.sqlite`), "--price", spec)).code).toBe(2);
  });
});

afterAll(() => {
  fake.fallback = errorReply(500, "api_error", "no scripted reply");
});

describe("prices", () => {
  it("are those of the model asked for, even when the reply names a dated version of it", async () => {
    fake.fallback = toolUseReply(TOOL, answer, {
      model: "claude-sonnet-5-5-20261001",
      usage: { input_tokens: 1000, output_tokens: 100 },
    });
    const r = await check(tasks(1), join(tmp, `c${++n}.sqlite`), "--price", "claude-sonnet-5-5=3,15");
    const [t] = JSON.parse(r.stdout) as Out;
    expect(t!.advisory.provenance!.cost_usd).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 12);
  });
});
